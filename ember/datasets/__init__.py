"""Data sets for `ember train`: the bundled UCI digits, and readers for CSV, NPZ and MNIST IDX."""
from ._readers import DataError, load_csv, load_digits, load_mnist, load_npz, load_source

__all__ = ["DataError", "load_csv", "load_digits", "load_mnist", "load_npz", "load_source"]
