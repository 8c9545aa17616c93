"""ndgrad.save / ndgrad.load: torch's checkpoint format, read without running the file's code.

The file is torch's zip layout, so ndgrad and torch read each other's checkpoints: one top-level
folder holding `data.pkl` (the object, pickled with protocol 2; each tensor is a call of
`torch._utils._rebuild_tensor_v2` over a persistent reference to a storage), `data/<key>` (each
storage's raw little-endian bytes, views of one storage sharing it), `byteorder`, `version`,
`.format_version` and `.storage_alignment`. ndgrad writes torch's global names without importing
torch and maps them back to its own objects on load.

Loading is `weights_only=True` by default, as in torch since 2.6: the unpickler resolves only an
allow-list of globals (the tensor and parameter rebuilders, storages, dtypes, `Size`, `device`,
`OrderedDict`, harmless builtins, and what `add_safe_globals` adds), so a file cannot run code.
`weights_only=False` unpickles anything and must only be used on trusted files. Before anything
is allocated, every member is checked against the archive: no links, devices, absolute or `..`
paths or duplicate names; a stored member's size must fit the file, a compressed one may not
expand more than `MAX_RATIO` times, and a storage member must hold exactly the bytes its
reference declares. Damage raises RuntimeError naming the file, the member and the problem.

Layer: the top one, beside optim and utils: checkpoints hold module and optimizer state, and
loading rebuilds nn.Parameter.
"""
import codecs
import collections
import contextlib
import functools
import importlib
import io
import math
import os
import pickle
import stat
import zipfile
import zlib

import numpy as np

from . import _dtype
from ._hooks import HookDict
from ._tensor import Size, Tensor, device
from .nn.parameter import Parameter
from .ops.creation import from_numpy

DEFAULT_PROTOCOL = 2
MAX_RATIO = 200   # how many times a compressed member may expand (DEFLATE allows ~1000: zip bombs)
_DTYPES = [d for d in vars(_dtype).values() if isinstance(d, _dtype.dtype)]


# --- saving ----------------------------------------------------------------------------------------------
class _Global:
    """A global written into the pickle by name (`torch._utils._rebuild_tensor_v2`...)."""
    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):   # pickle's save_reduce insists on a callable; only its name is written
        raise TypeError(f"{self.module}.{self.name} is a name for checkpoints, not callable in ndgrad")


@functools.cache
def _global(module, name):   # one object per name, so the pickler's memo writes each name once
    return _Global(module, name)


class _Storage:
    __slots__ = ("key", "array")

    def __init__(self, key, array):
        self.key, self.array = key, array


class _AsTensor:   # the plain tensor inside a pickled Parameter
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


