"""Readers returning (features, labels) NumPy arrays; bad files raise DataError naming the cause."""
import csv
import gzip
import os
import zlib

import numpy as np

_DIGITS = os.path.join(os.path.dirname(__file__), "data", "digits.csv.gz")


class DataError(ValueError):
    """A data file that cannot be used: missing, unreadable, non-numeric, or of the wrong shape."""


def load_digits():
    """The bundled UCI digits: images (1797, 8, 8) float32 in 0..16, labels (1797,) int64."""
    table = np.loadtxt(_DIGITS, delimiter=",", dtype=np.float32)
    return table[:, :-1].reshape(-1, 8, 8), table[:, -1].astype(np.int64)


def _need_file(path):
    if not os.path.isfile(path):
        raise DataError(f"no such file: '{path}'")


def _numeric_labels(values, where):
    """Class indices of numeric labels; DataError for missing (NaN) or continuous values."""
    values = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise DataError(f"{where} has missing or infinite labels ({float(values[bad[0]])} in "
                        f"row {bad[0] + 1}); every sample needs a class label")
    fractional = np.flatnonzero(values != np.round(values))
    if fractional.size:
        example = float(values[fractional[0]])
        raise DataError(f"{where} holds continuous values (e.g. {example!r}), not class labels: "
                        "ember train trains classifiers; labels must be integers or class names")
    return np.unique(values, return_inverse=True)


def _labels_to_classes(values, where):
    """Map label values (numbers or strings) to 0..k-1 in sorted order."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        classes, index = _numeric_labels(values, where)
    else:
        text = [str(v).strip() for v in values]
        if "" in text:
            raise DataError(f"{where} has an empty label in row {text.index('') + 1}; every "
                            "sample needs a class label")
        try:
            numbers = [float(v) for v in text]
        except ValueError:
            classes, index = np.unique(np.array(text), return_inverse=True)
        else:
            classes, index = _numeric_labels(numbers, where)
    if len(classes) < 2:
        raise DataError(f"{where} has {len(classes)} distinct label value(s); need at least 2")
    return index.astype(np.int64)


def _read_rows(path):
    """The non-empty rows of a (gzipped) UTF-8 CSV file; a BOM is dropped, as pandas does."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        try:
            return [r for r in reader if r]
        except csv.Error as error:
            raise DataError(f"'{path}' line {reader.line_num}: {error}") from None


def _read_bytes(path, read):
    """``read(path)``, with unreadable text or gzip data reported as DataError."""
    try:
        return read(path)
    except UnicodeDecodeError as error:
        raise DataError(f"'{path}' is not UTF-8 text (byte {error.object[error.start]:#04x} at "
                        f"offset {error.start}); save it as UTF-8") from None
    except gzip.BadGzipFile:
        raise DataError(f"'{path}' is not a gzip file, though its name ends in .gz") from None
    except (EOFError, zlib.error) as error:
        raise DataError(f"'{path}' is a truncated or corrupt gzip file ({error})") from None


def load_csv(path, target):
    """A CSV file with a header row; ``target`` names the label column, the rest are features."""
    _need_file(path)
    rows = _read_bytes(path, _read_rows)
    if len(rows) < 2:
        raise DataError(f"'{path}' needs a header row and at least one data row")
    header, body = [h.strip() for h in rows[0]], rows[1:]
    if target is None:
        raise DataError("--target COLUMN is required with a CSV file (columns: "
                        f"{', '.join(header)})")
    if target not in header:
        raise DataError(f"column '{target}' not found in '{path}' (columns: {', '.join(header)})")
    t = header.index(target)
    features = np.empty((len(body), len(header) - 1), dtype=np.float32)
    for r, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise DataError(f"'{path}' line {r} has {len(row)} fields, the header has "
                            f"{len(header)}")
        cells = [c for i, c in enumerate(row) if i != t]
        names = [h for i, h in enumerate(header) if i != t]
        for c, (cell, name) in enumerate(zip(cells, names)):
            try:
                features[r - 2, c] = float(cell)
            except ValueError:
                raise DataError(f"non-numeric value '{cell}' in column '{name}' at line {r} of "
                                f"'{path}'") from None
    _finite(features, f"'{path}': the features")
    return features, _labels_to_classes([row[t] for row in body], f"column '{target}'")


def _npz_pair(arrays, path):
    keys = set(arrays.files)
    for x_key, y_key in (("x", "y"), ("X", "y"), ("X", "Y"), ("features", "labels"),
                         ("x_train", "y_train")):
        if {x_key, y_key} <= keys:
            return x_key, y_key
    raise DataError(f"'{path}' needs arrays named x and y (or x_train/y_train); it has: "
                    f"{', '.join(sorted(keys)) or 'none'}")


