"""Parameter names of torch functions, read from their docstrings' signature lines (inspect can't
read torch's builtins); used by tests/test_signatures.py."""
import inspect
import re


def _split(params):
    depth, part, out = 0, "", []
    for ch in params:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(part)
            part = ""
        else:
            part += ch
    return [p.strip() for p in out + [part] if p.strip()]


def _names(params):
    names = []
    for p in _split(params):
        p = p.lstrip("\\")
        if p in ("*", "/"):
            continue
        names.append(re.split(r"[=:\s]", p.lstrip("*"))[0])
    return names


def torch_signatures(fn, name, prefix=""):
    """A list of parameter-name lists, one per overload: from the native schemas (the names
    torch's argument parser takes; ``self`` is ``input``), else from the docstring."""
    import torch
    schemas = torch._C._jit_get_schemas_for_operator(f"aten::{prefix}{name}")
    found = [["input" if a.name == "self" else a.name for a in s.arguments] for s in schemas]
    try:  # functions written in Python (split, einsum, meshgrid, tensor)
        found.append(list(inspect.signature(fn).parameters))
    except (TypeError, ValueError):
        pass
    return found or _from_doc(fn, name)


def _from_doc(fn, name):
    doc = fn.__doc__ or ""
    found = []
    for line in doc.strip().splitlines():
        m = re.match(r"(?:\.\. function:: )?(?:torch\.)?(?:linalg\.)?%s\((.*)\)\s*(->.*)?:?$"
                     % re.escape(name), line.strip())
        if m:
            found.append(_names(m.group(1)))
    return found