class _Pickler(pickle._Pickler):   # the Python pickler: only it lets a global be written by name
    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}   # id(root array) -> _Storage, so views of one array share one storage
        self.keep = []       # the root arrays, alive until written (ids stay unique)

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _dtype.dtype):
            obj = _global("torch", obj.name)
        if type(obj) is _Global:
            memo = self.memo.get(id(obj))
            if memo is not None:
                self.write(self.get(memo[0]))
                return
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            self.memoize(obj)
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        if type(obj) is _Storage:
            if obj.array.dtype in _dtype.UNSIGNED_NP:   # no typed storage class in torch: bytes (see _tensor)
                return ("storage", _global("torch.storage", "UntypedStorage"), obj.key, "cpu", obj.array.nbytes)
            title = _dtype.from_numpy_dtype(obj.array.dtype).title
            return ("storage", _global("torch", f"{title}Storage"), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            return _global("torch._utils", "_rebuild_parameter"), (_AsTensor(obj), obj.requires_grad,
                                                                    collections.OrderedDict())
        if isinstance(obj, Tensor):
            return self._tensor(obj, obj.requires_grad)
        if type(obj) is _AsTensor:
            return self._tensor(obj.t, False)
        if isinstance(obj, Size):
            return _global("torch", "Size"), (tuple(obj),)
        if isinstance(obj, device):
            return _global("torch", "device"), (str(obj),)
        return NotImplemented

    def _tensor(self, t, requires_grad):
        if str(t.layout) != "torch.strided":
            raise NotImplementedError(f"ndgrad.save: {t.layout} tensors are not supported; save t.to_dense()")
        if t._math_bits:
            raise NotImplementedError("ndgrad.save: a lazy conjugate/negative view (is_conj() or is_neg()) is not "
                                      "supported; save t.resolve_conj().resolve_neg()")
        array = t.detach().numpy()
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        item = array.itemsize
        offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        shares = (root.dtype == array.dtype and root.flags.c_contiguous and offset % item == 0
                  and all(s >= 0 and s % item == 0 for s in array.strides))
        if not shares or not array.size:   # a reinterpreted, negative-stride or scattered view: its own copy
            root = np.ascontiguousarray(array)
            offset, shares = 0, False
        storage = self.storages.get(id(root))
        if storage is None:
            storage = self.storages[id(root)] = _Storage(str(len(self.storages)), root)
            self.keep.append(root)
        strides = t.stride() if shares else tuple(math.prod(array.shape[k + 1:]) for k in range(array.ndim))
        args = (storage, offset // item, tuple(array.shape), strides, bool(requires_grad), collections.OrderedDict())
        if array.dtype in _dtype.UNSIGNED_NP:   # as torch writes the dtypes it has no typed storage for
            return _global("torch._utils", "_rebuild_tensor_v3"), args + (t.dtype,)
        return _global("torch._utils", "_rebuild_tensor_v2"), args


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Writes `obj` (a tensor, a state dict, a container of them, or any picklable object) to a file in
    torch's zip checkpoint format, which :func:`ndgrad.load` and ``torch.load`` read.

    Tensors, state dicts and containers of them load with ``weights_only=True``; other objects (a whole
    module) are pickled by reference to their classes and need ``weights_only=False``.

    Args:
        obj (object): what to save.
        f (str, os.PathLike or file-like): a path, or a binary file open for writing.
        pickle_module (module, optional): the pickle module to use.
        pickle_protocol (int): the pickle protocol. Default: ``2``.

    Example::

        >>> import io
        >>> buffer = io.BytesIO()
        >>> torch.save({"w": torch.tensor([1.0, 2.0])}, buffer)
        >>> _ = buffer.seek(0)
        >>> torch.load(buffer)
        {'w': tensor([1., 2.])}
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("ndgrad.save writes with the standard pickle module only")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ndgrad.save writes torch's zip format only (_use_new_zipfile_serialization=True)")
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, pickle_protocol)
    pickler.dump(obj)
    folder = os.path.splitext(os.path.basename(os.fspath(f)))[0] if isinstance(f, (str, os.PathLike)) else "archive"
    folder = folder or "archive"
    target = open(f, "wb") if isinstance(f, (str, os.PathLike)) else f
    try:
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr(f"{folder}/data.pkl", buffer.getvalue())
            archive.writestr(f"{folder}/.format_version", "1")
            archive.writestr(f"{folder}/.storage_alignment", "64")
            if not _disable_byteorder_record:
                archive.writestr(f"{folder}/byteorder", "little")
            for storage in pickler.storages.values():
                array = storage.array.astype(storage.array.dtype.newbyteorder("<"), copy=False)
                archive.writestr(f"{folder}/data/{storage.key}", np.ascontiguousarray(array).tobytes())
            archive.writestr(f"{folder}/version", "3\n")
    finally:
        if target is not f:
            target.close()


# --- the allow-list ---------------------------------------------------------------------------------------
class _StorageType:
    """What a `torch.<Title>Storage` global resolves to: the dtype of the storage's elements."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    size, stride = tuple(size), tuple(stride)
    if (not isinstance(storage, np.ndarray) or len(size) != len(stride)
            or not all(type(n) is int and n >= 0 for n in (storage_offset,) + size + stride)):
        raise RuntimeError(f"ndgrad.load: a tensor record is malformed (size {size}, stride {stride}, "
                           f"offset {storage_offset!r})")
    last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else storage_offset - 1
    if last >= storage.size:
        raise RuntimeError(f"ndgrad.load: a tensor of size {list(size)}, stride {list(stride)} and offset "
                           f"{storage_offset} reaches element {last}, past the end of its storage of "
                           f"{storage.size} elements")
    item = storage.itemsize
    array = np.lib.stride_tricks.as_strided(storage[storage_offset:] if storage.size else storage, size,
                                            tuple(s * item for s in stride))
    return from_numpy(array).requires_grad_(bool(requires_grad))


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None,
                       byteorder="<"):
    """A tensor over an untyped (byte) storage, of `dtype` (torch's form for uint16/32/64); `byteorder`: the
    archive's, which the loader passes."""
    if not isinstance(storage, np.ndarray) or storage.dtype != np.uint8 or not isinstance(dtype, _dtype.dtype) \
            or storage.size % dtype.itemsize:
        raise RuntimeError(f"ndgrad.load: a tensor record is malformed (a {dtype} tensor over storage "
                           f"{getattr(storage, 'dtype', type(storage).__name__)})")
    typed = storage.view(dtype.np.newbyteorder(byteorder))
    if not typed.dtype.isnative:
        typed = typed.astype(dtype.np)
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks, *state):
    return Parameter(data, bool(requires_grad))


_TORCH_NAMES = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch.storage", "UntypedStorage"): _StorageType(_dtype.uint8),   # bytes
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch", "Size"): Size,
    ("torch", "device"): device,
    **{("torch", f"{d.title}Storage"): _StorageType(d) for d in _DTYPES},
    **{("torch", d.name): d for d in _DTYPES},
}

