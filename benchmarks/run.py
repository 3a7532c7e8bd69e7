"""Run the benchmarks, each framework in its own fresh process, and write BENCHMARKS.md.

    python benchmarks/run.py [--quick] [--only NAME ...] [--rounds N] [--out FILE]

Every workload (benchmarks/workloads.py) runs as ``python -m benchmarks._worker NAME ember``
and ``... NAME torch``, one fresh process each, in rounds whose order alternates (ember first,
then torch first, ...). Per framework the median of the processes' medians is kept; the ratio
is ember/torch of those. This process imports neither framework. NAME is a workload, a
section (models, optim, ...), or one of: import, growth, distributed. With ``--only`` the
tables are printed and written only where ``--out`` says.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
from benchmarks import _report  # noqa: E402
from benchmarks.workloads import WORKLOADS  # noqa: E402

SPECIAL = ("import", "growth", "distributed")


def _env():
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": ROOT + (os.pathsep + path if path else "")}


def worker(name, framework, *flags):
    """Run one worker process; its JSON result."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks._worker", name, framework, *flags],
                          cwd=ROOT, env=_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
        raise RuntimeError(f"worker {name} {framework} failed: {tail}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(workload, rounds, repeats):
    """Alternating rounds of fresh processes; per framework the medians and peak memory."""
    runs = {"ember": [], "torch": []}
    for r in range(rounds):
        for framework in (("ember", "torch") if r % 2 == 0 else ("torch", "ember")):
            runs[framework].append(worker(workload.name, framework, "--repeats", str(repeats)))
    result = {}
    for framework, results in runs.items():
        peaks = [res["peak_bytes"] for res in results if res["peak_bytes"] is not None]
        result[framework] = {
            "time": statistics.median(res["median"] for res in results) / workload.per,
            "peak": statistics.median(peaks) if peaks else None,
            "rounds": [res["median"] / workload.per for res in results],
            "env": results[0]["env"]}
    return result


def _selected(only):
    """Workloads and special rows named by --only (workload names or sections)."""
    if not only:
        return WORKLOADS, list(SPECIAL)
    unknown = set(only) - {w.name for w in WORKLOADS} - {w.section for w in WORKLOADS}
    unknown -= set(SPECIAL)
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    chosen = [w for w in WORKLOADS if w.name in only or w.section in only]
    return chosen, [s for s in SPECIAL if s in only]


def _specials(names, quick):
    rows = {}
    if "import" in names:
        from benchmarks import _install
        rows["import"] = _install.rows(quick, _env())
    if "growth" in names:
        steps = 1000 if quick else 10000
        e, t = (worker("tiny_mlp", f, "--growth", "--steps", str(steps))["growth_bytes"]
                for f in ("ember", "torch"))
        rows["growth"] = [(f"RSS growth, tiny MLP Adam, steps {steps // 10} -> {steps}",
                           e / 2**20, t / 2**20, "MB", "no growth")]
    if "distributed" in names:
        from benchmarks import _distributed
        rows["distributed"] = _distributed.rows()
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="one round, 3 samples per process, no distributed rows")
    parser.add_argument("--only", nargs="+", default=None, metavar="NAME")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--out", default=None,
                        help="markdown file (default: BENCHMARKS.md unless --only is given)")
    args = parser.parse_args(argv)
    workloads, specials = _selected(args.only)
    if args.quick and not args.only:
        specials = [s for s in specials if s != "distributed"]
    rounds = args.rounds or (1 if args.quick else 3)
    repeats = 3 if args.quick else 7
    results = {}
    for w in workloads:
        print(f"{w.name} ...", file=sys.stderr, flush=True)
        results[w.name] = measure(w, rounds, repeats)
    special_rows = _specials(specials, args.quick)
    profiles = {w.name: worker(w.name, "ember", "--profile", "--repeats", str(repeats))
                for w in workloads if _report.above_goal(w, results[w.name])}
    text = _report.document(workloads, results, special_rows, profiles, rounds, args.quick)
    out = args.out or (None if args.only else os.path.join(ROOT, "BENCHMARKS.md"))
    if out:
        with open(out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
