"""The one path every op goes through.

An op is a forward function on arrays (in `ndgrad/ops/`) registered with `@op("mul.Tensor")`,
where the string names its derivatives.yaml entry. `op` returns the public function (with the
forward function's own signature) that: unwraps Tensors to arrays, applies torch's type
promotion, runs the forward, wraps the outputs, and — when grad mode is on and an input
requires grad — creates the entry's Node, links its edges and saves what the formulas read.
The same spec also gives the in-place variant (`mul_`) and view semantics (`view=True`).
"""
import inspect
import weakref

import numpy as np

from . import _dtype
from .autograd import anomaly_mode, loader
from .autograd.anomaly_mode import state as anomaly
from .autograd import forward_ad
from .autograd.forward_ad import state as fw
from .autograd.grad_mode import grad_flag, state
from .autograd.node import AccumulateGrad, SavedOutput, TensorMeta, _next_seq
from .autograd.graph import saved_hooks
from ._sparse_array import SparseArray
from ._nested_array import NestedArray

ENTRIES = loader.load()
OPS = {}          # public name -> function, collected into the ndgrad namespace
METHODS = {}      # Tensor method name -> function
Tensor = None     # set by _tensor.py (avoids an import cycle)
profile_op = None  # set by autograd.profiler while it records: wraps each op call


class OpSpec:
    __slots__ = ("name", "forward", "entry", "node_cls", "diff_pos", "list_pos", "saved_pos",
                 "meta_only", "promote", "operands", "view", "multi_out", "out_diff", "broadcast",
                 "saved_plan", "diff_lists")

    def __init__(self, name, forward, promote, view, operands=None, broadcast=False):
        self.name = name
        self.broadcast = broadcast
        self.operands = operands
        self.forward = forward
        self.entry = ENTRIES.get(name)
        self.promote = promote
        self.view = view
        entry = self.entry
        if entry is None:
            self.node_cls, self.diff_pos, self.saved_pos = None, (), ()
            self.list_pos = self.meta_only = self.saved_plan = ()
            self.diff_lists = False
            self.multi_out, self.out_diff = False, None
            return
        self.node_cls = entry.node_cls
        self.diff_pos = self.node_cls._diff_args
        self.list_pos = tuple(i for i, a in enumerate(entry.args) if a.is_tensor_list)
        names = entry.arg_names
        # positions of saved arguments; -1-k for the k-th output
        self.saved_pos = tuple(names.index(n) if n in names else
                               -1 - (entry.returns.index(n) if n in entry.returns else 0)
                               for n in entry.saved_names)
        self.meta_only = entry.meta_only
        self.saved_plan = tuple(zip(self.saved_pos, self.meta_only, entry.saved_users))
        self.diff_lists = any(i in self.list_pos for i in self.diff_pos)   # edges per list element
        self.multi_out = len(entry.returns) > 1 or entry.schema.rstrip().endswith("[]")  # Tensor[] returns
        self.out_diff = entry.output_differentiability


_NO_EDGE = (None, 0)


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


def _edge(t):
    """The edge through which a gradient reaches tensor `t`'s history."""
    fn = t._grad_fn if t._base is None else t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        return (None, 0)
    acc = t._acc
    node = acc() if acc is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._acc = weakref.ref(node)
    return (node, 0)


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
    mixed = False
    scalar_rank = -1   # the highest category of a Python scalar operand (see _scalar_lifts)
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            d = a._data
            raw[i] = d
            if a._requires_grad:
                inputs_require_grad = True
            if single_dtype is None:
                single_dtype = d.dtype
            elif d.dtype != single_dtype:
                mixed = True
        elif i in spec.list_pos or (type(a) in (list, tuple) and a and isinstance(a[0], Tensor)):
            raw[i] = [t._data if isinstance(t, Tensor) else t for t in a]
            inputs_require_grad = inputs_require_grad or any(getattr(t, "_requires_grad", False) for t in a)
        else:
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
    return raw, inputs_require_grad, target