_SAFE_BUILTINS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "Counter"): collections.Counter,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "range"): range,
    ("_codecs", "encode"): codecs.encode,   # protocol 2 writes bytes as _codecs.encode(str, 'latin1')
    ("ndgrad._hooks", "HookDict"): HookDict,   # a module's hook tables (torch's are OrderedDicts)
}
_SAFE_BUILTINS.update({("__builtin__", name): obj for (module, name), obj in list(_SAFE_BUILTINS.items())
                       if module == "builtins"})   # protocol 2 names Python 3's builtins by Python 2's module

_user_safe = {}   # (module, name) -> object, from add_safe_globals


def _name_of(entry):
    if isinstance(entry, tuple):
        obj, full = entry
        module, _, name = full.rpartition(".")
        return (module, name), obj
    return (entry.__module__, entry.__qualname__), entry


def add_safe_globals(safe_globals):
    """Allow these classes/functions (or `(obj, "module.name")` pairs) in `weights_only` loads."""
    for entry in safe_globals:
        key, obj = _name_of(entry)
        _user_safe[key] = obj


def get_safe_globals():
    return list(_user_safe.values())


def clear_safe_globals():
    _user_safe.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """`add_safe_globals` for the duration of a `with` block."""
    saved = dict(_user_safe)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_safe.clear()
        _user_safe.update(saved)


_WEIGHTS_ONLY = ("Weights only load failed. In PyTorch 2.6, the default value of the `weights_only` argument in "
                 "`torch.load` changed from `False` to `True`. Re-running `ndgrad.load` with `weights_only` set to "
                 "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got "
                 "the file from a trusted source.\n\nWeightsUnpickler error: ")


class _Refused(pickle.UnpicklingError):
    """A weights-only refusal (as opposed to a damaged pickle)."""


def _unsupported_global(module, name):
    full = f"{module}.{name}"
    return _Refused(
        f"{_WEIGHTS_ONLY}Unsupported global: GLOBAL {full} was not an allowed global by default. Please use "
        f"`ndgrad.serialization.add_safe_globals([{full}])` or the `ndgrad.serialization.safe_globals([{full}])` "
        "context manager to allowlist this global if you trust this class/function.")


# --- loading ----------------------------------------------------------------------------------------------
def _damaged(source, member, problem):
    where = f", member {member!r}" if member else ""
    return RuntimeError(f"ndgrad.load: {source}{where}: {problem}")


