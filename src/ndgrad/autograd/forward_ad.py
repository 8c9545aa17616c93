"""ndgrad.autograd.forward_ad: forward-mode AD with dual tensors, as torch.autograd.forward_ad.

Inside a dual level, `make_dual(x, v)` gives a tensor that carries the tangent `v` next to its
value. Every op run while the level is active (the op glue, `ops/_registry.call`, checks one flag)
computes the tangents of its outputs from those of its inputs with the `result:` formula of its
derivatives.yaml entry (see `_rule`):
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
import functools
from typing import NamedTuple

from . import grad_mode
from . import node as _node

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]


class _State:
    __slots__ = ("level",)


state = _State()
state.level = None    # the active _Level, or None: the one flag every op checks


class _Level:
    """A dual level; tensors keep (level, tangent), so a tangent dies with its level."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _current_index():
    return -1 if state.level is None else state.level.index


def tangent_of(t):
    """t's tangent at the active level (None when it has none)."""
    fw = t._fw
    return fw[1] if fw is not None and fw[0] is state.level else None


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
    state.level = _Level(0)
    try:
        duals = [make_dual(a, t) if t is not None and isinstance(a, _node.Tensor) else a
                 for a, t in zip(args, tangents)]
        return tangent_of(fn(*duals))
    finally:
        state.level = prev


# --- the public API ---------------------------------------------------------------------------
def enter_dual_level():
    """Start a new dual level and return its index (0: levels do not nest)."""
    if state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level = _Level(0)
    return 0


def exit_dual_level(*, level=None):
    """Leave the active level; the tangents made in it are gone."""
    current = _current_index()
    if level is None:
        level = current
    if level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    state.level = None


