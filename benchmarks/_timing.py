"""Shared timing helper: alternate ember and torch, repeat, take medians."""
import statistics
import time


def compare(ember_fn, torch_fn, repeats=15, inner=5, warmup=3):
    """Median seconds per call of each function, measured alternately in one process."""
    for _ in range(warmup):
        ember_fn()
        torch_fn()
    e_times, t_times = [], []
    for _ in range(repeats):
        for fn, out in ((ember_fn, e_times), (torch_fn, t_times)):
            start = time.perf_counter()
            for _ in range(inner):
                fn()
            out.append((time.perf_counter() - start) / inner)
    return statistics.median(e_times), statistics.median(t_times)


def row(name, e, t, goal, unit="ms", scale=1e3):
    """A markdown table row: workload, ember, torch, ratio, goal."""
    return f"| {name} | {e * scale:.3f} {unit} | {t * scale:.3f} {unit} | {e / t:.2f} | {goal} |"


HEADER = "| workload | ember | torch | ratio | goal |\n|---|---|---|---|---|"


def sgd_step(lib, model, x, y):
    """A closure running one SGD-momentum training step of ``model`` on (x, y) with ``lib``."""
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return step
