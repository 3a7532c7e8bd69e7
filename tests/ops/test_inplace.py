"""In-place ops (ember/ops/inplace.py): values, autograd through them, and their errors."""
import warnings

import numpy as np
import pytest
import torch
from oracle import close, same_error

import ember

INPLACE = {
    "add_": lambda x: x.add_(2.0), "add_alpha": lambda x: x.add_(x.detach() * 0 + 1, alpha=3),
    "sub_": lambda x: x.sub_(1.5), "mul_": lambda x: x.mul_(3), "div_": lambda x: x.div_(4),
    "iadd": lambda x: x.__iadd__(1), "imul": lambda x: x.__imul__(2), "clamp_": lambda x: x.clamp_(-0.5, 0.5),
    "exp_": lambda x: x.exp_(), "tanh_": lambda x: x.tanh_(), "sigmoid_": lambda x: x.sigmoid_(),
    "relu_": lambda x: x.relu_(), "neg_": lambda x: x.neg_(), "pow_": lambda x: x.pow_(2),
    "abs_": lambda x: x.abs_(), "zero_": lambda x: x.zero_(), "fill_": lambda x: x.fill_(3.0),
    "masked_fill_": lambda x: x.masked_fill_(x > 0, 0.0), "sqrt_": lambda x: x.abs_().sqrt_(),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_values_and_gradients(name):
    data = np.random.default_rng(0).standard_normal((3, 4))
    res = []
    for lib in (ember, torch):
        leaf = lib.tensor(data, requires_grad=True)
        y = leaf * 1.5
        out = INPLACE[name](y)
        assert out is y
        (y * y).sum().backward()
        res.append((y, leaf.grad, type(y.grad_fn).__name__))
    close(res[0][:2], res[1][:2])
    assert res[0][2] == res[1][2]


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_without_grad(name):
    data = np.random.default_rng(1).standard_normal(5)
    e, t = ember.tensor(data), torch.tensor(data)
    INPLACE[name](e)
    INPLACE[name](t)
    close(e, t)
    assert e._version >= 1


def test_copy_under_autograd():
    res = []
    for lib in (ember, torch):
        src = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        dst = lib.zeros(2, 3)
        dst.copy_(src * 2)
        (dst * lib.tensor([[1.0], [2.0]])).sum().backward()
        res.append((dst, src.grad))
    close(res[0], res[1])


def test_inplace_type_errors():
    for call in (lambda L: L.tensor([1, 2]).div_(2), lambda L: L.tensor([1, 2]).add_(0.5),
                 lambda L: L.zeros(3).add_(L.zeros(2, 3))):
        with pytest.raises(RuntimeError) as te:
            call(torch)
        with pytest.raises(RuntimeError) as ee:
            call(ember)
        assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("write", [
    lambda L, t: t.exp_(), lambda L, t: t.mul_(2), lambda L, t: t.add_(L.ones(2, 3)),
    lambda L, t: t.copy_(L.ones(2, 3)), lambda L, t: t.clamp_(0, 1), lambda L, t: t.uniform_(),
    lambda L, t: t.index_add_(0, L.tensor([0]), L.ones(1, 3)), lambda L, t: t.sigmoid_(),
    lambda L, t: L.nn.functional.relu(t, inplace=True), lambda L, t: L.nn.init.normal_(t),
    lambda L, t: L.add(L.ones(2, 3), 1, out=t), lambda L, t: t.__setitem__(slice(None), 7.0),
    lambda L, t: t.__setitem__(Ellipsis, L.ones(3)),
    lambda L, t: t.__setitem__((slice(None), 0), 9.0)])
def test_writes_into_an_expanded_tensor_raise_torchs_overlap_error(write):
    """Elements sharing memory: torch's RuntimeError (NumPy's read-only ValueError leaked)."""
    caught = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            write(lib, lib.ones(1, 3).expand(2, 3))
        caught.append(str(info.value))
    assert caught[1] == caught[0]


def test_copy_of_a_non_broadcastable_source_names_the_sizes_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size "
                                               r"of tensor b \(4\) at non-singleton dimension 1"):
            lib.ones(2, 3).copy_(lib.ones(4))


