"""Forward-mode rules: how each op's outputs get their tangents from its inputs', read from the
`result:` line of its derivatives.yaml entry (see autograd/forward_ad.py for the levels and dual
tensors). The op glue calls `propagate` after an op and `inplace` after an in-place op while a
dual level is active; this module installs them into the ops registry when it is imported.
"""
import functools

from .._dtype import INEXACT_KINDS
from .._tensor import Tensor
from ..autograd import forward_ad
from ..autograd.engine import vjp
from ..autograd.forward_ad import _paused, same_layout, state, tangent_of
from ..autograd.gradient_checks import sum_to
from ..autograd.grad_mode import enable_grad
from ..autograd.node import SavedOutput, expand_saved
from ..autograd.record import write_into
from ..ops import _registry
from ..ops._registry import call
from ..ops.creation import full, zeros_like
from ..ops.dual import _to_layout_of as to_layout_of


def propagate(spec, args, outs):
    """Give the outputs of op `spec` the tangents its yaml `result:` rule computes from args'."""
    level = state.level
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
    wanted = [_inexact(o) and (out_diff is None or out_diff[k]) for k, o in enumerate(outs)]
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


def _inexact(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


# (tangents and outputs are read by their shape and dtype, never their arrays: a tangent batched by vmap
# holds its batch dims in its array, see func/_batching.py)
def _conform(t, out):
    """The tangent in the output's shape and dtype."""
    if not isinstance(t, Tensor):
        return full(out.shape, t, dtype=out.dtype)
    if t.shape != out.shape:   # a broadcast tangent gets memory of its own (in-place ops write it)
        t = t.expand(out.shape).clone()
    if t.dtype != out.dtype:
        if t.is_complex() and not out.is_complex():   # a real output's tangent is the real part (torch's
            t = t.real                                 # handle_r_to_c), not a cast that warns it drops one
        t = t.to(out.dtype)
    if t._math_bits != out._math_bits:   # as torch: stored with its primal's lazy conj/neg bits (a copy)
        t = to_layout_of(t, out)
    return t


def _keep_in_saved(outs):
    """Outputs their own node saved keep their tangent (backward formulas read it: forward-over-reverse)."""
    for o in outs:
        fn = o._grad_fn
        if o._fw is not None and fn is not None and fn._saved is not None:
            for s in expand_saved(fn):
                if type(s) is SavedOutput and s.data is o._array:
                    s.fw = o._fw


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
            if base is not None and self._view_fn is not None and tangent_of(base) is not None:
                old = self._view_fn(tangent_of(base))   # a view of a tangent already there: written below
            else:
                self._fw = (level, _first_tangent(self, new.clone(), level))   # its own memory: the rule's
                return                                                       # result may alias an input's
        if old._requires_grad or new._requires_grad or type(old) is not Tensor or type(new) is not Tensor:
            old.copy_(new)   # (a tangent batched by vmap: the batched copy_)
        else:
            write_into(old, new._array, "copy_")
    self._fw = (level, old)


def _first_tangent(self, new, level):
    """torch's rule for the first tangent an in-place op gives `self`: on a view whose base has none,
    the base gets `new` itself when both have its layout, else zeros in its own layout of which the
    view's tangent is the view, so that the base sees it; the tangent is then laid out as self."""
    base = self._base
    if base is not None and self._view_fn is not None:
        if same_layout(new, base) and same_layout(new, self):
            base._fw = (level, new)
        else:
            base_t = forward_ad.zeros_in_layout(new, base)
            base._fw = (level, base_t)
            view_t = self._view_fn(base_t)
            view_t.copy_(new)
            new = view_t
    if not same_layout(new, self):
        new = to_layout_of(new, self)
    return new


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
            if t.shape != out.shape:
                t = t.expand(out.shape)
            complex_ = t.dtype.is_complex
            r = fn([t.conj() if complex_ else t], mask, *saved)
            if len(targets) > 1:
                r = r[k]
            if complex_ or r.dtype.is_complex:
                r = r.conj()
            total = r if total is None else total + r
    return (total,) + (None,) * (len(outs) - 1) if spec.multi_out else total


def _linear(spec, args, tangents, outs):
    """auto_linear: the op run on the tangents of its differentiable arguments (zeros where none)."""
    new = list(args)
    for i in spec.diff_pos:
        a, t = args[i], tangents[i]
        if isinstance(a, Tensor):
            new[i] = t if t is not None else zeros_like(a)
        elif type(a) in (list, tuple):
            t = t or [None] * len(a)
            new[i] = [ti if ti is not None else zeros_like(ai) for ai, ti in zip(a, t)]
        elif isinstance(a, (int, float, complex)) and type(a) is not bool:
            new[i] = 0     # a Python number passed for a Tensor argument is a constant
    return call(spec, tuple(new))


def _explicit(fn, spec, args, tangents, outs):
    """A `result:` expression, given its names in the order loader._compile_forward declares them."""
    values = []
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
    if spec.entry.schema.endswith("-> Tensor[]"):   # one Tensor[] return (_foreach_*): `result` is the list
        outs = (tuple(outs),)
    values.extend(outs)
    if spec.entry.forward_result_alias:
        values.append(outs[0] if len(outs) == 1 else tuple(outs))
    return fn(*values)


def _transpose(spec, args, tangents, outs):
    """auto_transpose: with u a zero output gradient that requires grad, the backward formulas give
    vjp(u), linear in u; autograd.grad of vjp(u) against the tangents is then J @ tangent."""
    node_cls = spec.node_cls
    out_diff = spec.entry.output_differentiability
    us = [zeros_like(o).requires_grad_() if o._array.dtype.kind in INEXACT_KINDS and (out_diff is None or out_diff[k]) else None
          for k, o in enumerate(outs)]
    saved = _saved_values(spec, args, outs)
    mask = [True] * len(node_cls._diff_args)
    vjps, dirs = [], []
    with enable_grad():
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
        isinstance(a, Tensor) and a._requires_grad for a in args)
    jvps = iter(g if g is not None else zeros_like(u) for g, u in zip(vjp(vjps, live, dirs, create_graph=create), live))
    res = tuple(next(jvps) if u is not None else None for u in us)
    return res if spec.multi_out else res[0]


_SHORTCUTS = {"auto_element_wise": _element_wise, "auto_linear": _linear, "auto_transpose": _transpose}


_registry.propagate_tangents = propagate
_registry.inplace_tangents = inplace
