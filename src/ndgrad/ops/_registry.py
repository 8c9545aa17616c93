"""The op registry and the glue every op call goes through.

An op is a forward function on arrays (in the family files beside this one) registered with
`@op("mul.Tensor")`, where the string names its derivatives.yaml entry. `op` returns the public
function (with the forward's own signature and source) that: unwraps Tensors to arrays, applies
torch's type promotion, runs the forward, wraps the outputs, and hands the call to
`autograd.record` when an input requires grad. The same spec gives the in-place variant
(`mul_`) and view semantics (`view=True`). The derivatives layer, loaded above this one, binds
each spec to its yaml entry (`OpSpec.bind`); until then an op records nothing.

Other layers hook in here rather than being imported: the profiler sets `profile_op` while it
records, dispatch modes (TorchDispatchMode, selective activation checkpointing) `dispatch_hook`,
the derivatives layer sets the forward-mode rules (`propagate_tangents`, `inplace_tangents`).
"""
import functools
import inspect
import operator
import warnings

import numpy as np

from .. import _dtype, _pool
from ..backends import ARRAY_TYPES, broadcast_shapes, current as current_backend, is_array, namespace
from .._nested_array import NestedArray
from .._sparse_array import SparseArray
from .._meta_array import MetaArray, meta_call
from .._tensor import DISPATCH_TYPES, PLAIN_TYPES, Size, Tensor, apply_bits, memory_format
from ._schema import ArgumentError
from . import _kinds, _unsigned
from ._torch_function import _FAST_SETS, _NO_OVERRIDE, _NOT_OVERRIDING, _modes as _function_modes, \
    dispatch as _dispatch_torch_function
from ..autograd import graph as _graph, record
from ..autograd.forward_ad import state as fw, tangent_of
from ..autograd.grad_mode import grad_flag, state

OPS = {}          # public name -> function, collected into the ndgrad namespace
METHODS = {}      # Tensor method name -> function
SPECS = []        # every registered OpSpec (bound to derivatives.yaml entries by the derivatives layer)
profile_op = None  # set by autograd.profiler while it records: wraps each op call
profile_composite = None  # ... and each call of a hand-written public function (aten::linear around its addmm)
batched = None  # set by func.vmap: (its batched tensor class, how to run an op on them outside a vmap)
dispatch_hook = None  # set while a dispatch mode is active (utils/_python_dispatch.py: TorchDispatchMode,
                      # selective checkpointing's) and by ndgrad.compile's tracer: called instead of the op,
                      # as profile_op (see ops/_aten.py for the op's torch identity)
dispatch_factory = None  # set by utils/_python_dispatch.py: (aten name, public, fn, args, kwargs) -> the call of
                         # a factory registered with `aten=` handed to the innermost dispatch mode (read only
                         # while dispatch_hook is set: nothing to pay otherwise), or (ones_like, ...) to the
                         # __torch_dispatch__ subclass of its tensor argument
dispatch_subclass = None  # set by utils/_python_dispatch.py: (spec, args, inplace) -> an op call with an argument
                          # of a Tensor subclass that defines __torch_dispatch__ handed to it (None: not handed,
                          # under no_dispatch()); asked only on the glue's slow path once such a subclass exists
autocast = None       # set by ndgrad.amp while a thread has CPU autocast on: (op name, args) -> args cast
propagate_tangents = inplace_tangents = None   # set by derivatives/forward.py: forward-mode AD rules


class OpSpec:
    __slots__ = ("name", "entry", "node_cls", "diff_pos", "list_pos", "saved_pos",
                 "meta_only", "promote", "operands", "view", "multi_out", "out_diff", "broadcast",
                 "saved_plan", "diff_lists", "flips", "_forward", "kernel", "large", "saves_result_only",
                 "inplace_shape", "nested", "plain_tail", "recorder")

    def __init__(self, name, forward, promote, view, operands=None, broadcast=False, flips=0):
        self.name = name
        self.flips = flips
        self.broadcast = broadcast
        self.operands = operands
        self.forward = forward
        self.promote = promote
        self.view = view
        self.inplace_shape = None   # op()'s `inplace` when a callable: see there
        self.nested = None   # a copy bound to the entry's AutogradNestedTensor formulas (bind_derivatives)
        self.bind(None)

    @property
    def forward(self):
        return self._forward

    @forward.setter
    def forward(self, fn):   # (replaced on a copy by selective checkpointing's replay)
        self._forward = fn
        # what `call` runs: a forward that only passes its arguments to a NumPy function (pointwise's
        # _named) names it as `kernel`, one Python frame less per op
        self.kernel = getattr(fn, "kernel", fn)
        # ... and `large`, where it names one, what runs instead where the first operand is an array of
        # _LARGE elements or more (mul's: the native pool's pass; np.multiply, without a frame, otherwise)
        self.large = getattr(fn, "large", None)

    def bind(self, entry):
        """Attach the op's derivatives.yaml entry (None: not differentiable): its Node class, which
        arguments get edges, what is saved. The derivatives layer calls this once per op."""
        self.entry = entry
        self.recorder = None   # record.recorder(self) makes it at the first call that records
        if entry is None:
            self.node_cls, self.diff_pos, self.saved_pos = None, (), ()
            self.list_pos = self.meta_only = self.saved_plan = ()
            self.saves_result_only = False
            self.diff_lists = False
            self.multi_out, self.out_diff = False, None
            self._set_plain_tail()
            return
        self.node_cls = entry.node_cls
        self.diff_pos = self.node_cls._diff_args
        self.list_pos = tuple(i for i, a in enumerate(entry.args) if a.is_tensor_list)
        self.saved_pos = entry.saved_pos   # positions of saved arguments; -1-k for the k-th output
        self.meta_only = entry.meta_only
        self.saved_plan = tuple(zip(self.saved_pos, self.meta_only, entry.saved_users))
        # what record saves for exp, tanh, sigmoid...: the first output alone, whichever input needs a gradient
        self.saves_result_only = self.node_cls._result_only
        self.diff_lists = any(i in self.list_pos for i in self.diff_pos)   # edges per list element
        self.multi_out = len(entry.returns) > 1 or entry.schema.rstrip().endswith("[]")  # Tensor[] returns
        self.out_diff = entry.output_differentiability
        self._set_plain_tail()

    def _set_plain_tail(self):
        # whether _unwrap leaves arguments after the first as they are when they are _PLAIN_TAIL values
        # or dtypes: no Tensor lists to unwrap, no None/str operand to refuse (an unsigned result dtype
        # is checked where one is possible: `call`)
        self.plain_tail = not self.list_pos and not self.broadcast



