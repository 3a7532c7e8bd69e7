"""`ember info`: versions, the BLAS NumPy uses, thread settings."""
import os

import ember


def info():
    """Print versions, NumPy's BLAS and thread settings."""
    import platform

    import numpy as np

    print(f"ember {ember.version.ember} ({os.path.dirname(ember.__file__)}), torch API "
          f"{ember.__version__}")
    print(f"python {platform.python_version()} on {platform.platform()}")
    print(f"numpy {np.__version__}")
    for name in ("safetensors", "tqdm", "matplotlib"):
        try:
            module = __import__(name)
            print(f"{name} {getattr(module, '__version__', '?')}")
        except ImportError:
            print(f"{name} not installed")
    print(f"BLAS: {_blas_name(np)}")
    print(f"CPU cores: {os.cpu_count()}; usable: {len(os.sched_getaffinity(0))}"
          if hasattr(os, "sched_getaffinity") else f"CPU cores: {os.cpu_count()}")
    print(f"element-wise threads (ember.get_num_threads()): {ember.get_num_threads()}")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "EMBER_NUM_THREADS"):
        print(f"{var}={os.environ.get(var, '(unset)')}")
    return 0


def _blas_name(np):
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version', '')}".strip()
    except Exception:  # older NumPy without mode="dicts"
        return "unknown (see numpy.show_config())"


