"""Workload 6: a small LSTM and a small Transformer-encoder training step, ember vs torch."""
import numpy as np
import torch
from _timing import HEADER, compare, row, sgd_step

import ember


def _copy_weights(e_model, t_model):
    state = {k: ember.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()}
    e_model.load_state_dict(state)


class _LSTMNet:
    @staticmethod
    def build(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = lib.nn.LSTM(16, 32, batch_first=True)
                self.head = lib.nn.Linear(32, 4)

            def forward(self, x):
                out, _ = self.lstm(x)
                return self.head(out[:, -1])
        return Net()


class _EncoderNet:
    @staticmethod
    def build(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = lib.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0,
                                                          batch_first=True)
                self.head = lib.nn.Linear(32, 4)

            def forward(self, x):
                return self.head(self.enc(x).mean(1))
        return Net()



def bench(builder, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, 4, shape[0])
    t_model = builder.build(torch)
    e_model = builder.build(ember)
    _copy_weights(e_model, t_model)
    e_step = sgd_step(ember, e_model, ember.tensor(x), ember.tensor(y))
    t_step = sgd_step(torch, t_model, torch.tensor(x), torch.tensor(y))
    return compare(e_step, t_step, repeats=9, inner=3)


def main():
    print(HEADER)
    e, t = bench(_LSTMNet, (32, 20, 16))
    print(row("LSTM(16->32), seq 20, batch 32, SGD step", e, t, "-"))
    e, t = bench(_EncoderNet, (32, 20, 32))
    print(row("TransformerEncoderLayer(d=32, 4 heads), seq 20, batch 32, SGD step", e, t, "-"))


if __name__ == "__main__":
    main()
