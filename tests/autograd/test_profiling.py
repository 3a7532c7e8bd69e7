"""ember/autograd/_profiling.py (public as ember.autograd.profiler): the ops and blocks a profile
records, its key_averages and table, as torch.autograd.profiler's (times themselves differ)."""
import json

import torch

import ember
from ember.autograd import graph


def _loop_counts(lib):
    x, y = lib.randn(2, 3, requires_grad=True), lib.rand(2, 3, requires_grad=True)
    z = lib.ones(2, 3, requires_grad=True)
    with lib.autograd.profiler.profile() as prof:
        for _ in range(20):
            z = (z / x) * y
        with lib.autograd.profiler.record_function("block"):
            z.sum()
    counts = {e.key: e.count for e in prof.key_averages()}
    return prof, {k: counts[k] for k in ("aten::div", "aten::mul", "aten::sum", "block")}


def test_ops_and_blocks_are_counted_like_torch():
    (prof, ours), (_, theirs) = _loop_counts(ember), _loop_counts(torch)
    assert ours == theirs == {"aten::div": 20, "aten::mul": 20, "aten::sum": 1, "block": 1}
    block = next(e for e in prof.key_averages() if e.key == "block")
    assert 0 <= block.self_cpu_time_total <= block.cpu_time_total
    assert graph._observer is None and graph._anomaly_mode is False


def test_table_has_torch_columns_and_footer():
    tables = [_loop_counts(lib)[0].key_averages().table(sort_by="self_cpu_time_total")
              for lib in (ember, torch)]
    headers = [t.splitlines()[1].split("  ") for t in tables]
    assert [h.strip() for h in headers[0] if h.strip()] == \
        [h.strip() for h in headers[1] if h.strip()]
    assert tables[0].splitlines()[-1].startswith("Self CPU time total: ")
    rows = tables[0].splitlines()[3:-2]
    selfs = [float(r.split()[2].rstrip("mus")) for r in rows if r.split()[2].endswith("us")]
    assert selfs == sorted(selfs, reverse=True)


def test_record_function_as_decorator_and_without_a_profile():
    counts = []
    for lib in (ember, torch):
        @lib.autograd.profiler.record_function("decorated")
        def step():
            return lib.ones(1) + 1
        step()  # no profile running: nothing recorded, nothing raised
        with lib.autograd.profiler.profile() as prof:
            step()
            step()
        counts.append([e.count for e in prof.key_averages() if e.key == "decorated"])
    assert counts[0] == counts[1] == [2]


def test_chrome_trace_is_json_with_the_events(tmp_path):
    prof, _ = _loop_counts(ember)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    assert sum(e["name"] == "aten::div" for e in events) == 20


def test_profiling_backward_keeps_anomaly_checks_off_like_torch():
    grads = []
    for lib in (ember, torch):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with lib.autograd.profiler.profile():
            assert lib.is_anomaly_enabled() is False
            (x.sqrt() * 0).sum().backward()  # sqrt's gradient at 0 is inf: NaN, no error
        grads.append(str(x.grad.tolist()))
    assert grads[0] == grads[1] == "[nan, 0.0]"


def test_anomaly_mode_inside_a_profile_leaves_the_profile_watching():
    with ember.autograd.profiler.profile() as prof:
        with ember.autograd.set_detect_anomaly(True):
            ember.ones(2) * 2
        ember.ones(2) / 2
    assert {"aten::mul", "aten::div"} <= {e.key for e in prof.key_averages()}
