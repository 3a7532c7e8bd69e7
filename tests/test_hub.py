"""ember.hub: the cache directory as torch's, checkpoints by URL (downloaded once, loaded
without unpickling, hash-checked), and entry points of a local hubconf.py."""
import hashlib
import os

import pytest
import torch
import torch.hub as thub

import ember
import ember.hub as ehub


def test_dirs_as_torch(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert ehub.get_dir() == thub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ehub.get_dir() == thub.get_dir()
    ehub.set_dir(tmp_path / "mine")
    try:
        assert ehub.get_dir() == str(tmp_path / "mine")
    finally:
        ehub._hub_dir = None


def test_state_dict_from_url_downloads_once_and_checks_the_hash(tmp_path):
    model = torch.nn.Linear(3, 2)
    src = tmp_path / "weights.pth"
    torch.save(model.state_dict(), src)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    named = tmp_path / f"weights-{digest[:8]}.pth"
    os.rename(src, named)
    cache = tmp_path / "cache"
    sd = ehub.load_state_dict_from_url(named.as_uri(), model_dir=str(cache), progress=False,
                                       check_hash=True)
    assert sd["weight"].tolist() == model.weight.tolist()
    os.remove(named)  # cached now: no second download
    again = ehub.load_state_dict_from_url(named.as_uri(), model_dir=str(cache), progress=False)
    assert again["bias"].tolist() == model.bias.tolist()
    bad = tmp_path / "other-00000000.pth"
    torch.save(model.state_dict(), bad)
    with pytest.raises(RuntimeError, match="invalid hash value"):
        ehub.load_state_dict_from_url(bad.as_uri(), model_dir=str(tmp_path / "c2"),
                                      progress=False, check_hash=True)
    assert not os.path.exists(tmp_path / "c2" / bad.name)


def test_local_hubconf_entry_points(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        "import ember\n\ndef tiny(width=2):\n    '''A tiny linear model.'''\n"
        "    return ember.nn.Linear(width, 1)\n\ndef _private():\n    pass\n")
    assert ehub.list(str(tmp_path), source="local") == ["tiny"]
    assert ehub.help(str(tmp_path), "tiny", source="local") == "A tiny linear model."
    m = ehub.load(str(tmp_path), "tiny", width=4, source="local")
    assert isinstance(m, ember.nn.Linear) and m.in_features == 4
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        ehub.load(str(tmp_path), "nope", source="local")
    with pytest.raises(RuntimeError, match="does not fetch and run code from github"):
        ehub.load("pytorch/vision", "resnet18")
    with pytest.raises(ValueError, match="Unknown source"):
        ehub.load(str(tmp_path), "tiny", source="ftp")