def broadcast_shape(*shapes):
    """The shape `shapes` broadcast to, or torch's RuntimeError naming the clashing sizes."""
    out = ()
    for shape in shapes:
        n = max(len(out), len(shape))
        a = (1,) * (n - len(out)) + tuple(out)
        b = (1,) * (n - len(shape)) + tuple(shape)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                                   f"at non-singleton dimension {i}")
        out = tuple(y if x == 1 else x for x, y in zip(a, b))
    return out



def _promote(spec, raw, args):
    """Cast tensor arrays to the dtype torch computes in for this op (None: leave as they are)."""
    dims, zeros, scalars = [], [], []
    positions = spec.operands or range(len(args))
    for i in positions:
        a, r = args[i], raw[i]
        if isinstance(a, Tensor):
            (dims if r.ndim else zeros).append(_dtype.from_numpy_dtype(r.dtype))
        elif isinstance(a, (bool, int, float, complex)):
            scalars.append(a)
    common = _dtype.result_type(dims, zeros, scalars)
    if spec.promote == "float" and common._rank < 2:
        common = _dtype.defaults.float
    target = common.np
    for i in positions:
        a = args[i]
        if isinstance(a, Tensor) and raw[i].dtype != target:
            raw[i] = raw[i].astype(target)
        elif spec.promote == "float" and isinstance(a, (bool, int)) and common._rank >= 2:
            raw[i] = float(a)
    return target


def _unwrap(spec, args):
    """(arrays for the forward, whether an input requires grad, the dtype to compute in or None)."""
    raw = list(args)
    inputs_require_grad = False
    single_dtype = None
    mixed = unsigned = False
    bf16 = False
    scalar_rank = -1   # the highest category of a Python scalar operand (see _scalar_lifts)
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            d = a._array
            if a._math_bits and not spec.view:   # a lazy conjugate/negative view: ops see its values
                d = apply_bits(d, a._math_bits)
            if not spec.view and _dtype.is_bfloat16(d.dtype):   # see _bfloat16_result
                bf16 = True
                d = d.astype(_FLOAT32)
            raw[i] = d
            if a._requires_grad or a._base is not None and a._base._requires_grad:   # see Tensor.requires_grad
                inputs_require_grad = True
            if single_dtype is None:
                single_dtype = d.dtype
            elif d.dtype != single_dtype:
                mixed = True
                unsigned = unsigned or d.dtype in _UNSIGNED_NP   # (the first tensor's: after the loop)
        elif i in spec.list_pos or (type(a) in (list, tuple) and a and isinstance(a[0], Tensor)):
            raw[i] = _list_arrays(a, spec.view)
            if not spec.view and any(is_array(x) and _dtype.is_bfloat16(x.dtype) for x in raw[i]):
                bf16 = True
                raw[i] = [x.astype(_FLOAT32) if is_array(x) and _dtype.is_bfloat16(x.dtype) else x for x in raw[i]]
            inputs_require_grad = inputs_require_grad or any(getattr(t, "_requires_grad", False) for t in a)
        else:
            if (type(a) is str and spec.broadcast and i in (spec.operands or range(len(args)))
                    or a is None and spec.broadcast and i in (spec.operands or ())):
                # never an elementwise operand: torch's TypeError rather than NumPy's ufunc error
                raise TypeError(f"{spec.name.split('.')[0]}(): argument {i + 1} must be Tensor or a number, "
                                f"not {type(a).__name__}")
            r = _SCALAR_RANK.get(type(a), -1)
            if r > scalar_rank and (not spec.operands or i in spec.operands):
                scalar_rank = r
    promote = spec.promote
    target = None
    if promote is not None and (
            mixed                                                                   # tensors' dtypes differ
            or promote == "float" and single_dtype is not None and single_dtype.kind in "biu"   # ints compute in float
            or len(args) > 1 and scalar_rank >= 0 and _scalar_lifts(single_dtype, scalar_rank)):
        target = _promote(spec, raw, args)
    # uint16/32/64 operands: the op's kernel may refuse them (ops/_unsigned.py)
    if (unsigned or single_dtype in _UNSIGNED_NP) and (target is None or target in _UNSIGNED_NP) and (
            exc := _unsigned.refusal(spec, raw, args)):
        raise exc
    if spec.name in _UNSIGNED_RESULT:
        _unsigned.check_result(spec, args)
    if bf16:
        target = _bfloat16_result(spec, args, target)
    return raw, inputs_require_grad, target


_FLOAT32 = _dtype.float32.np
_UNSIGNED_NP = _dtype.UNSIGNED_NP
_UNSIGNED_RESULT = _unsigned.RESULT_KERNELS
_PLAIN_TAIL = frozenset((type(None), bool, int, float, str, tuple, list, Size, memory_format))
_DTYPE = _dtype.dtype
# sizes, dims and tensor lists: sequences checked inline for types that may override (the rest as
# _NOT_OVERRIDING's: emptied while a TorchFunctionMode is active)
_INT_SEQS = {tuple, list, Size}
_FAST_SETS.append(_INT_SEQS)


def _list_arrays(tensors, view):
    # (not inline in _unwrap: a comprehension there would make `spec` a closure cell, slower on every call)
    return [(t._array if view or not t._math_bits else apply_bits(t._array, t._math_bits))
            if isinstance(t, Tensor) else t for t in tensors]


