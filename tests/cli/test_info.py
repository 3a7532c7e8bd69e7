"""`ember info` (ember/cli/_info.py): versions, NumPy's BLAS and the thread settings."""
import numpy as np

import ember
from ember.cli._info import _blas_name, info


def test_info_prints_versions_blas_and_threads(capsys, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    assert info() == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"ember {ember.version.ember} (")
    assert f"numpy {np.__version__}" in lines
    assert "OMP_NUM_THREADS=3" in lines and "MKL_NUM_THREADS=(unset)" in lines
    assert any(line.startswith("BLAS: ") for line in lines)
    assert any(line.startswith("CPU cores: ") for line in lines)


def test_blas_name_falls_back_without_dict_config():
    class OldNumpy:
        @staticmethod
        def show_config(mode=None):
            raise TypeError("no mode")

    assert _blas_name(OldNumpy) == "unknown (see numpy.show_config())"
    assert _blas_name(np) != ""


def test_info_prints_the_element_wise_thread_count(capsys, monkeypatch):
    before = ember.get_num_threads()
    monkeypatch.setenv("EMBER_NUM_THREADS", "1")
    try:
        ember.set_num_threads(3)
        assert info() == 0
    finally:
        ember.set_num_threads(before)
    lines = capsys.readouterr().out.splitlines()
    assert "element-wise threads (ember.get_num_threads()): 3" in lines
    assert "EMBER_NUM_THREADS=1" in lines
