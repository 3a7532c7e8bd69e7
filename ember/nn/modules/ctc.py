"""CTCLoss: the connectionist temporal classification loss as a module."""
from .._functional_ctc import ctc_loss
from .loss import _Loss


class CTCLoss(_Loss):
    """-log p(target | input) over all CTC alignments (see F.ctc_loss), with ``blank``'s index,
    the reduction and whether infinite losses (impossible alignments) become zero."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)