def call(spec, args):
    """Run op `spec` on `args` (Tensors, lists of Tensors, Python values) and record it."""
    if profile_op is not None:
        return profile_op(spec, args)
    # The usual case, decided without _unwrap's loop: a floating Tensor, alone or with a Python
    # float or int, or with a Tensor of its dtype. _unwrap would promote nothing there (such a
    # scalar never lifts a floating Tensor; promote="float" changes integer tensors only) and
    # would return these arrays.
    raw = None
    n = len(args)
    if 0 < n <= 2 and type(args[0]) is Tensor and args[0]._data.dtype.kind in "fc":
        a = args[0]
        b = args[1] if n == 2 else None
        if n == 1:
            raw = (a._data,)
        elif type(b) is float or type(b) is int:
            raw = (a._data, b)
        elif type(b) is Tensor and b._data.dtype == a._data.dtype:
            raw = (a._data, b._data)
    if raw is not None:
        inputs_require_grad = a._requires_grad or type(b) is Tensor and b._requires_grad
        target = None
    else:
        raw, inputs_require_grad, target = _unwrap(spec, args)
    try:
        out = spec.forward(*raw)
    except ValueError:
        if spec.broadcast:   # NumPy's "could not be broadcast" becomes torch's message
            broadcast_shape(*(a.shape for a in raw if isinstance(a, np.ndarray)))
        raise
    record = inputs_require_grad and state.enabled and spec.node_cls is not None
    if type(out) is tuple:
        outs = tuple(_wrap(o, target) for o in out)
    elif type(out) is np.ndarray and target is None:   # what _wrap does in this case, without the call
        outs = (Tensor._make(out, False, None, 0),)
    else:
        outs = (_wrap(out, target),)
    if spec.view:
        _make_views(spec, args, outs)
    if state.inference:
        for t in outs:
            t._inference = True
    if record:
        _record(spec, args, outs)
    elif inputs_require_grad and state.enabled and spec.entry is None and outs[0]._data.dtype.kind in "fc":
        raise NotImplementedError(f"the derivative for '{spec.name}' is not implemented in ndgrad yet "
                                  "(call it under ndgrad.no_grad() or on tensors that do not require grad)")
    if fw.level is not None:   # a dual level is active: tangents flow forward
        forward_ad.propagate(spec, args, outs)
    return outs if type(out) is tuple else outs[0]


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_SCALAR_RANK = {bool: 0, int: 1, float: 2, complex: 3}


def _scalar_lifts(tensor_dtype, scalar_rank):
    """Whether a Python scalar operand of category `scalar_rank` (bool < int < float < complex)
    lifts the result above the tensors' category."""
    return scalar_rank > (_KIND_RANK[tensor_dtype.kind] if tensor_dtype is not None else -1)


def _wrap(o, target):
    if type(o) is not np.ndarray:
        if isinstance(o, Tensor):
            return o
        if not isinstance(o, (SparseArray, NestedArray)):   # sparse/nested forwards return their storage
            o = np.asarray(o)
    if target is not None and o.dtype != target and o.dtype.kind != "b" and o.dtype.kind == target.kind:
        o = o.astype(target)
    return Tensor._make(o, False, None, 0)


