"""Exchanging tensors with other array libraries: DLPack (no copy) and NumPy."""
import struct

import numpy as np
import pytest

import ndgrad
import ndgrad.utils.dlpack

try:
    import torch
except ImportError:
    torch = None


def test_numpy_reads_a_tensor_through_dlpack_and_shares_its_memory():
    t = ndgrad.arange(4.0)
    view = np.from_dlpack(t)
    view[1] = 7.0
    assert t.tolist() == [0.0, 7.0, 2.0, 3.0]


def test_from_dlpack_of_an_array_and_of_a_capsule_share_memory():
    a = np.arange(3, dtype=np.int32)
    t = ndgrad.from_dlpack(a)
    u = ndgrad.utils.dlpack.from_dlpack(ndgrad.utils.dlpack.to_dlpack(t))
    u[0] = 5
    assert a.tolist() == [5, 1, 2] and t.dtype == ndgrad.int32


def test_tensors_that_require_grad_are_not_exported():
    with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach()"):
        np.from_dlpack(ndgrad.ones(2, requires_grad=True))
    with pytest.raises(TypeError, match="from_dlpack: expected an object with __dlpack__ .got list"):
        ndgrad.from_dlpack([1, 2])


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_torch_and_ndgrad_exchange_without_copies():
    a = ndgrad.arange(4.0)
    t = torch.from_dlpack(a)
    t[0] = 9.0
    assert a.tolist() == [9.0, 1.0, 2.0, 3.0]
    src = torch.arange(3)
    b = ndgrad.from_dlpack(src)
    src[2] = -1
    assert b.tolist() == [0, 1, -1] and b.dtype == ndgrad.int64


def _events(folder):
    """The Event protos of the TFRecord files in `folder` (length, crc, payload, crc per record)."""
    from tensorboardX.proto.event_pb2 import Event
    events = []
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        while data:
            (length,) = struct.unpack("<Q", data[:8])
            event = Event()
            event.ParseFromString(data[12:12 + length])
            events.append(event)
            data = data[12 + length + 4:]
    return events


def test_summary_writer_logs_tensors_that_tensorboard_reads_back(tmp_path):
    pytest.importorskip("tensorboardX")
    from ndgrad.utils.tensorboard import SummaryWriter
    with SummaryWriter(str(tmp_path)) as writer:
        for step in range(3):
            writer.add_scalar("loss", ndgrad.tensor(1.0 / (step + 1)), step)
        writer.add_histogram("weights", ndgrad.arange(10.0), 0)
        with pytest.raises(NotImplementedError, match="add_graph"):
            writer.add_graph(None)
    values = [(e.step, v.tag, v) for e in _events(tmp_path) for v in e.summary.value]
    assert [(step, round(v.simple_value, 4)) for step, tag, v in values if tag == "loss"] == \
        [(0, 1.0), (1, 0.5), (2, 0.3333)]
    (histogram,) = [v.histo for _, tag, v in values if tag == "weights"]
    assert (histogram.num, histogram.min, histogram.max, histogram.sum) == (10, 0.0, 9.0, 45.0)
