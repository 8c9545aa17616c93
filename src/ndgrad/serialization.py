"""ndgrad.save / ndgrad.load: checkpoints that never run code when loaded.

A checkpoint is a zip archive holding `ndgrad.json` (the object's structure: dicts, lists, tuples,
numbers, strings, dtypes and references to tensors) and one `tensors/<n>.npy` per distinct tensor,
read back with `np.load(allow_pickle=False)`. That stores tensors, module and optimizer state
dicts, and nested containers of them; arbitrary Python objects are refused at save time (torch
pickles them, which is what makes loading a foreign .pt file unsafe). A tensor referenced twice
is stored once and loads as one object; Parameters load as Parameters; views load as copies.

Layer: the top one, beside optim and utils (not among the autograd tools): checkpoints hold
module and optimizer state, and loading rebuilds nn.Parameter.
"""
import io
import json
import math
import os
import zipfile
import zlib
from collections import OrderedDict

import numpy as np

from . import _dtype
from ._tensor import Tensor
from .nn.parameter import Parameter
from .ops.creation import from_numpy

MANIFEST = "ndgrad.json"
FORMAT = "ndgrad.save"
VERSION = 1


class _Writer:
    def __init__(self):
        self.arrays = []        # (path in the archive, array)
        self.ids = {}           # id(tensor) -> index, so a shared tensor is stored once
        self.keep = []          # the tensors, alive until written (ids stay unique)

    def encode(self, obj):
        """obj as JSON: plain for str/int/bool/None and finite floats, tagged dicts otherwise."""
        if obj is None or isinstance(obj, (str, bool, int)):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"$float": repr(obj)}
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, (list, tuple)):
            items = [self.encode(v) for v in obj]
            return items if type(obj) is list else {"$tuple": items}
        if isinstance(obj, dict):
            return {"$dict": [[self.encode(k), self.encode(v)] for k, v in obj.items()],
                    "ordered": isinstance(obj, OrderedDict)}
        if isinstance(obj, complex):
            return {"$complex": [repr(obj.real), repr(obj.imag)]}
        if isinstance(obj, _dtype.dtype):
            return {"$dtype": obj.name}
        if isinstance(obj, np.generic):
            return self.encode(obj.item())
        raise TypeError(f"ndgrad.save: cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__}"
                        ": a checkpoint holds tensors, numbers, strings, None, dtypes and lists/tuples/dicts of them "
                        "(arbitrary objects would have to be pickled, and loading pickles runs code). Save its "
                        "state (e.g. a state_dict) instead.")

    def tensor(self, t):
        if str(t.layout) != "torch.strided":
            raise NotImplementedError(f"ndgrad.save: {t.layout} tensors are not supported; save t.to_dense()")
        index = self.ids.get(id(t))
        if index is None:
            index = self.ids[id(t)] = len(self.arrays)
            self.arrays.append((f"tensors/{index}.npy", t.detach().numpy()))
            self.keep.append(t)
        return {"$tensor": index, "dtype": t.dtype.name, "requires_grad": bool(t.requires_grad),
                "parameter": bool(getattr(t, "_is_param", False))}


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write `obj` (tensors, state dicts, nested containers of them) to a path or binary file."""
    if pickle_module is not None:
        raise NotImplementedError("ndgrad.save does not pickle: pickle_module is not supported")
    writer = _Writer()
    manifest = {"format": FORMAT, "version": VERSION, "object": writer.encode(obj)}
    target = open(f, "wb") if isinstance(f, (str, os.PathLike)) else f
    try:
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest))
            for path, array in writer.arrays:
                buffer = io.BytesIO()
                np.save(buffer, array, allow_pickle=False)
                archive.writestr(path, buffer.getvalue())
    finally:
        if target is not f:
            target.close()


_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, KeyError, TypeError, ValueError, AttributeError)


def _corrupt(source, why):
    return RuntimeError(f"ndgrad.load: {source} is not a valid ndgrad checkpoint: {why}")


class _Reader:
    def __init__(self, archive, source):
        self.archive, self.source, self.tensors = archive, source, {}

    def decode(self, value):
        if not isinstance(value, (list, dict)):
            return value
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if "$tensor" in value:
            return self.tensor(value)
        if "$tuple" in value:
            return tuple(self.decode(v) for v in value["$tuple"])
        if "$dict" in value:
            pairs = [(self._key(self.decode(k)), self.decode(v)) for k, v in value["$dict"]]
            return OrderedDict(pairs) if value.get("ordered") else dict(pairs)
        if "$float" in value:
            return float(value["$float"])
        if "$complex" in value:
            return complex(float(value["$complex"][0]), float(value["$complex"][1]))
        if "$dtype" in value:
            return _dtype._by_name(value["$dtype"])
        raise _corrupt(self.source, f"unknown entry {sorted(value)} in {MANIFEST}")

    @staticmethod
    def _key(key):
        return tuple(key) if isinstance(key, list) else key

    def tensor(self, spec):
        index = spec["$tensor"]
        if index in self.tensors:
            return self.tensors[index]
        path = f"tensors/{index}.npy"
        try:
            with self.archive.open(path) as stream:
                array = np.load(io.BytesIO(stream.read()), allow_pickle=False)
        except KeyError:
            raise _corrupt(self.source, f"{path} is missing") from None
        except ValueError as error:   # an object array (needs pickle) or a malformed header
            raise _corrupt(self.source, f"{path}: {error}") from None
        if array.dtype != _dtype._by_name(spec["dtype"]).np:
            raise _corrupt(self.source, f"{path} holds {array.dtype}, the manifest says {spec['dtype']}")
        t = from_numpy(array)
        t = Parameter(t, spec["requires_grad"]) if spec.get("parameter") else t.requires_grad_(spec["requires_grad"])
        self.tensors[index] = t
        return t


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Read what ndgrad.save wrote. Nothing in the file is executed; a file that is not an ndgrad
    checkpoint (a torch .pt pickle, a damaged archive) raises RuntimeError saying so."""
    if map_location is not None and str(map_location).split(":")[0] != "cpu" and not callable(map_location):
        raise NotImplementedError(f"ndgrad.load(map_location={map_location!r}): ndgrad loads tensors on the CPU")
    source = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"
    stream = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f
    try:
        head = stream.read(4)
        stream.seek(-len(head), io.SEEK_CUR)
        if head[:2] == b"\x80\x02" or head[:1] == b"\x80":
            raise _corrupt(source, "it is a Python pickle (a legacy torch.save file?). ndgrad never unpickles, "
                                   "since loading a pickle can run arbitrary code. Convert it with torch: "
                                   "load it there and save its tensors with numpy, or with ndgrad.save.")
        try:
            archive = zipfile.ZipFile(stream)
        except zipfile.BadZipFile:
            raise _corrupt(source, "it is not a zip archive (truncated or not a checkpoint)") from None
        with archive:
            names = archive.namelist()
            if MANIFEST not in names:
                if any(n.endswith("data.pkl") for n in names):
                    raise _corrupt(source, "it is a PyTorch checkpoint (torch.save's zip of pickles). ndgrad never "
                                           "unpickles, since loading a pickle can run arbitrary code. Convert it: in "
                                           "torch, `ndgrad.save({k: ndgrad.tensor(v.numpy()) for k, v in "
                                           "torch.load(path).items()}, new_path)`.")
                raise _corrupt(source, f"the archive has no {MANIFEST}")
            try:
                manifest = json.loads(archive.read(MANIFEST))
                if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                    raise _corrupt(source, f"{MANIFEST} is not an ndgrad manifest")
                if manifest.get("version", 0) > VERSION:
                    raise _corrupt(source, f"it was written by a newer ndgrad (format version {manifest['version']})")
                return _Reader(archive, source).decode(manifest["object"])
            except _DAMAGE as error:   # damaged compressed data, a bad CRC, a malformed manifest
                raise _corrupt(source, f"it is damaged ({type(error).__name__}: {error})") from None
    finally:
        if stream is not f:
            stream.close()
