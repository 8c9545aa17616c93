"""The derivatives layer: derivatives.yaml (the single source of every backward and forward-mode
formula), the helpers its formulas call (formulas.py) and the loader that compiles each entry to
a Node class. Importing this package loads the table and binds every registered op to its entry.

Formulas are Python expressions over Tensors, compiled with a scope of the public ops (from the
ops registry) and formulas.py's helpers, so they are differentiable themselves.
"""
import builtins

from ..ops import _registry
from . import array_formulas, formulas, forward, loader  # noqa: F401  (forward: installs the forward-mode rules)

# The names a formula may call: formulas.py's helpers, then the public ops, except names of Python
# builtins (max, min, sum, all, any), which formulas use on ints and shapes.
SCOPE = {name: fn for name, fn in _registry.OPS.items() if not hasattr(builtins, name)}
SCOPE.update(vars(formulas))

ENTRIES = loader.load(SCOPE, array_scope=array_formulas.SCOPE)
_registry.bind_derivatives(ENTRIES)

# the formula takes absent gradients (None) itself: the engine cannot make zeros of a nested shape
ENTRIES["linear_backward"].node_cls._takes_missing = True
# (its formula reads the mean's and rstd's gradients only when both arrived, as torch's: zeros made for
# them cost five passes over the input for nothing)
ENTRIES["native_group_norm"].node_cls._takes_missing = True
