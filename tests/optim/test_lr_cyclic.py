"""Cyclic schedulers (ember/optim/_lr_cyclic.py: CyclicLR, CosineAnnealingWarmRestarts,
OneCycleLR) against torch: learning-rate and momentum sequences, state_dict keys, save -> load ->
continue, constructor errors."""
import pytest
from _schedules import (
    STEPS,
    check_constructor_errors,
    check_save_load_continue,
    check_sequence,
    check_state_dict_keys,
    sched,
)

CASES = {
    "WarmRestarts": lambda L, o: sched(L).CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2,
                                                                       eta_min=0.002),
    "CyclicLR": lambda L, o: sched(L).CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=7,
                                                step_size_down=11),
    "CyclicLR2": lambda L, o: sched(L).CyclicLR(o, 0.01, 0.1, step_size_up=5,
                                                 mode="triangular2"),
    "CyclicExp": lambda L, o: sched(L).CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="exp_range",
                                                 gamma=0.99),
    "OneCycleLR": lambda L, o: sched(L).OneCycleLR(o, max_lr=[0.5, 0.3], total_steps=STEPS),
    "OneCycle3": lambda L, o: sched(L).OneCycleLR(o, max_lr=0.5, epochs=12, steps_per_epoch=10,
                                                   anneal_strategy="linear", three_phase=True),
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
        lambda L, o: sched(L).CosineAnnealingWarmRestarts(o, T_0=0),
        lambda L, o: sched(L).OneCycleLR(o, max_lr=0.1),
    ])
