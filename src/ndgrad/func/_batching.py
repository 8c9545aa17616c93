"""vmap's native path: the function runs once, on tensors that carry the batch in leading dimensions.

A batched tensor (`Batched`) holds its array *physically*: one leading dimension per vmap level
it is batched over (outermost level first), then the per-sample dims. Everything the function
can see is *logical*: shape, size(), dim(), numel() give the per-sample values, and every op
goes through the op glue's hook (`ops._registry.profile_op`, set while a native vmap runs),
which runs it on the physical arrays as ONE array call by the op's batching rule:

- the operands are aligned: each batched one gets a leading dim per level present (size 1 where
  it is not batched over that level);
- elementwise (broadcasting) ops: batched operands of lower per-sample rank get singleton dims
  after the leading ones, so that broadcasting lines up the per-sample shapes;
- ops with dim arguments (reductions, softmax, transpose, cat, ...): the dims shift past the
  leading ones; ops with a size argument (view, reshape, expand): the leading sizes are prepended;
- the matmul family: per-sample matrices broadcast over the leading dims (np.matmul);
- any other op: the fallback loops over the leading dims, one call per sample, and stacks
  (`state.fallback_ops` counts which ops it took).

Autograd records the *logical* op: the node is the op's usual node, saving the batched tensors,
with per-sample shapes as its metadata; its backward formula later runs through the same hook.
So grad of vmap and vmap of grad both differentiate batched computations, and nested vmaps
(jacrev(jacrev(f)), hessian, per-sample gradients of a vmapped model) stay batched.

Forward AD inside the function (a dual level opened there, as torch's legacy vmap tests do): a
tangent may be a batched tensor while its primal is not (`make_dual(x, batched_tangent)`); the
tangent rules of every op run on it through the hook, so tangents stay batched, and forward AD's
layout checks read a batched tangent's per-sample strides (`_layout`). As torch, vmap hands back
the very tensor a batched one wraps (`remove_level`): an input returned untouched, a tangent kept.

What the native path cannot do it refuses (`Fallback`), and vmap then runs its loop over whole
samples: an in-place op on batched data that autograd records (or that writes into a view its
batching rule had to copy), a look at a batched tensor's values from code that is not batch-aware
(item(), printing, numpy(), indexing, iteration, `.data`, or reading the array from any module
outside `_AWARE`), and randomness other than 'error'.
"""
import collections
import inspect
import math
import re
import sys

import numpy as np

from ..autograd import forward_ad, record
from ..autograd.gradient_checks import _summed_dims
from ..autograd.forward_ad import state as fw_state
from ..autograd.grad_mode import state as grad_state
from ..autograd.node import Node, _next_seq, edge
from ..ops import _registry
from ..ops._torch_function import _disabled_torch_function_impl
from .._tensor import Tensor
from ..ops.reduction import _mean_dim, _sum_dim
from ..derivatives import formulas
from ..derivatives.forward import _keep_in_saved
from .._native import one_blas_thread
from ..ops.creation import zeros_like
from ..ops.dual import _zeros_in_layout
from ..ops.nested import _nested
from ..ops.shape import _inplace_view, _reshape, _shape_str, _storage
from .._tensor import Size, Tensor, apply_bits


class Fallback(BaseException):
    """The native path cannot run this function: vmap loops instead (a BaseException, so that a
    user's `except Exception` cannot swallow it and go on with batched data)."""


COPY = object()   # see Batched._batched_base


class InplaceError(RuntimeError):
    """An in-place write of batched values into an unbatched tensor (torch refuses it too)."""


class _State:
    active = 0        # native vmaps running (nested ones count each)
    raw = False       # True inside the hook: the op runs on physical arrays
    completed = 0     # native runs that finished (tests check which path ran)
    levels = 0        # the last level id handed out
    running = set()   # the levels of the native vmaps running now
    fallback_ops = collections.Counter()   # ops that ran by the per-sample loop, by name
    gave_up = collections.Counter()        # why native runs gave up (vmap then looped over samples)


state = _State()

# modules that know a batched tensor's array is physical (they read it only to move it along)
_AWARE = frozenset({"ndgrad.autograd.engine", "ndgrad.autograd.gradient_checks", "ndgrad.autograd.record",
                    "ndgrad.autograd.node", "ndgrad.autograd.capture", "ndgrad.autograd.differentiate",
                    "ndgrad.ops._registry", "ndgrad._tensor", __name__})
# functions that read it only for its type, dtype or backend (zeros_like/ones_like: of the per-sample shape, the
# same for every sample), its contiguity (_reshape), or to put a view op's array into self (t_(), squeeze_())
# (and _keep_in_saved: which saved value holds an output's array)
_AWARE_CODE = frozenset(f.__code__ for f in (_inplace_view, _nested, zeros_like, formulas.conj, formulas._is_tensor,
                                             _reshape, _keep_in_saved))
# views of the physical values: refused from anywhere during a native run
_PHYSICAL = frozenset({"item", "tolist", "numpy", "data", "stride", "storage_offset", "untyped_storage",
                       "data_ptr", "resize_", "resize_as_", "grad", "backward", "as_strided",
                       "unfold", "split", "chunk", "unbind", "tensor_split"})


_SLOT = Tensor.__dict__["_array"]   # the array's slot: physical(t) reads it without the guard