def _record(spec, args, outs):
    node = spec.node_cls.__new__(spec.node_cls)
    node._sequence_nr_ = _next_seq()
    node._extra = None
    if spec.diff_lists:
        _list_edges(node, spec, args)
    else:   # the common case: every differentiable argument is one Tensor (or a scalar)
        edges, meta = [], []
        for i in spec.diff_pos:
            a = args[i]
            if isinstance(a, Tensor):
                d = a._data
                fn = a._grad_fn
                edges.append((fn, a._output_nr) if fn is not None and a._base is None else _edge(a))
                meta.append((d.shape, d.dtype))
            else:
                edges.append(_NO_EDGE)
                meta.append(None)
        node.next_functions = tuple(edges)
        node._meta = tuple(meta)   # a tuple: see node._versions below
    out_diff = spec.out_diff
    if len(outs) == 1 and out_diff is None:
        t = outs[0]
        if t._data.dtype.kind in "fc":
            t._requires_grad = True
            t._grad_fn = node
    else:
        for k, t in enumerate(outs):
            if t._data.dtype.kind in "fc" and (out_diff is None or out_diff[k]):
                t._requires_grad = True
                t._grad_fn = node
                t._output_nr = k
    node._out_meta = [(t._data.shape, t._data.dtype) for t in outs] if spec.multi_out else None
    saved, versions = [], []
    for p, meta_only, users in spec.saved_plan:
        version = None
        if users is not None and not any(_needs_grad(args[i]) for i in users):
            v = None   # only formulas of inputs that need no gradient read it
        elif p >= 0:
            v = args[p]
            if isinstance(v, Tensor):
                if meta_only:
                    v = TensorMeta(v)
                else:
                    version = v._vc[0]
            elif p in spec.list_pos:
                version = [t._vc[0] if t is not None else None for t in v]   # Tensor?[]: None entries
                v = list(v)
        else:
            t = outs[-1 - p]
            v = SavedOutput(t)
            version = t._vc[0]
        saved.append(v)
        versions.append(version)
    node._saved = saved
    # A tuple, not a list: the cyclic GC stops tracking a tuple of ints once it has seen it, and
    # full collections, which revisit every tracked object, dominate long forward passes.
    node._versions = tuple(versions)
    if saved_hooks:   # saved_tensors_hooks active: pack what was just saved
        saved_hooks[-1].pack_node(node)
    if anomaly.enabled:
        anomaly_mode.record(node)


def _needs_grad(a):
    if isinstance(a, Tensor):
        return a._requires_grad
    return type(a) in (list, tuple) and any(isinstance(t, Tensor) and t._requires_grad for t in a)


def _list_edges(node, spec, args):
    """Edges and input metadata when a differentiable argument is a Tensor[] (one edge per element;
    `_edge_slices` tells the node which edges belong to which argument)."""
    edges, meta, slices = [], [], []
    for i in spec.diff_pos:
        a = args[i]
        start = len(edges)
        if i in spec.list_pos:
            for t in a:
                edges.append(_edge(t))
                meta.append((t._data.shape, t._data.dtype))
        elif isinstance(a, Tensor):
            edges.append(_edge(a))
            meta.append((a._data.shape, a._data.dtype))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
        slices.append(slice(start, len(edges)))
    node._edge_slices = slices
    node.next_functions = tuple(edges)
    node._meta = meta


def _make_views(spec, args, outs):
    base_t = args[0]
    base = base_t if base_t._base is None else base_t._base
    parent_fn = base_t._view_fn
    rest = args[1:]
    # torch forbids in-place ops (with grad) on views made in no_grad mode or by multi-output ops
    creation = "no_grad" if not state.enabled else "multi" if spec.multi_out else base_t._creation
    for k, t in enumerate(outs):
        if t._data.base is None or not np.may_share_memory(t._data, base._data):
            continue  # the forward had to copy (e.g. reshape of a non-contiguous array)
        t._base = base
        t._vc = base._vc
        t._view_version = base._vc[0]
        if creation is not None:
            t._creation = creation
        t._view_fn = _chain(parent_fn, spec, rest, k)


def _chain(parent_fn, spec, rest, index):
    def view_fn(b):
        v = parent_fn(b) if parent_fn is not None else b
        out = call(spec, (v,) + rest)   # positional, as recorded (forwards may have keyword-only args)
        return out[index] if type(out) is tuple else out
    return view_fn


# --- in-place ------------------------------------------------------------------------------


