"""The data readers of `ember train` (ember/datasets/_readers.py), called directly: the bundled
digits, CSV (class names or numbers mapped to 0..k-1 in sorted order), NPZ and MNIST IDX files
read back what was written, and each kind of bad file raises DataError naming the problem (the
same files through the command: tests/cli/test_command.py)."""
import gzip

import numpy as np
import pytest

from ember.datasets import DataError, load_csv, load_digits, load_mnist, load_npz, load_source


def test_digits_shape_range_and_classes():
    x, y = load_digits()
    assert x.shape == (1797, 8, 8) and x.dtype == np.float32 and y.dtype == np.int64
    assert x.min() == 0 and x.max() == 16 and sorted(set(y.tolist())) == list(range(10))
    assert load_source()[0].shape == x.shape


def test_csv_maps_class_names_in_sorted_order(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,kind,b\n1,dog,2.5\n3,cat,4\n5,dog,6\n")
    x, y = load_csv(str(path), "kind")
    np.testing.assert_array_equal(x, [[1, 2.5], [3, 4], [5, 6]])
    assert y.tolist() == [1, 0, 1] and y.dtype == np.int64
    assert load_source(str(path), "kind")[1].tolist() == [1, 0, 1]


def test_csv_numeric_labels_become_class_indices(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,y\n1,10\n2,-3\n3,10\n")
    assert load_csv(str(path), "y")[1].tolist() == [1, 0, 1]


@pytest.mark.parametrize("text, target, message", [
    ("a,y\n", "y", "needs a header row and at least one data row"),
    ("a,y\n1,0\n2,1\n", "z", "column 'z' not found"),
    ("a,y\n1,0\n2\n", "y", "line 3 has 1 fields, the header has 2"),
    ("a,y\n1,0\nx,1\n", "y", "non-numeric value 'x' in column 'a' at line 3"),
    ("a,y\n1,0\n2,0\n", "y", "has 1 distinct label value(s); need at least 2"),
    ("a,y\n1,0.5\n2,1\n", "y", "holds continuous values (e.g. 0.5)"),
])
def test_bad_csv_raises_data_error(tmp_path, text, target, message):
    path = tmp_path / "d.csv"
    path.write_text(text)
    with pytest.raises(DataError) as info:
        load_csv(str(path), target)
    assert message in str(info.value)


def test_npz_reads_x_y_and_train_names(tmp_path):
    x = np.random.default_rng(0).standard_normal((4, 3))
    np.savez(tmp_path / "a.npz", x=x, y=np.array([2, 0, 2, 1]))
    got_x, got_y = load_npz(str(tmp_path / "a.npz"))
    np.testing.assert_allclose(got_x, x.astype(np.float32))
    assert got_x.dtype == np.float32 and got_y.tolist() == [2, 0, 2, 1]
    np.savez(tmp_path / "b.npz", x_train=x, y_train=np.array([1, 0, 1, 0]))
    assert load_npz(str(tmp_path / "b.npz"))[1].tolist() == [1, 0, 1, 0]


def test_bad_npz_raises_data_error(tmp_path):
    np.savez(tmp_path / "a.npz", features=np.zeros((2, 2)))
    with pytest.raises(DataError, match="needs arrays named x and y"):
        load_npz(str(tmp_path / "a.npz"))
    np.savez(tmp_path / "b.npz", x=np.zeros((3, 2)), y=np.array([0, 1]))
    with pytest.raises(DataError, match="x has 3 rows but y has shape"):
        load_npz(str(tmp_path / "b.npz"))
    (tmp_path / "c.npz").write_bytes(b"not a zip")
    with pytest.raises(DataError, match="cannot read .* as .npz"):
        load_npz(str(tmp_path / "c.npz"))


def _idx(dims, values):
    header = bytes([0, 0, 8, len(dims)]) + b"".join(d.to_bytes(4, "big") for d in dims)
    return header + bytes(values)


def test_mnist_idx_files_read_back(tmp_path):
    images = list(range(2 * 2 * 3))
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx([2, 2, 3], images)))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx([2], [7, 1]))
    x, y = load_mnist(str(tmp_path))
    np.testing.assert_array_equal(x, np.arange(12).reshape(2, 2, 3))
    assert x.dtype == np.float32 and y.tolist() == [7, 1]
    assert load_source(f"mnist:{tmp_path}")[1].tolist() == [7, 1]


def test_bad_mnist_raises_data_error(tmp_path):
    with pytest.raises(DataError, match="no such directory"):
        load_mnist(str(tmp_path / "none"))
    with pytest.raises(DataError, match="holds no MNIST IDX files"):
        load_mnist(str(tmp_path))
    (tmp_path / "train-images-idx3-ubyte").write_bytes(_idx([2, 2, 2], range(5)))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx([2], [0, 1]))
    with pytest.raises(DataError, match=r"is truncated: header says \[2, 2, 2\], found 5"):
        load_mnist(str(tmp_path))


def test_unknown_format_and_missing_file(tmp_path):
    with pytest.raises(DataError, match="unknown data format 'x.json'"):
        load_source("x.json")
    with pytest.raises(DataError, match="no such file"):
        load_source(str(tmp_path / "none.csv"), "y")
