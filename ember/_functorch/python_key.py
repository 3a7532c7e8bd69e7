"""torch._functorch.python_key: make_fx (graph capture at the aten level), which ember does not
have (torch.fx's symbolic tracing it has: ember.fx.symbolic_trace)."""


def make_fx(f, *args, **kwargs):
    raise NotImplementedError("make_fx: ember has no aten-level graph capture; call the function "
                              "directly, or trace it with torch.fx.symbolic_trace")
