"""torch.utils.benchmark: Timer (wall-clock timing of a Python statement, with warm-up and
replicates), the Measurement it returns (median, IQR and torch's printed summary) and Compare (a
table of measurements). C++ statements and Callgrind instruction counts are not offered."""
from ._common import Measurement, TaskSpec, select_unit, trim_sigfig, unit_to_english
from ._compare import Compare
from ._timer import Language, Timer, timer

__all__ = ["Compare", "Language", "Measurement", "TaskSpec", "Timer", "select_unit", "timer",
           "trim_sigfig", "unit_to_english"]
