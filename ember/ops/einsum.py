"""einsum, composed as torch composes it: diagonals, sums, permutes, broadcast multiplies and
batched matrix products (so gradients, and their grad_fn names, come from those primitives)."""
import builtins

from .._tensor import Tensor
from .api import expand, matmul, mul, permute, reshape, sum
from .matrix_ops import diagonal

_ELLIPSIS_BASE = 0x2460  # labels standing for ellipsis dims (sorted before the letters)


def _parse(equation, operands):
    """Each operand's labels (ellipsis dims become their own labels, aligned from the right),
    and the output labels."""
    equation = equation.replace(" ", "")
    _check_subscripts(equation)
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): {'more' if len(operands) > len(terms) else 'fewer'} "
                           "operands were provided than specified in the equation")
    labels, widest = [], 0
    for term, t in zip(terms, operands):
        named = len(term.replace("...", ""))
        width = t._data.ndim - named if "..." in term else 0
        if width < 0 or (not width and "..." not in term and named != t._data.ndim):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) "
                               f"does not match the number of dimensions ({t._data.ndim}) for "
                               f"operand {len(labels)}" + ("" if "..." in term
                                                           else " and no ellipsis was given"))
        widest = builtins.max(widest, width)
        dots = "".join(chr(_ELLIPSIS_BASE + widest - width + i) for i in range(width))
        labels.append(term.replace("...", dots))
    dots = "".join(chr(_ELLIPSIS_BASE + i) for i in range(widest))
    if arrow:
        _check_output(output, labels)
        out = output.replace("...", dots)
    else:
        counts = {c: "".join(labels).count(c) for c in "".join(labels)}
        out = dots + "".join(sorted(c for c, n in counts.items()
                                    if n == 1 and ord(c) < _ELLIPSIS_BASE))
    return labels, out


def _check_output(output, labels):
    named = output.replace("...", "")
    for c in named:
        if named.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                               "output")
        if not any(c in ls for ls in labels):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                               "for any input operand")


def _check_subscripts(equation):
    for i, c in enumerate(equation):
        if not (c.isascii() and c.isalpha()) and c not in ".,->":
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation "
                               "string, subscripts must be in [a-zA-Z]")


def _sizes(labels, operands):
    sizes = {}
    for i, (ls, t) in enumerate(zip(labels, operands)):
        for c, n in zip(ls, t._data.shape):
            seen = sizes.get(c, 1)
            if n != seen and n != 1 and seen != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                   f"does not broadcast with previously seen size {seen}")
            sizes[c] = n if seen == 1 else seen   # a size-1 dim broadcasts, even to 0
    return sizes


def _take_diagonals(x, labels):
    """Repeated labels in one operand (e.g. 'ii') select the diagonal."""
    while len(set(labels)) != len(labels):
        c = next(c for c in labels if labels.count(c) > 1)
        p = labels.index(c)
        q = labels.index(c, p + 1)
        x = diagonal(x, 0, p, q)
        labels = labels[:p] + labels[p + 1:q] + labels[q + 1:] + c
    return x, labels


def _sum_out(x, labels, keep):
    dims = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not dims:
        return x, labels
    return sum(x, dims), "".join(c for c in labels if c in keep)


def _permute(x, labels, order):
    if labels == order:
        return x
    return permute(x, *[labels.index(c) for c in order])


def _align(x, labels, target):
    """x permuted to target's order and viewed with size-1 dims for labels it lacks."""
    x = _permute(x, labels, "".join(c for c in target if c in labels))
    shape = tuple(x._data.shape[[c for c in target if c in labels].index(c)]
                  if c in labels else 1 for c in target)
    return x if shape == x._data.shape else reshape(x, shape)


def _contract(a, la, b, lb, keep, sizes, final):
    """One pairwise step: a broadcast multiply, or a batched matrix product over shared labels
    that no later step needs."""
    a, la = _sum_out(a, la, keep + lb)
    b, lb = _sum_out(b, lb, keep + la)
    batch = "".join(c for c in la if c in lb and c in keep)
    summed = "".join(c for c in la if c in lb and c not in keep)
    if final is not None and batch:  # output labels before the last batch label join the batch
        last = builtins.max(final.index(c) for c in batch)
        batch = final[:last + 1]
    a_only = "".join(c for c in la if c not in lb and c not in batch)
    b_only = "".join(c for c in lb if c not in la and c not in batch)
    natural = batch + a_only + b_only
    target = final if final is not None and sorted(final) == sorted(natural) else natural
    if not summed:
        return mul(_align(a, la, target), _align(b, lb, target)), target

    def side(x, labels, order):
        x = _align(x, labels, order)
        full = tuple(sizes[c] for c in order)
        return x if x._data.shape == full else expand(x, full)

    def prod(labels):
        n = 1
        for c in labels:
            n *= sizes[c]
        return n

    a3 = reshape(side(a, la, batch + a_only + summed), (prod(batch), prod(a_only), prod(summed)))
    b3 = reshape(side(b, lb, batch + summed + b_only), (prod(batch), prod(summed), prod(b_only)))
    out = reshape(matmul(a3, b3), tuple(sizes[c] for c in natural))
    return _permute(out, natural, target), target


def einsum(equation, *operands):
    """Sum of products over the labelled dims, as numpy/torch einsum ('ij,jk->ik', '...ij')."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): argument 'operands' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    labels, out = _parse(equation, operands)
    sizes = _sizes(labels, operands)
    xs = [_take_diagonals(t, ls) for t, ls in zip(operands, labels)]
    if len(xs) == 1:
        x, ls = xs[0]
        order = out + "".join(c for c in ls if c not in out)
        x = permute(x, *[ls.index(c) for c in order])
        return _sum_out(x, order, out)[0]
    x, ls = xs[0]
    for i in range(1, len(xs)):
        keep = out + "".join(l for _, l in xs[i + 1:])
        x, ls = _contract(x, ls, *xs[i], keep, sizes, out if i == len(xs) - 1 else None)
    return _permute(x, ls, out)
