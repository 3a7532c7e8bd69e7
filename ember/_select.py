"""The order in which torch's CPU topk leaves equal values.

torch selects the k largest (or smallest) of a row with the C++ standard library (libstdc++):
``partial_sort`` of (value, index) pairs when k * 64 <= n, else ``nth_element`` at k - 1 and,
for a sorted result, ``sort`` of the first k - 1. Those algorithms are not stable, so among
equal values the indices come out in the order their steps leave them. This module steps the
same algorithms (introselect, introsort, heap select) over Python lists; it is only used for
rows where equal values reach the result (elsewhere any correct selection gives torch's).
torch's sort with ``stable=False`` (its default) is libstdc++'s std::sort, stepped the same way.
"""
import numpy as np


def topk_rows(keys, order, k, largest=True, sorted_=True):
    """torch's topk indices of each row of ``keys`` (2-D, NumPy-sortable: bfloat16 as float32)
    from a stable ``order`` of those rows (descending for ``largest``, NaN first then): its
    first k, with the rows where equal values reach the result (every row, unsorted) stepped
    through torch's selection."""
    head = order[:, :k + 1]
    rows = _tied_rows(keys, head) if sorted_ else range(len(keys))
    chosen = head[:, :k]
    if len(rows) and k:
        chosen = chosen.copy()
        for r in rows:
            chosen[r] = topk_order(keys[r].tolist(), k, largest, sorted_)
    return chosen


def sort_rows(keys, order, descending):
    """torch's unstable sort (``stable=False``, its default: libstdc++'s std::sort) of each
    row of ``keys`` (2-D, NumPy-sortable) from a stable ``order`` of them: rows with equal
    values (up to 2**20 long) are sorted again by the same introsort; others are kept."""
    rows = _tied_rows(keys, order) if keys.shape[1] <= 1 << 20 else ()
    if len(rows):
        order = order.copy()
        before = _before(descending)
        for r in rows:
            order[r] = std_sort(keys[r].tolist(), before)
    return order


def _tied_rows(keys, order):
    """The rows of ``keys`` holding two equal neighbours in ``order`` (NaN equal to NaN)."""
    seen = np.take_along_axis(keys, order, axis=1)
    same = seen[:, 1:] == seen[:, :-1]
    if keys.dtype.kind in "fc":
        same |= np.isnan(seen[:, 1:]) & np.isnan(seen[:, :-1])
    return np.flatnonzero(same.any(axis=1))


def std_sort(values, less):
    """Positions of ``values`` (a list) in the order libstdc++'s std::sort leaves them under
    the strict order ``less`` (which may be partial, as ``<`` is with NaN)."""
    items = list(enumerate(values))
    _Selection(items, lambda x, y: less(x[1], y[1])).sort(0, len(items))
    return [i for i, _ in items]


def _before(largest):
    """torch's comparator: NaN above every number (first when largest, last otherwise)."""
    if largest:
        def before(a, b):
            return (a != a and b == b) or a > b
    else:
        def before(a, b):
            return (a == a and b != b) or a < b
    return before


def topk_order(keys, k, largest, sorted_):
    """Positions of the k selected entries of ``keys`` (a list of floats, NaN allowed) in the
    order torch's topk returns them."""
    before = _before(largest)
    items = list(enumerate(keys))
    n = len(items)
    sel = _Selection(items, lambda x, y: before(x[1], y[1]))
    if k * 64 <= n:
        sel.partial_sort(0, k, n)
    elif k:
        sel.nth_element(0, k - 1, n)
        if sorted_:
            sel.sort(0, k - 1)
    return [i for i, _ in items[:k]]


def _log2(n):
    return n.bit_length() - 1


class _Selection:
    """libstdc++'s selection and sorting steps over ``items`` with the strict order ``comp``."""

    THRESHOLD = 16  # libstdc++'s _S_threshold

    def __init__(self, items, comp):
        self.a, self.comp = items, comp

    # ----- heaps -----
    def _push_heap(self, first, hole, top, value):
        a, comp = self.a, self.comp
        parent = (hole - 1) // 2
        while hole > top and comp(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def _adjust_heap(self, first, hole, length, value):
        a, comp = self.a, self.comp
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if comp(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        self._push_heap(first, hole, top, value)

    def _make_heap(self, first, last):
        length = last - first
        if length < 2:
            return
        parent = (length - 2) // 2
        while True:
            self._adjust_heap(first, parent, length, self.a[first + parent])
            if parent == 0:
                return
            parent -= 1

    def _pop_heap(self, first, last, result):
        value = self.a[result]
        self.a[result] = self.a[first]
        self._adjust_heap(first, 0, last - first, value)

    def _heap_select(self, first, middle, last):
        self._make_heap(first, middle)
        for i in range(middle, last):
            if self.comp(self.a[i], self.a[first]):
                self._pop_heap(first, middle, i)

    def _sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            self._pop_heap(first, last, last)

    def partial_sort(self, first, middle, last):
        self._heap_select(first, middle, last)
        self._sort_heap(first, middle)

    # ----- partitions -----
    def _move_median_to_first(self, result, x, y, z):
        a, comp = self.a, self.comp
        if comp(a[x], a[y]):
            pick = y if comp(a[y], a[z]) else z if comp(a[x], a[z]) else x
        else:
            pick = x if comp(a[x], a[z]) else z if comp(a[y], a[z]) else y
        a[result], a[pick] = a[pick], a[result]

    def _unguarded_partition(self, first, last, pivot):
        a, comp = self.a, self.comp
        while True:
            while comp(a[first], a[pivot]):
                first += 1
            last -= 1
            while comp(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            a[first], a[last] = a[last], a[first]
            first += 1

    def _partition_pivot(self, first, last):
        mid = first + (last - first) // 2
        self._move_median_to_first(first, first + 1, mid, last - 1)
        return self._unguarded_partition(first + 1, last, first)

    # ----- insertion sorts -----
    def _unguarded_linear_insert(self, last):
        a, comp = self.a, self.comp
        value = a[last]
        prev = last - 1
        while comp(value, a[prev]):
            a[last] = a[prev]
            last = prev
            prev -= 1
        a[last] = value

    def _insertion_sort(self, first, last):
        a, comp = self.a, self.comp
        if first == last:
            return
        for i in range(first + 1, last):
            if comp(a[i], a[first]):
                value = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = value
            else:
                self._unguarded_linear_insert(i)

    # ----- the algorithms -----
    def nth_element(self, first, nth, last):
        if first == last or nth == last:
            return
        depth = 2 * _log2(last - first)
        while last - first > 3:
            if depth == 0:
                self._heap_select(first, nth + 1, last)
                self.a[first], self.a[nth] = self.a[nth], self.a[first]
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self._insertion_sort(first, last)

    def sort(self, first, last):
        if first == last:
            return
        self._introsort_loop(first, last, 2 * _log2(last - first))
        if last - first > self.THRESHOLD:
            self._insertion_sort(first, first + self.THRESHOLD)
            for i in range(first + self.THRESHOLD, last):
                self._unguarded_linear_insert(i)
        else:
            self._insertion_sort(first, last)

    def _introsort_loop(self, first, last, depth):
        while last - first > self.THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            self._introsort_loop(cut, last, depth)
            last = cut