class dual_level(grad_mode._Mode):
    """Context manager (or decorator) for forward AD: enters a level, exits it at the end."""
    _args = ()

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal (a view without the tangent) and the tangent."""
    primal: object
    tangent: object


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` that carries `tangent` as its forward gradient at `level`."""
    current = _current_index()
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if t._data.dtype.kind not in "fc":
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    if level != current:
        raise RuntimeError("Invalid level given to _make_dual")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    from ..ops import dual as ops
    with _paused():
        dual = ops._make_dual(tensor, tangent, level)
    dual._fw = (state.level, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of `tensor` at `level`: the primal is a view without the tangent."""
    if level is None:
        level = _current_index()
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(fw_primal(tensor, level), tangent_of(tensor) if level == _current_index() else None)


def fw_primal(tensor, level):
    """`Tensor._fw_primal(level)`: a view of tensor without its tangent (grad_fn Identity, as torch)."""
    from ..ops import dual as ops
    with _paused():
        return ops._fw_primal(tensor, level)


# --- propagation (called by the op glue while a level is active) ------------------------------
def propagate(spec, args, outs):
    """Give the outputs of op `spec` the tangents its yaml `result:` rule computes from args'."""
    level = state.level
    Tensor = _node.Tensor
    tangents = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            t = tangent_of(a)
        elif type(a) in (list, tuple) and a and isinstance(a[0], Tensor):
            t = [tangent_of(x) if x is not None else None for x in a]
            if all(x is None for x in t):
                t = None
        else:
            continue
        if t is not None:
            if tangents is None:
                tangents = [None] * len(args)
            tangents[i] = t
    if tangents is None:
        return
    entry = spec.entry
    out_diff = entry.output_differentiability if entry is not None else None
    wanted = [o._data.dtype.kind in "fc" and (out_diff is None or out_diff[k]) for k, o in enumerate(outs)]
    if not any(wanted) or spec.diff_pos and all(tangents[i] is None for i in spec.diff_pos):
        return   # only non-differentiable inputs (or outputs) are involved
    rule = _rule(entry)
    if rule is None and entry is not None and (entry.node_name or "").endswith("NotImplemented"):
        # ops torch gives no derivative at all (their node is NotImplemented): torch's shorter message
        raise NotImplementedError(f"Trying to use forward AD with aten::{entry.base} that does not support it.")
    if rule is None:
        raise NotImplementedError(
            f"Trying to use forward AD with {entry.base if entry is not None else spec.name} "
            "that does not support it because it has not been implemented yet.\nPlease file an issue to PyTorch "
            "at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
            "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml")
    with _paused():
        res = rule(spec, args, tangents, outs)
        if len(outs) == 1 and not spec.multi_out:
            res = (res,)
        for k, (o, r) in enumerate(zip(outs, res)):
            if wanted[k] and r is not None:
                o._fw = (level, _conform(r, o))
    _keep_in_saved(outs)


def _conform(t, out):
    """The tangent in the output's shape and dtype."""
    Tensor = _node.Tensor
    if not isinstance(t, Tensor):
        from .. import full
        return full(out.shape, t, dtype=out.dtype)
    if t._data.shape != out._data.shape:   # a broadcast tangent gets memory of its own (in-place ops write it)
        t = t.expand(out.shape).clone()
    if t._data.dtype != out._data.dtype:
        t = t._cast(out._data.dtype)
    return t


def _keep_in_saved(outs):
    """Outputs their own node saved keep their tangent (backward formulas read it: forward-over-reverse)."""
    for o in outs:
        fn = o._grad_fn
        if o._fw is not None and fn is not None and fn._saved:
            for s in fn._saved:
                if type(s) is _node.SavedOutput and s.data is o._data:
                    s.fw = o._fw


def restore_saved(saved, t):
    """Called by SavedOutput unpacking while a level is active."""
    fw = getattr(saved, "fw", None)
    if fw is not None:
        t._fw = fw


def inplace(self, res):
    """After `self.op_(...)` wrote `res` into self: self's tangent becomes res's, in place, so that
    views of self (whose tangents are views of self's) see it too."""
    new = tangent_of(res)
    if new is None:
        return
    old = tangent_of(self)
    level = state.level
    with _paused():
        if old is None:
            base = self._base
            if base is not None and self._view_fn is not None:
                # a view of a tensor without tangent: the base gets a zero tangent, self a view of it
                from .. import zeros_like
                base_t = tangent_of(base)
                if base_t is None:
                    base_t = zeros_like(base)
                    base._fw = (level, base_t)
                old = self._view_fn(base_t)
            else:   # a copy: the new tangent may be (a view of) another tensor's
                self._fw = (level, new.clone())
                return
        if old._requires_grad or new._requires_grad:
            old.copy_(new)
        else:
            from .record import write_into
            write_into(old, new._data, "copy_")
    self._fw = (level, old)


# --- the rules --------------------------------------------------------------------------------
def _rule(entry):
    """The tangent rule of a yaml entry (compiled once), or None when it has no `result:`."""
    if entry is None or entry.forward_formula is None:
        return None
    rule = entry.forward_rule
    if rule is None:
        kind = entry.forward_formula
        rule = _SHORTCUTS[kind] if kind in _SHORTCUTS else functools.partial(_explicit, entry.forward_fn)
        entry.forward_rule = rule
    return rule


def _saved_values(spec, args, outs):
    """The values the backward formulas take, in the entry's saved order."""
    return [args[p] if p >= 0 else outs[-1 - p] for p in spec.saved_pos]


def _element_wise(spec, args, tangents, outs):
    """auto_element_wise: each backward formula applied to its input's tangent (broadcast to the
    output), conjugated around for complex values; the contributions add up."""
    node_cls = spec.node_cls
    saved = _saved_values(spec, args, outs)
    out = outs[0]
    mask = [True] * len(node_cls._diff_args)
    total = None
    for targets, fn in node_cls._formulas:
        for k, target in enumerate(targets):
            t = tangents[node_cls._diff_args[target]]
            if t is None:
                continue
            if t._data.shape != out._data.shape:
                t = t.expand(out.shape)
            complex_ = t._data.dtype.kind == "c"
            r = fn([t.conj() if complex_ else t], mask, *saved)
            if len(targets) > 1:
                r = r[k]
            if complex_ or r._data.dtype.kind == "c":
                r = r.conj()
            total = r if total is None else total + r
    return (total,) + (None,) * (len(outs) - 1) if spec.multi_out else total


def _linear(spec, args, tangents, outs):
    """auto_linear: the op run on the tangents of its differentiable arguments (zeros where none)."""
    from ..ops._registry import call
    from .. import zeros_like
    new = list(args)
    for i in spec.diff_pos:
        a, t = args[i], tangents[i]
        if isinstance(a, _node.Tensor):
            new[i] = t if t is not None else zeros_like(a)
        elif type(a) in (list, tuple):
            t = t or [None] * len(a)
            new[i] = [ti if ti is not None else zeros_like(ai) for ai, ti in zip(a, t)]
        elif isinstance(a, (int, float, complex)) and type(a) is not bool:
            new[i] = 0     # a Python number passed for a Tensor argument is a constant
    return call(spec, tuple(new))


def _explicit(fn, spec, args, tangents, outs):
    """A `result:` expression, given its names in the order loader._compile_forward declares them."""
    from .. import zeros_like
    values = []
    Tensor = _node.Tensor
    n = len(args)
    for i, arg in enumerate(spec.entry.args):
        a, t = (args[i], tangents[i]) if i < n else (None, None)
        values.append(a)
        if arg.is_tensor:
            values.append(a)
            # a Python number passed for a Tensor argument has tangent 0
            values.append(t if t is not None else zeros_like(a) if isinstance(a, Tensor) else 0)
        elif arg.is_tensor_list:
            values.append(a)
            t = t or [None] * len(a)
            values.append([ti if ti is not None or ai is None else zeros_like(ai) for ai, ti in zip(a, t)])
    values.extend(outs)
    if spec.entry.forward_result_alias:
        values.append(outs[0] if len(outs) == 1 else tuple(outs))
    return fn(*values)


def _transpose(spec, args, tangents, outs):
    """auto_transpose: with u a zero output gradient that requires grad, the backward formulas give
    vjp(u), linear in u; autograd.grad of vjp(u) against the tangents is then J @ tangent."""
    from .. import zeros_like
    from . import grad as autograd_grad
    from .gradient_checks import sum_to
    node_cls = spec.node_cls
    out_diff = spec.entry.output_differentiability
    us = [zeros_like(o).requires_grad_() if o._data.dtype.kind in "fc" and (out_diff is None or out_diff[k]) else None
          for k, o in enumerate(outs)]
    saved = _saved_values(spec, args, outs)
    mask = [True] * len(node_cls._diff_args)
    vjps, dirs = [], []
    with grad_mode.enable_grad():
        for targets, fn in node_cls._formulas:
            wanted = [k for k, target in enumerate(targets) if tangents[node_cls._diff_args[target]] is not None]
            if not wanted:
                continue
            res = fn(us, mask, *saved)
            for k in wanted:
                pos = node_cls._diff_args[targets[k]]
                r = res[k] if len(targets) > 1 else res
                if r is not None and r.requires_grad:
                    vjps.append(sum_to(r, args[pos].shape))
                    dirs.append(tangents[pos])
    live = [u for u in us if u is not None]
    if not vjps:
        return tuple(None for _ in outs) if spec.multi_out else None
    create = any(t.requires_grad for t in dirs) or any(
        isinstance(a, _node.Tensor) and a._requires_grad for a in args)
    jvps = iter(autograd_grad(vjps, live, dirs, allow_unused=True, materialize_grads=True, create_graph=create))
    res = tuple(next(jvps) if u is not None else None for u in us)
    return res if spec.multi_out else res[0]


_SHORTCUTS = {"auto_element_wise": _element_wise, "auto_linear": _linear, "auto_transpose": _transpose}

