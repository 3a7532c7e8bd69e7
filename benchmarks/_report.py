"""BENCHMARKS.md from the measured results: method, machine, goal check, tables, profiles."""
import datetime
import os
import platform

HERE = os.path.dirname(os.path.abspath(__file__))
SECTIONS = [("small", "Per-op overhead and a tiny model"),
            ("models", "Real models: training steps and inference"),
            ("data", "Data loading"), ("optim", "Optimizer steps"),
            ("primitives", "nn pieces (informational)"),
            ("anomaly", "Anomaly mode (informational)")]
SCALE = {"ms": 1e3, "µs": 1e6}
TABLE = ("| workload | ember | torch | ratio | goal | peak extra memory: ember / torch (ratio) |\n"
         "|---|---|---|---|---|---|")


def ratio(result):
    return result["ember"]["time"] / result["torch"]["time"]


def above_goal(workload, result):
    return workload.goal is not None and ratio(result) > workload.goal


def _memory(result):
    e, t = result["ember"]["peak"], result["torch"]["peak"]
    if e is None or t is None:
        return "-"
    share = f"{e / t:.2f}" if t >= 2**16 else "-"  # no ratio of two near-zero peaks
    return f"{e / 2**20:.1f} MB / {t / 2**20:.1f} MB ({share})"


def _row(w, result):
    scale = SCALE[w.unit]
    e, t = result["ember"]["time"] * scale, result["torch"]["time"] * scale
    goal = f"<= {w.goal}" if w.goal is not None else "-"
    return (f"| {w.title} | {e:.3f} {w.unit} | {t:.3f} {w.unit} | {ratio(result):.2f} | {goal} "
            f"| {_memory(result)} |")


def _special_row(title, e, t, unit, goal):
    goal_text = f"<= {goal}" if isinstance(goal, float) else goal
    r = f"{e / t:.3f}" if t else "-"
    return f"| {title} | {e:.3f} {unit} | {t:.3f} {unit} | {r} | {goal_text} | - |"


def _goal_lines(workloads, results, special_rows):
    lines = []
    for w in workloads:
        if w.goal is not None:
            met = "met" if not above_goal(w, results[w.name]) else "**NOT met**"
            lines.append(f"- {w.title}: {ratio(results[w.name]):.2f} (goal <= {w.goal}): {met}")
    for rows in special_rows.values():
        for title, e, t, _, goal in rows:
            if isinstance(goal, float):
                met = "met" if e / t <= goal else "**NOT met**"
                lines.append(f"- {title}: {e / t:.3f} (goal <= {goal}): {met}")
    return "\n".join(lines) or "- (no row with a goal in this run)"


def _machine(results):
    envs = next(iter(results.values()), None)
    lines = [f"- CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
             f"Python {platform.python_version()}; date {datetime.date.today().isoformat()}"]
    if envs:
        e, t = envs["ember"]["env"], envs["torch"]["env"]
        lines.append(f"- ember {e['version']} on NumPy {e.get('numpy')} ({e.get('blas')})")
        lines.append(f"- torch {t['version']}, {t.get('threads')} threads (its default)")
    return "\n".join(lines)


def _tables(workloads, results, special_rows, anomaly_overhead):
    parts = []
    for section, heading in SECTIONS:
        rows = [_row(w, results[w.name]) for w in workloads if w.section == section]
        if section == "anomaly" and anomaly_overhead:
            rows.append(anomaly_overhead)
        if rows:
            parts.append(f"## {heading}\n\n{TABLE}\n" + "\n".join(rows) + "\n")
    titles = {"import": "Import time and installed size", "growth": "Memory growth",
              "distributed": "Distributed (mpiexec, one BLAS/OpenMP thread per rank)"}
    for name, rows in special_rows.items():
        parts.append(f"## {titles[name]}\n\n{TABLE}\n"
                     + "\n".join(_special_row(*r) for r in rows) + "\n")
    return "\n".join(parts)


def _anomaly_overhead(results):
    if "anomaly_on" not in results or "anomaly_off" not in results:
        return None
    on, off = results["anomaly_on"], results["anomaly_off"]
    e = on["ember"]["time"] / off["ember"]["time"]
    t = on["torch"]["time"] / off["torch"]["time"]
    return (f"| anomaly overhead (on/off) | {e:.2f}x | {t:.2f}x | {e / t:.2f} "
            "| ember's <= torch's | - |")


def _profiles(workloads, results, profiles):
    if not profiles:
        return ""
    out = ["## Where the time goes (rows above their goal)\n",
           "cProfile of the ember worker over its timed steps; time in NumPy and the standard "
           "library is charged to the ember (or workload) function that called it. cProfile "
           "slows Python-heavy code, so shares matter more than the totals.\n"]
    for w in workloads:
        prof = profiles.get(w.name)
        if prof is None:
            continue
        out.append(f"### {w.title} (ratio {ratio(results[w.name]):.2f}, goal <= {w.goal})\n")
        out.append(f"Profiled step {prof['per_step'] * 1e3:.2f} ms. By module:\n")
        out += [f"- {name}: {s * 1e3:.2f} ms ({share:.0%})" for name, s, share in
                prof["modules"][:6]]
        out.append("\nBy function:\n")
        out += [f"- {name}: {s * 1e3:.2f} ms ({share:.0%})" for name, s, share in
                prof["functions"]]
        out.append("")
    return "\n".join(out)


def document(workloads, results, special_rows, profiles, rounds, quick):
    with open(os.path.join(HERE, "HEADER.md")) as f:
        header = f.read()
    run = (f"This run: {rounds} round(s) of fresh processes per framework"
           + (" (--quick: a smoke run, not for reading ratios)" if quick else "") + ".\n")
    return (header + "\n" + run + "\n## Machine\n\n" + _machine(results)
            + "\n\n## Goal check (this run)\n\n"
            + _goal_lines(workloads, results, special_rows) + "\n\n"
            + _tables(workloads, results, special_rows, _anomaly_overhead(results)) + "\n"
            + _profiles(workloads, results, profiles))
