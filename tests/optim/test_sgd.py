"""SGD (ember/optim/sgd.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests)."""
from _table import table_tests

CASES = [
    ("SGD", dict(lr=0.01), 1),
    ("SGD", dict(lr=0.01, momentum=0.9), 2),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.3, weight_decay=0.01), 1),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.05), 2),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True, weight_decay=0.1), 1),
    ("SGD", dict(lr=0.01, weight_decay=0.1, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)


def test_steps_round_as_torchs_bit_for_bit():
    """torch's single-tensor SGD: grad.add(param, alpha=wd), buf.mul_(m).add_(grad, alpha=1-d),
    grad.add(buf, alpha=m) (Nesterov), param.add_(grad, alpha=-lr): each add with alpha one
    fused multiply-add (rounded once)."""
    import numpy as np
    import torch
    from oracle import wide_inputs

    import ember
    for dtype in (np.float32, np.float64):
        x = wide_inputs(dtype) * 0.01
        grads = [wide_inputs(dtype, seed=s) * 0.1 for s in (1, 2, 3)]
        for options in (dict(), dict(momentum=0.9, dampening=0.1, weight_decay=1e-2),
                        dict(momentum=0.8, nesterov=True, weight_decay=1e-3),
                        dict(weight_decay=5e-4, maximize=True)):
            results = []
            for lib in (ember, torch):
                p = lib.nn.Parameter(lib.tensor(x))
                opt = lib.optim.SGD([p], lr=0.1, **options)
                for g in grads:
                    p.grad = lib.tensor(g)
                    opt.step()
                results.append(p.detach().numpy())
            np.testing.assert_array_equal(*results)
