"""Each fx test leaves ember unpatched: once its Proxies are collected, no public function is
still swapped for a recording stand-in (which would leak into the tests run after it)."""
import gc

import pytest

from ember.fx import _patch


@pytest.fixture(autouse=True)
def _no_patch_outlives_a_test():
    yield
    gc.collect()  # Proxies held in reference cycles (a caught exception's frames)
    assert _patch._holders == 0 and not _patch._installed
