"""ember/storage.py (torch.storage): TypedStorage / UntypedStorage of tensors and their views
against torch 2.13: sizes, dtypes, data pointers shared with the tensor, element access,
writes landing in the tensor, is_set_to, and torch's deprecation warning for storage()."""
import subprocess
import sys
import warnings

import pytest
import torch

import ember


def _storage_facts(L):
    """What storage()/untyped_storage() say of a view, and that writing through one lands."""
    x = L.arange(6.).reshape(2, 3)
    v = x[:, 1:]
    s, u = v.storage(), v.untyped_storage()
    out = [type(s).__name__, s.size(), len(s), str(s.dtype).split(".")[1], str(s.device), s.element_size(), s.nbytes(), s.data_ptr() == x.data_ptr(), s.tolist(), s[1], s.is_shared(), s.is_pinned(),
           type(u).__name__, u.size(), len(u), u.nbytes(), u.element_size(), u.data_ptr() == x.data_ptr(), str(u.device), u[4], u.tolist()[:8], u.is_shared(),
           x.untyped_storage().data_ptr() == v.untyped_storage().data_ptr(), x.is_set_to(x), x.is_set_to(v), v.storage_offset(),
           s.clone().data_ptr() == s.data_ptr(), u[1:3].tolist(), L.ones(2, dtype=L.int64).view(L.int32).storage().tolist()]
    s[0] = 9.0
    out.append(x.tolist())
    out.append(repr(s).split("\n")[-1].replace("torch.float32", "F").replace("ember.float32", "F"))
    t = L.zeros(4)
    t.t()
    out.append(L.zeros(3, 4).t().storage().size())
    return out


def test_storages_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation (checked below)
        assert _storage_facts(ember) == _storage_facts(torch)


def test_typed_storage_warns_its_deprecation_once_as_torch():
    code = ("import warnings, {lib} as torch; warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    torch.ones(2).storage(); torch.ones(3).storage(); torch.ones(2).untyped_storage()\n"
            "print([str(x.message)[:40] for x in w])")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    assert outs[1] == outs[0] and "TypedStorage is deprecated" in outs[0]


def test_is_storage_as_torch():
    for lib in (torch, ember):
        x = lib.ones(2, 3)
        assert lib.is_storage(x.untyped_storage()) and not lib.is_storage(x)
        assert not lib.is_storage([1, 2])


@pytest.mark.parametrize("make", [lambda t: t.diagonal(), lambda t: t.unfold(-1, 2, 1),
                                  lambda t: t.permute(1, 2, 0)[None], lambda t: t[:, 1:, ::2][:, None],
                                  lambda t: t.as_strided((2,), (1,))])
def test_strided_views_report_their_base_storage(make):
    # a view NumPy builds through an interface holder (as_strided: diagonal, unfold, None
    # indexing of strided tensors) reported a copy as its storage (another data_ptr)
    for L in (torch, ember):
        t = L.arange(24.).reshape(2, 3, 4)
        v = make(t)
        assert v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        v.untyped_storage()  # (twice: nothing cached wrongly)
        assert v.untyped_storage().nbytes() == t.untyped_storage().nbytes()
