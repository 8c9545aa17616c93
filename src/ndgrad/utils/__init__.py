"""ndgrad.utils: helpers outside the autograd core (checkpointing, data loading, benchmarking, DLPack,
TensorBoard logging, hook handles, weak references, pytrees)."""
import importlib as _importlib

# Submodules imported on first use (PEP 562 module __getattr__): `ndgrad.utils.data` etc. work as
# before, and importing utils._pytree (as func does) or ndgrad itself does not load the data loader.
_SUBMODULES = frozenset({"checkpoint", "dlpack", "tensorboard", "data", "benchmark", "hooks", "model_zoo", "weak",
                         "_pytree", "_python_dispatch", "_mode_utils"})


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