class _Archive:
    """A checked view of a checkpoint's zip members (see the module docstring for the checks)."""

    def __init__(self, stream, source):
        self.source = source
        length = stream.seek(0, io.SEEK_END)
        stream.seek(0)
        if stream.read(2) != b"PK":
            stream.seek(0)
            raise _damaged(source, None, "not a zip archive: truncated, not a checkpoint, or torch's legacy "
                                         "(pre-1.6) pickle format, which ndgrad does not read")
        stream.seek(0)
        try:
            self.zip = zipfile.ZipFile(stream)
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, ValueError, EOFError, OSError) as error:
            raise _damaged(source, None, f"not a readable zip archive ({error})") from None
        seen = set()
        for info in infos:
            name = info.filename
            if name in seen:
                raise _damaged(source, name, "appears twice in the archive")
            seen.add(name)
            mode = info.external_attr >> 16
            if info.create_system == 3 and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise _damaged(source, name, "is a link or device, not a file")
            if name.startswith("/") or "\\" in name or ".." in name.split("/"):
                raise _damaged(source, name, "has a path that leaves the archive")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise _damaged(source, name, f"uses compression method {info.compress_type}, not stored or deflated")
            if info.header_offset + info.compress_size > length:
                raise _damaged(source, name, "extends past the end of the file (truncated?)")
            if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
                raise _damaged(source, name, f"is stored uncompressed but declares {info.file_size} bytes in "
                                             f"{info.compress_size}")
            if info.file_size > MAX_RATIO * max(info.compress_size, 1024):
                raise _damaged(source, name, f"would expand {info.compress_size} bytes to {info.file_size} "
                                             f"(more than {MAX_RATIO} times: a zip bomb?)")
        pickles = [n for n in seen if n.count("/") == 1 and n.endswith("/data.pkl")]
        if len(pickles) != 1:
            raise _damaged(source, None, "not a torch/ndgrad checkpoint: expected one '<name>/data.pkl', found "
                                         f"{len(pickles)}")
        self.folder = pickles[0][:-len("data.pkl")]
        order = self.read("byteorder", optional=True)
        self.byteorder = "<" if order in (None, b"little") else ">" if order == b"big" else None
        if self.byteorder is None:
            raise _damaged(source, self.folder + "byteorder", f"unknown byte order {order[:20]!r}")

    def read(self, member, size=None, optional=False):
        name = self.folder + member if hasattr(self, "folder") else member
        try:
            info = self.zip.getinfo(name)
        except KeyError:
            if optional:
                return None
            raise _damaged(self.source, name, "is missing") from None
        if size is not None and info.file_size != size:
            raise _damaged(self.source, name, f"holds {info.file_size} bytes where its storage needs {size}")
        try:
            with self.zip.open(info) as stream:
                data = stream.read(info.file_size)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise _damaged(self.source, name, f"is damaged ({error})") from None
        if len(data) != info.file_size:
            raise _damaged(self.source, name, f"ends after {len(data)} of {info.file_size} bytes")
        return data


class _Unpickler(pickle.Unpickler):
    def __init__(self, archive, weights_only, map_location):
        super().__init__(io.BytesIO(archive.read("data.pkl")))
        self.archive, self.weights_only, self.map_location = archive, weights_only, map_location
        self.storages = {}

    def find_class(self, module, name):
        key = (module, name)
        found = _TORCH_NAMES.get(key) or _SAFE_BUILTINS.get(key) or _user_safe.get(key)
        if found is _rebuild_tensor_v3:   # reads its byte storage in the archive's byte order
            return functools.partial(found, byteorder=self.archive.byteorder)
        if found is not None:
            return found
        if self.weights_only:
            raise _unsupported_global(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage" and type(pid[1]) is _StorageType
                and type(pid[2]) is str and type(pid[4]) is int and pid[4] >= 0):
            raise _Refused(f"{_WEIGHTS_ONLY}unknown persistent reference {str(pid)[:200]}")
        _, kind, key, location, numel = pid
        if key not in self.storages:
            np_dtype = np.dtype(kind.dtype.np).newbyteorder(self.archive.byteorder)
            data = self.archive.read(f"data/{key}", numel * np_dtype.itemsize)
            array = np.frombuffer(data, np_dtype).astype(kind.dtype.np)   # a writable copy in native order
            if callable(self.map_location):
                moved = self.map_location(from_numpy(array), location)
                array = moved.numpy() if isinstance(moved, Tensor) else array
            self.storages[key] = array
        return self.storages[key]