class Batched(Tensor):
    """A tensor batched over vmap levels `levels` (a class attribute of the per-levels subclass)."""
    __slots__ = ()
    levels = ()
    # (out_dim, array, grad_fn, requires_grad, plain tensor): the plain tensor this one is, batched at
    # out_dim, while its array and history are those (see remove_level)
    _value = None
    # a view op's output: the batched tensor whose memory it views (see remove_level), or COPY where
    # the op's batching rule had to copy (an in-place write into it would not reach its base)
    _batched_base = None
    __torch_function__ = _disabled_torch_function_impl   # an implementation device: ops see a Tensor

    def _read(self):
        # the array, to batch-aware code only while a native run is on
        if state.active and not state.raw:
            f = sys._getframe(1)
            if f.f_globals.get("__name__") not in _AWARE and f.f_code not in _AWARE_CODE:
                raise Fallback(f"_array read at {f.f_code.co_filename}:{f.f_lineno}")
        return _SLOT.__get__(self)

    _array = property(_read, _SLOT.__set__)

    # the per-sample metadata
    @property
    def shape(self):
        return Size(_SLOT.__get__(self).shape[len(type(self).levels):])

    def size(self, dim=None):
        shape = self.shape
        return shape if dim is None else shape[_wrap(dim, len(shape))]

    @property
    def ndim(self):
        return _SLOT.__get__(self).ndim - len(type(self).levels)

    def dim(self):
        return self.ndim

    ndimension = dim

    def numel(self):
        return math.prod(self.shape)

    nelement = numel

    def __len__(self):
        if state.active and not state.raw:
            raise Fallback("__len__")
        return Tensor.__len__(self)

    def detach(self):
        out = Tensor.detach(self)
        out.__class__ = type(self)
        return out


def _wrap(dim, rank):
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise Fallback("dim out of range")   # the loop raises torch's error
    return dim % max(rank, 1)


def _guarded(name):
    plain = Tensor.__dict__.get(name) or getattr(Tensor, name)
    if isinstance(plain, property):
        def get(self):
            if state.active and not state.raw:
                raise Fallback(name)
            return plain.__get__(self)
        return property(get, plain.fset)

    def method(self, *args, **kwargs):
        if state.active and not state.raw:
            raise Fallback(name)
        return plain(self, *args, **kwargs)
    return method


for _name in _PHYSICAL | {"__iter__", "__reversed__", "__contains__", "__getitem__", "__setitem__", "__bool__",
                          "__float__", "__int__", "__complex__", "__index__", "__array__", "__repr__", "__str__",
                          "__format__"}:
    if hasattr(Tensor, _name):
        setattr(Batched, _name, _guarded(_name))


_classes = {}


def batched_class(levels):
    cls = _classes.get(levels)
    if cls is None:
        cls = _classes[levels] = type("Batched", (Batched,), {"__slots__": (), "levels": levels})
    return cls


def levels_of(t):
    return type(t).levels if isinstance(t, Batched) else ()


def physical(t):
    return _SLOT.__get__(t)


def make(array, levels):
    """A batched tensor (plain when levels is empty) holding `array`."""
    t = Tensor._make(array, False, None, 0)
    if levels:
        t.__class__ = batched_class(levels)
    return t


# --- aligning operands ----------------------------------------------------------------------
def _aligned(t, levels, rank=None):
    """t's array with one leading dim per level of `levels` (1 where t is not batched over it),
    then singleton dims up to per-sample rank `rank`. Unbatched tensors stay as they are
    (broadcasting lines them up) unless rank is given."""
    own = levels_of(t)
    a = physical(t)
    if not own and rank is None:
        return a
    k = len(own)
    sample = a.shape[k:]
    lead = []
    j = 0
    for lv in levels:
        if j < k and own[j] == lv:
            lead.append(a.shape[j])
            j += 1
        else:
            lead.append(1)
    pad = () if rank is None else (1,) * (rank - len(sample))
    shape = tuple(lead) + pad + sample
    return a if shape == a.shape else a.reshape(shape)


