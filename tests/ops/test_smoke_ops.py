"""Smoke coverage: each core op's forward, gradient, second derivative and grad_fn vs torch."""
import numpy as np
import pytest
from oracle import check

r = np.random.default_rng(0)
a = r.standard_normal((3, 4))
b = r.standard_normal((4,))
p = r.random((3, 4)) + 0.5
CASES = {
 'add': (lambda L, x,y: x + y, a, b),
 'add_alpha': (lambda L, x,y: L.add(x, y, alpha=2.0), a, b),
 'sub': (lambda L, x,y: x - y, a, b),
 'rsub': (lambda L, x: 2 - x, a),
 'mul': (lambda L, x,y: x * y, a, b),
 'div': (lambda L, x,y: x / y, a, p[0]),
 'rdiv': (lambda L, x: 2 / x, p),
 'pow': (lambda L, x: x ** 3, a),
 'powt': (lambda L, x,y: x ** y, p, a),
 'rpow': (lambda L, x: 2 ** x, a),
 'exp': (lambda L, x: x.exp(), a), 'log': (lambda L, x: x.log(), p),
 'sqrt': (lambda L, x: x.sqrt(), p), 'rsqrt': (lambda L, x: x.rsqrt(), p),
 'sin': (lambda L, x: x.sin(), a), 'cos': (lambda L, x: L.cos(x), a),
 'tanh': (lambda L, x: x.tanh(), a), 'sigmoid': (lambda L, x: x.sigmoid(), a),
 'relu': (lambda L, x: x.relu(), a), 'abs': (lambda L, x: x.abs(), a),
 'log1p': (lambda L, x: x.log1p(), p), 'clamp': (lambda L, x: x.clamp(-0.5, 0.5), a),
 'sum': (lambda L, x: x.sum(), a), 'sumdim': (lambda L, x: x.sum(1, keepdim=True), a),
 'sumdims': (lambda L, x: x.sum((0,1)), a),
 'mean': (lambda L, x: x.mean(0), a), 'prod': (lambda L, x: x.prod(1), a), 'prodall': (lambda L, x: x.prod(), a),
 'max': (lambda L, x: x.max(), a), 'maxdim': (lambda L, x: x.max(1)[0], a), 'amax': (lambda L, x: x.amax(0), a),
 'min': (lambda L, x: x.min(dim=0).values, a),
 'var': (lambda L, x: x.var(1), a), 'std': (lambda L, x: x.std(), a), 'varc0': (lambda L, x: x.var(0, correction=0), a),
 'lse': (lambda L, x: x.logsumexp(1), a), 'norm': (lambda L, x: x.norm(), a), 'norm1': (lambda L, x: x.norm(p=1, dim=1), a),
 'mm': (lambda L, x,y: x @ y, a, a.T.copy()), 'mv': (lambda L, x,y: x @ y, a, b), 'dot': (lambda L, x,y: x @ y, b, b),
 'vm': (lambda L, x,y: x @ y, b, a.T.copy()),
 'bmm': (lambda L, x,y: x @ y, r.standard_normal((2,3,4)), r.standard_normal((2,4,5))),
 'bcast_mm': (lambda L, x,y: x @ y, r.standard_normal((2,3,4)), r.standard_normal((4,5))),
 'view': (lambda L, x: x.view(2, 6), a), 'reshape': (lambda L, x: x.reshape(-1), a),
 't': (lambda L, x: x.t(), a), 'T': (lambda L, x: x.T * 1, a), 'transpose': (lambda L, x: x.transpose(0,1), a),
 'permute': (lambda L, x: x.permute(2,0,1), r.standard_normal((2,3,4))),
 'expand': (lambda L, x: x.expand(3, 4), b), 'repeat': (lambda L, x: x.repeat(2, 1, 3), a),
 'flip': (lambda L, x: x.flip(0), a), 'squeeze': (lambda L, x: x.unsqueeze(1).squeeze(), a),
 'narrow': (lambda L, x: x.narrow(1, 1, 2), a), 'chunk': (lambda L, x: x.chunk(2, 1)[1], a),
 'cat': (lambda L, x,y: L.cat([x, y], 0), a, a), 'stack': (lambda L, x,y: L.stack([x, y], 1), a, a),
 'idx_slice': (lambda L, x: x[1:, ::2], a), 'idx_int': (lambda L, x: x[1], a),
 'idx_adv': (lambda L, x: x[[0, 0, 2]], a), 'idx_bool': (lambda L, x: x[x > 0], a),
 'gather': (lambda L, x: x.gather(1, L.tensor([[0,1],[1,1],[3,0]])), a),
 'index_select': (lambda L, x: x.index_select(1, L.tensor([0, 2, 2])), a),
 'where': (lambda L, x,y: L.where(x > 0, x, y), a, a * 2),
 'masked_fill': (lambda L, x: x.masked_fill(x > 0, 0.5), a),
 'maximum': (lambda L, x,y: L.maximum(x, y), a, b),
 'split': (lambda L, x: x.split([1, 3], 1)[1], a), 'unbind': (lambda L, x: x.unbind(0)[2], a),
 'flatten': (lambda L, x: x.flatten(), r.standard_normal((2,3,4))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)