def call_inplace(spec, args):
    """`self.op_(...)`: compute out of place, write into self, then move self's history."""
    if profile_op is not None:
        return profile_op(spec, args, True)
    self = args[0]
    if self._creation is not None and state.enabled and self._base._requires_grad:
        _refuse_view_inplace(self)
    recording = state.enabled and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args[1:]))
    if not recording and fw.level is None and _ufunc_inplace(spec, self, args):
        return self
    if recording and spec.node_cls is not None:
        _check_leaf_inplace(self)
        if spec.node_cls is not None and 0 in spec.saved_pos and 0 in spec.diff_pos:
            # the formulas need self's value from before the write: keep a copy with its history
            old = Tensor._make(self._data.copy(), self._requires_grad, None, self._output_nr)
            old._grad_fn = self.grad_fn
            old._fw = self._fw
            args = (old,) + tuple(args[1:])
    with grad_flag(recording):
        res = call(spec, args)
    if type(res) is tuple:
        res = res[0]
    write_into(self, res._data, spec.name)
    if fw.level is not None:
        forward_ad.inplace(self, res)
    if recording and res._grad_fn is not None:
        _rebase_history(self, res._grad_fn)
    return self


# `p -= lr * g` and the like, nothing recorded: one NumPy call writing into self (no temporary
# result and copy). Only where the general path's checks cannot fail: a floating self of its own
# memory, and a Python number or a Tensor of self's dtype whose shape broadcasts to self's.
_UFUNCS = {"add.Tensor": np.add, "sub.Tensor": np.subtract, "mul.Tensor": np.multiply, "div.Tensor": np.divide}


def _ufunc_inplace(spec, self, args):
    ufunc = _UFUNCS.get(spec.name)
    if ufunc is None or len(args) > 3 or len(args) == 3 and args[2] != 1:   # alpha other than 1
        return False
    dst, other = self._data, args[1]
    if type(dst) is not np.ndarray or dst.dtype.kind != "f" or 0 in dst.strides:
        return False
    if isinstance(other, Tensor):
        src = other._data
        if type(src) is not np.ndarray or src.dtype != dst.dtype or \
                src.shape != dst.shape and np.broadcast_shapes(src.shape, dst.shape) != dst.shape:
            return False
    elif type(other) in (float, int):
        src = other
    else:
        return False
    ufunc(dst, src, out=dst)
    self._vc[0] += 1
    return True


