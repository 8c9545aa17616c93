"""ndgrad.autograd.forward_ad: forward-mode AD with dual tensors, as torch.autograd.forward_ad.

Inside a dual level, `make_dual(x, v)` gives a tensor that carries the tangent `v` next to its
value. Every op run while the level is active (the op glue, `ops/_registry.call`, checks one flag)
computes the tangents of its outputs from those of its inputs with the `result:` formula of its
derivatives.yaml entry (derivatives/forward.py holds those rules; this module holds the levels,
the dual tensors and the tangent state every op reads):
- an expression over the primals (`self_p`, or plainly `self`), the tangents (`self_t`; zeros
  for an input without one), the outputs (`result` or the named returns) and the other arguments;
- `auto_element_wise`: the backward formula applied to the tangent. An element-wise op's
  Jacobian is diagonal, so its transpose is itself (up to conjugation for complex values);
- `auto_linear`: the op itself applied to the tangents (ops linear in their tensor inputs), which
  also makes the tangent of a view a view of the tangent;
- `auto_transpose`: for ops whose jvp has no short expression (decompositions, convolutions,
  normalizations): a backward formula is linear in its output gradient u, so the gradient of
  <vjp(u), tangent> with respect to u is the jvp (complex values too: both modes treat C as R^2).
  It costs a double backward.
Formulas run with the level paused, on ordinary tensors: tangents are differentiable in reverse
mode, and backward formulas run on dual tensors give dual gradients (forward-over-reverse).
As in torch, only one level can be active at a time; leaving it forgets every tangent made in it.
"""
from typing import NamedTuple

from . import grad_mode
from .._tensor import Tensor, _owner
from ..backends import is_array

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_flags = grad_mode.state   # fw_grad: whether tangents are computed at all (torch._C._set_fwd_grad_enabled)


class _State:
    __slots__ = ("level",)


state = _State()
state.level = None    # the active _Level, or None: the one flag every op checks


class _Level:
    """A dual level; tensors keep (level, tangent), so a tangent dies with its level (`alive` is
    False once it is exited: the tensor layer, which cannot see `state`, prints tangents by it)."""
    __slots__ = ("index", "alive")

    def __init__(self, index):
        self.index = index
        self.alive = True


def _current_index():
    return -1 if state.level is None else state.level.index


def __getattr__(name):
    # torch keeps the index of the innermost level in this module global (-1: none)
    if name == "_current_level":
        return _current_index()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tangent_of(t):
    """t's tangent at the active level (None when it has none, or forward grad is disabled)."""
    fw = t._fw
    return fw[1] if fw is not None and fw[0] is state.level and _flags.fw_grad else None


def _is_fwd_grad_enabled():
    return _flags.fw_grad


class _set_fwd_grad_enabled(grad_mode._Mode):
    """Switches forward grad on or off at once; used with `with`, restores the previous mode on exit."""

    def __init__(self, mode):
        self._args = (mode,)
        self.prev = _flags.fw_grad
        _flags.fw_grad = bool(mode)

    def _apply(self):
        _flags.fw_grad = bool(self._args[0])

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _flags.fw_grad = self.prev
        return False


class _paused:
    """Run ops without tangents (formulas and the dual-tensor plumbing itself)."""
    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = state.level
        state.level = None

    def __exit__(self, *exc):
        state.level = self.prev


def jvp_at(fn, args, tangents):
    """The tangent of fn(*args) along `tangents` (None: constant), on a private dual level
    (used by formulas, which run with the caller's level paused)."""
    prev = state.level
    state.level = level = _Level(0)
    try:
        duals = [make_dual(a, t) if t is not None and isinstance(a, Tensor) else a
                 for a, t in zip(args, tangents)]
        return tangent_of(fn(*duals))
    finally:
        level.alive = False
        state.level = prev


# --- the public API ---------------------------------------------------------------------------
def enter_dual_level():
    """Open a forward-AD level and return its index.

    While a level is open, :func:`make_dual` attaches tangents to tensors and every operation
    propagates them. Levels do not nest (as in torch today), so the index is always 0. Prefer the
    :class:`dual_level` context manager, which also closes the level.

    Returns:
        int: the index of the new level.

    Raises:
        RuntimeError: if a level is already open.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> fwAD.enter_dual_level()
        0
        >>> x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
        >>> fwAD.unpack_dual(x * x).tangent
        tensor([2., 0.])
        >>> fwAD.exit_dual_level()
    """
    if state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level = _Level(0)
    return 0


