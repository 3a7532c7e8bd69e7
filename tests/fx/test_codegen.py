"""fx's generated Python (ember/fx/_codegen.py): the source text torch writes for a traced
module (operators as syntax, torch.* names, frees of dead values) and what it computes."""
import torch

import ember

from ._models import net, small


def _code(lib, build):
    return lib.fx.symbolic_trace(build(lib)).code


def test_source_matches_torch():
    for build in (net, small):
        assert _code(ember, build) == _code(torch, build)


def test_graph_python_code_has_source_and_globals():
    for lib in (torch, ember):
        code = lib.fx.symbolic_trace(small(lib)).graph.python_code("self")
        assert code.src.startswith("\n\n\ndef forward(self, x):\n")
        assert code.globals["torch"] is lib


def test_a_hand_built_graph_prints_its_unused_values_freed():
    out = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        g.call_function(lib.relu, (x,))  # unused: freed on its own line
        g.output(g.call_function(lib.neg, (x,), {}))
        out.append(lib.fx.GraphModule(lib.nn.Module(), g).code)
    assert out[1] == out[0]
    assert "relu = torch.relu(x);  relu = None" in out[1]


def test_generated_forward_computes_the_eager_result():
    model = net(ember)
    traced = ember.fx.symbolic_trace(model)
    x = ember.randn(2, 3)
    for got, want in zip(traced(x), model(x)):
        assert got == want if isinstance(want, int) else ember.equal(got, want)


def test_in_place_operators_and_abs_as_torch():
    import operator
    seen = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(operator.iadd, (x, 1))
        g.call_function(operator.setitem, (a, 0, 5))
        g.output(g.call_function(operator.abs, (a,)))
        gm = lib.fx.GraphModule(lib.nn.Module(), g)
        seen.append((gm.code, str(gm.graph), gm(lib.zeros(3)).tolist()))
    assert seen[1] == seen[0]


def test_annotations_print_as_torch():
    from typing import Optional
    seen = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, x: lib.Tensor, n: int = 2,
                        k: Optional[lib.Tensor] = None) -> lib.Tensor:
                return x * n
        gm = lib.fx.symbolic_trace(M())
        seen.append((gm.code, str(gm.graph), gm(lib.ones(1)).tolist()))
    assert seen[1] == seen[0]


def test_native_functional_calls_print_as_torch():
    codes = []
    for lib in (torch, ember):
        F = lib.nn.functional

        class M(lib.nn.Module):
            def forward(self, x, w):
                return F.logsigmoid(F.gelu(F.linear(x, w))) + F.conv1d(x[None], w[..., None])
        gm = lib.fx.symbolic_trace(M())
        codes.append((gm.code, gm(lib.ones(2, 2), lib.ones(2, 2)).shape))
    assert codes[1] == codes[0] and "torch._C._nn.linear(x, w)" in codes[1][0]


def test_torch_functional_calls_print_as_torch():
    codes = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, x, y):
                return (lib.split(x, 2), lib.einsum("ij,jk->ik", x, y),
                        lib.tensordot(x, y, dims=1), lib.unique(x), lib.block_diag(x, y),
                        lib.meshgrid(x[0], y[0], indexing="ij"), lib.chunk(x, 2))
        gm = lib.fx.symbolic_trace(M())
        codes.append((gm.code, len(gm(lib.ones(4, 4), lib.ones(4, 4)))))
    assert codes[1] == codes[0] and "torch.functional.split(x, 2, dim = 0)" in codes[1][0]


def test_special_linalg_fft_calls_print_under_native_names_as_torch():
    codes = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, x):
                return (lib.linalg.norm(x), lib.fft.fft(x).real, lib.special.entr(x),
                        lib.linalg.vector_norm(x, 2))
        gm = lib.fx.symbolic_trace(M())
        codes.append((gm.code, [tuple(o.shape) for o in gm(lib.ones(4))]))
    assert codes[1] == codes[0] and "torch._C._fft.fft_fft(x)" in codes[1][0]
