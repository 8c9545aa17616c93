"""torch.hub: downloads into the hub cache (file:// URLs here), hash checks, loading, local hubconf entry points."""
import hashlib
import os
import zipfile

import pytest

import ndgrad
from ndgrad import hub


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    return tmp_path


def _checkpoint(path):
    state = {"weight": ndgrad.arange(6.0).reshape(2, 3), "bias": ndgrad.tensor([0.5, -0.5])}
    ndgrad.save(state, path)
    return state, hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_hub_dir_follows_torch_home_and_set_dir(hub_dir, monkeypatch):
    assert hub.get_dir() == str(hub_dir / "home" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(hub_dir / "xdg"))
    assert hub.get_dir() == str(hub_dir / "xdg" / "torch" / "hub")
    hub.set_dir(hub_dir / "mine")
    assert hub.get_dir() == str(hub_dir / "mine")


def test_load_state_dict_from_url_downloads_once_and_checks_the_hash(hub_dir):
    src = hub_dir / "net.pth"
    state, digest = _checkpoint(src)
    named = hub_dir / f"net-{digest[:8]}.pth"
    os.rename(src, named)
    loaded = hub.load_state_dict_from_url(named.as_uri(), progress=False, check_hash=True)
    assert all(ndgrad.equal(loaded[k], state[k]) for k in state)
    cached = hub_dir / "home" / "hub" / "checkpoints" / named.name
    assert cached.exists()
    os.remove(named)   # the second call reads the cache, not the URL
    assert ndgrad.equal(hub.load_state_dict_from_url(named.as_uri(), progress=False)["bias"], state["bias"])

    bad = hub_dir / "net-00000000.pth"
    _checkpoint(bad)
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "00000000", got'):
        hub.load_state_dict_from_url(bad.as_uri(), progress=False, check_hash=True)
    assert not (hub_dir / "home" / "hub" / "checkpoints" / bad.name).exists()   # no partial file left


def test_downloads_load_weights_only_by_default(hub_dir):
    import pickle
    path = hub_dir / "evil.pth"
    ndgrad.save({"call": os.getcwd}, path)   # a global that weights-only loading must refuse to resolve
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        hub.load_state_dict_from_url(path.as_uri(), progress=False)


def test_an_old_zip_download_holding_one_file_is_extracted(hub_dir):
    state, _ = _checkpoint(hub_dir / "inner.pth")
    with zipfile.ZipFile(hub_dir / "old.zip", "w") as z:
        z.write(hub_dir / "inner.pth", "inner.pth")
    loaded = hub.load_state_dict_from_url((hub_dir / "old.zip").as_uri(), progress=False)
    assert ndgrad.equal(loaded["weight"], state["weight"])


def test_local_hubconf_entry_points(tmp_path):
    (tmp_path / "helper.py").write_text("SCALE = 3\n")
    (tmp_path / "hubconf.py").write_text(
        "from helper import SCALE\n"
        "import ndgrad\n"
        "def tiny(width=2):\n"
        "    '''A linear layer.'''\n"
        "    return ndgrad.nn.Linear(width, SCALE)\n"
        "def _private():\n"
        "    pass\n")
    assert hub.list(str(tmp_path)) == ["tiny"]
    assert hub.help(str(tmp_path), "tiny") == "A linear layer."
    layer = hub.load(str(tmp_path), "tiny", 4, source="local")
    assert isinstance(layer, ndgrad.nn.Linear) and layer.weight.shape == (3, 4)
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        hub.load(str(tmp_path), "missing", source="local")


def test_github_repositories_are_not_fetched():
    with pytest.raises(NotImplementedError, match="does not download and run a repository's code"):
        hub.load("pytorch/vision", "resnet18")
    with pytest.raises(NotImplementedError):
        hub.list("pytorch/vision")
