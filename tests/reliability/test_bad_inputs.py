"""The bad-input catalogue: each case raises torch's exception type with a message naming the
shapes, dtypes or argument at fault, and leaves every object exactly as it was."""
import copy
import os
import pickle
import tempfile
import warnings

import numpy as np
import pytest
import torch

import ember

CASES = {}


def case(match, torch_match=True, torch_atomic=True):
    """Register ``fn(lib) -> (thunk, objects)``; ``match`` must be found in ember's message
    (and in torch's too, unless torch_match is False: then only the exception type is shared).
    torch_atomic=False: torch itself half-applies the call (ember must not)."""
    def register(fn):
        CASES[fn.__name__] = (fn, match, torch_match, torch_atomic)
        return fn
    return register


# ----------------------------------------------------------------- shapes
@case(r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)")
def matmul_2d(L):
    a, b = L.ones(2, 3, requires_grad=True), L.ones(4, 5)
    return (lambda: a @ b), [a, b]


@case(r"mat1 and mat2 shapes cannot be multiplied \(6x3 and 4x5\)")
def matmul_batched(L):
    a, b = L.ones(2, 3, 3), L.ones(4, 5)
    return (lambda: L.matmul(a, b)), [a, b]


@case(r"size mismatch, got input \(3\), mat \(3x4\)|inconsistent|mat2 shapes|size mismatch",
      torch_match=False)
def matmul_vector(L):
    a, b = L.ones(3, 4), L.ones(3)
    return (lambda: a @ b), [a, b]


@case(r"Expected size for first two dimensions of batch2 tensor to be: \[2, 4\] but got: "
      r"\[3, 4\]")
def bmm_batch(L):
    a, b = L.ones(2, 3, 4), L.ones(3, 4, 5)
    return (lambda: L.bmm(a, b)), [a, b]


@case(r"self must be a matrix")
def mm_3d(L):
    a, b = L.ones(2, 3, 4), L.ones(4, 5)
    return (lambda: L.mm(a, b)), [a, b]


@case(r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
      r"dimension 1")
def broadcast_add(L):
    a, b = L.ones(2, 3, requires_grad=True), L.ones(4)
    return (lambda: a + b), [a, b]


@case(r"The size of tensor a \(2\) must match the size of tensor b \(5\) at non-singleton "
      r"dimension 0")
def broadcast_mul(L):
    a, b = L.ones(2, 1), L.ones(5, 3)
    return (lambda: a * b), [a, b]


@case(r"Sizes of tensors must match except in dimension 0\. Expected size 3 but got size 4 "
      r"for tensor number 1 in the list")
def cat_shapes(L):
    a, b = L.ones(2, 3), L.ones(2, 4)
    return (lambda: L.cat([a, b])), [a, b]


@case(r"Tensors must have same number of dimensions: got 2 and 1")
def cat_ndim(L):
    a, b = L.ones(2, 3), L.ones(3)
    return (lambda: L.cat([a, b])), [a, b]


@case(r"torch.cat\(\): expected a non-empty list of Tensors")
def cat_empty(L):
    return (lambda: L.cat([])), []


@case(r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)")
def cat_dim(L):
    a = L.ones(2, 3)
    return (lambda: L.cat([a, a], dim=2)), [a]


@case(r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[3, 2\] "
      r"at entry 1")
def stack_shapes(L):
    a, b = L.ones(2, 3), L.ones(3, 2)
    return (lambda: L.stack([a, b])), [a, b]


@case(r"shape '\[4, -1\]' is invalid for input of size 6")
def view_size(L):
    a = L.ones(2, 3)
    return (lambda: a.view(4, -1)), [a]


@case(r"view size is not compatible with input tensor's size and stride")
def view_non_contiguous(L):
    a = L.ones(3, 4)
    return (lambda: a.t().view(12)), [a]


@case(r"only one dimension can be inferred")
def reshape_two_unknowns(L):
    a = L.ones(2, 3)
    return (lambda: a.reshape(-1, -1)), [a]


@case(r"The expanded size of the tensor \(4\) must match the existing size \(3\) at "
      r"non-singleton dimension 1")
def expand_size(L):
    a = L.ones(3)
    return (lambda: a.expand(2, 4)), [a]