def _bfloat16_result(spec, args, target):
    """torch computes a bfloat16 op in float32 and rounds each result to bfloat16 once: _unwrap
    hands the forward float32 copies of the bfloat16 arrays, and the floating outputs are rounded
    (by _wrap) where torch's result dtype is bfloat16. An op given a dtype argument makes its
    outputs' dtype itself; one whose result promotes above bfloat16 (with float16: float32) keeps it."""
    if any(isinstance(a, _dtype.dtype) for a in args):
        return target
    dims, zeros, scalars = [], [], []
    for i in spec.operands or range(len(args)):
        a = args[i]
        for t in (a if type(a) in (list, tuple) else (a,)):
            if isinstance(t, Tensor) and is_array(t._array):
                (dims if t._array.ndim else zeros).append(_dtype.from_numpy_dtype(t._array.dtype))
            elif type(t) in _SCALAR_RANK:
                scalars.append(t)
    return _dtype.BF16_NP if _dtype.result_type(dims, zeros, scalars) is _dtype.bfloat16 else target


def ops_unobserved():
    """Whether an op run now would only compute: no profiler, dispatch or function mode, autocast or
    forward-AD level would see it or change its result. Code that stands in for op calls with NumPy
    (basic indexing's views, the data loader's batches) does so only then."""
    return profile_op is None and profile_composite is None and dispatch_hook is None and autocast is None \
        and fw.level is None and not _function_modes


def call(spec, args):
    """Run op `spec` on `args` (Tensors, lists of Tensors, Python values) and record it."""
    if profile_op is not None:
        return profile_op(spec, args)
    if dispatch_hook is not None:
        return dispatch_hook(spec, args)
    if autocast is not None:
        args = autocast(spec.name, args)
    # The usual cases, decided without _unwrap, which would promote nothing there and return these
    # arrays: a Tensor followed by Tensors of its dtype and Python numbers that never lift it (a float,
    # int or bool beside a floating Tensor; an int or bool beside an integer one, for ops promoting to
    # a common dtype: promote="float" makes integers floats), where a Tensor of another signed dtype (an
    # index, a target) also passes for ops that do not promote; and, for an op where _unwrap would not
    # look at them (`plain_tail`), values of no tensor (dims, sizes, flags, dtypes, None).
    raw = None
    n = len(args)
    if n and ((t := type(a := args[0])) is Tensor or t in PLAIN_TYPES) and not a._math_bits and (
            (k := (d := a._array).dtype.kind) in "fc" or k in "bi" and spec.promote is None
            or k == "i" and spec.promote == "same"):
        inputs_require_grad = a._requires_grad or a._base is not None and a.requires_grad
        if n == 1:
            raw = (d,)
        elif n == 2 and ((t := type(b := args[1])) is int or t is float and (k in "fc" or spec.promote is None)):
            raw = (d, b)
        elif n == 2 and ((t := type(b)) is Tensor or t in PLAIN_TYPES) and \
                ((e := b._array).dtype is d.dtype or e.dtype == d.dtype) and not b._math_bits:
            raw = (d, e)
            if b._requires_grad or b._base is not None and b.requires_grad:
                inputs_require_grad = True
        else:
            floats = k in "fc" or spec.promote is None   # whether a Python float leaves the dtype as it is
            items = [d]
            tail = spec.plain_tail
            for b in args[1:]:
                t = type(b)
                if t is Tensor or t in PLAIN_TYPES:
                    e = b._array
                    if e.dtype is not d.dtype and e.dtype != d.dtype and (
                            spec.promote is not None or e.dtype.kind not in "fcbi") or b._math_bits:
                        break
                    items.append(e)
                    if b._requires_grad or b._base is not None and b.requires_grad:
                        inputs_require_grad = True
                elif t is int or t is bool or t is float and floats or tail and (t in _PLAIN_TAIL and not (
                        (t is tuple or t is list or t is Size) and b and type(b[0]) is not int)
                        or t is _DTYPE and spec.name not in _UNSIGNED_RESULT):
                    items.append(b)
                else:
                    break
            else:
                raw = tuple(items)
    elif n and type(a) is list and spec.list_pos[:1] == (0,) and (fast := _tensor_list_first(spec, args)) is not None:
        raw, inputs_require_grad = fast   # (cat, stack...: a list of Tensors of one floating dtype first)
    if raw is not None:
        target = None
    else:
        if DISPATCH_TYPES and dispatch_subclass is not None and _subclass_dispatched(args):
            return dispatch_subclass(spec, args, False)
        if batched is not None and _batched_arg(args, batched[0]):
            return batched[1](spec, args)   # a batched tensor outside its vmap (a gradient of it, say)
        if spec.promote is not None and _NP_SCALARS.intersection(map(type, args)):
            # torch reads a NumPy scalar as the Python number it holds (weakly typed: float32 * np.float64(2)
            # is float32); NumPy would compute in the scalar's own dtype. (torch's parser reads np.bool_ as a
            # float: bool tensor * np.bool_(True) is float32.) Only for ops that promote their operands: an
            # internal kernel may take a NumPy scalar where it takes an array (_strided_sum's positions)
            args = tuple((float(a) if type(a) is np.bool_ else a.item()) if type(a) in _NP_SCALARS else a
                         for a in args)
        raw, inputs_require_grad, target = _unwrap(spec, args)
    try:
        # a meta tensor first: the forward runs on its zero-strided stand-in (see _meta_array.py)
        kernel = spec.kernel if spec.large is None or not raw or type(raw[0]) is not _ndarray or raw[0].size < _LARGE \
            else spec.large
        out = kernel(*raw) if not raw or type(raw[0]) is not MetaArray else meta_call(spec.forward, raw, {})
    except ValueError:
        if spec.broadcast:   # NumPy's "could not be broadcast" becomes torch's message
            broadcast_shape(*(a.shape for a in raw if is_array(a)))
        raise
    if type(out) in ARRAY_TYPES and target is None and not spec.view:
        # one array out, no cast, no view: the code below for that case, without its loops and tuples,
        # and Tensor._make(out, False, None, 0) spelled out (one Python frame less per op)
        t = _object_new(Tensor)
        t._array = out
        t._requires_grad = False
        t._fn = None
        t._output_nr = 0
        t._vcs = None
        t._base = None
        if state.inference:
            t._inference = True
        if inputs_require_grad and state.enabled:
            if spec.node_cls is not None:
                (spec.recorder or record.recorder(spec))(args, (t,))
            elif out.dtype.kind in _dtype.INEXACT_KINDS:
                _no_derivative(spec)
        if fw.level is not None:   # a dual level is active: tangents flow forward
            propagate_tangents(spec, args, (t,))
        return t
    recording = inputs_require_grad and state.enabled and (spec.node_cls is not None or spec.nested is not None)
    if type(out) is tuple:
        outs = _wrap_all(out, target, raw)
    elif type(out) in ARRAY_TYPES and target is None:   # what _wrap does in this case, without the call
        outs = (_new_tensor(out, False, None, 0),)
    else:
        outs = (_wrap(out, target, raw),)
    if spec.view:
        bits = args[0]._math_bits ^ spec.flips   # a view reads its memory as its input does (but for `flips`)
        if bits:
            for t in outs:
                t._math_bits = bits
        if args[0]._inference:   # as torch: a view of an inference tensor is an inference tensor, no view, no history
            recording = False
            for t in outs:
                t._inference = True
        else:   # a view of a normal tensor is a normal view, in inference mode too
            record.make_views(spec, args, outs, call)
            if state.inference:   # as torch: it keeps its base's requires_grad, without a history
                for t in outs:
                    t._requires_grad = args[0]._requires_grad and t._array.dtype.kind in _dtype.INEXACT_KINDS
    elif state.inference:
        for t in outs:
            t._inference = True
    if recording:
        # (an op with formulas of its own for nested inputs records those: torch's AutogradNestedTensor key)
        # (without Default formulas, torch's CompositeImplicitAutograd ops: nothing of its own for other inputs)
        rec = spec if spec.nested is None or type(args[0]._array) is not NestedArray else spec.nested
        if rec.node_cls is None:
            _no_derivative(spec)
        (rec.recorder or record.recorder(rec))(args, outs)
    elif inputs_require_grad and state.enabled and spec.entry is None and outs[0]._array.dtype.kind in _dtype.INEXACT_KINDS:
        _no_derivative(spec)
    if fw.level is not None:   # a dual level is active: tangents flow forward
        propagate_tangents(spec, args, outs)
    return outs if type(out) is tuple else outs[0]


