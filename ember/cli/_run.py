"""The `ember train` job: data split, model, optimizer, epochs, metrics, checkpoints, resume."""
import csv
import io
import json
import os
import sys
import time

import numpy as np

import ember
from ember._atomic import atomic_write

from ._args import UsageError

CHECKPOINT_FORMAT = "ember-train/1"
OUTPUTS = ("best.ckpt", "last.ckpt", "metrics.csv", "metrics.json", "curves.png")


def build_model(name, input_shape, n_classes):
    nn = ember.nn
    if name == "mlp":
        d = int(np.prod(input_shape))
        return nn.Sequential(nn.Flatten(), nn.Linear(d, 256), nn.ReLU(), nn.Linear(256, 128),
                             nn.ReLU(), nn.Linear(128, n_classes))
    if len(input_shape) != 3:
        raise UsageError(f"--model cnn needs images (N, H, W) or a square number of features; "
                         f"got samples of shape {tuple(input_shape)}")
    c, h, w = input_shape
    if h < 4 or w < 4:
        raise UsageError(f"--model cnn needs images of at least 4x4 pixels (it pools twice by 2); "
                         f"got {h}x{w}")
    return nn.Sequential(nn.Conv2d(c, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * (h // 4) * (w // 4), n_classes))


def build_optimizer(cfg, params):
    optim, lr, wd = ember.optim, cfg["lr"], cfg["weight_decay"]
    name = cfg["optimizer"]
    if name == "sgd":
        return optim.SGD(params, lr=lr, momentum=cfg["momentum"], weight_decay=wd)
    if name == "rmsprop":
        return optim.RMSprop(params, lr=lr, momentum=cfg["momentum"], weight_decay=wd)
    cls = {"adam": optim.Adam, "adamw": optim.AdamW, "adagrad": optim.Adagrad,
           "nadam": optim.NAdam, "radam": optim.RAdam, "adamax": optim.Adamax}[name]
    return cls(params, lr=lr, weight_decay=wd)


def build_scheduler(cfg, optimizer):
    s, epochs = ember.optim.lr_scheduler, cfg["epochs"]
    return {"none": lambda: None,
            "step": lambda: s.StepLR(optimizer, step_size=max(1, epochs // 3), gamma=0.1),
            "cosine": lambda: s.CosineAnnealingLR(optimizer, T_max=epochs),
            "exponential": lambda: s.ExponentialLR(optimizer, gamma=0.9)}[cfg["scheduler"]]()


def prepare_data(cfg, x, y):
    """Shape for the model, split train/val/test with the seed, standardize on train statistics."""
    if x.ndim == 2 and cfg["model"] == "cnn":
        side = int(round(np.sqrt(x.shape[1])))
        if side * side != x.shape[1]:
            raise UsageError(f"--model cnn needs a square number of features, got {x.shape[1]}")
        x = x.reshape(len(x), side, side)
    if x.ndim == 3:
        x = x[:, None]  # one channel
    n = len(x)
    n_test, n_val = int(n * cfg["test_fraction"]), int(n * cfg["val_fraction"])
    if min(n_test, n_val, n - n_test - n_val) < 1:
        raise UsageError(f"{n} samples are too few to split into train/validation/test")
    order = np.random.default_rng(cfg["seed"]).permutation(n)
    parts = {"test": order[:n_test], "val": order[n_test:n_test + n_val],
             "train": order[n_test + n_val:]}
    mean = x[parts["train"]].mean(axis=0)
    std = np.maximum(x[parts["train"]].std(axis=0), 1e-6)
    x = ((x - mean) / std).astype(np.float32)
    return {k: (ember.tensor(x[v]), ember.tensor(y[v])) for k, v in parts.items()}


def evaluate(model, x, y, batch=1024):
    model.eval()
    loss, correct = 0.0, 0
    with ember.no_grad():
        for i in range(0, len(x), batch):
            out = model(x[i:i + batch])
            loss += ember.nn.functional.cross_entropy(out, y[i:i + batch], reduction="sum").item()
            correct += int((out.argmax(1) == y[i:i + batch]).sum().item())
    return loss / len(x), correct / len(x)


def write_metrics(out, history, test=None, config=None):
    fields = ["epoch", "train_loss", "train_acc", "val_loss", "val_acc", "lr", "seconds",
              "samples"]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(history)
    atomic_write(os.path.join(out, "metrics.csv"), buf.getvalue())
    payload = {"config": config, "epochs": history, "test": test}
    atomic_write(os.path.join(out, "metrics.json"), json.dumps(payload, indent=2))


def plot_curves(out, history):
    """loss and accuracy per epoch as curves.png; returns a note when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: skipped curves.png (pip install matplotlib)"
    epochs = [h["epoch"] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, key in ((ax1, "loss"), (ax2, "acc")):
        ax.plot(epochs, [h[f"train_{key}"] for h in history], label="train")
        ax.plot(epochs, [h[f"val_{key}"] for h in history], label="validation")
        ax.set_xlabel("epoch")
        ax.set_ylabel({"loss": "cross-entropy loss", "acc": "accuracy"}[key])
        ax.legend()
    fig.tight_layout()
    try:
        atomic_write(os.path.join(out, "curves.png"), lambda f: fig.savefig(f, format="png",
                                                                           dpi=100))
    finally:
        plt.close(fig)
    return None


def _silent(*args, **kwargs):
    pass


class _NoBar:
    """Stands in for a tqdm bar when tqdm is absent: iterates, ignores postfix updates."""

    def __init__(self, iterable):
        self._iterable = iterable

    def __iter__(self):
        return iter(self._iterable)

    def set_postfix(self, *args, **kwargs):
        pass


_warned_no_tqdm = []


def _progress(loader, desc, quiet):
    """A tqdm progress bar over ``loader``; without tqdm, none (said once on stderr)."""
    try:
        from tqdm import tqdm
    except ImportError:
        if not quiet and not _warned_no_tqdm:
            _warned_no_tqdm.append(True)
            print("ember train: tqdm is not installed, so no progress bars (pip install tqdm); "
                  "per-epoch summaries follow", file=sys.stderr)
        return _NoBar(loader)
    return tqdm(loader, desc=desc, leave=False, unit="batch", disable=quiet or None,
                file=sys.stderr)


def _train_epoch(model, loader, optimizer, epoch, epochs, quiet):
    model.train()
    total_loss, correct, seen, start = 0.0, 0, 0, time.perf_counter()
    bar = _progress(loader, f"epoch {epoch}/{epochs}", quiet)
    for xb, yb in bar:
        out = model(xb)
        loss = ember.nn.functional.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(yb)
        correct += int((out.argmax(1) == yb).sum().item())
        seen += len(yb)
        rate = seen / max(time.perf_counter() - start, 1e-9)
        bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}",
                        samples_s=f"{rate:.0f}")
    return total_loss / seen, correct / seen, time.perf_counter() - start


class Run:
    """One training run: everything a checkpoint must hold to continue bit-identically."""

    def __init__(self, cfg, splits, n_classes, dist=None):
        self.cfg, self.splits, self.dist = cfg, splits, dist
        self.rank = dist.get_rank() if dist else 0
        ember.manual_seed(cfg["seed"])
        sample_shape = tuple(splits["train"][0].shape[1:])
        self.model = build_model(cfg["model"], sample_shape, n_classes)
        self.net = self.model  # what trains: the model, or its DistributedDataParallel wrapper
        self.optimizer = build_optimizer(cfg, self.model.parameters())
        self.scheduler = build_scheduler(cfg, self.optimizer)
        self.generator = ember.Generator().manual_seed(cfg["seed"])
        data = ember.utils.data
        train = data.TensorDataset(*splits["train"])
        self.sampler = None if dist is None else data.DistributedSampler(
            train, shuffle=True, seed=cfg["seed"])  # this rank's share, reshuffled each epoch
        self.loader = data.DataLoader(train, batch_size=cfg["batch_size"],
                                      shuffle=None if dist else True, sampler=self.sampler,
                                      generator=self.generator)
        self.epoch, self.history, self.best = 0, [], {"epoch": 0, "val_acc": -1.0}

    def state(self):
        return {"format": CHECKPOINT_FORMAT, "config": self.cfg, "epoch": self.epoch,
                "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict() if self.scheduler else None,
                "loader_rng": self.generator.get_state(), "global_rng": ember.get_rng_state(),
                "history": self.history, "best": self.best,
                "world_size": self.dist.get_world_size() if self.dist else 1}

    def restore(self, ckpt, where):
        try:
            self.model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            if self.scheduler is not None:
                self.scheduler.load_state_dict(ckpt["scheduler"])
            self.generator.set_state(ckpt["loader_rng"])
            ember.set_rng_state(ckpt["global_rng"])
        except (RuntimeError, KeyError, ValueError, TypeError, AttributeError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            raise UsageError(f"checkpoint '{where}' does not fit this model/data: "
                             f"{first}") from None
        self.epoch, self.history, self.best = ckpt["epoch"], ckpt["history"], ckpt["best"]
        if self.scheduler is not None and ckpt["config"]["epochs"] != self.cfg["epochs"]:
            self._replan()

    def _replan(self):
        """Put the schedule where a run planned for cfg['epochs'] from the start would be after
        this many epochs (step sizes and cosine lengths depend on the number of epochs): replay
        that run's schedule on a stand-in parameter."""
        stand_in = [ember.nn.Parameter(ember.zeros(1))]
        optimizer = build_optimizer(self.cfg, stand_in)
        scheduler = build_scheduler(self.cfg, optimizer)
        for _ in range(self.epoch):
            optimizer.step()  # no gradient: changes nothing, keeps the step order torch wants
            scheduler.step()
        self.scheduler.load_state_dict(scheduler.state_dict())
        for group, lr in zip(self.optimizer.param_groups, scheduler.get_last_lr()):
            group["lr"] = lr

    def fit(self, out, quiet=False, say=print):
        """Train the remaining epochs; under MPI every rank trains, rank 0 alone prints/writes."""
        cfg, lead = self.cfg, self.rank == 0
        say = say if lead else _silent
        if self.dist is not None and self.net is self.model:
            self.net = ember.nn.parallel.DistributedDataParallel(self.model)
        while self.epoch < cfg["epochs"]:
            self.epoch += 1
            lr = self.optimizer.param_groups[0]["lr"]
            if self.sampler is not None:
                self.sampler.set_epoch(self.epoch - 1)
            tl, ta, secs = _train_epoch(self.net, self.loader, self.optimizer, self.epoch,
                                        cfg["epochs"], quiet or not lead)
            tl, ta, n, secs = self._global_epoch(tl, ta, secs)
            vl, va = evaluate(self.model, *self.splits["val"])  # same weights on every rank
            if self.scheduler is not None:
                self.scheduler.step()
            self.history.append({"epoch": self.epoch, "train_loss": tl, "train_acc": ta,
                                 "val_loss": vl, "val_acc": va, "lr": lr, "seconds": secs,
                                 "samples": n})
            say(f"epoch {self.epoch:3d}/{cfg['epochs']}  train loss {tl:.4f} acc {ta:.4f}  "
                f"val loss {vl:.4f} acc {va:.4f}  lr {lr:.3g}  {n / secs:,.0f} samples/s")
            self._save(out, improved=va > self.best["val_acc"])
            if lead:
                write_metrics(out, self.history, config=cfg)
        test = self.finish(out, say) if lead else None
        if self.dist is not None:
            self.dist.barrier()  # the job ends once rank 0's outputs are complete
        return test

    def _global_epoch(self, loss, acc, secs):
        """The epoch's mean loss/accuracy and sample count over all ranks, and the slowest
        rank's seconds (this rank's numbers in a single process)."""
        n = len(self.loader.sampler)
        if self.dist is None:
            return loss, acc, n, secs
        sums = ember.tensor([loss * n, acc * n, float(n)], dtype=ember.float64)
        self.dist.all_reduce(sums)
        slowest = ember.tensor([secs], dtype=ember.float64)
        self.dist.all_reduce(slowest, op=self.dist.ReduceOp.MAX)
        total_loss, correct, n = sums.tolist()
        return total_loss / n, round(correct) / n, int(n), slowest.item()

    def _save(self, out, improved):
        if improved:
            self.best = {"epoch": self.epoch, "val_acc": self.history[-1]["val_acc"]}
        if self.rank != 0:  # checkpoints come from rank 0 only
            return
        state = self.state()
        if improved:
            ember.save(state, os.path.join(out, "best.ckpt"))
        ember.save(state, os.path.join(out, "last.ckpt"))

    def finish(self, out, say):
        """Test the best model, write the final metrics and curves."""
        tested = self.best["epoch"]
        if os.path.exists(os.path.join(out, "best.ckpt")):
            self.model.load_state_dict(ember.load(os.path.join(out, "best.ckpt"))["model"])
        else:  # resumed elsewhere without the best model's file, and no better epoch since
            tested = self.epoch
            say(f"best.ckpt (epoch {self.best['epoch']}) is not in {out}: testing the last "
                f"model (epoch {self.epoch})")
        test_loss, test_acc = evaluate(self.model, *self.splits["test"])
        test = {"loss": test_loss, "acc": test_acc, "best_epoch": tested,
                "samples": len(self.splits["test"][1])}
        write_metrics(out, self.history, test=test, config=self.cfg)
        note = plot_curves(out, self.history)
        if note:
            say(note)
        say(f"test accuracy {test_acc:.4f} (loss {test_loss:.4f}) with the best model "
            f"(epoch {tested}); outputs in {out}")
        return test


def outputs_complete(out, epoch):
    """Whether ``out`` holds the final outputs of a run of ``epoch`` epochs (a run killed after
    its last checkpoint but before these lacks some)."""
    try:
        with open(os.path.join(out, "metrics.json")) as f:
            metrics = json.load(f)
        done = metrics["test"] is not None and len(metrics["epochs"]) == epoch
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return done and (os.path.exists(os.path.join(out, "curves.png")) or _no_matplotlib())


def _no_matplotlib():
    try:
        import matplotlib  # noqa: F401  (an optional extra: only whether it is there)
    except ImportError:
        return True
    return False
