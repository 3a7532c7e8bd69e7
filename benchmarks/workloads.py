"""Every timed workload, written once against a torch-like module ``torch``: the worker passes
``ember`` or ``torch`` (``import ember as torch`` style), so both frameworks run the same code.

A workload's setup builds model, data and optimizer and returns ``step``, the callable that is
timed. ``WORKLOADS`` lists them in the order of BENCHMARKS.md.
"""
from dataclasses import dataclass
from typing import Callable, Optional

from . import models

N_CHAIN = 150  # element-wise ops of the per-op chain; with the final sum, 151 graph nodes


@dataclass
class Workload:
    name: str                   # id for --only and the worker's command line
    title: str                  # the row's label in BENCHMARKS.md
    section: str
    setup: Callable             # setup(torch) -> step
    goal: Optional[float]       # ember/torch must be <= goal; None: informational row
    per: int = 1                # step time is divided by this (ops per chain)
    unit: str = "ms"


def _training_step(torch, model, inputs, target, optimizer, clip=None):
    """zero_grad, forward, cross-entropy, backward, (clip,) optimizer step."""
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), target)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
    return step


def _classifier(build, shape, optim="sgd_momentum"):
    def setup(torch):
        torch.manual_seed(0)
        model = build(torch)
        x, y = torch.randn(*shape), torch.randint(0, 10, (shape[0],))
        momentum = 0.9 if optim == "sgd_momentum" else 0.0
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=momentum)
        return _training_step(torch, model, x, y, opt)
    return setup


