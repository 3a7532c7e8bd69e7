"""Import time and installed size, ember vs torch (fresh interpreters, alternating, medians)."""
import importlib.util
import os
import statistics
import subprocess
import sys
import time


def compile_bytecode(env=None):
    """Write ember's and NumPy's .pyc files first, as pip does for a wheel such as torch's at
    install (an editable install writes them on the first import, which PYTHONDONTWRITEBYTECODE
    prevents): timed otherwise, ember's import would include compiling its source each time."""
    for name in ("ember", "numpy"):
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True,
                           env=env, stdout=subprocess.DEVNULL)


def import_seconds(repeats=7, env=None):
    """Median wall time of a fresh `python -c 'import ember'` and `... torch`, each minus the
    bare interpreter's start, the three alternating so machine noise hits them alike; the
    bytecode of both is on disk (``compile_bytecode``)."""
    compile_bytecode(env)
    def run(code):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        return time.perf_counter() - start
    times = {"pass": [], "import ember": [], "import torch": []}
    for i in range(repeats):
        for code in (list(times) if i % 2 == 0 else reversed(list(times))):
            times[code].append(run(code))
    bare = statistics.median(times["pass"])
    return (statistics.median(times["import ember"]) - bare,
            statistics.median(times["import torch"]) - bare)


def _dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            fp = os.path.join(root, f)
            if not os.path.islink(fp):
                total += os.path.getsize(fp)
    return total


def installed_mb(packages):
    """Size on disk of the named top-level packages (and their bundled .libs folders)."""
    total = 0
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        pkg_dir = list(spec.submodule_search_locations)[0]
        total += _dir_size(pkg_dir)
        libs = pkg_dir.rstrip("/") + ".libs"
        if os.path.isdir(libs):
            total += _dir_size(libs)
    return total / 2**20


# torch's own runtime requirements as installed by `pip install torch==2.13.0` (CPU wheel)
TORCH_PACKAGES = ["torch", "numpy", "sympy", "mpmath", "networkx", "jinja2", "markupsafe",
                  "filelock", "fsspec", "typing_extensions"]


def rows(quick=False, env=None):
    """(title, ember, torch, unit, goal) of the import-time and installed-size rows."""
    e_imp, t_imp = import_seconds(3 if quick else 7, env)
    return [("import time", e_imp * 1e3, t_imp * 1e3, "ms", 0.1),
            ("installed size (ember+NumPy vs torch+deps)", installed_mb(["ember", "numpy"]),
             installed_mb(TORCH_PACKAGES), "MB", 0.15)]
