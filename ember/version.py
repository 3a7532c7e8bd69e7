"""torch.version: the version of torch's API that ember implements, and ember's own.

``ember.__version__`` (``torch.__version__`` in a script that imports ember as torch) is the
torch release whose behaviour ember reproduces, as torch writes it for a CPU build, so version
checks in real scripts (``torch.__version__ >= "1.8"``, ``>= (2, 0)``) see that release;
``ember.version.ember`` is ember's own version.
"""
import re

__all__ = ["TorchVersion", "__version__", "cuda", "debug", "ember", "git_version", "hip"]

ember = "0.1.0"
cuda = None  # a CPU build, as torch's CPU wheels report
hip = None
rocm = None
xpu = None
debug = False
git_version = "ember-" + ember


def _key(text):
    """A version as a sortable key, as packaging orders them: '2.13.0+cpu' -> ((2, 13, 0),
    1, 'cpu'); a pre-release or dev release ('2.0.0a0') sorts below its release, a local
    label ('+cpu') above it; a tuple of numbers names a plain release."""
    if isinstance(text, (tuple, list)):
        return tuple(int(n) for n in text), 1, ""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)([^+]*)\+?(.*)", str(text))
    if match is None:
        raise ValueError(f"Invalid version: '{text}'")
    numbers = tuple(int(n) for n in match.group(1).split("."))
    final = 0 if re.match(r"[.-]?(a|b|c|rc|alpha|beta|pre|preview|dev)", match.group(2)) else 1
    return numbers, final, match.group(3)


class TorchVersion(str):
    """A version string that compares as a version with strings and tuples of numbers."""

    def _compare(self, other, op):
        (a, fa, la), (b, fb, lb) = _key(str(self)), _key(other)
        width = max(len(a), len(b))
        a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
        return op((a, fa, la), (b, fb, lb))

    def __lt__(self, other):
        return self._compare(other, lambda x, y: x < y)

    def __le__(self, other):
        return self._compare(other, lambda x, y: x <= y)

    def __gt__(self, other):
        return self._compare(other, lambda x, y: x > y)

    def __ge__(self, other):
        return self._compare(other, lambda x, y: x >= y)

    def __eq__(self, other):
        try:
            return self._compare(other, lambda x, y: x == y)
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__


__version__ = TorchVersion("2.13.0+cpu")