def load_npz(path, target=None):
    """An .npz with features ``x`` and labels ``y`` (Keras' mnist.npz layout also works)."""
    _need_file(path)
    try:
        arrays = np.load(path, allow_pickle=False)
    except Exception as error:
        raise DataError(f"cannot read '{path}' as .npz: {error}") from None
    x_key, y_key = _npz_pair(arrays, path) if target is None else ("x", target)
    for key in (x_key, y_key):
        if key not in arrays.files:
            raise DataError(f"array '{key}' not found in '{path}' (arrays: "
                            f"{', '.join(arrays.files)})")
    x, y = _npz_array(arrays, x_key, path), _npz_array(arrays, y_key, path)
    if x_key == "x_train" and "x_test" in arrays.files and "y_test" in arrays.files:
        x = np.concatenate([x, _npz_array(arrays, "x_test", path)])
        y = np.concatenate([y, _npz_array(arrays, "y_test", path)])
    if x.dtype.kind not in "biuf":
        raise DataError(f"features '{x_key}' in '{path}' are not numeric (dtype {x.dtype})")
    if x.ndim < 2:
        raise DataError(f"features '{x_key}' in '{path}' have shape {x.shape}; they need one "
                        "row per sample (2-D: samples x features, or 3-D: images)")
    if len(x) != len(y) or y.ndim != 1:
        raise DataError(f"'{path}': {x_key} has {len(x)} rows but {y_key} has shape {y.shape}")
    _finite(x, f"features '{x_key}' in '{path}'")
    return x.astype(np.float32), _labels_to_classes(y, f"'{y_key}' in '{path}'")


def _npz_array(arrays, key, path):
    try:
        return arrays[key]
    except ValueError as error:
        if "allow_pickle" in str(error):
            raise DataError(f"array '{key}' in '{path}' holds Python objects (dtype object), "
                            "which ember never unpickles; save numeric arrays") from None
        raise DataError(f"cannot read array '{key}' of '{path}': {error}") from None
    except (OSError, EOFError, zlib.error) as error:  # a damaged member of the zip
        raise DataError(f"cannot read array '{key}' of '{path}': {error}") from None


def _finite(x, where):
    bad = np.argwhere(~np.isfinite(x))
    if bad.size:
        raise DataError(f"{where} have missing or infinite values (NaN/inf), e.g. in row "
                        f"{bad[0][0] + 1}")


def _read_blob(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read()


def _read_idx(path):
    blob = _read_bytes(path, _read_blob)
    if len(blob) < 4 or blob[:2] != b"\x00\x00" or blob[2] != 0x08:
        raise DataError(f"'{path}' is not an unsigned-byte IDX file (bad magic number)")
    ndim = blob[3]
    if ndim < 1 or len(blob) < 4 + 4 * ndim:
        raise DataError(f"'{path}' is truncated or damaged: its header is incomplete")
    dims = [int.from_bytes(blob[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(blob, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise DataError(f"'{path}' is truncated: header says {dims}, found {data.size} values")
    return data.reshape(dims)


def _find_idx(directory, stem):
    for name in (stem, stem + ".gz"):
        if os.path.isfile(os.path.join(directory, name)):
            return os.path.join(directory, name)
    return None


def load_mnist(directory):
    """MNIST-format IDX files in ``directory`` (train-* and, if present, t10k-*), gzipped or not."""
    if not os.path.isdir(directory):
        raise DataError(f"no such directory: '{directory}'")
    xs, ys = [], []
    for split in ("train", "t10k"):
        images = _find_idx(directory, f"{split}-images-idx3-ubyte")
        labels = _find_idx(directory, f"{split}-labels-idx1-ubyte")
        if images and labels:
            x, y = _read_idx(images), _read_idx(labels)
            if x.ndim != 3 or y.ndim != 1 or len(x) != len(y):
                raise DataError(f"'{images}' ({x.shape}) and '{labels}' ({y.shape}) do not match")
            xs.append(x)
            ys.append(y)
    if not xs:
        raise DataError(f"'{directory}' holds no MNIST IDX files (expected "
                        "train-images-idx3-ubyte[.gz] and train-labels-idx1-ubyte[.gz])")
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.int64)


def load_source(data=None, target=None):
    """Dispatch on ``--data``: None (the digits), mnist:DIR, *.npz or *.csv."""
    if data is None:
        return load_digits()
    if data.startswith("mnist:"):
        return load_mnist(data[len("mnist:"):])
    if data.lower().endswith(".npz"):
        return load_npz(data, target)
    if data.lower().endswith((".csv", ".csv.gz", ".txt")):
        return load_csv(data, target)
    raise DataError(f"unknown data format '{data}': use FILE.csv --target COLUMN, FILE.npz or "
                    "mnist:DIR")