def _tensor_list_first(spec, args):
    """(raw, inputs_require_grad) as _unwrap gives them for `args` that are a non-empty list of plain
    Tensors of one floating dtype, followed by _PLAIN_TAIL values; None for any other arguments."""
    # (_float_list's loop, with one dtype for all: written out, as cat and stack take it on every call)
    arrays = []
    requires_grad = False
    dtype = None
    for t in args[0]:
        if type(t) is not Tensor and type(t) not in PLAIN_TYPES or t._math_bits:
            return None
        e = t._array
        if dtype is None:
            dtype = e.dtype
            if dtype.kind not in "fc":
                return None
        elif e.dtype is not dtype and e.dtype != dtype:
            return None
        arrays.append(e)
        if t._requires_grad or t._base is not None and t.requires_grad:
            requires_grad = True
    if not arrays or spec.broadcast:
        return None
    tail = args[1:]
    for j, b in enumerate(tail):
        t = type(b)
        if (t is list or t is tuple) and b and isinstance(b[0], Tensor):   # another Tensor list (_foreach_ ops')
            if spec.promote is not None or (more := _float_list(b)) is None:
                return None
            tail = tail[:j] + (more[0],) + tail[j + 1:]
            requires_grad = requires_grad or more[1]
        elif t not in _PLAIN_TAIL or (t is tuple or t is list or t is Size) and b and type(b[0]) is not int and \
                type(b[0]) is not float:
            return None
    return (arrays,) + tail, requires_grad


def _float_list(tensors):
    """(arrays, whether one requires grad) of a list of plain Tensors of floating dtypes, as _unwrap unwraps
    it; None for any other list."""
    arrays, requires_grad = [], False
    for t in tensors:
        if type(t) is not Tensor and type(t) not in PLAIN_TYPES or t._math_bits or t._array.dtype.kind not in "fc":
            return None
        arrays.append(t._array)
        if t._requires_grad or t._base is not None and t.requires_grad:
            requires_grad = True
    return arrays, requires_grad


def _batched_arg(args, cls):
    """Whether an argument (or an element of a list argument) is a `cls` (vmap's batched tensors)."""
    for a in args:
        t = type(a)
        if t is Tensor or t in _SCALAR_RANK or a is None:
            continue
        if isinstance(a, cls) or (t is list or t is tuple) and any(isinstance(x, cls) for x in a):
            return True
    return False


def _subclass_dispatched(args):
    """Whether an argument (or an element of a list argument) is of a __torch_dispatch__ subclass."""
    for a in args:
        t = type(a)
        if t in DISPATCH_TYPES or (t is list or t is tuple) and any(type(x) in DISPATCH_TYPES for x in a):
            return True
    return False


def _no_derivative(spec):
    raise NotImplementedError(f"the derivative for '{spec.name}' is not implemented in ndgrad yet "
                              "(call it under ndgrad.no_grad() or on tensors that do not require grad)")


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}   # V: bfloat16
_new_tensor = Tensor._make   # bound once: `Tensor._make(...)` binds the classmethod anew on every call
_object_new = object.__new__
_SCALAR_RANK = {bool: 0, int: 1, float: 2, complex: 3}
_NP_SCALARS = frozenset(t for t in np.sctypeDict.values() if issubclass(t, (np.number, np.bool_)))


def _scalar_lifts(tensor_dtype, scalar_rank):
    """Whether a Python scalar operand of category `scalar_rank` (bool < int < float < complex)
    lifts the result above the tensors' category."""
    return scalar_rank > (_KIND_RANK[tensor_dtype.kind] if tensor_dtype is not None else -1)


