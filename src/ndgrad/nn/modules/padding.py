"""Padding modules: ConstantPad, ZeroPad, ReflectionPad, ReplicationPad and CircularPad in
1, 2 and 3 dimensions, generated from one class per padding mode."""
from .. import functional as F
from .module import Module
from .utils import _ntuple


class _PadNd(Module):
    """F.pad with a fixed padding (an int pads every side of the last `_dims` dims)."""
    _mode, _dims = "constant", 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_PadNd):
    pass


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"


def _pad_classes():
    """ConstantPad1d ... CircularPad3d: one class per padding kind and number of dims."""
    made = {}
    for base, prefix in ((_ConstantPadNd, "ConstantPad"), (_ZeroPadNd, "ZeroPad"), (_ReflectionPadNd, "ReflectionPad"),
                         (_ReplicationPadNd, "ReplicationPad"), (_CircularPadNd, "CircularPad")):
        for dims in (1, 2, 3):
            name = f"{prefix}{dims}d"
            made[name] = type(name, (base,), {"_dims": dims, "__module__": __name__})
    return made


_CLASSES = _pad_classes()
globals().update(_CLASSES)

__all__ = list(_CLASSES)
