"""Tensor: an ndarray plus autograd state (grad, requires_grad, grad_fn, version counter)."""
import weakref

import numpy as np

from . import _dtype, _memory_format, _torch_function, _warn
from ._autograd_state import InferenceVersion
from ._autograd_state import _state as _grad_state
from ._autograd_state import new_version as _new_version
from ._device import check_device, device
from ._handles import RemovableHandle
from ._meta import MetaArray
from ._tensor_str import tensor_repr

_FROM_NP = _dtype._FROM_NP


_SCALAR_OF_GRAD = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                   "behavior.\nConsider using tensor.detach() first.")

class Size(tuple):
    """The shape of a tensor: a tuple that prints as ``ember.Size([2, 3])``."""

    def __repr__(self):
        return f"ember.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    # a Size joined, repeated or sliced is a Size again, as torch's (a plain tuple was returned)
    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple(self) + other)

    def __radd__(self, other):
        return Size(other + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, times):
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item


_CPU = device("cpu")
_META = device("meta")
_autograd = None  # the ember.autograd package, bound by bind_autograd (see there)
_new = object.__new__
_AUTOGRAD_STATE = ("_grad", "_output_nr", "_retains_grad", "_acc", "_keep_acc", "_base",
                   "_fw_grad")



def wrap_dim(dim, n):
    """``dim`` of an ``n``-dim tensor as an index >= 0 (0-d: -1 and 0); torch's error else."""
    if not isinstance(dim, (int, np.integer)):  # (None, a tuple: not Python's comparison error)
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}")
    if not -max(n, 1) <= dim < max(n, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(n, 1)}, {max(n, 1) - 1}], but got {dim})")
    return dim % n if n else 0

