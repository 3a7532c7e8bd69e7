"""Composite schedulers (ember/optim/_lr_compose.py: SequentialLR, ChainedScheduler,
ReduceLROnPlateau) against torch: sequences, state_dict keys, save -> load -> continue,
constructor errors; ReduceLROnPlateau inside SequentialLR and ChainedScheduler (beyond torch)."""
import pytest
import torch
from _schedules import (
    METRICS,
    STEPS,
    check_constructor_errors,
    check_save_load_continue,
    check_sequence,
    check_state_dict_keys,
    optimizer,
    sched,
)

import ember

CASES = {
    "SequentialLR": lambda L, o: sched(L).SequentialLR(
        o, [sched(L).LinearLR(o, start_factor=0.2, total_iters=10),
            sched(L).CosineAnnealingLR(o, T_max=40)], milestones=[12]),
    "ChainedScheduler": lambda L, o: sched(L).ChainedScheduler(
        [sched(L).ExponentialLR(o, gamma=0.98), sched(L).StepLR(o, step_size=9, gamma=0.5)]),
    "ReduceLROnPlateau": lambda L, o: sched(L).ReduceLROnPlateau(o, patience=3, factor=0.5,
                                                                  cooldown=2, min_lr=[0, 0.01]),
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
        lambda L, o: sched(L).ReduceLROnPlateau(o, factor=1.5),
        lambda L, o: sched(L).SequentialLR(o, [sched(L).StepLR(o, 2)], milestones=[3]),
    ])


def _plateau_reference(metrics_from, warm_steps):
    """torch: LinearLR warm-up, then a ReduceLROnPlateau created at the milestone."""
    opt = optimizer(torch)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=warm_steps)
    lrs = []
    plateau = None
    for i in range(STEPS):
        opt.step()
        if i + 1 < warm_steps:
            warm.step()
        else:
            if plateau is None:
                if i + 1 == warm_steps:
                    for g, base in zip(opt.param_groups, warm.base_lrs):
                        g["lr"] = base
                plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2)
            plateau.step(metrics_from[i])
        lrs.append([g["lr"] for g in opt.param_groups])
    return lrs


def test_plateau_inside_sequential_lr():
    opt = optimizer(ember)
    S = ember.optim.lr_scheduler
    sched = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.2, total_iters=5),
                                 S.ReduceLROnPlateau(opt, patience=2)], milestones=[5])
    lrs = []
    for i in range(STEPS):
        opt.step()
        sched.step(METRICS[i])
        lrs.append([g["lr"] for g in opt.param_groups])
        assert sched.get_last_lr() == lrs[-1]
    assert lrs == _plateau_reference(METRICS, 5)
    assert lrs[-1][0] < 0.1  # the plateau did reduce


def test_plateau_inside_chained_scheduler():
    opt = optimizer(ember)
    S = ember.optim.lr_scheduler
    chain = S.ChainedScheduler([S.ExponentialLR(opt, gamma=0.99),
                                S.ReduceLROnPlateau(opt, patience=2, factor=0.5)])
    t_opt = optimizer(torch)
    T = torch.optim.lr_scheduler
    t_exp, t_plateau = T.ExponentialLR(t_opt, gamma=0.99), T.ReduceLROnPlateau(t_opt, patience=2,
                                                                               factor=0.5)
    for i in range(STEPS):
        opt.step()
        t_opt.step()
        chain.step(METRICS[i])
        t_exp.step()
        t_plateau.step(METRICS[i])
        assert chain.get_last_lr() == [g["lr"] for g in t_opt.param_groups]
    with pytest.raises(TypeError, match="step\\(metrics\\)"):
        chain.step()
