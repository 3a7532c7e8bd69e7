"""Schedulers of ember/optim/lr_scheduler.py against torch: learning-rate (and momentum) sequences
over many steps, state_dict keys, save -> load -> continue, constructor errors."""
import pytest
from _schedules import (
    check_constructor_errors,
    check_save_load_continue,
    check_sequence,
    check_state_dict_keys,
    sched,
)

CASES = {
    "LambdaLR": lambda L, o: sched(L).LambdaLR(o, [lambda e: 0.97 ** e, lambda e: 1 / (1 + e)]),
    "MultiplicativeLR": lambda L, o: sched(L).MultiplicativeLR(o, lambda e: 0.95),
    "StepLR": lambda L, o: sched(L).StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda L, o: sched(L).MultiStepLR(o, milestones=[10, 30, 30, 80], gamma=0.3),
    "ConstantLR": lambda L, o: sched(L).ConstantLR(o, factor=0.25, total_iters=9),
    "LinearLR": lambda L, o: sched(L).LinearLR(o, start_factor=0.1, end_factor=0.9,
                                                total_iters=40),
    "ExponentialLR": lambda L, o: sched(L).ExponentialLR(o, gamma=0.97),
    "PolynomialLR": lambda L, o: sched(L).PolynomialLR(o, total_iters=50, power=1.7),
    "CosineAnnealingLR": lambda L, o: sched(L).CosineAnnealingLR(o, T_max=17, eta_min=0.001),
}


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name", list(CASES))
def test_sequence_matches_torch(name, kind):
    check_sequence(CASES[name], kind)


@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_keys_match_torch(name):
    check_state_dict_keys(CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_save_load_continue(name):
    check_save_load_continue(CASES[name])


def test_constructor_errors_match_torch():
    check_constructor_errors([
        lambda L, o: sched(L).LinearLR(o, start_factor=0),
        lambda L, o: sched(L).ConstantLR(o, factor=2.0),
        lambda L, o: sched(L).LambdaLR(o, [lambda e: 1.0]),
    ])
