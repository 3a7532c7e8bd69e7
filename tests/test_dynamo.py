"""ember._dynamo: torch._dynamo's names around torch.compile, each leaving the code as written."""
import torch._dynamo as tdynamo

import ember
import ember._dynamo as edynamo


def test_names_as_torch():
    for name in edynamo.__all__:
        assert hasattr(tdynamo, name), name
    for name in ("suppress_errors", "cache_size_limit", "verbose", "capture_scalar_outputs",
                 "optimize_ddp"):
        assert getattr(edynamo.config, name) == getattr(tdynamo.config, name), name


def test_each_leaves_the_code_as_written():
    f = lambda x: x * 2  # noqa: E731
    assert edynamo.optimize("eager")(f) is f and edynamo.disable(f) is f
    assert edynamo.run(f) is f and edynamo.allow_in_graph(f) is f
    x = ember.ones(3)
    assert edynamo.mark_dynamic(x, 0) is None and edynamo.reset() is None
    assert edynamo.is_compiling() is False
    edynamo.config.suppress_errors = True
    try:
        assert ember._dynamo.config.suppress_errors is True
    finally:
        edynamo.config.suppress_errors = False
