"""The autograd primitives of sparse COO tensors: their values in and out of dense form, and
the sparse x dense matrix product (forward and backward side by side)."""
import numpy as np

from ..autograd.graph import Node
from ..ops.indexing import IndexBackward0, IndexPutZerosBackward


class ToDenseBackward0(IndexPutZerosBackward):
    """dense = zeros(size) with values summed at indices;  dvalues = ddense[indices]."""


class CoalesceBackward0(IndexPutZerosBackward):
    """values of duplicate indices summed into one;  dvalues = dcoalesced[inverse]."""


class ToSparseBackward1(IndexBackward0):
    """values = dense[nonzero positions];  ddense = zeros with dvalues put there."""


class SparseCooTensorWithDimsAndTensorsBackward0(Node):
    """A sparse tensor's values taken as they are;  dvalues = g."""

    def forward(self, values):
        return values._data

    def backward(self, m, g):
        return (g,)


class SparseMm(Node):
    """out = S @ D, S sparse (rows, cols, values), D dense 2-D;  dvalues[k] = <g[rows[k]],
    D[cols[k]]>,  dD = S^T @ g (g[rows[k]] * values[k] summed at cols[k])."""

    def forward(self, values, dense, rows, cols, n_rows):
        v, d = values._data, dense._data
        self.rows, self.cols, self.dense_shape = rows, cols, d.shape
        self.save(values, dense)
        out = np.zeros((n_rows, d.shape[1]), dtype=np.result_type(v, d))
        np.add.at(out, rows, v[:, None] * d[cols])  # duplicates of an index add up
        return out

    def backward(self, m, g, v, d):
        gv = gd = None
        if self.next_functions[0][0] is not None:
            gv = m.sum(m.index(g, self.rows) * m.index(d, self.cols), -1)
        if self.next_functions[1][0] is not None:
            scaled = m.unsqueeze(v, -1) * m.index(g, self.rows)
            gd = m.index_into_zeros(scaled, tuple(self.dense_shape), self.cols, True)
        return gv, gd


class MmBackward0(SparseMm):
    """torch.mm / matmul / @ of a sparse and a dense matrix."""


class SparseAddmmBackward0(SparseMm):
    """torch.sparse.mm of a sparse and a dense matrix."""
