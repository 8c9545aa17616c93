"""ndgrad.hub (torch.hub): downloading published weights into the cache torch uses, and loading them.

``load_state_dict_from_url`` fetches a checkpoint once into ``<hub dir>/checkpoints`` (the directory torch
uses, so the two share downloads) and loads it with :func:`ndgrad.load`. Unlike torch, whose default here
is ``weights_only=False``, ndgrad loads downloads with ``weights_only=True`` unless told otherwise: a file
from the network never runs code by default. Entry points from a *local* ``hubconf.py``
(``load(dir, name, source="local")``) work; fetching and running a GitHub repository's code does not.
"""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile

from .serialization import load as _load

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

_hub_dir = None
_CHUNK = 1 << 16
# a checkpoint named like `resnet18-f37072fd.pth` carries the first hex digits of its SHA-256
_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")


def get_dir():
    """The hub cache directory: the one given to :func:`set_dir`, else ``$TORCH_HOME/hub``
    (``$TORCH_HOME`` defaults to ``$XDG_CACHE_HOME/torch``, that to ``~/.cache``)."""
    if _hub_dir is not None:
        return _hub_dir
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.join(os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch"))), "hub")


def set_dir(d):
    """Use `d` as the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download `url` to the file `dst` (through a temporary file beside it, so that an interrupted
    download leaves no partial `dst`); with `hash_prefix`, the file's SHA-256 must start with it."""
    dst = os.path.expanduser(dst)
    request = urllib.request.Request(url, headers={"User-Agent": "ndgrad.hub"})
    with urllib.request.urlopen(request) as response:   # noqa: S310 - the caller's URL, as torch.hub
        size = response.headers.get("Content-Length") if hasattr(response, "headers") else None
        fd, tmp = tempfile.mkstemp(prefix=".download-", dir=os.path.dirname(os.path.abspath(dst)))
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as out, _progress(progress, size) as bar:
                while chunk := response.read(_CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
            if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
            shutil.move(tmp, dst)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


def _progress(show, size):
    if not show:
        return _NoBar()
    try:
        from tqdm import tqdm   # optional: a progress bar on stderr when tqdm is installed
    except ImportError:
        return _NoBar()
    return tqdm(total=int(size) if size else None, unit="B", unit_scale=True, unit_divisor=1024)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=None):
    """The object saved in the file at `url`, downloaded once into `model_dir`
    (default ``<hub dir>/checkpoints``) and loaded with :func:`ndgrad.load`.

    Args:
        url (str): where the file is (``http(s)://`` or ``file://``).
        model_dir (str, optional): the download directory.
        map_location: as for :func:`ndgrad.load`.
        progress (bool): show a progress bar (with tqdm). Default: ``True``.
        check_hash (bool): check the download's SHA-256 against the hex digits after the last ``-`` of its
            file name. Default: ``False``.
        file_name (str, optional): the name to save it under (default: the URL's).
        weights_only (bool, optional): as for :func:`ndgrad.load`; default ``True`` (torch's is ``False``).

    Returns:
        the loaded object (usually a state dict).
    """
    model_dir = os.path.join(get_dir(), "checkpoints") if model_dir is None else model_dir
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = _HASH_IN_NAME.search(name) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    if _legacy_zip(cached):   # an old-style download: a zip holding one checkpoint file
        cached = _unzip_one(cached, model_dir)
    return _load(cached, map_location=map_location, weights_only=True if weights_only is None else weights_only)


def _legacy_zip(path):
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:   # torch's own format is a zip too: it holds a data.pkl
        return not any(n.endswith("data.pkl") for n in z.namelist())


def _unzip_one(path, model_dir):
    with zipfile.ZipFile(path) as z:
        members = [m for m in z.infolist() if not m.is_dir()]
        if len(members) != 1:
            raise RuntimeError("Only one file(not dir) is allowed in the zipfile")
        target = os.path.join(model_dir, os.path.basename(members[0].filename))
        with z.open(members[0]) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return target


# ---- entry points of a hubconf.py ------------------------------------------------------------------
def _hubconf(repo_or_dir, source):
    if source != "local":
        raise NotImplementedError(
            f"torch.hub with source={source!r}: ndgrad does not download and run a repository's code. Clone it "
            "and call torch.hub.load(<its directory>, <entry point>, source='local'), or load its weights with "
            "torch.hub.load_state_dict_from_url.")
    path = os.path.join(os.path.expanduser(repo_or_dir), "hubconf.py")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))   # hubconf.py imports its repository's modules
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(os.path.dirname(path))
    return module


def _entry(module, model):
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _where(github):
    return "local" if os.path.isdir(os.path.expanduser(github)) else "github"


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):  # noqa: A001
    """The entry points of the ``hubconf.py`` in `github`, which must be a local directory in ndgrad."""
    module = _hubconf(github, _where(github))
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):  # noqa: A001
    """The docstring of entry point `model` of the ``hubconf.py`` in `github`, a local directory in ndgrad."""
    return _entry(_hubconf(github, _where(github)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """``model(*args, **kwargs)`` from the ``hubconf.py`` in the directory `repo_or_dir` (``source="local"``;
    GitHub repositories are not fetched)."""
    return _entry(_hubconf(repo_or_dir, source), model)(*args, **kwargs)