def _check_location(map_location):
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if target is not None and not callable(target) and str(target).split(":")[0] != "cpu":
            raise NotImplementedError(f"ndgrad.load(map_location={map_location!r}): ndgrad loads tensors on the CPU")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Reads an object written by :func:`ndgrad.save` or ``torch.save`` (zip format).

    With ``weights_only=True`` (the default) only tensors, containers and allow-listed globals load, and
    nothing in the file runs; ``weights_only=False`` unpickles anything, so use it only on files you trust.
    `mmap` is accepted, but the storages are read into memory.

    Args:
        f (str, os.PathLike or file-like): a path, or a binary file open for reading.
        map_location (str, torch.device, dict or callable, optional): where to put the storages; only
            the CPU exists in ndgrad.
        pickle_module (module, optional): the pickle module to use (not with ``weights_only=True``).
        weights_only (bool, optional): restrict unpickling to tensors and plain data. Default: ``True``.
        mmap (bool, optional): map the file instead of reading it.

    Returns:
        object: what was saved.

    Example::

        >>> import io
        >>> buffer = io.BytesIO()
        >>> torch.save([torch.arange(3)], buffer)
        >>> _ = buffer.seek(0)
        >>> torch.load(buffer, weights_only=True)
        [tensor([0, 1, 2])]
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("ndgrad.load reads with the standard pickle module only")
    _check_location(map_location)
    weights_only = True if weights_only is None else bool(weights_only)
    path = isinstance(f, (str, os.PathLike))
    source = repr(os.fspath(f)) if path else "the file"
    if path and not stat.S_ISREG(os.stat(f).st_mode):
        raise RuntimeError(f"ndgrad.load: {source} is not a regular file")
    stream = open(f, "rb") if path else f
    try:
        archive = _Archive(stream, source)
        try:
            return _Unpickler(archive, weights_only, map_location).load()
        except _Refused:
            raise
        except (pickle.UnpicklingError, EOFError, IndexError, KeyError, ValueError, TypeError, AttributeError,
                RecursionError, MemoryError) as error:   # a damaged or hand-made data.pkl
            if not weights_only and not isinstance(error, (pickle.UnpicklingError, EOFError, RecursionError)):
                raise   # unpickling anything runs the file's own code, whose errors are its own
            raise pickle.UnpicklingError(f"ndgrad.load: {source}, member {archive.folder + 'data.pkl'!r} is damaged "
                                         f"({type(error).__name__}: {str(error)[:200]})") from None
    finally:
        if stream is not f:
            stream.close()


# --- safetensors ------------------------------------------------------------------------------------------
def _safetensors():
    try:   # optional: `pip install ndgrad[safetensors]`
        return importlib.import_module("safetensors.numpy")
    except ImportError:
        raise ImportError("ndgrad's safetensors functions need the safetensors package: "
                          "pip install 'ndgrad[safetensors]'") from None


def save_safetensors(tensors, filename, metadata=None):
    """Write a dict of name -> tensor as a .safetensors file (the format of `safetensors.torch.save_file`;
    holds no code by design). Tensors are stored contiguous; views are copied."""
    arrays = {}
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"save_safetensors: {name!r} is a {type(t).__name__}, not a tensor")
        arrays[name] = np.ascontiguousarray(t.detach().numpy())
    _safetensors().save_file(arrays, filename, metadata)


def load_safetensors(filename):
    """Read a .safetensors file (written by ndgrad, `safetensors.torch` or any other library) into a
    dict of name -> tensor."""
    return {name: from_numpy(np.array(a)) for name, a in _safetensors().load_file(filename).items()}
