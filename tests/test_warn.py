"""ember/_warn.py: torch's warn-once (TORCH_WARN_ONCE) and set_warn_always, in fresh processes
(the once-per-process state is the point), against torch's own warn-once warnings."""
import subprocess
import sys

CODE = """import warnings, {lib} as torch
warnings.simplefilter('always')
with warnings.catch_warnings(record=True) as w:
    a = torch.eye(2)
    torch.cholesky(a); torch.cholesky(a)
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    torch.cholesky(a); torch.cholesky(a)
    torch.set_warn_always(False)
    torch.cholesky(a)
print(before, torch.is_warn_always_enabled(), len(w), {{x.category.__name__ for x in w}})
"""


def test_warn_once_per_process_and_every_time_under_set_warn_always_as_torch():
    outs = [subprocess.run([sys.executable, "-c", CODE.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    assert outs[1] == outs[0] == "False False 3 {'UserWarning'}\n"
