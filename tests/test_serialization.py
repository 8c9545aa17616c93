"""ndgrad.save / ndgrad.load: round trips of tensors, containers, module and optimizer state;
loading never unpickles, and foreign or damaged files raise a RuntimeError that says what they are."""
import io
import math
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
    ndgrad.save([t, t, t], buffer)
    assert sum(n.startswith("tensors/") for n in zipfile.ZipFile(buffer).namelist()) == 1


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


def test_unstorable_objects_are_refused_at_save():
    class Thing:
        pass
    with pytest.raises(TypeError, match="cannot store an object of type .*Thing"):
        ndgrad.save({"x": Thing()}, io.BytesIO())


def test_load_never_unpickles_npy_object_arrays(tmp_path):
    """A checkpoint whose tensor file holds a pickled object array is rejected, not unpickled."""
    buffer = io.BytesIO()
    ndgrad.save(ndgrad.ones(2), buffer)
    evil = io.BytesIO()
    with zipfile.ZipFile(buffer) as src, zipfile.ZipFile(evil, "w") as dst:
        dst.writestr("ndgrad.json", src.read("ndgrad.json"))
        payload = io.BytesIO()
        np.save(payload, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        dst.writestr("tensors/0.npy", payload.getvalue())
    evil.seek(0)
    with pytest.raises(RuntimeError, match="not a valid ndgrad checkpoint.*tensors/0.npy"):
        ndgrad.load(evil)


@pytest.mark.parametrize("damage", ["truncate", "flip", "text", "npz", "manifest"])
def test_damaged_or_foreign_files_raise_runtime_error(tmp_path, damage):
    path = tmp_path / "ck"
    ndgrad.save({"w": ndgrad.randn(64, 64)}, path)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:300] + bytes(b ^ 0xFF for b in data[300:340]) + data[340:])
    elif damage == "text":
        path.write_text("hello")
    elif damage == "npz":
        np.savez(path.with_suffix(".npz"), w=np.ones(2))
        path = path.with_suffix(".npz")
    else:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("ndgrad.json", "{not json")
    with pytest.raises(RuntimeError, match="not a valid ndgrad checkpoint"):
        ndgrad.load(path)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("zip_format", [True, False])
def test_torch_checkpoints_are_recognised_not_unpickled(tmp_path, zip_format):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(2)}, path, _use_new_zipfile_serialization=zip_format)
    with pytest.raises(RuntimeError, match="never unpickles"):
        ndgrad.load(path)
