"""torch.utils.benchmark: Timer (wall-clock timing of a Python statement, with warm-up and
replicates), the Measurement it returns (median, IQR and torch's printed summary) and Compare (a
table of measurements) and Fuzzer (seeded random inputs, with FuzzedParameter, FuzzedTensor and
ParameterAlias). C++ statements and Callgrind instruction counts are not offered."""
from ._common import Measurement, TaskSpec, select_unit, trim_sigfig, unit_to_english
from ._compare import Compare
from ._fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias
from ._timer import Language, Timer, timer

__all__ = ["Compare", "FuzzedParameter", "FuzzedTensor", "Fuzzer", "Language", "Measurement",
           "ParameterAlias", "TaskSpec", "Timer", "select_unit", "timer", "trim_sigfig",
           "unit_to_english"]
