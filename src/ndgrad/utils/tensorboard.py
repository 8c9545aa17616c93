"""ndgrad.utils.tensorboard (torch.utils.tensorboard): `SummaryWriter` logging scalars, histograms,
images, text... for TensorBoard, through the tensorboardX package (optional: `pip install
'ndgrad[tensorboard]'`). ndgrad tensors are handed over as NumPy arrays; `add_graph` traces
torch.jit graphs and is not available (ndgrad.autograd.graph_viz draws autograd graphs)."""
import functools
import importlib

from .._tensor import Tensor


def _tensorboardx():
    try:
        return importlib.import_module("tensorboardX")
    except ImportError:
        raise ImportError("ndgrad.utils.tensorboard needs the tensorboardX package: "
                          "pip install 'ndgrad[tensorboard]'") from None


def _plain(value):
    """Tensors (also inside lists, tuples and dicts) as NumPy arrays; anything else as it is."""
    if isinstance(value, Tensor):
        return value.detach().numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _converting(method):
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        return method(self, *_plain(args), **_plain(kwargs))
    return call


def _writer_class():
    base = _tensorboardx().SummaryWriter
    methods = {name: _converting(getattr(base, name)) for name in dir(base)
               if name.startswith("add_") and name != "add_graph"}

    def add_graph(self, *args, **kwargs):
        raise NotImplementedError("SummaryWriter.add_graph traces TorchScript graphs, which ndgrad does not have; "
                                  "draw the autograd graph with ndgrad.autograd.graph_viz instead")
    return type("SummaryWriter", (base,), {**methods, "add_graph": add_graph, "__module__": __name__,
                                           "__doc__": base.__doc__})


def __getattr__(name):   # built on first use, so that importing ndgrad.utils does not import tensorboardX
    if name == "SummaryWriter":
        cls = globals()["SummaryWriter"] = _writer_class()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
