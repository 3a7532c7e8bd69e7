"""Workload 7: `import ember` time and installed size, vs torch (fresh interpreters, medians)."""
import importlib.util
import os
import statistics
import subprocess
import sys
import time


def import_seconds(module, repeats=7):
    """Median wall time of a fresh `python -c 'import module'` minus the bare interpreter start."""
    def run(code):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start
    times, bare = [], []
    for _ in range(repeats):  # alternate so machine noise hits both alike
        bare.append(run("pass"))
        times.append(run(f"import {module}"))
    return statistics.median(times) - statistics.median(bare)


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


def main():
    e_imp, t_imp = import_seconds("ember"), import_seconds("torch")
    e_mb, t_mb = installed_mb(["ember", "numpy"]), installed_mb(TORCH_PACKAGES)
    print("| workload | ember | torch | ratio | goal |")
    print("|---|---|---|---|---|")
    print(f"| import time | {e_imp * 1e3:.0f} ms | {t_imp * 1e3:.0f} ms | "
          f"{e_imp / t_imp:.3f} | <= 0.1 |")
    print(f"| installed size (ember+NumPy vs torch+deps) | {e_mb:.1f} MB | {t_mb:.1f} MB | "
          f"{e_mb / t_mb:.3f} | <= 0.15 |")


if __name__ == "__main__":
    main()
