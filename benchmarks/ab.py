"""A/B of ember configurations set by environment variables, each run in its own fresh process.

    python -m benchmarks.ab WORKLOAD ... --config NAME=VAR=VALUE,VAR=VALUE ... [--rounds N]

e.g. ``python -m benchmarks.ab cifar gpt --config one= --config split=EMBER_NUM_THREADS=2``.
Every round runs ``benchmarks._worker WORKLOAD ember`` once per configuration, the order of the
configurations reversed every other round (as run.py alternates the frameworks); per
configuration the median of the processes' medians is printed, in ms, with each round's value.
A variable read when NumPy loads (OPENBLAS_THREAD_TIMEOUT, OPENBLAS_NUM_THREADS) can only be
compared this way, never by switching inside one process.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from benchmarks.run import ROOT, _env
from benchmarks.workloads import BY_NAME


def parse_config(text):
    """'NAME=VAR=VALUE,VAR=VALUE' -> (NAME, {VAR: VALUE}); 'NAME=' is the unchanged environment."""
    name, sep, assignments = text.partition("=")
    if not name or not sep:
        raise argparse.ArgumentTypeError(f"a configuration is NAME=VAR=VALUE,..., got {text!r}")
    env = {}
    for item in filter(None, assignments.split(",")):
        var, sep, value = item.partition("=")
        if not var or not sep:
            raise argparse.ArgumentTypeError(f"{item!r} in {text!r} is not VAR=VALUE")
        env[var] = value
    return name, env


def run_once(workload, env, repeats):
    """One fresh ember worker under ``env`` added to this environment: its JSON result."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks._worker", workload, "ember",
                           "--repeats", str(repeats)], cwd=ROOT, env={**_env(), **env},
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {workload} under {env} failed: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(workload, configs, rounds, repeats):
    """{config name: [each round's worker result]}"""
    results = {name: [] for name, _ in configs}
    for r in range(rounds):
        for name, env in (configs if r % 2 == 0 else configs[::-1]):
            results[name].append(run_once(workload, env, repeats))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="+", choices=sorted(BY_NAME), metavar="WORKLOAD")
    parser.add_argument("--config", type=parse_config, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    for workload in args.workloads:
        for name, results in compare(workload, args.config, args.rounds, args.repeats).items():
            values = [result["median"] for result in results]
            each = " ".join(f"{v * 1e3:.2f}" for v in values)
            print(f"{workload:14s} {name:12s} {statistics.median(values) * 1e3:9.3f} ms  [{each}]",
                  flush=True)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