@case(r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)")
def sum_dim(L):
    a = L.ones(2, 3, requires_grad=True)
    return (lambda: a.sum(3)), [a]


@case(r"index 5 is out of bounds for dimension 0 with size 3")
def index_out_of_range(L):
    a = L.ones(3, 2)
    return (lambda: a[5]), [a]


@case(r"tensors used as indices must be long, int, byte or bool tensors")
def float_index(L):
    a, i = L.ones(3), L.tensor([0.0, 1.0])
    return (lambda: a[i]), [a, i]


@case(r"split_with_sizes expects split_sizes to sum exactly to 4")
def split_sizes(L):
    a = L.ones(4, 2)
    return (lambda: a.split([1, 2])), [a]


@case(r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D")
def t_3d(L):
    a = L.ones(2, 2, 2)
    return (lambda: a.t()), [a]


# ----------------------------------------------------------------- dtypes
@case(r"[Oo]nly Tensors of floating point (and complex )?dtype can require gradients")
def int_requires_grad(L):
    return (lambda: L.tensor([1, 2], requires_grad=True)), []


@case(r"only Tensors of floating point dtype can require gradients")
def int_requires_grad_(L):
    a = L.arange(3)
    return (lambda: a.requires_grad_()), [a]


@case(r"gather\(\): Expected dtype int32/int64 for index")
def gather_index_dtype(L):
    a, i = L.ones(2, 3), L.tensor([[0, 1]], dtype=L.int16)
    return (lambda: a.gather(1, i)), [a, i]


@case(r"where expected condition to be a boolean tensor, but got a tensor with dtype Float"
      r"|where expected condition to be a boolean tensor", torch_match=True)
def where_condition(L):
    c, a = L.ones(3), L.zeros(3)
    return (lambda: L.where(c, a, a)), [c, a]


@case(r"masked_fill_? only supports boolean masks, but got mask with dtype "
      r"(torch|ember)\.float32|masked_fill_? only supports boolean masks", torch_match=True)
def masked_fill_mask(L):
    a = L.ones(3)
    return (lambda: a.masked_fill(L.ones(3), 0.0)), [a]


@case(r"result type Float can't be cast to the desired output type Long")
def inplace_int_float(L):
    a = L.arange(3)
    return (lambda: a.add_(1.5)), [a]


@case(r"Subtraction, the `-` operator, with two bool tensors is not supported")
def bool_subtraction(L):
    a = L.tensor([True, False])
    return (lambda: a - a), [a]


# ----------------------------------------------------------------- gradient misuse
@case(r"grad can be implicitly created only for scalar outputs")
def backward_non_scalar(L):
    a = L.ones(3, requires_grad=True)
    b = a * 2
    return (lambda: b.backward()), [a, b]


@case(r"Trying to backward through the graph a second time")
def backward_twice(L):
    a = L.ones(3, requires_grad=True)
    b = (a.exp() * a).sum()
    b.backward()
    return (lambda: b.backward()), [a]


@case(r"element 0 of tensors does not require grad and does not have a grad_fn")
def backward_no_grad(L):
    a = L.ones(3)
    b = a.sum()
    return (lambda: b.backward()), [a, b]


@case(r"Mismatch in shape: grad_output\[0\] has a shape of .*\[2\].* and output\[0\] has a "
      r"shape of .*\[3\]")
def backward_gradient_shape(L):
    a = L.ones(3, requires_grad=True)
    b = a * 2
    return (lambda: b.backward(L.ones(2))), [a, b]


@case(r"one of the variables needed for gradient computation has been modified by an inplace "
      r"operation: \[(torch|ember)\.FloatTensor \[3\]\], which is output 0 of Add, is "
      r"at version 1; expected version 0 instead")
def inplace_on_saved(L):
    a = L.ones(3, requires_grad=True)
    h = a * 2
    out = h.sin()
    h.add_(1)
    return (lambda: out.sum().backward()), [a, h]


@case(r"a leaf Variable that requires grad is being used in an in-place operation")
def inplace_on_leaf(L):
    a = L.ones(3, requires_grad=True)
    return (lambda: a.mul_(2)), [a]


@case(r"The differentiated Tensor at index 1 appears to not have been used in the graph")
def grad_unused(L):
    a, b = L.ones(2, requires_grad=True), L.ones(2, requires_grad=True)
    out = (a * 2).sum()
    return (lambda: L.autograd.grad(out, [a, b])), [a, b]


@case(r"you can only change requires_grad flags of leaf variables")
def requires_grad_non_leaf(L):
    a = L.ones(2, requires_grad=True)
    b = a * 2

    def thunk():
        b.requires_grad = False
    return thunk, [a, b]


@case(r"attempting to assign a gradient of size '\[4\]' to a tensor of size '\[3\]'")
def grad_assign_shape(L):
    a = L.ones(3, requires_grad=True)

    def thunk():
        a.grad = L.ones(4)
    return thunk, [a]


@case(r"a Tensor with 6 elements cannot be converted to Scalar")
def item_many(L):
    a = L.ones(2, 3)
    return (lambda: a.item()), [a]


@case(r"Can't call numpy\(\) on Tensor that requires grad\. Use tensor\.detach\(\)\.numpy\(\) "
      r"instead")
def numpy_requires_grad(L):
    a = L.ones(2, requires_grad=True)
    return (lambda: a.numpy()), [a]


# ----------------------------------------------------------------- nn
@case(r"mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)")
def linear_features(L):
    L.manual_seed(0)
    m, x = L.nn.Linear(4, 3), L.ones(2, 5)
    return (lambda: m(x)), [m, x]


@case(r"Given groups=1, weight of size \[8, 3, 3, 3\], expected input\[1, 4, 8, 8\] to have 3 "
      r"channels, but got 4 channels instead")
def conv_channels(L):
    m, x = L.nn.Conv2d(3, 8, 3), L.ones(1, 4, 8, 8)
    return (lambda: m(x)), [m, x]


@case(r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: "
      r"\[8, 8\]")
def conv_ndim(L):
    m, x = L.nn.Conv2d(3, 8, 3), L.ones(8, 8)
    return (lambda: m(x)), [m, x]


@case(r"Kernel size: \(5 x 5\)\. Kernel size can't be greater than actual input size")
def conv_kernel_too_big(L):
    m, x = L.nn.Conv2d(3, 8, 5), L.ones(1, 3, 3, 3)
    return (lambda: m(x)), [m, x]


@case(r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but got input of "
      r"size ?\[3, 5\]")
def layer_norm_shape(L):
    m, x = L.nn.LayerNorm(4), L.ones(3, 5)
    return (lambda: m(x)), [m, x]


@case(r"running_mean should contain 5 elements not 4", torch_atomic=False)
def batch_norm_features(L):
    m, x = L.nn.BatchNorm1d(4), L.ones(3, 5)
    return (lambda: m(x)), [m, x]


@case(r"index out of range in self")
def embedding_index(L):
    m, i = L.nn.Embedding(5, 2), L.tensor([1, 7])
    return (lambda: m(i)), [m, i]


@case(r"expected target dtype to be Long or Byte, but got Float")
def nll_float_target(L):
    x, y = L.zeros(3, 4, requires_grad=True), L.tensor([0.0, 1.0, 2.0])
    return (lambda: L.nn.functional.nll_loss(x, y)), [x, y]


@case(r"Target 5 is out of bounds\.")
def cross_entropy_class_range(L):
    x, y = L.zeros(3, 4, requires_grad=True), L.tensor([0, 5, 1])
    return (lambda: L.nn.functional.cross_entropy(x, y)), [x, y]


@case(r"Target -3 is out of bounds\.")
def nll_negative_class(L):
    x, y = L.zeros(3, 4), L.tensor([0, -3, 1])
    return (lambda: L.nn.functional.nll_loss(x, y)), [x, y]


@case(r"Expected input batch_size \(3\) to match target batch_size \(2\)")
def nll_batch_size(L):
    x, y = L.zeros(3, 4), L.tensor([0, 1])
    return (lambda: L.nn.functional.nll_loss(x, y)), [x, y]


@case(r'Error\(s\) in loading state_dict for Linear:\n\tMissing key\(s\) in state_dict: "bias"',
      torch_atomic=False)
def state_dict_missing_key(L):
    m = L.nn.Linear(4, 3)
    return (lambda: m.load_state_dict({"weight": L.zeros(3, 4)})), [m]


@case(r'Unexpected key\(s\) in state_dict: "extra"', torch_atomic=False)
def state_dict_unexpected_key(L):
    m = L.nn.Linear(4, 3)
    sd = {"weight": L.zeros(3, 4), "bias": L.zeros(3), "extra": L.zeros(1)}
    return (lambda: m.load_state_dict(sd)), [m]


@case(r"size mismatch for weight: copying a param with shape (torch|ember)\.Size\(\[2, 4\]\) "
      r"from checkpoint, the shape in current model is (torch|ember)\.Size\(\[3, 4\]\)",
      torch_atomic=False)
def state_dict_size_mismatch(L):
    m = L.nn.Linear(4, 3)
    return (lambda: m.load_state_dict({"weight": L.zeros(2, 4), "bias": L.zeros(3)})), [m]


# ----------------------------------------------------------------- optimizers
def _param(L):
    return L.ones(2, requires_grad=True)


@case(r"Invalid learning rate: -0\.1")
def sgd_negative_lr(L):
    return (lambda: L.optim.SGD([_param(L)], lr=-0.1)), []


@case(r"Invalid momentum value: -1")
def sgd_negative_momentum(L):
    return (lambda: L.optim.SGD([_param(L)], lr=0.1, momentum=-1)), []


@case(r"Invalid weight_decay value: -1")
def sgd_negative_weight_decay(L):
    return (lambda: L.optim.SGD([_param(L)], lr=0.1, weight_decay=-1)), []


@case(r"Nesterov momentum requires a momentum and zero dampening")
def sgd_nesterov_without_momentum(L):
    return (lambda: L.optim.SGD([_param(L)], lr=0.1, nesterov=True)), []


@case(r"Invalid beta parameter at index 0: 1\.5")
def adam_beta(L):
    return (lambda: L.optim.Adam([_param(L)], betas=(1.5, 0.9))), []


@case(r"Invalid epsilon value: -1")
def adam_epsilon(L):
    return (lambda: L.optim.Adam([_param(L)], eps=-1)), []


@case(r"optimizer got an empty parameter list")
def optimizer_empty(L):
    return (lambda: L.optim.SGD([], lr=0.1)), []


@case(r"optimizer can only optimize Tensors, but one of the params is int")
def optimizer_non_tensor(L):
    return (lambda: L.optim.SGD([1], lr=0.1)), []


@case(r"can't optimize a non-leaf Tensor")
def optimizer_non_leaf(L):
    p = _param(L)
    return (lambda: L.optim.SGD([p * 2], lr=0.1)), [p]


@case(r"some parameters appear in more than one parameter group")
def optimizer_duplicate_group(L):
    p = _param(L)
    opt = L.optim.SGD([p], lr=0.1)
    return (lambda: opt.add_param_group({"params": [p]})), [opt, p]


def _stepped(L, params, **kw):
    opt = L.optim.SGD(params, lr=0.1, momentum=0.9, **kw)
    for p in opt.param_groups[0]["params"]:
        p.grad = L.ones_like(p)
    opt.step()
    return opt


@case(r"loaded state dict has a different number of parameter groups")
def optimizer_state_groups(L):
    p = _param(L)
    opt = _stepped(L, [p])
    other = L.optim.SGD([{"params": [_param(L)]}, {"params": [_param(L)]}], lr=0.5)
    state = other.state_dict()
    return (lambda: opt.load_state_dict(state)), [opt, p]


@case(r"loaded state dict contains a parameter group that doesn't match the size of optimizer's "
      r"group")
def optimizer_state_group_size(L):
    p = _param(L)
    opt = _stepped(L, [p])
    state = _stepped(L, [_param(L), _param(L)]).state_dict()
    return (lambda: opt.load_state_dict(state)), [opt, p]


@case(r"The size of tensor a \(5\) must match the size of tensor b \(2\) at non-singleton "
      r"dimension 0", torch_atomic=False)
def optimizer_state_wrong_shape(L):
    """A loaded state that doesn't fit: torch updates p1, then fails on p2; ember moves nothing."""
    p1, p2 = L.ones(3, requires_grad=True), L.ones(2, requires_grad=True)
    opt = L.optim.Adam([p1, p2], lr=0.1)
    for p in (p1, p2):
        p.grad = L.ones_like(p)
    opt.step()
    state = opt.state_dict()
    state["state"][1]["exp_avg"] = L.zeros(5)
    opt.load_state_dict(state)
    return (lambda: opt.step()), [p1, p2, opt]


# ----------------------------------------------------------------- checkpoints
def _tmp(name):
    return os.path.join(tempfile.mkdtemp(prefix="ember-bad-"), name)


class _Evil:
    """Unpickling this runs code: a checkpoint loader must refuse it."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@case(r"pickle|Weights only load failed", torch_match=False)
def checkpoint_pickle(L):
    path, sentinel = _tmp("evil.pt"), _tmp("ran")
    with open(path, "wb") as f:
        f.write(pickle.dumps(_Evil(sentinel)))

    def thunk():
        try:
            L.load(path)
        finally:
            assert not os.path.exists(sentinel), "loading executed code from the checkpoint"
    return thunk, []


@case(r"truncated", torch_match=False)
def checkpoint_truncated(L):
    path = _tmp("ckpt.pt")
    L.save({"w": L.ones(64)}, path)
    blob = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(blob[: len(blob) // 2])
    return (lambda: L.load(path)), []


@case(r"corrupt|not a safetensors", torch_match=False)
def checkpoint_corrupt_header(L):
    path = _tmp("ckpt.pt")
    L.save({"w": L.ones(64)}, path)
    blob = bytearray(open(path, "rb").read())
    blob[:16] = b"\x07garbage-head\x00\x01"
    with open(path, "wb") as f:
        f.write(bytes(blob))
    return (lambda: L.load(path)), []


@case(r"No such file or directory: '.*absent.pt'")
def checkpoint_missing(L):
    return (lambda: L.load(_tmp("absent.pt"))), []


@case(r"size mismatch for weight: copying a param with shape (torch|ember)\.Size\(\[3, 4\]\) "
      r"from checkpoint, the shape in current model is (torch|ember)\.Size\(\[3, 5\]\)",
      torch_atomic=False)
def checkpoint_wrong_model(L):
    path = _tmp("model.pt")
    L.save(L.nn.Linear(4, 3).state_dict(), path)
    model = L.nn.Linear(5, 3)
    return (lambda: model.load_state_dict(L.load(path))), [model]


# ----------------------------------------------------------------- the checks
def snapshot(obj):
    """Everything observable about an object that a failed call must not change."""
    if hasattr(obj, "_data") or isinstance(obj, torch.Tensor):
        data = obj._data if hasattr(obj, "_data") else obj.detach().numpy()
        grad = obj.grad if obj.is_leaf or obj.retains_grad else None
        grad = None if grad is None else np.array(grad._data if hasattr(grad, "_data")
                                                  else grad.numpy())
        return ("tensor", np.array(data), tuple(obj.shape), str(obj.dtype), obj.requires_grad,
                obj._version, obj.grad_fn, None if grad is None else grad.tolist())
    if hasattr(obj, "state_dict"):
        state = obj.state_dict()
        return ("stateful", _plain(state), _plain(getattr(obj, "param_groups", None)))
    return ("object", copy.deepcopy(obj))


def _plain(x):
    """Nested containers with tensors turned into lists, comparable with ==."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "_data"):
        return ("T", str(x.dtype), x._data.tolist())
    if isinstance(x, torch.Tensor):
        return ("T", str(x.dtype), x.tolist())
    return x


def _same(a, b):
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b if not hasattr(a, "next_functions") else a is b


def _raise(lib, fn, check_state=True):
    thunk, objects = fn(lib)
    before = [snapshot(o) for o in objects]
    with pytest.raises(Exception) as info:
        thunk()
    for i, (o, b) in enumerate(zip(objects, before)):
        assert not check_state or _same(snapshot(o), b), f"object {i} changed by the failed call"
    return info.value


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name):
    fn, match, torch_match, torch_atomic = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_err = _raise(torch, fn, torch_atomic)
        e_err = _raise(ember, fn)
    assert type(e_err).__name__ == type(t_err).__name__ or isinstance(e_err, type(t_err)), \
        f"ember raised {type(e_err).__name__}, torch {type(t_err).__name__}: {e_err}"
    assert pytest.importorskip("re").search(match, str(e_err)), f"ember said: {e_err}"
    if torch_match:
        assert pytest.importorskip("re").search(match, str(t_err)), f"torch said: {t_err}"


def test_catalogue_size():
    assert len(CASES) >= 30
