"""torch.device: names any device as torch does; ember computes on the CPU (and on the meta
device, see _meta: shapes and dtypes without data)."""
import re

_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_SPEC = re.compile(r"([a-z]+)(?::(0|[1-9][0-9]*))?")


class device:
    """A device name and optional index: ``device('cuda:1')``, ``device('cuda', 0)``.

    Any device torch knows can be named (as on a CPU-only torch build); only using one other
    than 'cpu' to hold a tensor fails, with torch's error.
    """

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({_type_name(type)})")
        else:
            type, index = _parse(type, index)
        self.type, self.index = type, index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with device('meta'):`` makes it the default device of factories inside."""
        _entered.append(_default[0])
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        _default[0] = _entered.pop()


def _type_name(obj):
    return type(obj).__name__


def _parse(spec, index):
    match = _SPEC.fullmatch(spec)
    name = spec.split(":")[0]
    if name not in _TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device "
                           f"string: {spec}")
    if match is None:
        raise RuntimeError(f"Invalid device string: '{spec}'")
    if match.group(2) is not None:
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {spec}")
        index = int(match.group(2))
    if index is not None and index < 0:
        raise RuntimeError("Device index must not be negative")
    return name, index


_device_class = device  # set_default_device's parameter is named device, as torch's
_default = [None]  # set_default_device's device (None: the CPU)
_entered = []  # the default devices that ``with device(...)`` blocks replaced, innermost last


def set_default_device(device):
    """The device factories use when given none; anything but the CPU fails on first use."""
    _default[0] = None if device is None else _device_class(device)


def get_default_device():
    return _default[0] if _default[0] is not None else device("cpu")


def on_meta(where):
    """True for the meta device, False for the CPU (``where``: a device, a name, or None for
    the default device); torch's CPU-build error for any other."""
    where = where if where is not None else _default[0]
    if where is None:
        return False
    kind = device(where).type
    if kind == "meta":
        return True
    check_device(where)
    return False


def check_device(where):
    """Raise torch's CPU-build error unless ``where`` (a device, name, or None for the default
    device) is the CPU."""
    where = where if where is not None else _default[0]
    if where is None:
        return
    kind = device(where).type
    if kind == "cpu":
        return
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if kind == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    raise RuntimeError(f"ember computes on the 'cpu' device only; got device '{kind}'")
