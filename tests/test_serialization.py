"""ndgrad.save / ndgrad.load: round trips of tensors, containers, module and optimizer state in
torch's checkpoint format (read both ways with torch); weights-only loading runs nothing from the
file; hostile and damaged files are refused with bounded memory and a message naming the problem."""
import io
import math
import os
import pickle
import struct
import tracemalloc
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ndgrad
import ndgrad.nn as nn

try:
    import torch
except ImportError:
    torch = None


def round_trip(obj):
    buffer = io.BytesIO()
    ndgrad.save(obj, buffer)
    buffer.seek(0)
    return ndgrad.load(buffer)


@pytest.mark.parametrize("dtype", [ndgrad.float32, ndgrad.float64, ndgrad.float16, ndgrad.int64, ndgrad.int8,
                                   ndgrad.uint8, ndgrad.bool, ndgrad.complex64])
def test_tensor_round_trip_keeps_values_dtype_and_shape(dtype):
    t = (ndgrad.arange(6).reshape(2, 3) % 3).to(dtype)
    back = round_trip(t)
    assert back.dtype == dtype and back.shape == (2, 3) and ndgrad.equal(back, t)


def test_scalars_views_and_flags():
    leaf = ndgrad.ones(3, requires_grad=True)
    back = round_trip({"scalar": ndgrad.tensor(2.5), "view": ndgrad.arange(12).reshape(3, 4).t(), "leaf": leaf})
    assert back["scalar"].shape == () and back["scalar"].item() == 2.5
    assert back["view"].tolist() == ndgrad.arange(12).reshape(3, 4).t().tolist()
    assert back["leaf"].requires_grad and back["leaf"].is_leaf


def test_nested_containers_and_numbers():
    obj = {"epoch": 3, "lr": 1e-3, "nan": float("nan"), "inf": -math.inf, "name": "run", "none": None,
           "flag": True, "pair": (1, 2.0), "list": [1, [2, (3,)]], 7: "int key", (1, 2): "tuple key",
           "c": 1 + 2j, "dtype": ndgrad.float16, "od": OrderedDict(b=1, a=2)}
    back = round_trip(obj)
    assert math.isnan(back.pop("nan")) and math.isnan(obj.pop("nan"))
    assert back == obj
    assert isinstance(back["od"], OrderedDict) and list(back["od"]) == ["b", "a"]
    assert isinstance(back["pair"], tuple) and isinstance(back["list"][1][1], tuple)


def test_shared_tensors_are_stored_once_and_stay_shared():
    t = ndgrad.ones(4)
    back = round_trip({"a": t, "b": [t]})
    assert back["a"] is back["b"][0]
    buffer = io.BytesIO()
    base = ndgrad.arange(6.0)
    ndgrad.save([t, t, t, base, base[2:4]], buffer)
    assert sum("/data/" in n for n in zipfile.ZipFile(buffer).namelist()) == 2   # t's storage, base's storage
    buffer.seek(0)
    *_, base2, view2 = ndgrad.load(buffer)
    view2[0] = -1.0   # a view and its base still share memory after loading, as in torch
    assert base2.tolist() == [0.0, 1.0, -1.0, 3.0, 4.0, 5.0]


def test_module_state_dict_round_trip_and_parameters():
    ndgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model(ndgrad.randn(5, 3))
    state = round_trip(model.state_dict())
    assert isinstance(state, OrderedDict) and list(state) == list(model.state_dict())
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    fresh.load_state_dict(state)
    x = ndgrad.randn(2, 3)
    model.eval()
    fresh.eval()
    assert ndgrad.equal(model(x), fresh(x))
    p = round_trip(nn.Parameter(ndgrad.ones(2)))
    assert isinstance(p, nn.Parameter) and p.requires_grad


def test_file_path_and_optimizer_resume(tmp_path):
    """Save model and optimizer mid-training to a file; resuming reproduces the uninterrupted run."""
    def make():
        ndgrad.manual_seed(0)
        model = nn.Linear(3, 1)
        return model, ndgrad.optim.Adam(model.parameters(), lr=0.1)

    x, y = ndgrad.randn(8, 3), ndgrad.randn(8, 1)

    def steps(model, opt, n):
        for _ in range(n):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
        return loss.item()

    model, opt = make()
    steps(model, opt, 2)
    ndgrad.save({"model": model.state_dict(), "optim": opt.state_dict()}, tmp_path / "ck.pt")
    expected = steps(model, opt, 3)
    model2, opt2 = make()
    checkpoint = ndgrad.load(str(tmp_path / "ck.pt"))
    model2.load_state_dict(checkpoint["model"])
    opt2.load_state_dict(checkpoint["optim"])
    assert steps(model2, opt2, 3) == expected



