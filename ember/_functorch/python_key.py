"""torch._functorch.python_key: make_fx (graph capture), which ember does not have."""


def make_fx(f, *args, **kwargs):
    raise NotImplementedError("make_fx: ember has no graph capture (torch.fx); call the function "
                              "directly")