class Tensor:
    """A multi-dimensional array that can record the operations applied to it for autograd."""

    # _output_nr (which output of _grad_fn this is) is read for every op's input edge: a slot,
    # set wherever a tensor is made (a class default read is a generic lookup in CPython 3.11)
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_vc", "_output_nr", "__dict__",
                 "__weakref__")
    __array_priority__ = 1000  # ndarray (op) Tensor defers to Tensor's reflected operators
    # the __torch_function__ protocol (ember/_torch_function.py): Tensor's own runs the function
    # and returns tensors as the subclass; defining a subclass outside ember turns it on
    __torch_function__ = classmethod(_torch_function.default)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.split(".")[0] != "ember":
            _torch_function.activate()
    # Rarely-set state: class defaults, stored per tensor (in __dict__) only once set, so that
    # making an op's output costs five attribute writes.
    _grad = None
    _retains_grad = False
    _acc = None
    _base = None  # a view's base: the tensor that owns the memory (None for non-views)

    def __init__(self, *args, dtype=None, device=None, requires_grad=False):
        from ._creation import _tensor_data  # legacy torch.Tensor(...); _creation builds on Tensor
        check_device(device)
        if len(args) == 1 and not isinstance(args[0], int):
            data = _tensor_data(args[0], dtype or _dtype.get_default_dtype())
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
            data = np.empty(shape, dtype=_dtype.to_numpy_dtype(dtype or _dtype.get_default_dtype()))
        self._init(data, requires_grad, None)

    def _init(self, data, requires_grad, grad_fn):
        self._data = data
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._vc = _new_version()
        self._output_nr = 0

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None):
        """Wrap an ndarray without copying (internal fast path)."""
        t = _new(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        t._vc = _new_version()
        t._output_nr = 0
        return t

    # ----- metadata -----
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape, or the length of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def _wrap_dim(self, dim):
        return wrap_dim(dim, self._data.ndim)

    @property
    def dtype(self):
        return _FROM_NP[self._data.dtype]

    @property
    def device(self):
        return _META if type(self._data) is MetaArray else _CPU

    @property
    def is_meta(self):
        """True for a tensor on the meta device (a shape and dtype, no data)."""
        return type(self._data) is MetaArray

    @property
    def is_cuda(self):
        return False

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self._data.dtype.kind in "fV"  # "V": bfloat16 (ml_dtypes)

    def is_contiguous(self, memory_format=None):
        if memory_format is None:
            return self._data.flags.c_contiguous
        return _memory_format.is_laid_out(self._data, memory_format)

    def stride(self, dim=None):
        data = self._data
        if data.size or not data.ndim or any(data.strides):  # (an empty view keeps its base's)
            strides = tuple(s // data.itemsize for s in data.strides)
        else:  # NumPy gives a new empty array zero strides; torch a contiguous tensor's (a size
            strides, step = [], 1  # 0 counting as 1)
            for size in reversed(data.shape):
                strides.append(step)
                step *= max(size, 1)
            strides = tuple(reversed(strides))
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def data_ptr(self):
        if type(self._data) is MetaArray:
            return 0  # no memory, as torch's meta tensors
        return self._data.__array_interface__["data"][0]

    def get_device(self):
        return -1

    # ----- autograd state -----
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if value and self._data.dtype.kind not in "fVc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        if value and type(self._vc) is InferenceVersion and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad=True):
        """Set requires_grad in place; returns self."""
        if requires_grad and self._data.dtype.kind not in "fVc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        return self._grad_fn

    def _is_view(self):
        """True for a view (a tensor made by a view op that shares its base's memory)."""
        return self._base is not None

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning,
                stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if tuple(value.shape) != self._data.shape:  # value.shape: sparse grads too
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value.shape)}' to a tensor of size "
                                   f"'{list(self._data.shape)}'. Please ensure that the gradient "
                                   "and the tensor are the same size")
            if value.dtype != self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype "
                                   f"'{value.dtype.c_name}' to a tensor with grad_dtype "
                                   f"'{self.dtype.scalar_name}'. The gradient must match the "
                                   "tensor's grad_dtype (defaults to the tensor's dtype). You "
                                   "can set the tensor's grad_dtype attribute with a specific "
                                   "dtype, or None to allow any dtype. Set grad_dtype with "
                                   "caution. Diverging the dtypes of a tensor and its gradient "
                                   "may break downstream systems that assume they match.")
        self._grad = value

    @property
    def _version(self):
        return self._vc[0]

    @property
    def data(self):
        """The same memory as a tensor outside autograd (its own version counter, as torch)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        new, old = value._data, self._data
        if new.shape != old.shape or new.dtype != old.dtype:
            if self._grad_fn is not None:  # its recorded graph describes the old array
                raise RuntimeError(
                    f"ember: cannot set .data of a non-leaf tensor to a different shape or dtype "
                    f"({list(old.shape)} {old.dtype} -> {list(new.shape)} {new.dtype}): the "
                    f"graph that made it expects the old ones. Use .detach() to start anew.")
            acc = self._acc() if self._acc is not None else None
            if acc is not None:  # a leaf's live gradient sink takes the new shape and dtype
                acc._shapes, acc._dtypes = (new.shape,), (new.dtype,)
        self._data = new

    def _accumulator(self):
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = _autograd.graph.AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def retain_grad(self):
        """Keep .grad for this non-leaf tensor after backward."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if not self._retains_grad:
            node = self._grad_fn
            if node._retained is None:
                node._retained = {}
                node._mark_special()
            node._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """hook(grad) runs when the gradient for this tensor is computed; may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node = self._grad_fn if self._grad_fn is not None else self._accumulator()
        if self._grad_fn is None:
            self.__dict__.setdefault("_keep_acc", node)  # hooks live as long as the tensor
        return node._add_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after backward has accumulated into this leaf's .grad."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hooks = self.__dict__.setdefault("_post_accumulate_hooks", [])
        hooks.append(hook)
        return RemovableHandle(hooks, entry=hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. graph leaves (seed: ``gradient``)."""
        _autograd.engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor sharing this memory and version counter, cut from the graph."""
        t = Tensor._make(self._data)
        t._vc = self._vc
        if self._requires_grad:
            t.__dict__["_detached_origin"] = True  # for autograd.explain_grad
        return t

    def detach_(self):
        """Cut this tensor from the graph in place (it becomes a leaf)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        if self._requires_grad:
            self.__dict__["_detached_origin"] = True  # for autograd.explain_grad
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ----- conversion -----
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, force=False):
        """The underlying ndarray (shared memory)."""
        if type(self._data) is MetaArray:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if type(self._data) is MetaArray or self._requires_grad:
            self.numpy()  # torch's error (np.asarray of a tensor that requires grad refuses)
        if dtype is not None:
            return self._data.astype(dtype, copy=False)
        return self._data

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with "
                               f"{'no values' if not self._data.size else 'more than one value'}"
                               f" is ambiguous")
        if type(self._data) is MetaArray:
            self.item()  # torch's error: a meta tensor has no value
        return bool(self._data.reshape(()))

    def __float__(self):
        if self._requires_grad and _grad_state._enabled:  # (torch: not under no_grad)
            _warn.warn_once(_SCALAR_OF_GRAD)
        return float(_real_scalar(self._scalar(), "double"))

    def __complex__(self):
        if self._requires_grad and _grad_state._enabled:  # (torch: not under no_grad)
            _warn.warn_once(_SCALAR_OF_GRAD)
        return complex(self._scalar())

    def __int__(self):
        return int(_real_scalar(self._scalar(), "int64_t"))

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        # as torch: a plain 0-d tensor formats as its number, even with an empty spec
        if self._data.ndim == 0 and type(self) is Tensor and type(self._data) is not MetaArray:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), pickled_data(self), self._requires_grad, self._grad,
                           _user_attrs(self)))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        new = type(self)._make(self._data.copy(), self._requires_grad)
        if type(self) is not Tensor:
            new.__dict__.update(_user_attrs(self))
        if self._grad is not None:
            new._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = new
        return new


def pickled_data(t):
    """What a pickle of ``t`` holds for its array: the array (copied), or for a tensor moved to
    shared memory (share_memory_) a reference to that memory (ember.multiprocessing)."""
    if t.__dict__.get("_shared"):
        from .multiprocessing._shared import SharedRef  # lazy: loads multiprocessing when used
        return SharedRef(t._data)
    return t._data


def _user_attrs(t):
    """Attributes a subclass (Parameter) or user set, without autograd bookkeeping."""
    return {k: v for k, v in t.__dict__.items() if k not in _AUTOGRAD_STATE}


def _rebuild(cls, data, requires_grad, grad, extra):
    t = cls._make(data, requires_grad)
    t._grad = grad
    t.__dict__.update(extra)
    return t


def bind_autograd(package):
    """Called once by ``ember.autograd`` as it loads: Tensor.backward and a leaf's AccumulateGrad
    reach autograd through this late binding, since autograd builds on Tensor (a module-level
    import here would be a cycle, and an import inside ``_accumulator`` costs on every new
    graph)."""
    global _autograd
    _autograd = package


def _real_scalar(value, c_type):
    """A complex element converts to a Python number only without an imaginary part."""
    if isinstance(value, complex):
        if value.imag:
            raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
        return value.real
    return value


_torch_function.Tensor = Tensor
