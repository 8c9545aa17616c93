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


# what each kind pads with, and what it makes of [[1., 2., 3.]] with padding 2 (its docstring's example)
_KINDS = {
    "ConstantPad": ("a constant `value`", "9., 9., 1., 2., 3., 9., 9."),
    "ZeroPad": ("zeros", "0., 0., 1., 2., 3., 0., 0."),
    "ReflectionPad": ("its reflection about its edge (the edge itself not\n"
                      "repeated); each padding is smaller than the size it pads", "3., 2., 1., 2., 3., 2., 1."),
    "ReplicationPad": ("copies of the input's edge values", "1., 1., 1., 2., 3., 3., 3."),
    "CircularPad": ("the values of the opposite side (the input wrapped\n"
                    "around); each padding is at most the size it pads", "2., 3., 1., 2., 3., 1., 2."),
}
_SIDES = {1: "left, right", 2: "left, right, top, bottom", 3: "left, right, top, bottom, front, back"}
_SPATIAL = {1: "W", 2: "H, W", 3: "D, H, W"}


def _pad_doc(prefix, dims):
    """The docstring of a generated padding class, e.g. ReflectionPad2d."""
    what, padded = _KINDS[prefix]
    name, value = f"{prefix}{dims}d", ", 9.0" if prefix == "ConstantPad" else ""
    sizes = ", ".join(f"{d}_out" for d in _SPATIAL[dims].split(", "))
    example = (f">>> torch.nn.{name}(2{value})(torch.tensor([[1.0, 2.0, 3.0]]))\n    tensor([[{padded}]])"
               if dims == 1 else f">>> torch.nn.{name}(1{value})(torch.ones(1, {', '.join(['2'] * dims)})).shape\n"
               f"    torch.Size([1, {', '.join(['4'] * dims)}])")
    value_arg = "\n    value (float): the padding value." if value else ""
    last = "the last dimension" if dims == 1 else f"the last {dims} dimensions"
    return f"""Pads {last} of the input with {what}.

Args:
    padding (int or tuple): an int pads every side by that much; a tuple gives
        ``({_SIDES[dims]})``, the last dimension first.{value_arg}

Shape:
    Input: `(N, C, {_SPATIAL[dims]})` or `(C, {_SPATIAL[dims]})`.
    Output: `(N, C, {sizes})` or `(C, {sizes})`, each size the input's plus its
        two paddings.

Example::

    {example}
"""


def _pad_classes():
    """ConstantPad1d ... CircularPad3d: one class per padding kind and number of dims."""
    made = {}
    for base, prefix in ((_ConstantPadNd, "ConstantPad"), (_ZeroPadNd, "ZeroPad"), (_ReflectionPadNd, "ReflectionPad"),
                         (_ReplicationPadNd, "ReplicationPad"), (_CircularPadNd, "CircularPad")):
        for dims in (1, 2, 3):
            name = f"{prefix}{dims}d"
            made[name] = type(name, (base,), {"_dims": dims, "__module__": __name__,
                                              "__doc__": _pad_doc(prefix, dims)})
    return made


_CLASSES = _pad_classes()
globals().update(_CLASSES)

__all__ = list(_CLASSES)
