"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes, split into a frequent head and
clusters of rare classes reached through low-rank projections (Grave et al., 2017)."""
from collections import namedtuple

import numpy as np

import ember

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _check_cutoffs(cutoffs, n_classes):
    if len(cutoffs) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an "
                         "increasing order, where each value is between 1 and n_classes-1")


def _check_shapes(input, target):
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError("Input and target should have the same size in the batch "
                               "dimension.")
        if input.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs "
                               f"with size {input.size()}")
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs "
                               f"with size {input.size()}")
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


class AdaptiveLogSoftmaxWithLoss(Module):
    """log p(c | x): for c in the shortlist (c < cutoffs[0]) the head's log_softmax; for c in
    cluster i, head's log-probability of the cluster plus the cluster's own log_softmax over a
    projection of size in_features // div_value^(i+1). forward gives (output, loss): each
    target's log-probability and the mean negative log-likelihood."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, dtype=dtype),
                                        Linear(hidden, size, bias=False, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection, output in self.tail:
            projection.reset_parameters()
            output.reset_parameters()

    def forward(self, input_, target_):
        _check_shapes(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = (target_ if batched else target_.unsqueeze(0))._data.astype(np.int64)
        if target.size and (target.min() < 0 or target.max() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min()}, {target.max()}] were found. ")
        output = ember.zeros(target.shape[0], dtype=input.dtype)
        head_column = target.copy()  # the shortlist class, or the cluster's head entry
        for i, (low, high) in enumerate(zip(self.cutoffs[:-1], self.cutoffs[1:])):
            rows = np.flatnonzero((target >= low) & (target < high))
            if not rows.size:
                continue
            head_column[rows] = self.shortlist_size + i
            rows_t = ember.tensor(rows)
            cluster = F.log_softmax(self.tail[i](input.index_select(0, rows_t)), dim=1)
            local = cluster.gather(1, ember.tensor(target[rows] - low).unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows_t, local)
        head = F.log_softmax(self.head(input), dim=1)
        output = output + head.gather(1, ember.tensor(head_column).unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head = F.log_softmax(head_output, dim=1)
        parts = [head[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            parts.append(F.log_softmax(cluster(input), dim=1)
                         + head[:, self.shortlist_size + i].unsqueeze(1))
        return ember.cat(parts, dim=1)

    def log_prob(self, input):
        """log p(c | x) for every class c: (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row (log_prob(input).argmax(1), with the clusters
        computed only for rows whose head prefers a cluster)."""
        head_output = self.head(input)
        output = ember.argmax(head_output, dim=1)
        rare = np.flatnonzero(output._data >= self.shortlist_size)
        if rare.size:
            rows = ember.tensor(rare)
            full = self._full_log_prob(input.index_select(0, rows),
                                       head_output.index_select(0, rows))
            output[rows] = ember.argmax(full, dim=1)
        return output
