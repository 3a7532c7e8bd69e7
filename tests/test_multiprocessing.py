"""ember.multiprocessing: the standard module's names, the sharing strategies, and Hogwild-style
training where forked processes update a model in shared memory."""
import multiprocessing

import numpy as np
import pytest
import torch
import torch.multiprocessing as tmp

import ember
import ember.multiprocessing as emp


def test_reexports_the_standard_module():
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "get_context", "set_start_method",
                 "cpu_count", "Event", "Lock"):
        assert getattr(emp, name) is getattr(multiprocessing, name)
    assert set(tmp.__all__) - {"Pool"} <= set(emp.__all__) | set(dir(emp))


def test_sharing_strategies_as_torch():
    assert emp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert emp.get_sharing_strategy() == tmp.get_sharing_strategy()
    emp.set_sharing_strategy("file_system")
    try:
        assert emp.get_sharing_strategy() == "file_system"
    finally:
        emp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        emp.set_sharing_strategy("shm")


def _train(lib, model, steps):
    lib.manual_seed(1)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        x = lib.randn(8, 4)
        loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def _train_ember(model, steps):
    _train(ember, model, steps)


def test_forked_child_trains_the_parents_shared_model():
    """model.share_memory(), then a forked process trains it: the parent sees the child's
    updates (Hogwild), equal to torch training the same model in one process."""
    ember.manual_seed(0)
    model = ember.nn.Linear(4, 1).share_memory()
    assert model.weight.is_shared() and model.bias.is_shared()
    start = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    child = multiprocessing.get_context("fork").Process(target=_train_ember, args=(model, 5))
    child.start()
    child.join()
    assert child.exitcode == 0
    reference = torch.nn.Linear(4, 1)
    reference.load_state_dict({k: torch.from_numpy(v) for k, v in start.items()})
    _train(torch, reference, 5)
    np.testing.assert_allclose(model.weight.detach().numpy(), reference.weight.detach().numpy(),
                               rtol=1e-6, atol=1e-7)
    assert not np.array_equal(model.weight.detach().numpy(), start["weight"])


def test_without_share_memory_the_child_works_on_a_copy():
    model = ember.nn.Linear(4, 1)
    before = model.weight.detach().numpy().copy()
    child = multiprocessing.get_context("fork").Process(target=_train_ember, args=(model, 3))
    child.start()
    child.join()
    np.testing.assert_array_equal(model.weight.detach().numpy(), before)