class Opaque:
    """A forward's result that is no Tensor (a custom op's `int` output, see ndgrad.library): the
    glue returns it as it is, for the caller to unwrap (`value`)."""

    def __init__(self, value):
        self.value = value


def _wrap(o, target, raw):
    """Output `o` of a forward run on the arrays `raw` as a Tensor (in dtype `target` if not None)."""
    if type(o) not in ARRAY_TYPES:
        if isinstance(o, Tensor) or type(o) is Opaque:
            return o
        if not isinstance(o, (SparseArray, NestedArray, MetaArray)):   # sparse/nested/meta forwards return their storage
            o = _backend_of(raw).asarray(o)   # a NumPy scalar or Python value: onto the inputs' backend
    if target is not None and o.dtype != target and o.dtype.kind != "b" and (
            o.dtype.kind == target.kind or o.dtype.kind == "f" and _dtype.is_bfloat16(target)):
        o = o.astype(target)
    return _new_tensor(o, False, None, 0)


def _wrap_all(out, target, raw):
    # (a function of its own: a comprehension in `call` would make its locals closure cells, slower
    # on every call)
    if target is None:   # (_wrap of a NumPy array and no cast: the Tensor alone; chunk's pieces, max's pair)
        return tuple([_new_tensor(o, False, None, 0) if type(o) is _ndarray else _wrap(o, None, raw) for o in out])
    return tuple([_wrap(o, target, raw) for o in out])


def _backend_of(raw):
    """The backend of the first dense array among a forward's arguments (or in a list argument)."""
    for a in raw:
        if type(a) is list:
            a = next((x for x in a if is_array(x)), None)
        if is_array(a):
            return namespace(a)
    return current_backend()



# --- in-place ------------------------------------------------------------------------------


def call_inplace(spec, args):
    """`self.op_(...)`: compute out of place, write into self, then move self's history."""
    if profile_op is not None:
        return profile_op(spec, args, True)
    if dispatch_hook is not None:
        return dispatch_hook(spec, args, True)
    if DISPATCH_TYPES and dispatch_subclass is not None and _subclass_dispatched(args):
        return dispatch_subclass(spec, args, True)
    self = args[0]
    if self._inference and not state.inference:
        record.refuse_inference_inplace(self)
    if _graph.before_inplace is not None:   # allow_mutation_on_saved_tensors: clone what self's write changes
        _graph.before_inplace(self)
    recording = state.enabled and (self.requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args[1:]))
    if self._creation is not None and recording:   # torch refuses whenever the op would be recorded
        record.refuse_view_inplace(self)
    if not recording and fw.level is None and (_ufunc_inplace(spec, self, args) or _lean_inplace(spec, self, args)):
        return self
    if spec.name in _UNSIGNED_RESULT:
        _unsigned.check_result(spec, args, self)
    if recording:
        record.check_leaf_inplace(self)   # first, as torch: before an op without a derivative refuses
        if spec.node_cls is not None and 0 in spec.saved_pos and 0 in spec.diff_pos:
            # the formulas need self's value from before the write: keep a copy with its history
            old = Tensor._make(apply_bits(self._array, self._math_bits).copy(), self._requires_grad, None,
                               self._output_nr)
            old._fn = self.grad_fn
            old._fw = self._fw
            args = (old,) + tuple(args[1:])
    rule = spec.inplace_shape
    try:
        with grad_flag(recording):
            res = call(spec, args)
    except RuntimeError:
        if getattr(rule, "first", False):   # the in-place form's own error, where self's shape is the reason
            _check_inplace_shape(spec, rule, self, args)
        raise
    if type(res) is tuple:
        res = res[0]
    if rule is not None and res._array.shape != self._array.shape:
        if rule != "resize":
            rule(self, res._array.shape, spec.name)
        if self._base is not None:
            raise NotImplementedError(f"ndgrad: {spec.name}_ resizing a view (torch grows the storage it shares)")
        self._vcs = self._vc   # made before the data changes (see autograd/node.version_counter)
        self._array = namespace(self._array).empty(res._array.shape, dtype=self._array.dtype)
    record.write_into(self, res._array, spec.name)
    if fw.level is not None:
        inplace_tangents(self, res)
    if recording and res._fn is not None:
        if hasattr(type(res._fn), "recorded_inplace"):   # a node that tells in-place calls apart (NotImplemented)
            res._fn.recorded_inplace = True
        record.rebase_history(self, res._fn)
    return self


def inplace_unobserved():
    """Whether an in-place op run now needs none of call_inplace's checks before its lean paths: grad
    mode off (nothing recorded), nothing observing op calls (ops_unobserved), no
    allow_mutation_on_saved_tensors. A list of element ops (an optimizer's `_foreach_*_` calls) asks once,
    then runs each element with lean_inplace."""
    return not state.enabled and _graph.before_inplace is None and ops_unobserved()


def lean_inplace(spec, args):
    """call_inplace(spec, args) by its lean paths, where inplace_unobserved() holds, for a plain Tensor
    self (Tensor, Parameter); False where they do not take it (nothing written: call_inplace then runs)."""
    self = args[0]
    if type(self) not in PLAIN_TYPES or self._inference and not state.inference:
        return False
    return _ufunc_inplace(spec, self, args) or _lean_inplace(spec, self, args)


def _check_inplace_shape(spec, rule, self, args):
    """rule's error if the op's result for a 0-d self (which always broadcasts) has another shape
    than self; nothing if that call fails too (its error is not about self's shape)."""
    try:
        with grad_flag(False):
            res = call(spec, (Tensor._make(self._array[(0,) * self._array.ndim] if self._array.size else
                                           self._array.sum(), False, None, 0),) + tuple(args[1:]))
    except Exception:  # noqa: BLE001 - the original error stands
        return
    shape = (res[0] if type(res) is tuple else res)._array.shape
    if shape != self._array.shape:
        rule(self, shape, spec.name)


