"""ember.profiler (ember/profiler/__init__.py): schedule's actions, a scheduled profile's cycles and
on_trace_ready calls, activities, as torch.profiler's."""
import pytest
import torch
import torch.profiler

import ember
import ember.profiler


@pytest.mark.parametrize("kwargs", [dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1),
                                    dict(wait=0, warmup=0, active=1),
                                    dict(wait=2, warmup=1, active=3, repeat=2)])
def test_schedule_actions_match_torch(kwargs):
    ours = ember.profiler.schedule(**kwargs)
    theirs = torch.profiler.schedule(**kwargs)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def test_invalid_schedule_raises_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(AssertionError) as info:
            lib.profiler.schedule(wait=1, warmup=0, active=0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("repeat, steps", [(1, 6), (0, 9)])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_scheduled_cycles_report_like_torch(repeat, steps):
    seen = []
    for lib in (ember, torch):
        traces = []

        def ready(prof, traces=traces):
            traces.append({e.key: e.count for e in prof.key_averages()
                           if e.key in ("ProfilerStep*", "aten::mul")})
        schedule = lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=repeat)
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  schedule=schedule, on_trace_ready=ready) as prof:
            for i in range(steps):
                lib.ones(2) * i
                prof.step()
        seen.append(traces)
    assert seen[0] == seen[1]


def test_activities_and_record_function_name():
    assert ember.profiler.supported_activities() == {ember.profiler.ProfilerActivity.CPU}
    assert [a.name for a in ember.profiler.ProfilerActivity][:4] == \
        [a for a in torch.profiler.ProfilerActivity.__members__][:4]
    assert ember.profiler.record_function is ember.autograd.profiler.record_function