def test_layout_is_torchs_zip_of_a_pickle_and_storages(tmp_path):
    ndgrad.save({"w": ndgrad.ones(2, 3)}, tmp_path / "model.pt")
    names = zipfile.ZipFile(tmp_path / "model.pt").namelist()
    assert sorted(names) == ["model/.format_version", "model/.storage_alignment", "model/byteorder",
                             "model/data.pkl", "model/data/0", "model/version"]
    assert zipfile.ZipFile(tmp_path / "model.pt").read("model/data/0") == np.ones(6, np.float32).tobytes()


# --- torch reads ndgrad's checkpoints and ndgrad reads torch's -----------------------------------------------
def _everything(T):
    base = T.arange(6.0)
    return {"sd": OrderedDict(weight=T.ones(3, 2), bias=T.zeros(3)), "epoch": 3, "p": T.nn.Parameter(T.ones(2)),
            "base": base, "view": base[2:4], "t": T.arange(6.0).reshape(2, 3).t(), "half": T.ones(2, dtype=T.float16),
            "bool": T.tensor([True, False]), "c": T.tensor([1 + 2j]), "long": T.tensor([1, 2]), "empty": T.zeros(0, 3),
            "scalar": T.tensor(5.0), "size": T.Size([2, 3]), "dtype": T.float64, "device": T.device("cpu")}


def _described(obj):
    """A library-neutral description: tensors as (dtype name, shape, stride, values, requires_grad, parameter)."""
    if hasattr(obj, "detach"):
        return (str(obj.dtype), tuple(obj.shape), tuple(obj.stride()), obj.detach().tolist(), obj.requires_grad,
                type(obj).__name__ == "Parameter")
    if isinstance(obj, dict):
        return {k: _described(v) for k, v in obj.items()}
    return str(obj) if type(obj).__module__.split(".")[0] in ("torch", "ndgrad") else obj


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("writer, reader", [("ndgrad", "torch"), ("torch", "ndgrad")])
def test_checkpoints_cross_between_torch_and_ndgrad(tmp_path, writer, reader):
    libs = {"ndgrad": ndgrad, "torch": torch}
    W, R = libs[writer], libs[reader]
    W.save(_everything(W), tmp_path / "ck.pt")
    loaded = R.load(tmp_path / "ck.pt")   # weights_only=True in both
    assert _described(loaded) == _described(_everything(R))
    loaded["view"][0] = 100.0
    assert loaded["base"].tolist() == [0.0, 1.0, 100.0, 3.0, 4.0, 5.0]


# --- weights_only: nothing in the file runs -------------------------------------------------------------------
class _Payload:
    """Unpickling this writes a marker file: the proof that a loader ran code from the checkpoint."""
    marker = None

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_weights_only_load_runs_nothing_and_names_the_global(tmp_path):
    _Payload.marker = str(tmp_path / "pwned")
    ndgrad.save({"w": ndgrad.ones(2), "x": _Payload()}, tmp_path / "evil.pt")
    with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL (io|builtins)\.open was not an "
                                                     r"allowed global by default.*add_safe_globals"):
        ndgrad.load(tmp_path / "evil.pt")
    assert not os.path.exists(_Payload.marker)
    ndgrad.load(tmp_path / "evil.pt", weights_only=False).pop("x").close()   # asked for: it runs
    assert os.path.exists(_Payload.marker)


class Point:
    def __init__(self, x):
        self.x = x


def test_safe_globals_allow_a_class_only_when_listed():
    buffer = io.BytesIO()
    ndgrad.save({"p": Point(3)}, buffer)
    with pytest.raises(pickle.UnpicklingError, match="test_serialization.Point"):
        ndgrad.load(io.BytesIO(buffer.getvalue()))
    with ndgrad.serialization.safe_globals([Point]):
        assert ndgrad.load(io.BytesIO(buffer.getvalue()))["p"].x == 3
        assert Point in ndgrad.serialization.get_safe_globals()
    assert Point not in ndgrad.serialization.get_safe_globals()
    ndgrad.serialization.add_safe_globals([Point])
    try:
        assert ndgrad.load(io.BytesIO(buffer.getvalue()))["p"].x == 3
    finally:
        ndgrad.serialization.clear_safe_globals()


