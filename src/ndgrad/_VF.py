"""ndgrad._VF: the module through which torch's own Python reaches the raw bindings
(`torch._VF.lstm`, `torch._VF.norm`): each attribute is read from `ndgrad._C._VariableFunctions`."""
import sys
import types

from ._C import _VariableFunctions


class VFModule(types.ModuleType):
    """This module: attribute lookups go to `vf`, the bindings' namespace."""

    def __init__(self, name):
        super().__init__(name)
        self.vf = _VariableFunctions

    def __getattr__(self, name):
        return getattr(self.vf, name)


_module = VFModule(__name__)
_module.__doc__ = __doc__
sys.modules[__name__] = _module
