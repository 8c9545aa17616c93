"""vmap's native path: the function runs once, on tensors that carry the batch as dimension 0.

While it runs, the op glue's hook (`ops._registry.profile_op`) sees every op. An op whose tensor
arguments are all unbatched runs as usual. An op with a batched argument runs only if it has a
batching rule below — elementwise ops (batched operands get singleton dims so that broadcasting
lines up the per-sample shapes), sum/mean over dims and softmax/log_softmax (the per-sample dim
shifted by one); its outputs are batched. Anything else gives up (`Fallback`) and vmap runs its
loop instead: an op without a rule, any in-place op (before it writes), and any look at a batched
tensor outside an op (its shape, its array, indexing, printing), because the code doing it would
see the batch dimension. So the native path either computes what the loop computes or does not
finish. Rules are checked against the loop in tests/test_func.py. Writing batched values into an
unbatched tensor in place raises torch's error (only seen when the native path gets that far).
"""
from ..ops import _registry
from ..ops._torch_function import _disabled_torch_function_impl
from .._tensor import Tensor
from ..ops.reduction import _mean_dim, _sum_dim
from ..ops.shape import _view


class Fallback(BaseException):
    """The native path cannot run this function: vmap loops instead (a BaseException, so that a
    user's `except Exception` cannot swallow it and go on with batched data)."""


class InplaceError(RuntimeError):
    """An in-place write of batched values into an unbatched tensor (torch refuses it too)."""


class _State:
    guard = False     # True while the user's function runs natively (batched tensors refuse inspection)
    completed = 0     # native runs that finished (tests check which path ran)


state = _State()

# what the function may read from a batched tensor: metadata the batch does not change, and the
# methods whose path to an op with a rule reads nothing else
_ALLOWED = frozenset({
    "dtype", "device", "requires_grad", "grad_fn", "is_leaf", "is_floating_point", "is_complex",
    "add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "log", "sin", "cos", "tan", "tanh", "sigmoid",
    "sqrt", "rsqrt", "relu", "square", "clamp", "maximum", "minimum", "log1p", "expm1", "reciprocal", "erf",
    "sum", "mean", "softmax", "log_softmax", "where",
})


class Batched(Tensor):
    """A tensor whose dimension 0 is vmap's batch (only while the native path runs)."""
    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl   # an implementation device: ops see a Tensor

    def __getattribute__(self, name):
        if state.guard and not (name in _ALLOWED or name.startswith("__") and name.endswith("__")):
            raise Fallback(name)
        return object.__getattribute__(self, name)


def _guarded(name):
    """Tensor's `name` refusing to run on a batched tensor during the native run (Python calls
    these special methods without __getattribute__)."""
    plain = getattr(Tensor, name)

    def method(self, *args, **kwargs):
        if state.guard:
            raise Fallback(name)
        return plain(self, *args, **kwargs)
    return method


for _special in ("__len__", "__iter__", "__reversed__", "__contains__", "__getitem__", "__setitem__", "__bool__",
                 "__float__", "__int__", "__complex__", "__index__", "__array__", "__repr__", "__str__",
                 "__format__"):
    if hasattr(Tensor, _special):
        setattr(Batched, _special, _guarded(_special))


# --- rules: (spec, args) -> (spec, args) of the op to run on the batched arrays, or None ----------
def _rank(a):
    """The per-sample rank of a tensor argument."""
    return a._data.ndim - (type(a) is Batched)


def _elementwise(spec, args):
    rank = max(_rank(a) for a in args if isinstance(a, Tensor))
    out = list(args)
    for i, a in enumerate(args):
        if type(a) is Batched and _rank(a) < rank:   # singleton dims between the batch and the sample
            shape = a._data.shape
            out[i] = _registry.call(_view.spec, (a, (shape[0],) + (1,) * (rank - _rank(a)) + shape[1:]))
    return spec, out


def _shift_dims(dim, rank):
    """Per-sample dims as dims of the batched tensor; None where the loop must decide."""
    dims = list(range(rank)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if not dims or any(not isinstance(d, int) or not -rank <= d < rank for d in dims):
        return None
    shifted = [d % rank + 1 for d in dims]
    return shifted[0] if isinstance(dim, int) else shifted


def _along_dims(spec, args):
    """sum/mean over dims, softmax/log_softmax along one: the dims shift past the batch."""
    dims = _shift_dims(args[1], _rank(args[0]))
    return None if dims is None or any(type(a) is Batched for a in args[1:]) else (spec, (args[0], dims) + args[2:])


def _reduce_all(over_dims):
    """sum()/mean() of a sample: the op over every per-sample dim."""
    def rule(spec, args):
        dims = _shift_dims(None, _rank(args[0]))
        return None if dims is None else (over_dims.spec, (args[0], dims, False) + args[1:])
    return rule


_RULES = {
    "relu": _elementwise,
    "sum.dim_IntList": _along_dims, "mean.dim": _along_dims, "_softmax": _along_dims, "_log_softmax": _along_dims,
    "sum": _reduce_all(_sum_dim), "mean": _reduce_all(_mean_dim),
}


def hook(spec, args, inplace=False):
    """`_registry.profile_op` during the native run."""
    in_list = any(type(a) in (list, tuple) and any(type(x) is Batched for x in a) for a in args)
    batched = in_list or any(type(a) is Batched for a in args)
    if inplace:
        if batched and type(args[0]) is not Batched:
            raise InplaceError("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
                               "Tensor `other` in extra_args that has more elements than `self`. This happened due "
                               "to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
                               "to use out-of-place operators instead of inplace arithmetic. If said operator is "
                               "being called inside the PyTorch framework, please file a bug report instead.")
        raise Fallback(spec.name)   # before it writes: the loop must not see its effect twice
    if not batched:
        return _unhooked(_registry.call, spec, args)
    rule = _elementwise if spec.broadcast else _RULES.get(spec.name)
    picked = None if in_list or rule is None else _unhooked(rule, spec, tuple(args))
    if picked is None:
        raise Fallback(spec.name)
    outs = _unhooked(_registry.call, *picked)
    for o in outs if isinstance(outs, tuple) else (outs,):
        if isinstance(o, Tensor):
            o.__class__ = Batched
    return outs


def _unhooked(fn, *args):
    guard, hooked = state.guard, _registry.profile_op
    state.guard, _registry.profile_op = False, None
    try:
        return fn(*args)
    finally:
        state.guard, _registry.profile_op = guard, hooked


def run_native(func, batched_args, kwargs):
    """func(*batched_args, **kwargs) with the hook on: Batched inputs carry the batch at dim 0."""
    state.guard, _registry.profile_op = True, hook
    try:
        out = func(*batched_args, **kwargs)
        state.completed += 1
        return out
    finally:
        state.guard, _registry.profile_op = False, None