# `p -= lr * g` and the like, nothing recorded: one in-place array operator writing into self (no
# temporary result and copy), on whatever backend self's array lives. Only where the general path's
# checks cannot fail: a floating self of its own memory, and a Python number or a Tensor of self's
# dtype whose shape broadcasts to self's.
_UFUNCS = {"add.Tensor": operator.iadd, "sub.Tensor": operator.isub, "mul.Tensor": operator.imul,
           "div.Tensor": operator.itruediv}
_POOL_KINDS = {"add.Tensor": _pool.ADD, "sub.Tensor": _pool.SUB, "mul.Tensor": _pool.MUL, "div.Tensor": _pool.DIV}


def _ufunc_inplace(spec, self, args):
    ufunc = _UFUNCS.get(spec.name)
    if ufunc is None or len(args) > 3:
        return False
    alpha = args[2] if len(args) == 3 else 1   # add_/sub_'s: a Tensor scaled first, as add's forward scales it
    if alpha != 1 and (type(alpha) is not float and type(alpha) is not int or not isinstance(args[1], Tensor)):
        return False
    dst, other = self._array, args[1]
    if self._math_bits or isinstance(other, Tensor) and other._math_bits:
        return False
    if type(dst) not in ARRAY_TYPES or dst.dtype.kind != "f" or 0 in dst.strides or not dst.flags.writeable:
        return False
    if isinstance(other, Tensor):
        src = other._array
        if type(src) is not type(dst) or src.dtype != dst.dtype or \
                src.shape != dst.shape and broadcast_shapes(src.shape, dst.shape) != dst.shape:
            return False
    elif type(other) in (float, int):
        src = other
    else:
        return False
    src = src if alpha == 1 else src * alpha
    if type(dst) is not _ndarray or dst.size < _LARGE or \
            _pool.binary(_POOL_KINDS[spec.name], dst, src, out=dst) is None:   # (the pool's pass, large arrays)
        ufunc(dst, src)
    (self._vcs or self._vc)[0] += 1
    return True


def _lean_inplace(spec, self, args):
    """Any other in-place op with nothing recorded, where the general path's checks cannot fail: the
    forward run on the arrays of a floating self of its own (writable, no zero strides) memory and of
    Tensors of self's dtype and Python numbers, its result written into self when it has self's shape
    and dtype (else False: the general path runs, and raises where it should)."""
    dst = self._array
    if type(dst) is not _ndarray or dst.dtype.kind != "f" or self._math_bits or autocast is not None or \
            spec.name in _UNSIGNED_RESULT or not dst.flags.writeable or 0 in dst.strides:
        return False
    raw = [dst]
    for b in args[1:]:
        t = type(b)
        if t is Tensor or t in PLAIN_TYPES:
            e = b._array
            if type(e) is not _ndarray or e.dtype != dst.dtype or b._math_bits:
                return False
            raw.append(e)
        elif t is float or t is int or t is bool or b is None and not spec.broadcast:
            raw.append(b)
        else:
            return False
    into = _INTO.get(spec)
    if into is None:
        into = _INTO[spec] = _writer(spec)
    if into:   # the op's kernel writing its result into self's array (the operands read before, elementwise)
        fn, k, names = into
        try:
            fn(*raw[:k], **dict(zip(names, raw[k:])), out=dst) if names else fn(*raw, out=dst)
        except Exception:  # noqa: BLE001 - nothing written (NumPy checks out= first): the general path raises
            return False
        (self._vcs or self._vc)[0] += 1
        return True
    try:
        out = spec.kernel(*raw)
    except Exception:  # noqa: BLE001 - the general path runs again and raises torch's error
        return False
    if type(out) is not _ndarray and dst.ndim == 0 and isinstance(out, np.generic):
        out = np.asarray(out)   # (NumPy's result on 0-d arrays: taken, so that a draw is not made twice)
    if type(out) is not _ndarray or out.shape != dst.shape or out.dtype != dst.dtype:
        return False
    np.copyto(dst, out)
    (self._vcs or self._vc)[0] += 1
    return True


_INTO = {}   # op spec -> its _writer(), False for none


def _writer(spec):
    """(kernel, positional count, keyword names) of op spec's replay kernel that takes `out` as its first
    operand's buffer (`out_operand` 0: see pointwise._writes_into), or False."""
    fn, k, names = keyword_split(spec.forward)
    replay = getattr(fn, "replay", None)
    return (replay, k, names) if getattr(replay, "out_operand", None) == 0 else False


_ndarray = np.ndarray
_LARGE = _pool.MIN_ELEMENTS


# --- registration --------------------------------------------------------------------------
def op(name, *, public=None, method=False, inplace=False, promote=None, operands=None, view=False,
       broadcast=False, flips=0):
    """Register `fn` (a forward on arrays) as the op `name`; returns its public function.

    public: the public name (default: the forward's name); method: also a Tensor method
    (True or a name); inplace: also `Tensor.<method>_`; promote: None, "same" (common dtype) or
    "float" (common dtype, integers to the default float); operands: the argument positions
    that take part in promotion (default all); broadcast: operands broadcast elementwise (shape
    errors get torch's message); view: outputs alias the first input; flips: math bits (_tensor.CONJ_BIT,
    NEG_BIT) such a view toggles: torch's lazy conj() and _neg_view().
    By default an in-place form writes a result that broadcasts to self; inplace="resize": self
    takes the result's shape (addbmm_); inplace=rule: `rule(self, shape, name)` raises the in-place
    form's error where the result's shape is not self's, after the op's own checks, or before them
    where `rule.first` is true (the result's shape is then found with a 0-d self).
    """
    def deco(fn):
        spec = OpSpec(name, _positional(_kinds.checked(name, fn)), promote, view, operands, broadcast, flips)
        if inplace is not True:
            spec.inplace_shape = inplace or None
        SPECS.append(spec)
        pub = _entry_point(fn, call, spec, public or fn.__name__)
        if public is not False:
            OPS[pub.__name__] = pub
        mname = pub.__name__ if method is True else method
        if mname:
            METHODS[mname] = pub
        if inplace:
            ip = _entry_point(fn, call_inplace, spec, (mname or pub.__name__) + "_")
            if fn.__doc__:   # by reference, as torch does, rather than with a copy of the forward's docstring
                ip.__doc__ = (f"In-place version of :func:`ndgrad.{pub.__name__}`." if public is not False
                              else f"In-place version of :meth:`Tensor.{mname or pub.__name__}`.")
            METHODS[ip.__name__] = ip
            pub.inplace = ip
        pub.spec = spec
        return pub
    return deco