def _tensor_args(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif type(a) in (list, tuple):
            yield from (x for x in a if isinstance(x, Tensor))


# --- rules: each returns the physical output array(s), or None for the fallback ------------------
_DIM_NAMES = frozenset({"dim", "dim0", "dim1", "dim2", "dims", "source", "destination", "start_dim", "end_dim",
                        "axis1", "axis2"})
_SIZE_NAMES = frozenset({"size", "shape", "sizes", "input_sizes", "input_size"})
_params = {}


def _param_names(spec):
    names = _params.get(spec)
    if names is None:
        try:
            names = tuple(inspect.signature(spec.forward).parameters)
        except (TypeError, ValueError):
            names = ()
        _params[spec] = names
    return names


def _wrap_phys(t, levels):
    """t as the forward's argument: its aligned array in a plain tensor (no history)."""
    return Tensor._make(_aligned(t, levels), False, None, 0) if isinstance(t, Batched) else t


def _run(spec, args):
    out = _registry.call(spec, tuple(args))
    return tuple(physical(o) for o in out) if type(out) is tuple else physical(out)


def _elementwise(spec, args, levels):
    if isinstance(a := args[0], Batched) and type(a).levels == levels and not any(
            isinstance(b, Tensor) or type(b) in (list, tuple) for b in args[1:]):
        # one tensor, batched over every running level, and numbers (tanh, x * 2, pow): its array as it lies
        return _run(spec, (Tensor._make(physical(a), False, None, 0),) + tuple(args[1:]))
    rank = max(t.ndim for t in _tensor_args(args))
    return _run(spec, [Tensor._make(_aligned(a, levels, rank), False, None, 0) if isinstance(a, Batched) else a
                       for a in args])


def _shift(dim, rank, k):
    if isinstance(dim, int) and not isinstance(dim, bool):
        return _wrap(dim, rank) + k
    if isinstance(dim, (list, tuple)) and all(isinstance(d, int) for d in dim):
        return type(dim)(_wrap(d, rank) + k for d in dim)
    return dim


def _dims_and_sizes(spec, args, levels):
    """Ops whose non-tensor arguments are dims (shifted by the leading dims) or sizes (the leading
    sizes prepended). Only for ops whose tensor arguments share one per-sample rank, and whose dims
    refer to it; None when the op has neither (the fallback decides)."""
    names = _param_names(spec)
    if len(args) == 2 and isinstance(a := args[0], Batched) and type(a).levels == levels and len(names) == 2 \
            and names[1] in _SIZE_NAMES and type(args[1]) in (tuple, list, Size) and spec.name != "expand":
        # a view or reshape of one tensor batched over every level: the sizes after its leading ones (its
        # kernel called on the array where nothing observes ops: the glue's tensor and view links are not kept)
        arr = physical(a)
        size = arr.shape[:len(levels)] + tuple(args[1])
        if type(arr) is np.ndarray and _registry.ops_unobserved():
            return spec.kernel(arr, size)
        return _run(spec, [Tensor._make(arr, False, None, 0), size])
    first = next(_tensor_args(args), None)
    if first is None:
        return None
    rank, k = first.ndim, len(levels)
    hit = False
    out = []
    lead = None
    for name, a in zip(names, args):
        if isinstance(a, Batched):
            a = Tensor._make(_aligned(a, levels, a.ndim), False, None, 0)
        elif isinstance(a, Tensor):
            if a.ndim != rank:
                return None
            a = Tensor._make(_aligned(a, levels, a.ndim), False, None, 0)
        elif type(a) in (list, tuple) and a and all(isinstance(x, Tensor) for x in a):
            a = type(a)(Tensor._make(_aligned(x, levels, x.ndim), False, None, 0) for x in a)
        elif name in _DIM_NAMES and a is not None:
            if name.endswith("_dim") and a == -1 and rank == 0:
                return None
            try:
                a, hit = _shift(a, rank, k), True
            except Fallback:   # dims of another rank (diag_embed's are the output's): the per-sample loop
                return None
        elif name in _SIZE_NAMES and type(a) in (list, tuple, Size):
            if lead is None:
                lead = tuple(np.broadcast_shapes(*(physical(t).shape[:len(levels_of(t))] if levels_of(t)
                                                   else () for t in _tensor_args(args))))
                if len(lead) != k:   # every operand must carry every level here
                    lead = _full_lead(args, levels)
            a, hit = lead + tuple(a), True
        out.append(a)
    if not hit:
        return None
    if spec.name == "expand" and isinstance(out[0], Tensor) and len(out[1]) > physical(out[0]).ndim:
        # expand lines sizes up from the right: the singleton dims go after the leading ones
        a = physical(out[0])
        out[0] = Tensor._make(a.reshape(a.shape[:k] + (1,) * (len(out[1]) - a.ndim) + a.shape[k:]), False, None, 0)
    # tensors must carry every level at full size (no broadcasting over levels for these ops)
    full = _full_lead(args, levels)
    out = [_expand_lead(a, full) for a in out]
    return _run(spec, out)


def _full_lead(args, levels):
    sizes = {}
    for t in _tensor_args(args):
        for lv, n in zip(levels_of(t), physical(t).shape):
            sizes[lv] = n
    return tuple(sizes[lv] for lv in levels)


def _expand_lead(a, lead):
    k = len(lead)
    if isinstance(a, Tensor):
        arr = physical(a)
        if arr.shape[:k] != lead:
            arr = np.broadcast_to(arr, lead + arr.shape[k:])
            return Tensor._make(arr, False, None, 0)
        return a
    if type(a) in (list, tuple) and a and all(isinstance(x, Tensor) for x in a):
        return type(a)(_expand_lead(x, lead) for x in a)
    return a


def _matmul_like(fn, first_rank=None):
    """mm/mv/dot/bmm/addmm/...: per-sample matrices broadcast over the leading dims (first_rank: the
    per-sample rank the first operand broadcasts at, addmm's 2)."""
    def rule(spec, args, levels):
        if not all(a is None or isinstance(a, (Tensor, int, float)) for a in args):
            return None
        operands = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                rank = first_rank if i == 0 and first_rank is not None else a.ndim
                operands.append((_aligned(a, levels, rank) if isinstance(a, Batched) else physical(a), a.ndim))
            else:
                operands.append((a, None))
        return fn(len(levels), *operands)
    return rule


def _matmul(x, y):
    """np.matmul, with a stack of matrices times one matrix done as one product (BLAS), and products
    over one term (per-sample outer products: a Linear weight's per-sample gradients) as the
    broadcast multiplication they are: each element one rounded product either way, 2-3x faster."""
    if x.ndim >= 2 and y.ndim >= 2 and x.shape[-1] == 1 == y.shape[-2] and type(x) is type(y) is np.ndarray \
            and x.dtype == y.dtype and x.dtype.kind == "f":
        return np.multiply(x, y)
    if y.ndim == 2 and x.ndim > 2:
        # the stacking dims in memory order, so that folding them copies nothing
        order = sorted(range(x.ndim - 1), key=lambda i: -x.strides[i]) + [x.ndim - 1]
        xt = x.transpose(order)
        out = _one_thread_product(xt.reshape(-1, x.shape[-1]), y).reshape(xt.shape[:-1] + (y.shape[-1],))
        inverse = [0] * len(order)
        for i, o in enumerate(order):
            inverse[o] = i
        return out.transpose(inverse)
    if x.ndim == 2 and y.ndim > 2:
        m = y.shape[-2]
        folded = _moveaxis(y, y.ndim - 2, 0).reshape(m, -1)
        out = _one_thread_product(x, folded).reshape((x.shape[0],) + y.shape[:-2] + (y.shape[-1],))
        return _moveaxis(out, 0, out.ndim - 2)
    return np.matmul(x, y)


def _one_thread_product(a, b):
    """a @ b (2-D), on the calling thread where OpenBLAS would split it (a million multiply-adds and up): the
    folded products of vmapped code come one at a time between long stretches of Python, by which time
    OpenBLAS's threads sleep, and waking them costs more than they save (jacrev of jacrev: 37 -> 24 µs)."""
    if a.shape[0] * a.shape[1] * b.shape[1] < 1 << 20:
        return a @ b
    with one_blas_thread():
        return a @ b


def _sum_axis(a, axis):
    """a.sum(axis), NumPy's bits. NumPy sums an axis that is not the innermost in memory in sequence, its
    inner loop over the dims inside it, restarted for each element of the others: where those dims hold
    few elements (a level summed out of a batched Jacobian) the axis is moved first in a contiguous copy,
    whose sum (the same sequence) runs over whole rows ((16, 256, 16) float32 over dim 1: 65 -> 23 µs)."""
    if a.size >= 1024 and a.shape[axis] > 1:
        step, inner = abs(a.strides[axis]), 1
        for n, s in zip(a.shape, a.strides):
            if n > 1 and abs(s) < step:
                inner *= n if s else 1 << 30   # (a broadcast dim: left to NumPy)
        if 1 < inner <= 32:
            return np.ascontiguousarray(_moveaxis(a, axis, 0)).sum(0)
    return a.sum(axis=axis)


def _moveaxis(a, source, destination):
    """np.moveaxis for one non-negative axis, without its argument normalisation (a few µs per call on
    the small arrays of vmapped code)."""
    if source == destination:
        return a
    order = list(range(a.ndim))
    order.insert(destination, order.pop(source))
    return a.transpose(order)


def _mm(k, a, b):
    (x, rx), (y, ry) = a, b
    if rx == 1:
        x = x[..., None, :]
    if ry == 1:
        y = y[..., None]
    out = _matmul(x, y)
    if rx == 1:
        out = out[..., 0, :] if ry != 1 else out[..., 0, 0]
    elif ry == 1:
        out = out[..., 0]
    return out


def _linear(k, a, w, b=(None, None)):
    out = _mm(k, a, (np.swapaxes(w[0], -1, -2) if w[1] == 2 else w[0], w[1]))
    return out if b[0] is None else out + b[0]


def _addmm(k, c, a, b, beta=(1, None), alpha=(1, None)):
    prod = _mm(k, a, b)
    prod = prod if alpha[0] == 1 else prod * alpha[0]
    return prod + (c[0] if beta[0] == 1 else c[0] * beta[0])


def _reduce_all(over_dims):
    """sum()/mean() of a sample: the op over every per-sample dim."""
    def rule(spec, args, levels):
        t = args[0]
        a = _aligned(t, levels, t.ndim)
        dims = list(range(len(levels), a.ndim))
        return _run(over_dims.spec, (Tensor._make(a, False, None, 0), dims, False) + tuple(args[1:]))
    return rule


def _matrix_t(spec, args, levels):
    t = args[0]
    a = _aligned(t, levels, t.ndim)
    return np.swapaxes(a, -1, -2) if t.ndim == 2 else a.view()   # a view, as t() is


def _as_strided(spec, args, levels):
    """torch's as_strided batching rule: each sample's view of the memory, shifted by the batch dims'
    strides; refused when the batch dims are not outermost in memory, or when a sample's view would
    reach memory outside that sample."""
    t = args[0]
    if any(isinstance(a, Batched) for a in args[1:]):
        return None
    size, stride = tuple(args[1]), tuple(args[2])
    offset = args[3] if len(args) > 3 else None
    a = _aligned(t, levels)
    k = len(levels)
    strides = [st // a.itemsize for st in a.strides]
    if a.ndim > k and k and min(strides[:k]) < max(strides[k:]):
        raise RuntimeError("vmap: Calling Tensor.as_strided is not supported unless the batch dims being vmapped "
                           "over are at the front of the tensor (in memory layout). When they are not at the front "
                           "of the tensor this operation can be error prone so we actively discourage it; please "
                           "file us a bug report and/or try to express the as_strided operation in terms of PyTorch "
                           "view operations")
    base = _storage(a)[1]
    start = base if offset is None else offset
    end = _extent(size, stride, start)
    if end and (start < base or end > _extent(a.shape[k:], strides[k:], base)):
        raise RuntimeError(f"result = tensor.as_strided({_shape_str(size)},{_shape_str(stride)},{start})can access "
                           f"memory outside of `tensor`. `result` can access somememory in range [{start}, {end}], "
                           f"but `tensor` can only access some memory in range [{base}, "
                           f"{_extent(a.shape[k:], strides[k:], base)}]. This is not supported inside of vmap, "
                           "please try torewrite the `as_strided` call as a sequence of PyTorch view operations")
    return _run(spec, (Tensor._make(a, False, None, 0), a.shape[:k] + size, tuple(strides[:k]) + stride, start))


def _extent(size, stride, offset):
    """One past the last element a view reaches (0 when empty), as torch counts it."""
    if not all(size):
        return 0
    return offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))


