"""torch.ops.profiler (ember/ops/profiler.py): the record_function operator pair opens and
closes a profiler range, and torch.fx records and keeps the pair as torch does."""
import torch

import ember


def test_enter_exit_pair_labels_a_range():
    for lib in (torch, ember):
        with lib.autograd.profiler.profile() as prof:
            handle = lib.ops.profiler._record_function_enter("block")
            lib.relu(lib.ones(2))
            lib.ops.profiler._record_function_exit(handle)
        assert "block" in [event.key for event in prof.key_averages()]


def test_fx_records_and_keeps_the_pair_as_torch():
    codes = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, x):
                return lib.relu(x)

        class Tracer(lib.fx.Tracer):
            def trace(self, root, concrete_args=None):
                graph = super().trace(root, concrete_args)
                first = next(n for n in graph.nodes if n.op == "call_function")
                with graph.inserting_before(first):
                    enter = graph.call_function(lib.ops.profiler._record_function_enter,
                                                ("foo",))
                with graph.inserting_after(first):
                    graph.call_function(lib.ops.profiler._record_function_exit, (enter,))
                return graph
        tracer = Tracer()
        graph = tracer.trace(M())
        graph.eliminate_dead_code()
        codes.append(lib.fx.GraphModule(tracer.root, graph).code)
    assert codes[1] == codes[0]
