"""torch.hub: checkpoints fetched by URL into a cache directory, and models from a hubconf.py.

``load_state_dict_from_url`` downloads once into ``get_dir()/checkpoints`` and loads the file
with ``ember.load`` (safetensors, or torch.save's zip format read as data: nothing in a
downloaded file is unpickled). ``load``/``list``/``help`` read a local repository's hubconf.py
(``source="local"``); fetching a GitHub repository (``source="github"``) runs code from the
network, which ember leaves to the user: clone it and pass the directory with source="local".
"""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.request
from urllib.parse import urlparse

from . import serialization

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024
_hub_dir = None


def get_dir():
    """The hub's cache directory: set_dir's, else $TORCH_HOME/hub, else
    $XDG_CACHE_HOME/torch/hub (default ~/.cache/torch/hub), as torch's."""
    if _hub_dir is not None:
        return _hub_dir
    home = os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(
        os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))
    return os.path.join(home, "hub")


def set_dir(d):
    """Use ``d`` as the hub's cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to ``dst`` (through a temporary file in its directory, moved into place
    when complete); ``hash_prefix``: the start of the file's SHA-256, checked before the move."""
    dst = os.path.expanduser(os.fspath(dst))
    folder = os.path.dirname(dst) or "."
    sha = hashlib.sha256() if hash_prefix is not None else None
    request = urllib.request.Request(url, headers={"User-Agent": "ember.hub"})
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".partial", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request) as response:
            total = response.headers.get("Content-Length")
            bar = _progress(progress, int(total) if total else None)
            while True:
                chunk = response.read(READ_DATA_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                if sha is not None:
                    sha.update(chunk)
                if bar is not None:
                    bar.update(len(chunk))
            if bar is not None:
                bar.close()
        if sha is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                               f'"{sha.hexdigest()}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _progress(enabled, total):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # (tqdm is optional: no bar)
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """The object saved at ``url``, downloaded once into ``model_dir`` (default
    get_dir()/checkpoints) and loaded with ember.load (never unpickled)."""
    model_dir = model_dir if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    return serialization.load(cached, map_location=map_location, weights_only=weights_only)


def _hubconf(repo_or_dir, source):
    if source not in ("github", "gitlab", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "gitlab" | '
                         '"local".')
    if source != "local":
        raise RuntimeError(f"ember.hub does not fetch and run code from {source} "
                           f"('{repo_or_dir}'): clone the repository and call "
                           f"hub.load(path, model, source='local')")
    path = os.path.join(os.path.expanduser(os.fspath(repo_or_dir)), MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Cannot find {MODULE_HUBCONF} in {repo_or_dir}")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(os.path.dirname(path))
    return module


def _entrypoint(hub, model):
    fn = getattr(hub, model, None) if not model.startswith("_") else None
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True,
         source="local"):
    """The entry points (public callables) of a local repository's hubconf.py."""
    hub = _hubconf(github, source)
    return [name for name in dir(hub) if callable(getattr(hub, name)) and
            not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check",
         source="local"):
    """The docstring of entry point ``model``."""
    return _entrypoint(_hubconf(github, source), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """``model(*args, **kwargs)`` from the repository's hubconf.py (source='local': a
    directory)."""
    return _entrypoint(_hubconf(repo_or_dir, source), model)(*args, **kwargs)