def keyword_split(forward):
    """(the function an op's forward calls, how many arguments it takes positionally, the names of the
    keyword-only ones after them): _positional's split, or (forward, None, ()) for a forward without one."""
    return getattr(forward, "keyword_split", None) or (forward, None, ())


def _positional(fn):
    """fn callable with every argument positionally (the glue passes arguments as one tuple)."""
    params = list(inspect.signature(fn).parameters.values())
    first_kw = next((i for i, p in enumerate(params) if p.kind is p.KEYWORD_ONLY), None)
    if first_kw is None:
        return fn
    kw_names = tuple(p.name for p in params[first_kw:])
    if len(kw_names) == 1:   # (add's alpha, expand's implicit...): its default passed as the default
        name, default = kw_names[0], params[first_kw].default

        @functools.wraps(fn)
        def forward(*args):
            if len(args) == first_kw or args[first_kw] is default:
                return fn(*args[:first_kw])
            return fn(*args[:first_kw], **{name: args[first_kw]})
    else:
        defaults = tuple(p.default for p in params[first_kw:])

        @functools.wraps(fn)
        def forward(*args):
            tail = args[first_kw:]
            for value, default in zip(tail, defaults):
                if value is not default:
                    return fn(*args[:first_kw], **dict(zip(kw_names, tail)))
            return fn(*args[:first_kw])   # (the usual call: every keyword its default, no dict)
    forward.keyword_split = (fn, first_kw, kw_names)   # (what compile's tapes call instead: compiler.py)
    return forward


def _binder(params):
    """bind(args, kwargs) for a function with the parameters `params` (inspect's): the arguments as a
    tuple in parameter order, defaults filled, as Signature.bind + apply_defaults give them (~10x
    faster); None for a call it does not bind (the caller then asks inspect, for its error), and None
    instead of a binder where a parameter is variadic."""
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    defaults = [p.default for p in params]
    most = sum(p.kind is not p.KEYWORD_ONLY for p in params)
    index = {p.name: i for i, p in enumerate(params) if p.kind is not p.POSITIONAL_ONLY}
    required = [(i, p.name) for i, p in enumerate(params) if p.default is p.empty]

    def bind(args, kwargs):
        n = len(args)
        if n > most:
            return None
        out = list(args) + defaults[n:]
        for name, value in kwargs.items():
            i = index.get(name)
            if i is None or i < n:   # unknown, or given twice
                return None
            out[i] = value
        for i, name in required:
            if i >= n and name not in kwargs:
                return None
        return tuple(out)
    return bind


def _entry_point(fn, glue, spec, name):
    """The public function of an op: fn's signature (inspect.signature and getsource follow
    `__wrapped__` to fn), arguments passed in fn's parameter order, defaults filled, to `glue`."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    n = len(params)
    defaults = tuple(p.default for p in params)
    positional = sum(p.kind is not p.KEYWORD_ONLY for p in params)
    required = sum(p.default is p.empty for p in params[:positional])
    # calls of `required`..`positional` positional arguments take the remaining defaults as they are
    most = positional if all(d is not inspect.Parameter.empty for d in defaults[positional:]) else -1

    fast = _binder(params)

    def bind(args, kwargs):
        if fast is not None and (bound := fast(args, kwargs)) is not None:
            return bound
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}() {e}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    @functools.wraps(fn)
    def entry_point(*args, **kwargs):
        for a in args:   # __torch_function__: one set lookup per argument when nothing overrides
            if (t := type(a)) not in _NOT_OVERRIDING and not (t in _INT_SEQS and (
                    not a or type(a[0]) is int or _NOT_OVERRIDING.issuperset(map(type, a)))):
                out = _dispatch_torch_function(entry_point, args, kwargs)
                if out is not _NO_OVERRIDE:
                    return out
                break
        else:
            if kwargs and not _NOT_OVERRIDING.issuperset(map(type, kwargs.values())):
                out = _dispatch_torch_function(entry_point, args, kwargs)
                if out is not _NO_OVERRIDE:
                    return out
        if kwargs:
            if "out" in kwargs and glue is call:
                return _call_out(entry_point, name, args, kwargs)
            args = bind(args, kwargs)
        elif len(args) != n:
            k = len(args)
            args = args + defaults[k:] if required <= k <= most else bind(args, kwargs)
        return glue(spec, args)
    entry_point.__name__ = entry_point.__qualname__ = name
    return entry_point


def _call_out(fn, name, args, kwargs):
    """`op(..., out=t)`: the result written into t (a tuple of tensors for several outputs) and t
    returned. As in torch, out= is outside autograd: refused when an argument requires grad (in
    grad mode) or carries a tangent."""
    out = kwargs.pop("out")
    if out is None:
        return fn(*args, **kwargs)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    tensors = [a for a in args + tuple(kwargs.values()) + outs if isinstance(a, Tensor)]
    if fw.level is not None and any(tangent_of(t) is not None for t in tensors):
        raise NotImplementedError(f"Trying to use forward AD with {name}_out that does not support it because it is "
                                  "an out= function")
    if state.enabled and any(t._requires_grad for t in tensors):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    for o in outs:   # a write like any in-place op's: refused on inference tensors, seen by allow_mutation_on_saved
        if o._inference and not state.inference:
            record.refuse_inference_inplace(o)
        if _graph.before_inplace is not None:
            _graph.before_inplace(o)
    res = fn(*args, **kwargs)
    for o, r in zip(outs, res if type(res) is tuple else (res,)):
        data = r._array
        if o._array.shape != data.shape:
            if o._array.size:
                warnings.warn(f"An output with one or more elements was resized since it had shape "
                              f"[{', '.join(map(str, o._array.shape))}], which does not match the required output "
                              f"shape [{', '.join(map(str, data.shape))}]. This behavior is deprecated, and in a "
                              "future PyTorch release outputs will not be resized unless they have zero elements. You "
                              "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                              "t.resize_(0).", UserWarning, stacklevel=3)
            o._vcs = o._vc   # made before the data changes (see autograd/node.version_counter)
            o._array = namespace(o._array).empty(data.shape, dtype=o._array.dtype)   # resized: new memory
        record.write_into(o, data, name)
    return out


def _regenerate_view_grad_fn(self):
    """A view whose base was written in place since its history was recorded is re-derived from
    the base: by as_strided (AsStridedBackward0), as torch does, or, under
    `autograd._force_original_view_tracking(True)`, by replaying its view ops. Tensor.grad_fn calls it."""
    if self._creation is not None:   # a view torch forbids in-place ops on: its base's were, too
        record.refuse_view_inplace(self, indirect=True)
    with grad_flag(True):
        if state.view_replay or self._math_bits != self._base._math_bits:   # as_strided cannot conjugate/negate
            fresh = self._view_fn(self._base)
        elif self._dtype_view is not None:   # as_strided cannot cross dtypes: replayed as torch does
            fresh = record.dtype_view_fn(self)(self._base)
        else:
            fresh = OPS["as_strided"](self._base, self._array.shape, self.stride(), self.storage_offset())
    record.move_retains_grad(self, self._fn, self._output_nr, fresh._fn, fresh._output_nr)
    self._fn, self._output_nr = fresh._fn, fresh._output_nr
    self._requires_grad = True
    self._view_version = self._vc[0]


METHODS["_regenerate_view_grad_fn"] = _regenerate_view_grad_fn


def register(name=None, method=False, aten=None):
    """Register a hand-written public function (one that picks among ops) in the namespace.

    aten: for a factory (which makes a leaf, no op of the glue), its torch.ops.aten identity, so that
    dispatch modes see its calls: (packet, overload names by the number of positional arguments...);
    a call given a `generator` is the packet's "generator" overload."""
    def deco(fn):
        pub_name = name or fn.__name__
        OPS[pub_name] = public = _overridable(fn, pub_name, aten)
        if method:
            METHODS[pub_name if method is True else method] = _method_form(public) if hasattr(fn, "parser") else public
        return fn
    return deco