def write_into(self, data, op_name):
    """Copy `data` into self's memory with torch's casting and shape rules; bumps the version."""
    dst = self._data
    if _KIND_RANK[data.dtype.kind] > _KIND_RANK[dst.dtype.kind]:
        raise RuntimeError(f"result type {_dtype.type_word(data.dtype)} can't be cast to the desired "
                           f"output type {_dtype.type_word(dst.dtype)}")
    if data.shape != dst.shape and np.broadcast_shapes(data.shape, dst.shape) != dst.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, np.broadcast_shapes(data.shape, dst.shape)))}]")
    if any(s == 0 and n > 1 for s, n in zip(dst.strides, dst.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                           "memory location. Please clone() the tensor before performing the operation.")
    np.copyto(dst, data, casting="unsafe")
    self._vc[0] += 1


def _refuse_view_inplace(t):
    fn = t.grad_fn
    who = f"Output {t._output_nr} of {fn.name().rsplit('Backward', 1)[0]} is a view" if fn is not None else "A view"
    if t._creation == "custom":
        raise RuntimeError(f"{who} and is being modified inplace. This view was created inside a custom Function (or "
                           "because an input was returned as-is) and the autograd logic to handle view+inplace would "
                           "override the custom backward associated with the custom Function, leading to incorrect "
                           "gradients. This behavior is forbidden. You can fix this by cloning the output of the "
                           "custom Function.")
    if t._creation == "multi":
        raise RuntimeError(f"{who} and is being modified inplace. This view is the output of a function that returns "
                           "multiple views. Such functions do not allow the output views to be modified inplace. You "
                           "should replace the inplace operation by an out-of-place one.")
    raise RuntimeError(("A view was created" if fn is None else f"{who} of a view which was created") +
                       " in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
                       "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
                       "the view and the inplace either both inside the no_grad block (if you don't want the inplace "
                       "to be tracked) or both outside (if you want the inplace to be tracked).")


def _check_leaf_inplace(t):
    if t._grad_fn is None and t._requires_grad and t._base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if t._base is not None and (t._grad_fn is None and t._requires_grad
                                or t._base._grad_fn is None and t._base._requires_grad):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")



def _rebase_history(self, node):
    """Make `node` (the in-place op's) the new history of self; for a view, of its base too."""
    for saved in node._saved or ():
        if type(saved) is SavedOutput:   # the op's output is self now
            saved.data, saved.vc = self._data, self._vc
    if node._saved is not None:
        node._versions = [self._vc[0] if type(s) is SavedOutput else v for s, v in zip(node._saved, node._versions)]
    if self._base is None:
        self._grad_fn, self._output_nr, self._requires_grad = node, 0, True
        return
    from .autograd.copy_slices import CopySlices
    base = self._base
    base._grad_fn = CopySlices(_edge(base), (base._data.shape, base._data.dtype), self._view_fn, node)
    base._output_nr = 0
    base._requires_grad = True
    self._requires_grad = True
    self._view_version = -1   # regenerate self's grad_fn from the base on next access


# --- registration --------------------------------------------------------------------------
def op(name, *, public=None, method=False, inplace=False, promote=None, operands=None, view=False,
       broadcast=False):
    """Register `fn` (a forward on arrays) as the op `name`; returns its public function.

    public: the public name (default: the forward's name); method: also a Tensor method
    (True or a name); inplace: also `Tensor.<method>_`; promote: None, "same" (common dtype) or
    "float" (common dtype, integers to the default float); operands: the argument positions
    that take part in promotion (default all); broadcast: operands broadcast elementwise (shape
    errors get torch's message); view: outputs alias the first input.
    """
    def deco(fn):
        spec = OpSpec(name, _positional(fn), promote, view, operands, broadcast)
        pub = _signature_wrapper(fn, "call", spec)
        pub.__name__ = pub.__qualname__ = public or fn.__name__
        pub.__doc__ = fn.__doc__
        if public is not False:
            OPS[pub.__name__] = pub
        mname = pub.__name__ if method is True else method
        if mname:
            METHODS[mname] = pub
        if inplace:
            ip = _signature_wrapper(fn, "call_inplace", spec)
            ip.__name__ = (mname or pub.__name__) + "_"
            METHODS[ip.__name__] = ip
            pub.inplace = ip
        pub.spec = spec
        return pub
    return deco


def _positional(fn):
    """fn callable with every argument positionally (the glue passes arguments as one tuple)."""
    params = list(inspect.signature(fn).parameters.values())
    if all(p.kind is not p.KEYWORD_ONLY for p in params):
        return fn
    names = [p.name for p in params]
    call_args = ", ".join(p.name if p.kind is not p.KEYWORD_ONLY else f"{p.name}={p.name}" for p in params)
    scope = {"fn": fn}
    exec(f"def forward({', '.join(names)}):\n    return fn({call_args})\n", scope)
    return scope["forward"]


def _signature_wrapper(fn, target, spec):
    """A function with fn's exact signature that passes its arguments, in order, to `target`."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    names = ", ".join(p.name for p in params)
    scope = {"call": call, "call_inplace": call_inplace, "spec": spec}
    sig_src = str(sig)
    for p in params:
        if p.default is not inspect.Parameter.empty:
            sig_src = sig_src.replace(f"{p.name}={p.default!r}", f"{p.name}=__d_{p.name}", 1)
            scope[f"__d_{p.name}"] = p.default
    src = f"def wrapper{sig_src}:\n    return {target}(spec, ({names}{',' if len(params) == 1 else ''}))\n"
    exec(src, scope)
    return scope["wrapper"]


def register(name=None, method=False):
    """Register a hand-written public function (one that picks among ops) in the namespace."""
    def deco(fn):
        pub_name = name or fn.__name__
        OPS[pub_name] = fn
        if method:
            METHODS[pub_name if method is True else method] = fn
        return fn
    return deco
