"""Shared test helper for layers: build the same module in ember and torch, copy torch's
weights into ember, and compare state_dict keys, outputs and gradients (input and parameters)."""
import numpy as np
import torch
from oracle import close

import ember


def copy_state(e_module, t_module):
    """Load torch's state (parameters and buffers) into the ember module."""
    state = {k: ember.tensor(v.detach().numpy().copy()) for k, v in t_module.state_dict().items()}
    e_module.load_state_dict(state)


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _outputs(item)]
    return [out] if out is not None else []


def check_module(make, *inputs, train=True, rtol=1e-6, atol=1e-8, calls=1, grad_inputs=True):
    """make(lib) -> module; inputs are NumPy arrays (float ones get gradients). Compares
    state_dict keys, outputs (flattened tuples), input gradients and parameter gradients."""
    t_mod, e_mod = make(torch), make(ember)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict()), "state_dict keys"
    copy_state(e_mod, t_mod)
    t_mod.train(train)
    e_mod.train(train)
    for _ in range(calls):
        wants = [grad_inputs and np.asarray(a).dtype.kind == "f" for a in inputs]
        t_in = [torch.tensor(a).requires_grad_(w) for a, w in zip(inputs, wants)]
        e_in = [ember.tensor(a, requires_grad=w) for a, w in zip(inputs, wants)]
        t_out, e_out = _outputs(t_mod(*t_in)), _outputs(e_mod(*e_in))
        close(e_out, t_out, rtol, atol, "forward")
        rng = np.random.default_rng(3)
        seeds = [rng.standard_normal(tuple(t.shape)) for t in t_out]
        t_loss = sum((t * torch.tensor(s, dtype=t.dtype)).sum() for t, s in zip(t_out, seeds)
                     if t.requires_grad)
        e_loss = sum((e * ember.tensor(s.astype(e.detach().numpy().dtype))).sum()
                     for e, s in zip(e_out, seeds) if e.requires_grad)
        t_mod.zero_grad()
        e_mod.zero_grad()
        if isinstance(t_loss, torch.Tensor):
            t_loss.backward()
            e_loss.backward()
        close([x.grad for x in e_in if x.requires_grad], [x.grad for x in t_in if x.requires_grad],
              rtol, atol, "input gradient")
        for (name, ep), (_, tp) in zip(e_mod.named_parameters(), t_mod.named_parameters()):
            close(ep.grad, tp.grad, rtol, atol, f"gradient of {name}")
    for (name, eb), (_, tb) in zip(e_mod.named_buffers(), t_mod.named_buffers()):
        close(eb, tb, rtol, atol, f"buffer {name}")
    return e_mod, t_mod


def rand(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def check_init_bounds(e_param, bound):
    """Values lie in [-bound, bound] and spread like U(-bound, bound)."""
    data = e_param.detach().numpy()
    assert np.abs(data).max() <= bound + 1e-7
    if data.size >= 100:  # too few values say little about the spread
        assert data.std() > bound / np.sqrt(3) * 0.8
