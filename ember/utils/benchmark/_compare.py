"""Compare: measurements laid out as torch's tables, one per label: a row per (threads, env,
sub_label or stmt), a column per description, each cell the median in one unit per table."""
import collections
import math

from ._common import Measurement, select_unit, trim_sigfig, unit_to_english


class Compare:
    """A printable table of Measurements (replicates of one task are merged first)."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim = False
        self._highlight = False

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim = True

    def colorize(self, rowwise=False):
        """Accepted for torch's API; ember's tables stay plain text."""

    def highlight_warnings(self):
        self._highlight = True

    def __str__(self):
        by_label = collections.defaultdict(list)
        for m in Measurement.merge(self._results):
            by_label[m.label].append(m)
        return "\n".join(self._table(group) for group in by_label.values())

    def print(self):
        print(str(self))

    def _table(self, results):
        unit, scale = select_unit(min(m.median for m in results))
        rows = list(dict.fromkeys((m.num_threads, m.env, m.as_row_name) for m in results))
        rows.sort(key=lambda key: key[:2])  # stable: statements keep their order
        columns = list(dict.fromkeys(m.description for m in results))
        cell = {((m.num_threads, m.env, m.as_row_name), m.description): m for m in results}
        render_env = len({m.env for m in results}) > 1
        formats = [self._format([m for m in results if m.description == c], scale)
                   for c in columns]
        text = [[""] + [c or "" for c in columns]]
        for key in rows:
            env = f"({key[1]})" if render_env else ""
            pad = max(len(str(m.env)) for m in results) + 4 if render_env else 4
            cells = [self._cell(cell.get((key, c)), scale, f) for c, f in zip(columns, formats)]
            text.append(["  " + env.ljust(pad) + key[2]] + cells)
        widths = [max(len(row[i]) for row in text) for i in range(len(text[0]))]
        lines = ["  |  ".join(s.center(w) for s, w in zip(text[0], widths))]
        width, threads = len(lines[0]), None
        for key, row in zip(rows, text[1:]):
            if key[0] != threads:
                threads = key[0]
                lines.append(f"{threads} threads: ".ljust(width, "-"))
            lines.append("  |  ".join([row[0].ljust(widths[0])] +
                                      [s.center(w) for s, w in zip(row[1:], widths[1:])]))
        label = results[0].label or ""
        out = [f"[{(' ' + label + ' ').center(width - 2, '-')}]", *lines, "",
               f"Times are in {unit_to_english(unit)}s ({unit})."]
        if self._highlight and any(m.has_warnings for m in results):
            out.append("(! XX%) Measurement has high variance, where XX is the IQR / median * "
                       "100.")
        return "\n".join(out) + "\n"

    def _format(self, column, scale):
        """A column's number format: its decimals (1, or what the least precise measurement
        supports when trimming) and a width that right-aligns the numbers."""
        digits = [math.ceil(math.log10(m.median / scale)) for m in column]
        decimals = min(max(m.significant_figures - d, 0) for m, d in zip(column, digits)) \
            if self._trim else 1
        flag = self._highlight and any(m.has_warnings for m in column)
        return max(digits) + decimals + (1 if decimals else 0), decimals, flag

    def _cell(self, m, scale, number_format):
        width, decimals, flag = number_format
        if m is None:
            return " " * (width + 7 * flag)
        value = m.median / scale
        if self._trim:
            value = trim_sigfig(value, m.significant_figures)
        spread = f" (! {m.iqr / m.median * 100:.0f}%)" if m.has_warnings else ""
        return f"{value:>{width}.{decimals}f}" + (f"{spread:>7}" if flag else "")
