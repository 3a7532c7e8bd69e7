"""Run every benchmark (ember vs torch, each in one process) and write BENCHMARKS.md.

Usage: python benchmarks/run.py [--only NAME ...]
Each benchmarks/bench_*.py prints a markdown table; this collects them with the machine's
description. Timings are medians of alternating repeats; ratios are ember/torch from one run.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["ops", "nn", "models", "nn_primitives", "optim", "memory", "import", "anomaly",
         "distributed"]


def machine():
    import numpy as np
    try:
        import torch
        torch_v = torch.__version__
        torch_threads = torch.get_num_threads()
    except ImportError:
        torch_v, torch_threads = "absent", "-"
    cfg = np.show_config(mode="dicts")
    blas = cfg.get("Build Dependencies", {}).get("blas", {})
    return (f"- CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
            f"Python {platform.python_version()}\n"
            f"- NumPy {np.__version__}, BLAS: {blas.get('name', '?')} {blas.get('version', '')}"
            f" ({blas.get('openblas configuration', '').strip() or 'default threads'})\n"
            f"- torch {torch_v} (CPU), torch threads: {torch_threads}\n"
            f"- date: {datetime.date.today().isoformat()}")


def goal_check(text):
    """A markdown list: each row with a numeric ratio goal ('<= x'), met or not."""
    lines = []
    for cells in (r.strip("|").split("|") for r in text.splitlines() if r.startswith("| ")):
        cells = [c.strip() for c in cells]
        if len(cells) != 5 or not cells[4].startswith("<= "):
            continue
        try:
            ratio, goal = float(cells[3]), float(cells[4][3:])
        except ValueError:
            continue
        verdict = "met" if ratio <= goal else "**NOT met**"
        lines.append(f"- {cells[0]}: ratio {cells[3]}, goal {cells[4]}: {verdict}")
    return "\n".join(lines)


def run_one(name):
    path = os.path.join(HERE, f"bench_{name}.py")
    if not os.path.exists(path):
        return None
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True)
    if proc.returncode != 0:
        return f"(failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else '?'})"
    return proc.stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "BENCHMARKS.md"))
    args = parser.parse_args()
    names = args.only or ORDER
    sections = []
    for name in names:
        print(f"running bench_{name} ...", file=sys.stderr)
        out = run_one(name)
        if out is not None:
            sections.append(f"## {name}\n\n{out}\n")
            print(out)
    header = open(os.path.join(HERE, "HEADER.md")).read() if os.path.exists(
        os.path.join(HERE, "HEADER.md")) else "# Benchmarks\n"
    with open(args.out, "w") as f:
        body = "\n".join(sections)
        f.write(header + "\n## Machine\n\n" + machine() + "\n\n## Goal check (this run)\n\n"
                + goal_check(body) + "\n\n" + body)


if __name__ == "__main__":
    main()