def test_whole_modules_and_numpy_arrays_need_weights_only_false():
    model = nn.Linear(2, 3)
    buffer = io.BytesIO()
    ndgrad.save({"model": model, "array": np.arange(3.0), "n": 1.5}, buffer)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ndgrad.load(io.BytesIO(buffer.getvalue()))
    back = ndgrad.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    assert isinstance(back["model"], nn.Linear) and ndgrad.equal(back["model"].weight, model.weight)
    assert back["array"].tolist() == [0.0, 1.0, 2.0] and back["n"] == 1.5


# --- hostile and damaged files, generated here (no binaries in the repository) -------------------------------
def _checkpoint(members, compress=None):
    """A zip with the given {name: bytes}; values may be (bytes, ZipInfo tweak) pairs."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = compress or zipfile.ZIP_STORED
            if isinstance(data, tuple):
                data, tweak = data
                tweak(info)
            z.writestr(info, data)
    return buffer.getvalue()


def _pickle_of_one_float_tensor(numel=1, size=(1,), stride=(1,), offset=0):
    """data.pkl of `_rebuild_tensor_v2(storage '0' of `numel` floats, offset, size, stride)`."""
    def glob(module, name):
        return b"c" + module.encode() + b"\n" + name.encode() + b"\n"
    def ints(values):
        return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"
    pid = b"(" + b"X\x07\x00\x00\x00storage" + glob("torch", "FloatStorage") + b"X\x01\x00\x00\x000" + \
        b"X\x03\x00\x00\x00cpu" + b"J" + struct.pack("<i", numel) + b"tQ"
    hooks = glob("collections", "OrderedDict") + b")R"
    return (b"\x80\x02" + glob("torch._utils", "_rebuild_tensor_v2") + b"(" + pid + b"J" + struct.pack("<i", offset)
            + ints(size) + ints(stride) + b"\x89" + hooks + b"tR.")


GOOD = _pickle_of_one_float_tensor()

HOSTILE = {
    "zip bomb": (lambda: _checkpoint({"a/data.pkl": GOOD, "a/data/0": b"\0" * (64 << 20)}, zipfile.ZIP_DEFLATED),
                 RuntimeError, "a/data/0.*would expand .* \\(more than 200 times: a zip bomb"),
    "declared huge storage": (lambda: _checkpoint({"a/data.pkl": _pickle_of_one_float_tensor(numel=2**31 - 1),
                                                   "a/data/0": b"\0" * 4}),
                              RuntimeError, "a/data/0.*holds 4 bytes where its storage needs 8589934588"),
    "shape past its storage": (lambda: _checkpoint({"a/data.pkl": _pickle_of_one_float_tensor(size=(10**6, 10**6), stride=(1, 1)),
                                                    "a/data/0": b"\0" * 4}),
                               RuntimeError, "reaches element 1999998, past the end of its storage of 1 elements"),
    "symlink member": (lambda: _checkpoint({"a/data.pkl": GOOD, "a/data/0": (
        b"/dev/zero", lambda i: setattr(i, "external_attr", 0o120777 << 16) or setattr(i, "create_system", 3))}),
                       RuntimeError, "a/data/0.*is a link or device"),
    "path traversal": (lambda: _checkpoint({"a/data.pkl": GOOD, "a/../../etc/x": b"x"}),
                       RuntimeError, "leaves the archive"),
    "no data.pkl": (lambda: _checkpoint({"a/other": b"x"}), RuntimeError, "expected one '<name>/data.pkl'"),
    "wrong magic": (lambda: b"\x80\x02}q\x00." + b"\0" * 100, RuntimeError, "not a zip archive"),
    "missing storage": (lambda: _checkpoint({"a/data.pkl": GOOD}), RuntimeError, "a/data/0.*is missing"),
    "garbage pickle": (lambda: _checkpoint({"a/data.pkl": b"\x80\x02garbage", "a/data/0": b"\0" * 4}),
                       pickle.UnpicklingError, "a/data.pkl' is damaged"),
}


def _duplicate_names():
    buffer = io.BytesIO(_checkpoint({"a/data.pkl": GOOD, "a/data/0": b"\0" * 4}))
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(buffer, "a") as z:
        z.writestr("a/data/0", b"\1" * 4)
    return buffer.getvalue()


HOSTILE["duplicate names"] = (_duplicate_names, RuntimeError, "a/data/0.*appears twice")


def test_a_hand_made_good_file_loads():
    """The hostile files below differ from this one in one way each."""
    t = ndgrad.load(io.BytesIO(_checkpoint({"a/data.pkl": GOOD, "a/data/0": struct.pack("<f", 2.5)})))
    assert t.tolist() == [2.5] and t.dtype == ndgrad.float32


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_files_are_refused_with_bounded_memory(tmp_path, case):
    make, exc, message = HOSTILE[case]
    path = tmp_path / "hostile.pt"
    path.write_bytes(make())
    tracemalloc.start()
    try:
        with pytest.raises(exc, match=message):
            ndgrad.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"loading a hostile file allocated {peak} bytes"


@pytest.mark.parametrize("damage", ["truncate", "flip", "text", "npz"])
def test_damaged_or_foreign_files_raise_runtime_error_naming_the_file(tmp_path, damage):
    path = tmp_path / "ck.pt"
    ndgrad.save({"w": ndgrad.randn(64, 64)}, path)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":   # inside the storage's bytes: the zip's CRC catches it
        path.write_bytes(data[:1000] + bytes(b ^ 0xFF for b in data[1000:1040]) + data[1040:])
    elif damage == "text":
        path.write_text("hello")
    else:
        np.savez(path.with_suffix(".npz"), w=np.ones(2))
        path = path.with_suffix(".npz")
    with pytest.raises(RuntimeError, match=r"ndgrad\.load: '.*ck\.(pt|npz)'"):
        ndgrad.load(path)


def test_only_regular_files_are_opened(tmp_path):
    link = tmp_path / "zero.pt"
    os.symlink("/dev/zero", link)
    with pytest.raises(RuntimeError, match="is not a regular file"):
        ndgrad.load(link)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_torch_legacy_pickle_format_is_refused_not_unpickled(tmp_path):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(2)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy .* pickle format"):
        ndgrad.load(path)


# --- safetensors ------------------------------------------------------------------------------------------------
def test_safetensors_round_trip_and_torch_reads_it(tmp_path):
    pytest.importorskip("safetensors")
    tensors = {"w": ndgrad.arange(6.0).reshape(2, 3).t(), "b": ndgrad.tensor([1, 2], dtype=ndgrad.int64)}
    ndgrad.serialization.save_safetensors(tensors, tmp_path / "m.safetensors", metadata={"step": "3"})
    back = ndgrad.serialization.load_safetensors(tmp_path / "m.safetensors")
    assert back["w"].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]] and back["b"].dtype == ndgrad.int64
    if torch is not None:
        from safetensors.torch import load_file
        assert load_file(tmp_path / "m.safetensors")["w"].tolist() == back["w"].tolist()
    with pytest.raises(TypeError, match="'x' is a list, not a tensor"):
        ndgrad.serialization.save_safetensors({"x": [1]}, tmp_path / "bad.safetensors")


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn, self.emb, self.out = nn.GRU(3, 4), nn.Embedding(5, 3), nn.Linear(4, 2)


def test_a_whole_module_loads_weights_only_when_its_classes_are_allowed():
    """As torch's word-language-model example does: torch.save(model), then load with safe_globals."""
    model = _Net()
    model.out.register_forward_hook(print)   # a hook table that holds something: refused below
    buffer = io.BytesIO()
    ndgrad.save(_Net(), buffer)
    classes = [_Net, nn.modules.rnn.GRU, nn.modules.sparse.Embedding, nn.modules.linear.Linear]
    with ndgrad.serialization.safe_globals(classes):
        back = ndgrad.load(io.BytesIO(buffer.getvalue()))
    assert isinstance(back.rnn, nn.GRU) and isinstance(back.out.weight, nn.Parameter)
    back.rnn.flatten_parameters()   # torch's cuDNN packing: nothing to do on the CPU
    assert back.out(ndgrad.ones(1, 4)).shape == (1, 2)
    hooked = io.BytesIO()
    ndgrad.save(model, hooked)
    with ndgrad.serialization.safe_globals(classes), pytest.raises(pickle.UnpicklingError, match="GLOBAL __builtin__.print"):
        ndgrad.load(io.BytesIO(hooked.getvalue()))