_RULES = {
    "t": _matrix_t, "as_strided": _as_strided,
    "mm": _matmul_like(_mm), "matmul": _matmul_like(_mm), "mv": _matmul_like(_mm), "dot": _matmul_like(_mm),
    "bmm": _matmul_like(_mm), "linear": _matmul_like(_linear), "addmm": _matmul_like(_addmm, 2),
    "sum": _reduce_all(_sum_dim), "mean": _reduce_all(_mean_dim),
}
# ops that work element by element without broadcasting flags (one tensor, no dims)
_UNARY = frozenset({"clone", "alias", "detach", "contiguous", "_to_copy", "lift_fresh", "_conj", "conj",
                    "positive", "zeros_like", "ones_like", "full_like", "empty_like", "fill.Scalar",
                    "_make_dual", "_fw_primal", "to.dtype", "type_as"})


class _Samples:
    """A batched argument of _fallback, its samples along the first dim of `array`."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _fallback(spec, args, levels):
    """One call per sample over the leading dims, the outputs stacked."""
    state.fallback_ops[spec.name] += 1
    lead = _full_lead(args, levels)
    n = math.prod(lead)

    def flat(a):   # a batched argument as one (n, ...) array, made once (its reshape may copy it all)
        if isinstance(a, Batched):
            arr = np.broadcast_to(_aligned(a, levels), lead + physical(a).shape[len(levels_of(a)):])
            return _Samples(arr.reshape((n,) + arr.shape[len(lead):]))
        if type(a) in (list, tuple) and any(isinstance(x, Batched) for x in a):
            return type(a)(flat(x) for x in a)
        return a

    def sample(a, i):
        if type(a) is _Samples:
            return Tensor._make(a.array[i], False, None, 0)
        if type(a) in (list, tuple) and any(type(x) is _Samples for x in a):
            return type(a)(sample(x, i) for x in a)
        return a

    args = [flat(a) for a in args]
    outs = [_run(spec, [sample(a, i) for a in args]) for i in range(n)]
    if type(outs[0]) is tuple:
        return tuple(np.stack([o[j] for o in outs]).reshape(lead + outs[0][j].shape) for j in range(len(outs[0])))
    return np.stack(outs).reshape(lead + outs[0].shape)


def _fold_batch(spec, args, levels):
    """Ops that treat their first dim (N) sample by sample (convolution, pooling and its backward):
    the leading dims fold into N, one call. Convolution's weight and bias must be unbatched; for
    pooling every tensor argument is per sample. Without an N dim (or with a batched weight): None."""
    conv = spec.name == "convolution"
    first = args[0]
    rank = args[1].ndim if conv else 5 if "3d" in spec.name else 4
    if not isinstance(first, Tensor) or first.ndim != rank:
        return None
    lead = _full_lead(args, levels)
    folded = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and (i == 0 or not conv):
            if a.ndim != rank:
                return None
            arr = np.broadcast_to(_aligned(a, levels, a.ndim) if isinstance(a, Batched) else physical(a),
                                  lead + physical(a).shape[len(levels_of(a)):])
            a = Tensor._make(arr.reshape((-1,) + arr.shape[len(lead) + 1:]), False, None, 0)
        elif isinstance(a, Batched):
            return None
        folded.append(a)
    n = physical(first).shape[len(levels_of(first))]
    out = _run(spec, folded)
    unfold = lambda r: r.reshape(lead + (n,) + r.shape[1:])  # noqa: E731
    return tuple(unfold(r) for r in out) if type(out) is tuple else unfold(out)


_FOLD = re.compile(r"^(convolution|_?(adaptive_)?(max|avg)_pool[23]d(_with_indices)?(_backward)?)$")
_rule_of = {}


def _pointwise_family(spec):
    """An op of the pointwise or activation family with no dim argument works element by element
    (relu, gelu_backward, threshold_backward, ...), except the ones with per-channel weights or noise."""
    return (spec.forward.__module__.rsplit(".", 1)[-1] in ("pointwise", "activation")
            and not _DIM_NAMES.intersection(_param_names(spec))
            and not any(w in spec.name for w in ("prelu", "rrelu", "_foreach")))


def _rule(spec):
    rule = _rule_of.get(spec)
    if rule is None:
        rule = _rule_of[spec] = _RULES.get(spec.name) or (_fold_batch if _FOLD.match(spec.name) else None) or (
            _elementwise if spec.broadcast or spec.name in _UNARY or _pointwise_family(spec) else _dims_and_sizes)
    return rule


# ops that do not read an argument, whose batch dims then do not batch the result: `_make_dual` views its
# primal; forward AD attaches the tangent (batched or not) to the dual afterwards, as torch's legacy vmap
_UNREAD = {"_make_dual": 1}


def hook(spec, args, inplace=False):
    """`_registry.profile_op` during the native run."""
    levels = ()
    grad = False
    unread = _UNREAD.get(spec.name)
    if unread is not None and isinstance(args[unread], Batched):
        args = (*args[:unread], args[0], *args[unread + 1:])   # the forward ignores it: a stand-in of its shape
    bits = 0   # (any lazily conjugated/negated tensor among them)
    for a in args:
        if isinstance(a, Tensor):
            own = type(a).levels if isinstance(a, Batched) else ()
            grad = grad or a.requires_grad
            bits |= a._math_bits
        elif type(a) in (list, tuple) and any(isinstance(x, Batched) for x in a):
            own = tuple(sorted({lv for x in a if isinstance(x, Batched) for lv in type(x).levels}))
            grad = grad or any(isinstance(x, Tensor) and x.requires_grad for x in a)
            bits |= any(isinstance(x, Tensor) and x._math_bits for x in a)
        else:
            continue
        if own and own != levels:
            levels = own if not levels else tuple(sorted(set(levels) | set(own)))
    if not levels:
        if fw_state.level is not None:   # tangents may be batched: their rules run batched, their reads guarded
            return _plain(_registry.call_inplace if inplace else _registry.call, spec, args)
        return _raw(_registry.call_inplace if inplace else _registry.call, spec, args)
    if inplace:
        if not isinstance(args[0], Batched) or levels_of(args[0]) != levels:
            raise InplaceError("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
                               "Tensor `other` in extra_args that has more elements than `self`. This happened due "
                               "to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
                               "to use out-of-place operators instead of inplace arithmetic. If said operator is "
                               "being called inside the PyTorch framework, please file a bug report instead.")
        if grad and grad_state.enabled:
            raise Fallback(spec.name)   # before it writes: the loop must not see its effect twice
        return _inplace(spec, args)
    # as the op glue: an op reads a lazily conjugated/negated tensor's values, a view keeps its bits
    resolve = bits and not spec.view
    arrays = _raw(_batched_forward, spec, tuple(_resolved(a) for a in args) if resolve else args, levels)
    cls = batched_class(levels)
    outs = tuple(_wrap_out(a, cls) for a in arrays) if type(arrays) is tuple else (_wrap_out(arrays, cls),)
    if spec.view and isinstance(args[0], Tensor) and (view_bits := args[0]._math_bits ^ spec.flips):
        for o in outs:
            o._math_bits = view_bits
    if spec.view and isinstance(args[0], Batched) and levels_of(args[0]) == levels:
        base = args[0] if args[0]._batched_base is None else args[0]._batched_base
        for o in outs:
            o._batched_base = base if base is not COPY and np.may_share_memory(physical(o), physical(base)) \
                else COPY
    if spec.node_cls is not None and grad_state.enabled and (grad or any(
            isinstance(x, Tensor) and x.requires_grad for a in args if type(a) in (list, tuple) for x in a)):
        _raw(_record, spec, args, outs)
    if fw_state.level is not None:   # forward AD: the tangents, batched where their inputs' are
        _registry.propagate_tangents(spec, args, outs)
    return outs if type(arrays) is tuple else outs[0]


def _resolved(a):
    """Tensor a (or a list's tensors) with its math bits applied to its values (a stand-in batched as it is,
    no history), for the batching rules, which read arrays."""
    if type(a) in (list, tuple):
        return type(a)(_resolved(x) for x in a)
    if not isinstance(a, Tensor) or not a._math_bits:
        return a
    return make(apply_bits(physical(a), a._math_bits), levels_of(a))


def _inplace(spec, args):
    """An in-place op on a batched tensor that records no history: computed batched, written into self's
    array (its operands are batched over self's levels at most)."""
    self = args[0]
    if self._batched_base is COPY:
        raise Fallback(f"{spec.name} into a view that batching copied")
    res = hook(spec, args)
    if type(res) is tuple:
        res = res[0]
    if fw_state.level is not None:
        new = forward_ad.tangent_of(res)
        old = forward_ad.tangent_of(self if self._base is None or self._fw is not None else self._base)
        if new is not None and old is not None and not set(levels_of(new)) <= set(levels_of(old)):
            raise Fallback("a batched tangent written into an unbatched one")   # (before self is written)
    # (into a lazily conjugated/negated tensor: its memory holds the values read through its bits)
    _raw(record.write_into, self, apply_bits(physical(res), self._math_bits) if self._math_bits else physical(res),
         spec.name)
    if fw_state.level is not None:
        _registry.inplace_tangents(self, res)
    return self


def _wrap_out(a, cls):
    t = Tensor._make(a, False, None, 0)
    t.__class__ = cls
    return t


def _batched_forward(spec, args, levels):
    out = _rule(spec)(spec, args, levels)
    if out is None:
        out = _fallback(spec, args, levels)
    return out


def _record(spec, args, outs):
    """The logical op into the graph: its node saves the batched tensors; the metadata the engine
    checks gradients against is per-sample."""
    (spec.recorder or record.recorder(spec))(args, outs)
    node = outs[0]._grad_fn
    if node is None:
        return
    node.__class__ = _batched_node_class(type(node))
    tensors = []
    for i in spec.diff_pos:
        a = args[i]
        tensors.extend(a if type(a) in (list, tuple) else [a if isinstance(a, Tensor) else None])
    if node._meta is not None:
        node._meta = None if len(tensors) != len(node._meta) else \
            tuple(m if m is None or t is None else (_Shape(t), m[1]) for m, t in zip(node._meta, tensors))
    if node._out_meta is not None:
        node._out_meta = [(tuple(o.shape), m[1]) for o, m in zip(outs, node._out_meta)]


class _Shape(tuple):
    """A per-sample shape in a node's metadata, with the levels its tensor is batched over."""
    levels = ()

    def __new__(cls, t):
        shape = super().__new__(cls, t.shape)
        shape.levels = levels_of(t)
        return shape


_node_classes = {}


def _batched_node_class(cls):
    """cls whose backward runs with the hook on: a graph recorded inside a vmap may be
    differentiated after it returned (grad of vmap), and its gradients are batched."""
    sub = _node_classes.get(cls)
    if sub is None:
        def _apply(self, grads, mask, create_graph):
            outs = batched_call(cls._apply, self, grads, mask, create_graph)
            meta = self._meta
            if meta is None or len(meta) != len(outs):
                return outs
            return [g if g is None or m is None or not isinstance(g, Batched) else
                    _fitted(g if type(g).levels == m[0].levels else batched_call(settle, g, m[0].levels), m[0])
                    for g, m in zip(outs, meta)]
        sub = _node_classes[cls] = type(cls.__name__, (cls,), {"__slots__": (), "_apply": _apply,
                                                               "__qualname__": cls.__qualname__})
    return sub


def _fitted(g, shape):
    """Batched gradient g for an input of per-sample `shape`, as the engine would fit it, where it cannot or
    costs ten times more: its math bits applied (the engine resolves a lazy conjugate into a plain tensor's
    values, which a batched one is not; recorded where the backward is), and summed where it was broadcast
    (a Linear's bias for one sample: the same reduction, on its array, where no graph is recorded)."""
    if not isinstance(g, Batched):   # (settled to a plain tensor)
        return g
    if g._math_bits:
        g = batched_call(lambda t: t.resolve_conj().resolve_neg(), g) if g.requires_grad else _resolved(g)
    a = physical(g)
    k = len(type(g).levels)
    if a.shape[k:] == shape or g.requires_grad or type(a) is not np.ndarray or a.dtype.kind not in "fc":
        return g
    dims = _summed_dims(a.shape[k:], shape)
    if dims is None:   # (the engine reports it)
        return g
    out = np.add.reduce(a, tuple(d + k for d in dims), a.dtype, None, True) if dims else a
    return make(out.reshape(a.shape[:k] + tuple(shape)), type(g).levels)


def batched_call(fn, *args):
    """fn(*args) with the hook on, as inside a native run (a no-op there)."""
    if _registry.profile_op is hook and state.active:
        return fn(*args)
    prev, raw = _registry.profile_op, state.raw
    _registry.profile_op, state.raw = hook, False
    state.active += 1
    try:
        return fn(*args)
    except Fallback as e:
        if state.active > 1 and state.running:   # within a native run (a tangent rule's op): vmap loops
            raise
        raise NotImplementedError(f"vmap: the backward of a batched computation needs what vmap cannot batch ({e}); "
                                  "differentiate inside the vmapped function instead") from None
    finally:
        state.active -= 1
        _registry.profile_op, state.raw = prev, raw


def _outside(spec, args):
    return batched_call(hook, spec, args)


_registry.batched = (Batched, _outside)


def _raw(fn, *args):
    raw, hooked = state.raw, _registry.profile_op
    state.raw, _registry.profile_op = True, None
    try:
        return fn(*args)
    finally:
        state.raw, _registry.profile_op = raw, hooked


def _plain(fn, *args):
    """fn(*args) without the hook (an op on unbatched tensors), batched arrays still guarded: an op on
    them (a batched tangent's) goes back through the hook (`_registry.batched`)."""
    hooked = _registry.profile_op
    _registry.profile_op = None
    try:
        return fn(*args)
    finally:
        _registry.profile_op = hooked


def new_level():
    state.levels += 1
    return state.levels


class _LevelNode(Node):
    """The node of a move of data between a vmap level's leading dim and the rest: `add` (a logical
    dim becomes the level's dim), `remove` (the reverse), `sum` (summed over the level) or `spread`
    (broadcast over it). Its backward is the opposite move, so it differentiates again."""
    __slots__ = ("kind", "level", "dim", "size", "src_levels")
    _BACK = {"add": "remove", "remove": "add", "sum": "spread", "spread": "sum"}

    def __init__(self, src, kind, level, dim, size):
        self.next_functions = (edge(src),)
        self._sequence_nr_ = _next_seq()
        self._saved = self._versions = self._meta = self._out_meta = self._extra = None
        self.kind, self.level, self.dim, self.size, self.src_levels = kind, level, dim, size, levels_of(src)

    def name(self):
        return {"add": "AddBatchDimBackward", "remove": "RemoveBatchDimBackward", "sum": "SumBatchDimBackward",
                "spread": "SpreadBatchDimBackward"}[self.kind]

    def _apply(self, grads, mask, create_graph):
        return [batched_call(self._back, grads[0])]

    def _back(self, g):
        kind, level = self._BACK[self.kind], self.level
        if kind in ("remove", "sum") and level not in levels_of(g):
            # the gradient is the same for every sample
            if kind == "sum":
                g = g * self.size
            else:
                shape = list(g.shape)
                shape.insert(self.dim, self.size)
                g = g.unsqueeze(self.dim).expand(shape)
        elif kind in ("add", "spread") and level in levels_of(g):
            raise Fallback("a gradient batched over the level it leaves")
        else:
            g = move(g, kind, level, self.dim, self.size)
        return settle(g, self.src_levels)


def move(t, kind, level, dim=None, size=None):
    """t with its data moved between `level` and the rest (see _LevelNode), recorded for autograd."""
    own = levels_of(t)
    a = physical(t)
    if kind in ("add", "spread"):
        pos = sum(1 for lv in own if lv < level)
        levels = own[:pos] + (level,) + own[pos:]
        if kind == "add":
            a = _moveaxis(a, len(own) + dim, pos)
            size = a.shape[pos]
        else:
            a = np.broadcast_to(np.expand_dims(a, pos), a.shape[:pos] + (size,) + a.shape[pos:])
    else:
        pos = own.index(level)
        levels = own[:pos] + own[pos + 1:]
        size = a.shape[pos]
        a = _moveaxis(a, pos, len(levels) + dim) if kind == "remove" else _sum_axis(a, pos)
    out = make(a, levels)
    out._math_bits = t._math_bits   # (lazy conjugation and negation commute with moves and sums over samples)
    if t.requires_grad and grad_state.enabled:
        out._requires_grad = True
        out._grad_fn = _LevelNode(t, kind, level, dim, size)
    return out


def add_level(t, dim, level):
    """t mapped over its (logical) dim `dim` at vmap level `level`."""
    out = move(t, "add", level, dim)
    if not levels_of(t):
        out._value = (dim, physical(out), out._fn, out._requires_grad, t)
    return out


def remove_level(t, level, out_dim):
    """t's level `level` made its logical dim `out_dim` (t must be batched over it). As torch, the plain
    tensor a batched one wraps comes back as itself: vmap's input when it is returned untouched at
    its in_dim, and one tensor for an output returned twice."""
    last = levels_of(t) == (level,)
    v = t._value
    if last and v is not None and v[0] == out_dim and v[1] is physical(t) and v[2] is t._fn and \
            v[3] == t._requires_grad:
        return v[4]
    out = move(t, "remove", level, out_dim)
    if last:
        base = t._batched_base
        if base is not None and base is not COPY and not t.requires_grad and not base.requires_grad:
            _view_of(out, remove_level(base, level, out_dim))
        t._value = (out_dim, physical(t), t._fn, t._requires_grad, out)
    return out


def _view_of(t, base):
    """Plain t made a view of plain `base` (as the tensors the batched ones wrap are, in torch), when it
    views base's memory; its view function is its geometry on base's memory."""
    if t._base is not None or base._base is not None or not np.may_share_memory(physical(t), physical(base)):
        return
    geometry = (t.shape, t.stride(), t.storage_offset())

    def view_fn(b, symint_visitor_fn=None, tensor_visitor_fn=None):
        return b.as_strided(*geometry)
    t._base, t._vc, t._view_version, t._view_fn = base, base._vc, base._vc[0], view_fn


def settle(g, keep):
    """Gradient g for a tensor batched over `keep`: summed over the levels it has beyond those that
    are no longer running (the samples of a finished vmap all used that tensor)."""
    for lv in levels_of(g):
        if lv not in keep and lv not in state.running:
            g = move(g, "sum", lv)
    return g


def run_native(func, batched_args, kwargs):
    """func(*batched_args, **kwargs) with the hook on."""
    prev = _registry.profile_op
    state.active += 1
    _registry.profile_op = hook
    try:
        out = func(*batched_args, **kwargs)
        state.completed += 1
        return out
    finally:
        state.active -= 1
        _registry.profile_op = prev


# --- forward AD's tangents batched over vmap levels ---------------------------------------------
def _layout(t):
    """A batched tangent's per-sample strides and its storage offset; no storage size (its storage
    holds every sample: torch skips that check for batched tangents)."""
    if not isinstance(t, Batched):
        return forward_ad._layout(t)
    a = physical(t)
    return tuple(st // a.itemsize for st in a.strides[len(levels_of(t)):]), _storage(a)[1], None


def _zeros_like_layout(t, primal):
    """Zeros for tangent t laid out as primal, batched as t (its batch dims first)."""
    if not isinstance(t, Batched):
        return _zeros_in_layout(t, primal)
    if isinstance(primal, Batched):
        raise Fallback("the layout of a batched primal's tangent")
    out = _raw(_zeros_in_layout, Tensor._make(physical(t), False, None, 0), primal, len(levels_of(t)))
    out.__class__ = batched_class(levels_of(t))
    return out


forward_ad.layout_of = _layout
forward_ad.zeros_in_layout = _zeros_like_layout