def exit_dual_level(*, level=None):
    """Close the open forward-AD level; the tangents made in it are dropped.

    Args:
        level (int, optional): the level to close, which must be the open one. Default: the open
            one.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> level = fwAD.enter_dual_level()
        >>> x = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
        >>> fwAD.exit_dual_level(level=level)
        >>> fwAD.unpack_dual(x).tangent is None
        True
    """
    current = _current_index()
    if level is None:
        level = current
    if level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    state.level.alive = False
    state.level = None


class dual_level(grad_mode._Mode):
    """Context manager (or decorator) that opens a forward-AD level and closes it at the end.

    Inside it, `make_dual` attaches tangents and every op propagates them. Only one level can be
    open at a time; leaving it forgets every tangent made in it.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
        ...     fwAD.unpack_dual(x ** 3).tangent
        tensor(12.)
    """
    _args = ()

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: a named tuple ``(primal, tangent)``.

    `primal` is a view of the dual tensor without its tangent; `tangent` is the tangent at the
    current level, or None when the tensor has none.

    Args:
        primal (Tensor): the primal value.
        tangent (Tensor or None): the tangent.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
        ...     fwAD.unpack_dual(x * x)
        UnpackedDualTensor(primal=tensor([1., 4.]), tangent=tensor([2., 0.]))
    """
    primal: object
    tangent: object


# set by ops/dual.py: zeros for a tangent `t` laid out as `primal` (`zeros_in_layout(t, primal)`), and `t`
# copied (differentiably) into them (`to_layout_of`); func's vmap wraps the first for tangents batched
# over vmap levels (their zeros get the batch dims first)
zeros_in_layout = to_layout_of = None


def _layout(t):
    """(strides, storage offset, storage size) of t's memory, None where it has no strided memory."""
    if not is_array(t._array):
        return None
    return t.stride(), t.storage_offset(), _owner(t).nbytes // t._array.itemsize


# func's vmap replaces it: a batched tangent's per-sample strides, and no storage size (as torch, which
# skips the storage size check for a batched tangent: its storage holds every sample)
layout_of = _layout


def same_layout(t, primal):
    """torch's check before it stores a tangent (has_same_meta): same sizes, storage offset, strides
    (but of dims of size 0 or 1) and storage size as the primal."""
    if t.shape != primal.shape:
        return False
    a, b = layout_of(t), layout_of(primal)
    if a is None or b is None:
        return True
    if a[1] != b[1]:
        return False
    if any(n > 1 and x != y for n, x, y in zip(t.shape, a[0], b[0])):
        return False
    return a[2] is None or b[2] is None or a[2] == b[2]


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` that carries `tangent` as its forward gradient.

    Args:
        tensor: the primal value (a floating or complex tensor).
        tangent: the direction, of the same shape as `tensor`.
        level: the forward-AD level (default: the one open).

    Returns:
        Tensor: the dual tensor; ops on it compute the tangents of their results.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
        ...     fwAD.unpack_dual(d * d).tangent
        tensor([2., 0.])
    """
    current = _current_index()
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    if level != current:
        raise RuntimeError("Invalid level given to _make_dual")
    if tangent.shape != tensor.shape:   # (the per-sample shapes of a tangent batched by vmap)
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    if tangent_of(tangent) is not None:
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the same level"
                           f"{level} is not supported.")
    with _paused():
        dual = tensor._dual_view(tangent, level)   # the _make_dual view op (ops/dual.py)
        # as torch: a tangent is stored laid out as its primal, with its lazy conj/neg bits
        if not same_layout(tangent, tensor) or tangent._math_bits != tensor._math_bits:
            tangent = to_layout_of(tangent, tensor)
    if _flags.fw_grad:
        dual._fw = (state.level, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """The primal and the tangent of `tensor` at `level`.

    Args:
        tensor: a tensor, dual or not.
        level: the forward-AD level (default: the one open).

    Returns:
        UnpackedDualTensor: a named tuple ``(primal, tangent)``; the primal is a view without the
        tangent, the tangent is None for a tensor that has none.

    Example::

        >>> fwAD = torch.autograd.forward_ad
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(torch.tensor(0.0), torch.tensor(1.0))
        ...     primal, tangent = fwAD.unpack_dual(d.exp())
        >>> primal, tangent
        (tensor(1.), tensor(1.))
    """
    if level is None:
        level = _current_index()
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(fw_primal(tensor, level), tangent_of(tensor) if level == _current_index() else None)


def fw_primal(tensor, level):
    """`Tensor._fw_primal(level)`: a view of tensor without its tangent (grad_fn Identity, as torch)."""
    with _paused():
        return tensor._primal_view(level)   # the _fw_primal view op (ops/dual.py)


def restore_saved(saved, t):
    """Called by SavedOutput unpacking while a level is active."""
    fw = getattr(saved, "fw", None)
    if fw is not None:
        t._fw = fw