_OVERLAP_WRITES = {
    "fill_": lambda L, t: t.fill_(5), "zero_": lambda L, t: t.zero_(),
    "setitem_int": lambda L, t: t.__setitem__(1, 7.0),
    "setitem_row": lambda L, t: t.__setitem__(2, L.tensor([4.0, 5.0])),
    "setitem_element": lambda L, t: t.__setitem__((0, 1), L.tensor(9.0)),
    "setitem_mask": lambda L, t: t.__setitem__(t > 4, 0.0),
    "setitem_conflict": lambda L, t: t.__setitem__((L.tensor([0, 1]), L.tensor([1, 1])),
                                                   L.tensor([5.0, 6.0])),
    "index_put_": lambda L, t: t.index_put_((L.tensor([0, 2]), L.tensor([0, 0])),
                                            L.tensor([7.0, 8.0])),
    "index_put_accumulate": lambda L, t: t.index_put_((L.tensor([0]), L.tensor([1])),
                                                      L.tensor(9.0), accumulate=True),
    "masked_fill_": lambda L, t: t.masked_fill_(L.tensor([[True, False], [False] * 2,
                                                          [False] * 2]), 0.0),
    "index_fill_": lambda L, t: t.index_fill_(1, L.tensor([0]), 3.0),
    "fill_diagonal_": lambda L, t: t.fill_diagonal_(0.0),
    "tril_": lambda L, t: t.tril_(), "triu_": lambda L, t: t.triu_(),
    "init.zeros_": lambda L, t: L.nn.init.zeros_(t),
    "init.constant_": lambda L, t: L.nn.init.constant_(t, 2.0),
}