def composite(fn):
    """A hand-written nn.functional function (not in the torch namespace): checked for
    `__torch_function__` and timed by the profiler as register()'s functions are."""
    return _overridable(fn, fn.__name__)


def _overridable(fn, name, aten=None):
    """fn, its arguments first checked for `__torch_function__` (see _entry_point); timed as op
    `name` while the profiler records; a factory (`aten`, see register) seen by dispatch modes."""
    @functools.wraps(fn)
    def public(*args, **kwargs):
        for a in args:
            if (t := type(a)) not in _NOT_OVERRIDING and not (t in _INT_SEQS and (
                    not a or type(a[0]) is int or _NOT_OVERRIDING.issuperset(map(type, a)))):
                out = _dispatch_torch_function(public, args, kwargs)
                if out is not _NO_OVERRIDE:
                    return out
                break
        else:
            if kwargs and not _NOT_OVERRIDING.issuperset(map(type, kwargs.values())):
                out = _dispatch_torch_function(public, args, kwargs)
                if out is not _NO_OVERRIDE:
                    return out
        if dispatch_hook is not None and aten is not None:
            return dispatch_factory(aten, public, fn, args, kwargs)
        if aten is not None and DISPATCH_TYPES and args and type(args[0]) in DISPATCH_TYPES and \
                dispatch_subclass is not None:   # (zeros_like of a __torch_dispatch__ subclass's instance)
            return dispatch_factory(aten, public, fn, args, kwargs)
        if profile_composite is not None:
            return profile_composite(name, fn, args, kwargs)
        return fn(*args, **kwargs)
    return public


def _method_form(fn):
    """The Tensor method of a public function that parses its arguments with a schema Parser: the
    function itself, except that a bad call gets torch's message for the method (positions counted
    without self, overloads without a Tensor first dropped)."""
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except ArgumentError:
            _method_parser(fn.parser).parse(args, kwargs)   # raises the method's form of the error
            raise
    return method


@functools.cache
def _method_parser(parser):
    return parser.method()   # built on the first bad call only: it costs import time otherwise


def autocast_as(name):
    """For a hand-written function that torch's autocast treats as the one op `name` (a loss, a
    linalg composite): the autocast policy applies to its arguments on entry, not to the ops inside."""
    def deco(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            if autocast is not None:
                args = autocast(name, args)
                if kwargs:
                    kwargs = dict(zip(kwargs, autocast(name, tuple(kwargs.values()))))
            return fn(*args, **kwargs)
        return run
    return deco


def method(name=None):
    """Register `fn` as a Tensor method only (`Tensor.new_zeros` and the like), checked for
    `__torch_function__` (handlers and modes see it by the method's name) as register()'s are."""
    def deco(fn):
        mname = name or fn.__name__
        public = _overridable(fn, mname)
        public.__name__ = public.__qualname__ = mname
        METHODS[mname] = public
        return fn
    return deco


def bind_derivatives(entries):
    """Bind every registered op to its derivatives.yaml entry (`entries`: name -> Entry)."""
    for spec in SPECS:
        spec.bind(entries.get(spec.name))
        nested = entries.get(f"{spec.name}@AutogradNestedTensor")
        if nested is not None:
            spec.nested = _bound_copy(spec, nested)


def _bound_copy(spec, entry):
    out = object.__new__(OpSpec)
    for name in OpSpec.__slots__:
        if hasattr(spec, name):
            setattr(out, name, getattr(spec, name))
    out.bind(entry)
    out.nested = None
    return out


def install(namespace, tensor_cls):
    """Put the public ops into `namespace` (the ndgrad module's dict) and the methods on Tensor."""
    namespace.update(OPS)
    for name, fn in METHODS.items():
        setattr(tensor_cls, name, fn)
