"""The __torch_function__ protocol against torch's: tensor subclasses keep their type through
ops (as torch's default), overrides see the public function (operators as their named method),
non-tensor objects with __torch_function__ take over a call, and the disabling contexts."""
import subprocess
import sys
import textwrap

import torch

import ember

PROBE = textwrap.dedent('''
    import sys, importlib, warnings
    warnings.simplefilter("ignore")
    torch = importlib.import_module(sys.argv[1])
    F = torch.nn.functional
    class Sub(torch.Tensor):
        pass
    x = torch.ones(2, requires_grad=True).as_subclass(Sub)
    y = x + 1
    print(type(y).__name__, type(y.grad_fn).__name__, x.is_leaf, x.requires_grad)
    print(type(torch.add(x, 1)).__name__, type(x.sum()).__name__, type(x.detach()).__name__,
          type(x[0]).__name__, type(x.tolist()).__name__, type(F.relu(x)).__name__,
          type(torch.cat([x, torch.ones(2)])).__name__, type(torch.ones(2) * x).__name__)
    print(type(torch.nn.Parameter(torch.ones(2)) + 1).__name__)
    class Log(torch.Tensor):
        calls = []
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})
    l = torch.ones(2).as_subclass(Log)
    r = torch.relu(l * 2).sum()
    print(Log.calls, type(r).__name__, r.item())
    class Meta:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("handled", func.__name__)
    print(torch.add(Meta(), 2), F.relu(Meta()))
    has_torch_function = torch.overrides.has_torch_function
    handle_torch_function = torch.overrides.handle_torch_function
    print(has_torch_function((l,)), has_torch_function((torch.ones(1),)))
    with torch._C.DisableTorchFunctionSubclass():
        print(type(l + 1).__name__)
    def myop(a):
        if has_torch_function((a,)):
            return handle_torch_function(myop, (a,), a)
        return a * 3
    print(myop(Meta()), myop(torch.ones(1)).tolist())
    class Scaled(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is torch.Tensor.add or func is torch.add:
                return "custom add"
            return super().__torch_function__(func, types, args, kwargs or {})
    s = torch.ones(2).as_subclass(Scaled)
    print(s.add(1), torch.add(s, 1), type(s.mul(2)).__name__)
    y.sum().backward()
    print(x.grad is None, type(torch.nn.Linear(2, 2)(x)).__name__)
''')


def _run(lib):
    """In a fresh process: defining a subclass turns the protocol on for the whole process."""
    out = subprocess.run([sys.executable, "-c", PROBE, lib], capture_output=True, text=True,
                         check=True)
    return out.stdout


def test_protocol_as_torch():
    assert _run("ember") == _run("torch")


def test_nothing_is_wrapped_until_a_foreign_subclass_exists():
    code = ("import ember; f = ember.add; m = ember.Tensor.add\n"
            "class P(ember.Tensor): pass\n"
            "print(ember.add is f, ember.Tensor.add is m)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]
    code = "import ember; f = ember.add; import ember.nn; print(ember.add is f)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["True"]


def test_default_is_torchs_rule():
    assert ember.Tensor.__torch_function__.__func__.__name__ == "default"
    assert torch.Tensor.__torch_function__ is not None
