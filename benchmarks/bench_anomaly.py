"""Anomaly-mode overhead on a training step (3-layer MLP, batch 64), ember vs torch."""
import warnings

import numpy as np
import torch
from _timing import HEADER, compare, row

import ember


def _step_fn(lib, anomaly):
    rng = np.random.default_rng(0)
    sizes = [(32, 64), (64, 64), (64, 10)]
    params = []
    for i, o in sizes:
        params += [lib.tensor(rng.standard_normal((i, o)) * 0.1, dtype=lib.float32,
                              requires_grad=True),
                   lib.tensor(np.zeros(o), dtype=lib.float32, requires_grad=True)]
    x = lib.tensor(rng.standard_normal((64, 32)), dtype=lib.float32)
    y = lib.tensor(rng.standard_normal((64, 10)), dtype=lib.float32)

    def step():
        with lib.autograd.set_detect_anomaly(anomaly):
            h = x
            for k in range(0, len(params), 2):
                h = h @ params[k] + params[k + 1]
                if k < len(params) - 2:
                    h = h.tanh()
            loss = ((h - y) ** 2).mean()
            loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
    return step


def main():
    warnings.simplefilter("ignore")
    print(HEADER)
    times = {}
    for anomaly in (False, True):
        e, t = compare(_step_fn(ember, anomaly), _step_fn(torch, anomaly), repeats=41)
        times[anomaly] = (e, t)
        label = "on" if anomaly else "off"
        print(row(f"MLP training step, anomaly mode {label}", e, t, "-"))
    (e_off, t_off), (e_on, t_on) = times[False], times[True]
    print(f"| anomaly overhead (on/off) | {e_on / e_off:.2f}x | {t_on / t_off:.2f}x | "
          f"{(e_on / e_off) / (t_on / t_off):.2f} | ember's overhead <= torch's |")


if __name__ == "__main__":
    main()