def gpt_train(torch):
    torch.manual_seed(0)
    model = models.gpt(torch)
    idx, targets = torch.randint(0, 65, (16, 64)), torch.randint(0, 65, (16, 64))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    def step():
        _, loss = model(idx, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def gpt_inference(torch):
    torch.manual_seed(0)
    model = models.gpt(torch).eval()
    idx = torch.randint(0, 65, (16, 64))

    def step():
        with torch.no_grad():
            model(idx)
    return step


def lstm_train(torch):
    torch.manual_seed(0)
    model = models.lstm_lm(torch)
    data, target = torch.randint(0, 1000, (35, 16)), torch.randint(0, 1000, (35 * 16,))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return _training_step(torch, model, data, target, opt, clip=0.25)


def encoder_train(torch):
    torch.manual_seed(0)
    model = models.encoder(torch)
    x, y = torch.randn(16, 64, 128), torch.randint(0, 10, (16,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return _training_step(torch, model, x, y, opt)


def tiny_mlp(torch):
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                          nn.Linear(32, 1))
    x, y = torch.randn(32, 16), torch.randn(32, 1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def dataloader_epoch(torch):
    from_data = torch.utils.data
    torch.manual_seed(0)
    dataset = from_data.TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    loader = from_data.DataLoader(dataset, batch_size=128, shuffle=True)

    def step():
        for _ in loader:
            pass
    return step


BLOCK = [(256, 512), (512,), (64, 512), (64,), (64,), (64,)]  # 6 tensors, ~164k elements
OPTIM_SHAPES = BLOCK * 30                                        # 180 tensors, ~4.9M elements


def _optimizer_step(name, **kwargs):
    """One optimizer step over 180 parameters with gradients (set once, kept between steps)."""
    def setup(torch):
        torch.manual_seed(0)
        params = [(torch.randn(*s) * 0.02).requires_grad_() for s in OPTIM_SHAPES]
        for p in params:
            p.grad = torch.randn(*p.shape) * 0.01
        opt = getattr(torch.optim, name)(params, **kwargs)
        opt.step()  # the first step creates the state
        return opt.step
    return setup


def _chain(torch):
    """Per-op overhead: one 64-float tensor through 150 scalar/unary ops and a sum, backward."""
    torch.manual_seed(0)
    x = torch.randn(64, requires_grad=True)

    def step():
        x.grad = None
        y = x
        for i in range(N_CHAIN // 5):
            y = (y * 1.01 + 0.5).tanh() - 0.25
            y = y.sigmoid() if i % 2 else -y
        y.sum().backward()
    return step


def _tensor_chain(torch):
    """The same chain with tensor operands (y*w, y+b, tanh, y-w, exp/relu)."""
    torch.manual_seed(0)
    x = torch.randn(64, requires_grad=True)
    w = (torch.randn(64) * 0.1 + 1).requires_grad_()
    b = (torch.randn(64) * 0.1).requires_grad_()

    def step():
        x.grad = w.grad = b.grad = None
        y = x
        for i in range(N_CHAIN // 5):
            y = (y * w + b).tanh() - w
            y = y.exp() if i % 2 else y.relu()
        y.sum().backward()
    return step


def _mlp_forward_backward(torch):
    torch.manual_seed(0)
    model = models.mlp(torch)
    x, y = torch.randn(128, 784), torch.randint(0, 10, (128,))
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        model.zero_grad()
        loss_fn(model(x), y).backward()
    return step


def _linear(torch):
    torch.manual_seed(0)
    x, w, b = torch.randn(128, 784), torch.randn(512, 784), torch.randn(512)
    return lambda: torch.nn.functional.linear(x, w, b)


def _cross_entropy(torch):
    torch.manual_seed(0)
    logits, target = torch.randn(128, 10, requires_grad=True), torch.randint(0, 10, (128,))
    return lambda: torch.nn.functional.cross_entropy(logits, target).backward()


def _softmax(torch):
    torch.manual_seed(0)
    x = torch.randn(128, 784)
    return lambda: torch.nn.functional.softmax(x, dim=1)


def _anomaly(on):
    """A hand-written 3-layer tanh MLP step (manual SGD) with anomaly detection on or off."""
    def setup(torch):
        import warnings
        warnings.simplefilter("ignore")  # anomaly mode warns that it is on
        torch.manual_seed(0)
        params = []
        for i, o in ((32, 64), (64, 64), (64, 10)):
            params += [(torch.randn(i, o) * 0.1).requires_grad_(),
                       torch.zeros(o, requires_grad=True)]
        x, y = torch.randn(64, 32), torch.randn(64, 10)

        def step():
            with torch.autograd.set_detect_anomaly(on):
                h = x
                for k in range(0, len(params), 2):
                    h = h @ params[k] + params[k + 1]
                    h = h.tanh() if k < len(params) - 2 else h
                ((h - y) ** 2).mean().backward()
            with torch.no_grad():
                for p in params:
                    p -= 0.01 * p.grad
                    p.grad = None
        return step
    return setup


W = Workload
WORKLOADS = [
    W("per_op", "per-op overhead, fwd+bwd, chain of 151 ops on 64 floats", "small", _chain,
      0.5, per=N_CHAIN + 1, unit="µs"),
    W("per_op_tensor", "per-op overhead, tensor operands (y*w, y+b, ...), 151 ops", "small",
      _tensor_chain, None, per=N_CHAIN + 1, unit="µs"),
    W("tiny_mlp", "tiny MLP 16-32-32-1, batch 32, Adam step", "small", tiny_mlp, 0.7),
    W("mlp", "MLP 784-512-256-10, b128, SGD momentum step", "models",
      _classifier(models.mlp, (128, 784)), 1.0),
    W("lenet", "LeNet-like CNN, 1x28x28, b64, SGD momentum step", "models",
      _classifier(models.lenet, (64, 1, 28, 28)), 1.0),
    W("cifar", "CIFAR-sized CNN (3 conv 32-64 ch + BatchNorm), 3x32x32, b32, SGD step",
      "models", _classifier(models.cifar_net, (32, 3, 32, 32), optim="sgd"), 1.0),
    W("gpt", "GPT-style char decoder (2 layers, C=128, T=64, b16), AdamW step", "models",
      gpt_train, 1.0),
    W("gpt_inference", "GPT-style char decoder, forward under no_grad (inference)", "models",
      gpt_inference, 1.0),
    W("lstm", "LSTM LM (emb 1000x64, 2x hidden 128, seq 35, b16), clip_grad_norm_, SGD step",
      "models", lstm_train, 1.0),
    W("encoder", "TransformerEncoderLayer (d=128, 4 heads, ff 512), seq 64, b16, SGD step",
      "models", encoder_train, 1.0),
    W("dataloader", "DataLoader epoch, shuffled TensorDataset 20k x 64, batch 128", "data",
      dataloader_epoch, 0.5),
    W("sgd", "SGD (nesterov, weight_decay) step, 180 params / 4.9M", "optim",
      _optimizer_step("SGD", lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4), 1.0),
    W("adam", "Adam step, 180 params / 4.9M", "optim", _optimizer_step("Adam", lr=1e-3), 1.0),
    W("adamw", "AdamW step, 180 params / 4.9M", "optim",
      _optimizer_step("AdamW", lr=1e-3, weight_decay=1e-2), 1.0),
    W("mlp_fwd_bwd", "MLP 784-512-256-10, b128, forward + backward", "primitives",
      _mlp_forward_backward, None),
    W("linear", "F.linear 128x784 @ 784x512 + bias, forward", "primitives", _linear, None,
      unit="µs"),
    W("cross_entropy", "F.cross_entropy 128x10, forward + backward", "primitives",
      _cross_entropy, None, unit="µs"),
    W("softmax", "F.softmax 128x784, forward", "primitives", _softmax, None, unit="µs"),
    W("anomaly_off", "MLP training step, anomaly mode off", "anomaly", _anomaly(False), None),
    W("anomaly_on", "MLP training step, anomaly mode on", "anomaly", _anomaly(True), None),
]
BY_NAME = {w.name: w for w in WORKLOADS}
