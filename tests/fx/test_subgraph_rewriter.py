"""fx.replace_pattern (ember/fx/subgraph_rewriter.py): every non-overlapping match replaced,
the code as torch writes it, results kept."""
import torch

import ember


def _rewrite(lib):
    class M(lib.nn.Module):
        def forward(self, x, w1, w2):
            m1 = lib.cat([lib.neg(w1), w2]).sum()
            m2 = lib.cat([lib.neg(w1), w2]).sum()
            return x + lib.max(m1) + lib.max(m2)

    def pattern(a1, a2):
        return lib.cat([lib.neg(a1), a2]).sum()

    def replacement(w1, w2):
        return lib.stack([w1, w2])
    traced = lib.fx.symbolic_trace(M())
    matches = lib.fx.replace_pattern(traced, pattern, replacement)
    return traced, matches


def test_replaces_as_torch():
    (ours, our_matches), (theirs, their_matches) = _rewrite(ember), _rewrite(torch)
    assert ours.code == theirs.code
    assert [m.anchor.name for m in our_matches] == [m.anchor.name for m in their_matches]
    x = [ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]), ember.tensor([5.0, 6.0])]
    t = [torch.tensor(v.tolist()) for v in x]
    assert ours(*x).tolist() == theirs(*t).tolist()


def _chained(lib):
    class M(lib.nn.Module):
        def forward(self, x, y):
            a = lib.add(x, y)
            b = lib.add(a, y)
            c = x.relu().neg() + b.relu().neg()
            return lib.add(c, 1), lib.add(b, a)

    def add(x, y):
        return lib.add(x, y)

    def mul(x, y):
        return lib.mul(x, y)

    def relu_neg(x):
        return x.relu().neg()

    def sigmoid(x):
        return lib.sigmoid(x)
    out = []
    for pattern, replacement in ((add, mul), (relu_neg, sigmoid)):
        gm = lib.fx.symbolic_trace(M())
        matches = lib.fx.replace_pattern(gm, pattern, replacement)
        out.append((gm.code, [sorted((k.name, str(v)) for k, v in m.nodes_map.items())
                              for m in matches],
                    [o.tolist() for o in gm(lib.ones(2), lib.ones(2))]))
    return out


def test_chained_matches_constants_and_methods_as_torch():
    assert _chained(ember) == _chained(torch)