@pytest.mark.parametrize("name", list(_OVERLAP_WRITES))
def test_writes_torch_allows_into_an_expanded_tensor_match_torch(name):
    """fill_, zero_, item assignment through a non-overlapping view, index_put_, masked_fill_,
    index_fill_, fill_diagonal_, tril_/triu_: torch writes into an expand()ed tensor (the last
    write to a shared location wins); ember refused every one."""
    got = []
    for lib in (torch, ember):
        base = (lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) * 1)[1:, 0:3:2]
        view = base.expand(3, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's deprecation warning for index_put_
            _OVERLAP_WRITES[name](lib, view)
        got.append((base.numpy().copy(), view.numpy().copy(), view._version))
    for e, t in zip(got[1], got[0]):
        np.testing.assert_array_equal(e, t)


PARTIAL = {
    "add_": lambda a, b: a.add_(b), "mul_": lambda a, b: a.mul_(b), "div_": lambda a, b: a.div_(b),
    "copy_": lambda a, b: a.copy_(b), "pow_": lambda a, b: a.pow_(b),
    "lerp_": lambda a, b: a.lerp_(b, 0.5), "addcmul_": lambda a, b: a.addcmul_(b, b),
    "clamp_": lambda a, b: a.clamp_(min=b), "lt_": lambda a, b: a.lt_(b),
    "iadd": lambda a, b: a.__iadd__(b), "itruediv": lambda a, b: a.__itruediv__(b),
    "index_add_": lambda a, b: a.index_add_(0, a.new_tensor([0, 1]).long(), b[:2]),
    "scatter_": lambda a, b: a.scatter_(0, a.new_tensor([0, 1]).long(), b[:2]),
    "put_": lambda a, b: a.put_(a.new_tensor([0, 1]).long(), b[:2]),
}


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_partly_overlapping_input_refused_as_torch(name):
    """x[1:].op_(x[:-1]): torch refuses an input that partly overlaps the tensor written (the
    result would depend on the order of the writes); ember computed NumPy's buffered result."""
    def call(lib):
        x = lib.arange(1.0, 7.0)
        PARTIAL[name](x[1:], x[:-1])
    same_error(call)


def test_item_assignment_and_transposed_copy_refused_as_torch():
    def shift(lib):
        x = lib.arange(6.0)
        x[1:] = x[:-1]

    def transposed(lib):
        x = lib.arange(9.0).view(3, 3)
        x.copy_(x.t())

    def transposed_mul(lib):
        x = lib.arange(9.0).view(3, 3)
        x.t().mul_(x)
    for call in (shift, transposed, transposed_mul):
        same_error(call)


def test_full_disjoint_and_strided_overlaps_run_as_torch():
    """The same elements (x.add_(x)), disjoint halves, strided slices (torch does not judge
    those), fills with one element of the tensor, item assignment across a row and a column:
    all run, with torch's values."""
    def run(lib):
        out = []
        x = lib.arange(6.0)
        x.add_(x)
        x[:3].add_(x[3:])
        y = lib.arange(6.0)
        y[::2].add_(y[1::2])
        z = lib.arange(6.0)
        z.fill_(z[2])
        w = lib.arange(9.0).view(3, 3)
        w[:, 0] = w[0]
        v = lib.arange(4.0)
        v.copy_(v.view(2, 2).view(4))
        out += [x.tolist(), y.tolist(), z.tolist(), w.tolist(), v.tolist()]
        return out
    assert run(ember) == run(torch)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_in_place_clamp_of_low_precision_backward_as_torch(dtype):
    """float16/bfloat16 clamp_ saves its float32 widening of the input: the in-place write no
    longer counts as modifying it (the backward raised a version error; float32 worked)."""
    grads = []
    for lib in (torch, ember):
        a = lib.ones(3, dtype=getattr(lib, dtype), requires_grad=True)
        b = a.clone() * lib.tensor([1.0, 0.3, -2.0]).to(getattr(lib, dtype))
        b.clamp_(0, 0.5)
        c = a.clone()
        c.clamp_min_(0.2)
        (b.sum() + c.mul_(3).sum()).backward()
        grads.append(a.grad.float().tolist())
    assert grads[0] == grads[1]


# ---------------------------------------------------------------- autograd misuse probe
_MULTI = {
    "split": lambda L, x: (x * 1).split(1)[0].mul_(2),
    "chunk": lambda L, x: (x * 1).chunk(3)[0].mul_(2),
    "unbind": lambda L, x: (x * 1).unbind(0)[2].add_(1),
    "unbind of a leaf": lambda L, x: x.unbind(0)[0].mul_(2),
    "split_with_sizes": lambda L, x: (x * 1).split([1, 2])[1].zero_(),
    "copy_ into split": lambda L, x: (x * 1).split(1)[0].copy_(L.ones(1)),
}


@pytest.mark.parametrize("name", sorted(_MULTI))
def test_in_place_on_an_output_of_a_multi_view_op_is_refused(name):
    # ember rebased the view's history; torch refuses (its autograd can't rebase one output
    # of several views)
    msgs = []
    for L in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            _MULTI[name](L, L.ones(3, requires_grad=True))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_multi_view_outputs_stay_writable_without_history():
    x = ember.ones(3, requires_grad=True)
    ember.ones(3).unbind(0)[0].mul_(2)  # no gradient anywhere
    (x * 1).unbind(0)[1].detach().mul_(2)
    (x * 1).tensor_split(2)[0].zero_()  # torch allows tensor_split's
    with ember.no_grad():
        (x * 1).unbind(0)[0].mul_(2)
    pieces = (x * 1).unbind(0)
    with ember.no_grad():
        pieces[0].mul_(2)


@pytest.mark.parametrize("make", [lambda L: L.ones(3)[:2], lambda L: L.ones(3, requires_grad=True)[:2],
                                  lambda L: L.ones(3, requires_grad=True).detach()[:2],
                                  lambda L: L.ones(3).view(3)])
def test_detach_in_place_of_a_view_is_refused(make):
    msgs = []
    for L in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            make(L).detach_()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    m = ember.nn.Linear(2, 1)
    m(ember.ones(1, 2)).sum().backward()
    m.zero_grad(set_to_none=False)  # (detaches only gradients with history, as torch)
    assert m.weight.grad.tolist() == [[0.0, 0.0]]


def test_assigning_a_gradient_of_another_dtype_names_torch_dtypes():
    msgs = []
    for L in (torch, ember):
        x = L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            x.grad = L.zeros(3, dtype=L.float16)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("chain", ["exp_", "sigmoid_", "tanh_", "relu_", "relu_inplace",
                                   "sigmoid_view", "dropout_after_relu"])
def test_an_in_place_result_kept_for_backward_refuses_a_later_write_as_torch(chain):
    """exp_/sigmoid_/relu_ keep their result for the backward in the tensor they wrote: a later
    in-place write makes backward() refuse with torch's message (ember kept a private copy and
    computed on)."""
    def run(lib):
        F = lib.nn.functional
        a = lib.tensor([0.3, -0.2, 0.9], requires_grad=True)
        x = a * 1.5
        y = {"exp_": lambda: x.exp_().mul_(2), "sigmoid_": lambda: x.sigmoid_().add_(1),
             "tanh_": lambda: x.tanh_().mul_(3), "relu_": lambda: x.relu_().mul_(2),
             "relu_inplace": lambda: F.relu(x, inplace=True).mul_(2),
             "sigmoid_view": lambda: x[1:].sigmoid_().add_(1),
             "dropout_after_relu": lambda: lib.nn.Sequential(
                 lib.nn.ReLU(inplace=True), lib.nn.Dropout(0.5, inplace=True))(x)}[chain]()
        y.sum().backward()
    messages = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        with pytest.raises(RuntimeError) as info:
            run(lib)
        messages.append(str(info.value).replace("torch.", "").replace("ember.", ""))
    assert messages[1] == messages[0]
