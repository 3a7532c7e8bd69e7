"""Compare: measurements laid out as torch's tables, one per label: a row per (threads, env,
sub_label or stmt), a column per description, each cell the median in one unit per table."""
import collections
import math

from ._common import Measurement, select_unit, trim_sigfig, unit_to_english

_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
_BOLD, _END = "\033[1m", "\033[0m"


def _colored(text, value, best):
    """torch's colours for a cell against the best median it is compared with: bold green
    within 1% (or 100 ns) of it, bold blue within 10%, bold red at 5x or more, dim red at 2x."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + text + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + text + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + text + _END * 2
    return _BAD + text + _END * 2 if value >= best * 2 else text


class Compare:
    """A printable table of Measurements (replicates of one task are merged first)."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim = False
        self._highlight = False
        self._colorize = None

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim = True

    def colorize(self, rowwise=False):
        """Colour each cell against the best median of its column (within one thread count),
        or of its row with ``rowwise``, with terminal escape codes as torch does."""
        self._colorize = "rowwise" if rowwise else "columnwise"

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
        shown_env = None  # torch names an environment on its first row in a thread block
        for i, key in enumerate(rows):
            if i == 0 or key[0] != rows[i - 1][0]:
                shown_env = None
            env = f"({key[1]})" if render_env and key[1] != shown_env else ""
            shown_env = key[1]
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
            found = [cell.get((key, c)) for c in columns]
            best = self._best(key, found, columns, cell, rows)
            lines.append("  |  ".join([row[0].ljust(widths[0])] + [
                s.center(w) if m is None or b is None else _colored(s.center(w), m.median, b)
                for s, w, m, b in zip(row[1:], widths[1:], found, best)]))
        label = results[0].label or ""
        out = [f"[{(' ' + label + ' ').center(width - 2, '-')}]", *lines, "",
               f"Times are in {unit_to_english(unit)}s ({unit})."]
        if self._highlight and any(m.has_warnings for m in results):
            out.append("(! XX%) Measurement has high variance, where XX is the IQR / median * "
                       "100.")
        return "\n".join(out) + "\n"

    def _best(self, key, found, columns, cell, rows):
        """Per cell of row ``key``, the median it is coloured against (None: no colour)."""
        if self._colorize == "rowwise":
            return [min(m.median for m in found if m is not None)] * len(columns)
        if self._colorize == "columnwise":
            block = [k for k in rows if k[0] == key[0]]
            return [min((cell[k, c].median for k in block if (k, c) in cell), default=None)
                    for c in columns]
        return [None] * len(columns)

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
