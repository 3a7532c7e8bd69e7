"""torch.cond: run one of two branch functions on the operands, chosen by a predicate (run
eagerly here: there is no graph compiler to capture both branches)."""
from .._tensor import Tensor


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; ``pred`` is a bool or a
    one-element tensor. Gradients flow through the branch that ran."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
        pred = bool(pred.item())
    return (true_fn if pred else false_fn)(*tuple(operands))
