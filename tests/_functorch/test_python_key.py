"""torch._functorch.python_key: make_fx is absent from ember and says so."""
import pytest

from ember._functorch.python_key import make_fx


def test_make_fx_names_the_gap():
    with pytest.raises(NotImplementedError, match="graph capture"):
        make_fx(lambda x: x)
