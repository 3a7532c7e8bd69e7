"""F.ctc_loss vs torch: padded and concatenated targets, lengths as tensors or tuples,
unbatched input, blank, reductions, zero_infinity, float32/64, gradients, torch's errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

PADDED = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 4, 4]])
INPUT_LENGTHS, TARGET_LENGTHS = (7, 5, 7), (3, 2, 3)


def _logits(shape=(7, 3, 5), seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _ctc(targets, input_lengths=INPUT_LENGTHS, target_lengths=TARGET_LENGTHS, as_tensors=False,
         **kw):
    def run(lib, x):
        lengths = [lib.tensor(v) if as_tensors else v for v in (input_lengths, target_lengths)]
        return lib.nn.functional.ctc_loss(x.log_softmax(-1), lib.tensor(targets), *lengths, **kw)
    return run


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_padded_targets(reduction, zero_infinity):
    check(_ctc(PADDED, reduction=reduction, zero_infinity=zero_infinity), _logits(),
          second=False)


def test_concatenated_targets_and_tensor_lengths():
    flat = np.array([1, 2, 2, 3, 1, 4, 4, 4])
    check(_ctc(flat, as_tensors=True, reduction="none"), _logits(), second=False)


@pytest.mark.parametrize("blank", [0, 2, 4])
def test_blank_index(blank):
    targets = np.array([[1, 3, 3], [0, 1, 2], [3, 2, 1]])
    targets[targets == blank] = (blank + 1) % 5
    check(_ctc(targets, (7, 7, 6), (3, 2, 1), blank=blank, reduction="none"), _logits(),
          second=False)


def test_gradient_of_log_probs_directly():
    """torch's gradient is that seen through a log_softmax: compared on log_probs themselves."""
    lp = np.log(np.random.default_rng(3).dirichlet(np.ones(5), size=(7, 3)))
    check(lambda lib, x: lib.nn.functional.ctc_loss(x, lib.tensor(PADDED), INPUT_LENGTHS,
                                                    TARGET_LENGTHS), lp, second=False)


def test_float32():
    check(_ctc(PADDED, reduction="sum"), _logits(dtype=np.float32), second=False, rtol=1e-5,
          atol=1e-5)


@pytest.mark.parametrize("lengths", [(np.array(6), np.array(3)), ((6,), (3,))])
def test_unbatched(lengths):
    def run(lib, x):
        return lib.nn.functional.ctc_loss(
            x.log_softmax(-1), lib.tensor([1, 2, 2]),
            *[lib.tensor(v) if isinstance(v, np.ndarray) else v for v in lengths],
            reduction="none")
    check(run, _logits((6, 4)), second=False, same_grad_fn=False)


def test_impossible_alignments_give_inf_and_nan_gradients_as_torch():
    """target longer than the input can hold: inf loss; its gradient is nan up to its input
    length (0 after); zero_infinity makes both zero."""
    check(_ctc(PADDED, (2, 5, 7), reduction="none"), _logits(), second=False)
    check(_ctc(PADDED, (2, 5, 7), reduction="mean", zero_infinity=True), _logits(),
          second=False)


def test_empty_target_and_empty_input():
    check(_ctc(PADDED, (0, 5, 0), (0, 2, 3), reduction="none"), _logits(), second=False)


def _call(**changes):
    args = dict(log_probs=lambda lib: lib.zeros(6, 2, 4), targets=lambda lib: lib.tensor(
        [[1, 2, 2], [3, 1, 0]]), input_lengths=lambda lib: (6, 5), target_lengths=lambda lib: (
        3, 2))
    args.update(changes)
    extra = args.pop("extra", {})
    return lambda lib: lib.nn.functional.ctc_loss(*[f(lib) for f in args.values()], **extra)


@pytest.mark.parametrize("call", [
    _call(input_lengths=lambda lib: (7, 5)),
    _call(input_lengths=lambda lib: (6, -1)),
    _call(target_lengths=lambda lib: (4, 2)),
    _call(target_lengths=lambda lib: (3, -1)),
    _call(targets=lambda lib: lib.tensor([1, 2, 2, 3])),
    _call(targets=lambda lib: lib.ones(1, 2, 3, dtype=lib.int64)),
    _call(input_lengths=lambda lib: (6,)),
    _call(target_lengths=lambda lib: (3,)),
    _call(target_lengths=lambda lib: lib.tensor([3.0, 2.0]),
          input_lengths=lambda lib: lib.tensor([6, 5])),
    _call(log_probs=lambda lib: lib.zeros(6, 2, 4, 1)),
    _call(log_probs=lambda lib: lib.zeros(6, 2, 4, dtype=lib.int32)),
    _call(extra=dict(blank=4)),
    _call(extra=dict(blank=-1)),
    _call(extra=dict(reduction="bad")),
])
def test_errors_as_torch(call):
    same_error(call)


def test_lengths_must_both_be_tensors_or_both_tuples():
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            _call(target_lengths=lambda lib: lib.tensor([3, 2]))(lib)


def test_out_of_range_labels_are_refused():
    with pytest.raises(IndexError, match="target label 5 is out of range for 4 classes"):
        ember.nn.functional.ctc_loss(ember.zeros(6, 1, 4), ember.tensor([[1, 5]]), (6,), (2,))
