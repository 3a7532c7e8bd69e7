"""The scheduler base (ember/optim/_lr_base.py): get_lr outside step and stepping before the
optimizer warn as torch does; the optimizer and last_epoch checks raise torch's errors."""
import pytest
from _schedules import check_constructor_errors, optimizer, sched

import ember


def test_get_lr_outside_step_warns_and_order_warning():
    opt = optimizer(ember)
    sched = ember.optim.lr_scheduler.StepLR(opt, 3)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()



def test_constructor_errors_match_torch():
    check_constructor_errors([
        lambda L, o: sched(L).StepLR("not an optimizer", 3),
        lambda L, o: sched(L).StepLR(o, 3, last_epoch=5),
    ])
