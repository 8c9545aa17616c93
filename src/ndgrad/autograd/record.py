"""Recording one op call into the graph: the autograd half of the op glue.

The ops layer (`ops/_registry.py`) runs a forward on arrays and wraps the outputs; when grad mode
is on and an input requires grad it calls `record(spec, args, outs)` here, which creates the
op's Node (a class generated from derivatives.yaml), links its edges to the inputs' history and
saves what the formulas read. This module also keeps the view and in-place bookkeeping: views
share their base's version counter and replay from it; an in-place op moves the history of the
tensor it wrote (and of its base, through CopySlices). It never imports ops: the op spec (see
`OpSpec` in the ops registry) carries what it needs.
"""
import functools
import warnings
import weakref

import numpy as np

from .. import _dtype
from .._meta_array import WrapperArray
from .._nested_array import NestedArray
from .._tensor import INFERENCE_INPLACE, Tensor, _owner, apply_bits
from ..backends import ARRAY_TYPES, broadcast_shapes, namespace, numpy_backend
from . import anomaly_mode
from .anomaly_mode import state as anomaly
from .copy_slices import CopySlices
from .grad_mode import state
from .graph import PackedSaved, saved_hooks
from .node import LAZY_VC, PYTHON_NUMBERS as _NUMBERS, WRAPPED, NoTensors, SavedOutput, _next_seq, edge, \
    expand_saved, output_nrs

_NO_EDGE = (None, 0)
_ndarray = np.ndarray
_NR0, _NR00 = output_nrs((0,)), output_nrs((0, 0))   # the shared output numbers of one and two edges from outputs 0
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}   # V: bfloat16


def record(spec, args, outs):
    cls = spec.node_cls
    node = _new_node(cls)
    node._sequence_nr_ = _next_seq()
    node._extra = None
    diff_pos = spec.diff_pos
    n_diff = len(diff_pos)
    if spec.diff_lists:
        _list_edges(node, spec, args)
    elif n_diff == 1:   # unary and binary ops (most ops): the tuples built directly
        a = args[diff_pos[0]]
        if isinstance(a, Tensor):
            d = a._array
            fn = a._fn
            nr = a._output_nr
            if fn is None or a._base is not None:
                fn, nr = edge(a)
            node._next_fns = (fn,)
            node._next_nrs = _NR0 if nr == 0 else (nr,)
            m = ((d.shape, d.dtype),)
            node._meta = _shared(m) or _share(m)
        else:
            node._next_fns = (None,)
            node._next_nrs = _NR0
            node._meta = (None,)
    elif n_diff == 2:
        a = args[diff_pos[0]]
        if isinstance(a, Tensor):
            d = a._array
            fa = a._fn
            na = a._output_nr
            if fa is None or a._base is not None:
                fa, na = edge(a)
            ma = (d.shape, d.dtype)
        else:
            fa, na, ma = None, 0, None
        b = args[diff_pos[1]]
        if isinstance(b, Tensor):
            d = b._array
            fb = b._fn
            nb = b._output_nr
            if fb is None or b._base is not None:
                fb, nb = edge(b)
            m = (ma, (d.shape, d.dtype))
        else:
            fb, nb = None, 0
            m = (ma, None)
        node._meta = _shared(m) or _share(m)
        node._next_fns = (fa, fb)
        node._next_nrs = _NR00 if na == 0 and nb == 0 else (na, nb)
    else:   # every differentiable argument is one Tensor (or a scalar)
        fns, nrs, meta = [], [], []
        for i in diff_pos:
            a = args[i]
            if isinstance(a, Tensor):
                d = a._array
                fn = a._fn
                nr = a._output_nr
                if fn is None or a._base is not None:
                    fn, nr = edge(a)
                fns.append(fn)
                nrs.append(nr)
                meta.append((d.shape, d.dtype))
            else:
                fns.append(None)
                nrs.append(0)
                meta.append(None)
        node._next_fns = tuple(fns)
        node._next_nrs = output_nrs(tuple(nrs))
        node._meta = tuple(meta)   # a tuple: see node._versions below
    out_diff = spec.out_diff
    if len(outs) == 1 and out_diff is None:
        t = outs[0]
        if t._array.dtype.kind in _INEXACT:
            t._requires_grad = True
            t._fn = node
    else:
        for k, t in enumerate(outs):
            if t._array.dtype.kind in _INEXACT and (out_diff is None or out_diff[k]):
                t._requires_grad = True
                t._fn = node
                t._output_nr = k
    node._out_meta = [(t._array.shape, t._array.dtype) for t in outs] if spec.multi_out else None
    plan = spec.saved_plan
    if spec.saves_result_only:   # the plan below for that case (exp, tanh, ...)
        t = outs[0]
        vc = t._vcs
        if type(t) is Tensor and t._requires_grad and not (vc and vc[0]):   # the compact form (see SavedOutput)
            node._saved = t._array
            node._versions = LAZY_VC if vc is None else vc
        else:
            node._saved = (SavedOutput(t),)
            v = t._vcs[0]
            node._versions = (v,) if v else _V0   # (shared, as _SHARED's tuples are)
    elif not plan:
        node._saved = ()
        node._versions = ()
    else:
        saved, versions = [], []
        for p, meta_only, users in plan:
            version = v = None
            if users is not None:   # only formulas of these inputs read it: saved if one of them needs a gradient
                for i in users:
                    a = args[i]
                    if type(a) is Tensor:
                        if a._requires_grad:
                            break
                    elif type(a) not in _SCALARS and _needs_grad(a):
                        break
                else:
                    saved.append(None)
                    versions.append(None)
                    continue
            if p >= 0:
                v = args[p]
                if isinstance(v, Tensor):
                    if meta_only:   # TensorMeta, or TensorMeta.with_offset (loader.py)
                        v = meta_only(v)
                    else:
                        if v._inference:
                            _refuse_inference_saved()
                        version = (v._vcs or v._vc)[0]
                elif p in spec.list_pos:
                    version = [t._vc[0] if t is not None else None for t in v]   # Tensor?[]: None entries
                    v = list(v)
                elif type(v) in _NUMBERS and spec.entry.args[p].is_tensor:
                    version = WRAPPED   # torch's wrapped number: a saved tensor (freed with the graph)
            else:
                t = outs[-1 - p]
                v = SavedOutput(t)
                version = t._vcs[0]
            saved.append(v)
            versions.append(version)
        # Tuples, not lists: the cyclic GC stops tracking a tuple of ints, None, numbers and arrays
        # once it has seen it, and full collections, which revisit every tracked object, dominate long
        # forward passes. (What mutates a node's saved values, saved-tensor hooks, makes a list first.)
        node._saved = tuple(saved)
        versions = tuple(versions)
        node._versions = versions if versions.count(None) + versions.count(WRAPPED) != len(versions) else \
            _NO_TENSORS.get(versions) or _no_tensors(versions)
    if saved_hooks or anomaly.enabled:
        _observe(node)


def _observe(node):
    if saved_hooks:   # saved_tensors_hooks active: pack what was just saved
        if early_packed is not None:
            _take_early_packed(node)
        saved_hooks[-1].pack_node(node)
    if anomaly.enabled:
        anomaly_mode.record(node)


def recorder(spec):
    """`record` for op `spec`, as a function of (args, outs) kept on the spec (`spec.recorder`): for the
    ops without a Tensor[] argument written out as
    straight-line code for the op's edges and saved values, which `record` finds by looping over
    them (`x * 2.0`: 1.3 -> 0.9 us); `record` itself for the others. The generated source holds only
    names and argument positions; a registry-driven test checks it makes record's nodes."""
    plan = spec.saved_plan
    if spec.diff_lists or spec.list_pos:
        fn = functools.partial(record, spec)
    else:
        fn = _compiled_recorder(spec)
    spec.recorder = fn
    return fn


def _compiled_recorder(spec):
    plan = spec.saved_plan
    lines = ["def record_op(args, outs):",   # (outs: the one output the op declares)
             " node = _new_node(cls)",
             " node._sequence_nr_ = _next_seq()",
             " node._extra = None"]
    k = len(spec.diff_pos)
    for j, i in enumerate(spec.diff_pos):   # as record's loop: an edge and (shape, dtype) per differentiable argument
        lines += [f" a = args[{i}]",
                  " if isinstance(a, Tensor):",
                  "  d = a._array",
                  f"  f{j} = a._fn",
                  f"  n{j} = a._output_nr",
                  f"  if f{j} is None or a._base is not None:",
                  f"   f{j}, n{j} = edge(a)",
                  f"  m{j} = (d.shape, d.dtype)",
                  " else:",
                  f"  f{j}, n{j}, m{j} = None, 0, None"]
    fns, nrs, metas = (", ".join(f"{c}{j}" for j in range(k)) + ("," if k == 1 else "") for c in "fnm")
    lines += [f" m = ({metas})",
              " node._meta = _shared(m) or _share(m)",
              f" node._next_fns = ({fns})",
              f" node._next_nrs = zero_nrs if not ({' or '.join(f'n{j}' for j in range(k))}) else ({nrs})",
              " t = outs[0]"]
    if spec.multi_out or spec.out_diff is not None:   # as record's loop over the outputs
        lines += [" for k, o in enumerate(outs):",
                  "  if o._array.dtype.kind in _INEXACT" + ("" if spec.out_diff is None else " and out_diff[k]") + ":",
                  "   o._requires_grad = True",
                  "   o._fn = node",
                  "   o._output_nr = k",
                  " node._out_meta = [(o._array.shape, o._array.dtype) for o in outs]" if spec.multi_out else
                  " node._out_meta = None"]
    else:
        lines += [" if t._array.dtype.kind in _INEXACT:",
                  "  t._requires_grad = True",
                  "  t._fn = node",
                  " node._out_meta = None"]
    if spec.saves_result_only:   # as record: the compact form where it applies
        lines += [" vc = t._vcs",
                  " if type(t) is Tensor and t._requires_grad and not (vc and vc[0]):",
                  "  node._saved = t._array",
                  "  node._versions = LAZY_VC if vc is None else vc",
                  " else:",
                  "  node._saved = (SavedOutput(t),)",
                  "  v = t._vcs[0]",
                  "  node._versions = (v,) if v else _V0"]
    elif not plan:
        lines += [" node._saved = ()", " node._versions = ()"]
    else:
        lines += [" own = False"]   # (whether a tensor's version is among them: else the tuple is shared)
        for j, (p, meta_only, users) in enumerate(plan):
            indent = " "
            if users is not None:   # saved only if the formula of one of these arguments will run
                wants = " or ".join(f"(args[{u}]._requires_grad if type(args[{u}]) is Tensor else "
                                    f"type(args[{u}]) not in _SCALARS and _needs_grad(args[{u}]))" for u in users)
                lines += [f" if {wants}:"]
                indent = "  "
            if p >= 0 and meta_only:   # its metadata only (TensorMeta...: meta{j} in the scope)
                lines += [f"{indent}v = args[{p}]",
                          f"{indent}s{j}, r{j} = meta{j}(v) if isinstance(v, Tensor) else v, None"]
            elif p >= 0:
                lines += [f"{indent}v = args[{p}]",
                          f"{indent}if isinstance(v, Tensor):",
                          f"{indent} if v._inference:",
                          f"{indent}  _refuse_inference_saved()",
                          f"{indent} s{j}, r{j}, own = v, (v._vcs or v._vc)[0], True",
                          f"{indent}else:",
                          # (a number for a Tensor argument: torch's wrapped number, a saved tensor, as record)
                          f"{indent} s{j}, r{j} = v, WRAPPED if type(v) in _NUMBERS else None"
                          if spec.entry.args[p].is_tensor else f"{indent} s{j}, r{j} = v, None"]
            else:
                lines += [f"{indent}o = outs[{-1 - p}]",
                          f"{indent}s{j}, r{j}, own = SavedOutput(o), o._vcs[0], True"]
            if users is not None:
                lines += [" else:", f"  s{j} = r{j} = None"]
        saved, versions = (", ".join(f"{c}{j}" for j in range(len(plan))) + ("," if len(plan) == 1 else "")
                           for c in "sr")
        lines += [f" node._saved = ({saved})",
                  f" v = ({versions})",
                  " node._versions = v if own else _NO_TENSORS.get(v) or _no_tensors(v)"]
    lines += [" if saved_hooks or anomaly.enabled:", "  _observe(node)"]
    scope = dict(globals(), cls=spec.node_cls, zero_nrs=output_nrs((0,) * k), out_diff=spec.out_diff,
                 **{f"meta{j}": meta_only for j, (_, meta_only, _) in enumerate(plan or ()) if meta_only})
    exec(compile("\n".join(lines) + "\n", f"<record {spec.name}>", "exec"), scope)
    return scope["record_op"]


# torch's autograd saves an op's inputs before the kernel below it runs (its outputs after): a pack hook
# that raises (checkpoint's early stop) keeps the op from reaching a dispatch mode. The dispatch-mode layer
# packs them with `pack_inputs` before a mode's handler and sets this for the record() of its result.
early_packed = None   # {saved slot: packed value}


def pack_inputs(spec, args, hooks):
    """The inputs op `spec` on `args` saves, packed by `hooks` now in torch's order (by saved name):
    {saved slot: PackedSaved, or a list of them for a Tensor[]}."""
    plan, names = spec.saved_plan, spec.node_cls._saved_names
    slots = [i for i, (p, meta_only, users) in enumerate(plan or ())
             if p >= 0 and not meta_only and (isinstance(args[p], Tensor) or p in spec.list_pos)
             and (users is None or any(_needs_grad(args[u]) for u in users))]
    packed = {}
    for i in sorted(slots, key=names.__getitem__):
        v = args[plan[i][0]]
        packed[i] = PackedSaved(v, None, hooks.pack_hook, hooks.unpack_hook) if isinstance(v, Tensor) else \
            [t if t is None else PackedSaved(t, None, hooks.pack_hook, hooks.unpack_hook) for t in v]
    return packed


def _take_early_packed(node):
    global early_packed
    packed, early_packed = early_packed, None
    saved = list(expand_saved(node))
    for i, value in packed.items():
        saved[i] = value
    node._saved = saved


_new_node = object.__new__   # (Node and its generated classes define no __new__)
# A node's input metadata (`_meta`: a (shape, dtype) per input) and its versions when none is saved
# are one shared tuple per distinct value (a graph repeats a few shapes): up to four objects less per
# node, in memory and for the cyclic GC's full collections to walk (which dominate a long forward
# pass: the collector reads every object a tracked one refers to). `_shared(m) or _share(m)`: m or
# the equal tuple kept before it.
_SHARED = {}
_shared = _SHARED.get
_V0 = (0,)


def _share(m):
    if len(_SHARED) >= 4096:   # a program of ever-changing shapes: start again
        _SHARED.clear()
    _SHARED[m] = m
    return m


_NO_TENSORS = {}


def _no_tensors(v):
    """The shared NoTensors equal to v (`_NO_TENSORS.get(v) or _no_tensors(v)`: the lookup inline)."""
    if len(_NO_TENSORS) >= 4096:
        _NO_TENSORS.clear()
    shared = _NO_TENSORS[v] = NoTensors(v)
    return shared


_INEXACT = _dtype.INEXACT_KINDS
_SCALARS = frozenset((float, int, bool, complex, type(None)))   # arguments that never need a gradient


def _refuse_inference_saved():
    raise RuntimeError("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                       "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                       "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                       "`torch.inference_mode()`.")


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
                edges.append(edge(t))
                meta.append((t._array.shape, t._array.dtype))
        elif isinstance(a, Tensor):
            edges.append(edge(a))
            meta.append((a._array.shape, a._array.dtype))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
        slices.append(slice(start, len(edges)))
    node._edge_slices = slices
    node.next_functions = tuple(edges)
    node._meta = meta



def make_views(spec, args, outs, replay):
    """Make the outputs of view op `spec` views of args[0]'s base; `replay(spec, args)` re-runs the op."""
    base_t = args[0]
    inference = state.inference
    if inference and base_t._inference:
        return   # as in torch, inference_mode makes no views of inference tensors (memory is still shared)
    base = base_t if base_t._base is None else base_t._base
    parent_fn = base_t._view_fn
    rest = args[1:]
    # torch forbids in-place ops (with grad) on views made in no_grad or inference mode or by multi-output ops
    creation = ("inference" if inference else "no_grad" if not state.enabled else "multi" if spec.multi_out
                else base_t._creation)
    memory, dtype = base._array, base_t._array.dtype
    for k, t in enumerate(outs):
        a = t._array
        if (owner := a.base) is None or type(a) is not _ndarray or type(memory) is not _ndarray or \
                owner is not memory and owner is not memory.base:   # (the usual view of a NumPy array, decided)
            if (owner is None or a.size and not _may_share_memory(a, memory)) and \
                    type(a) is not WrapperArray:   # (a wrapper subclass's view has no memory: a view, as torch's)
                continue  # the forward had to copy (e.g. reshape of a non-contiguous array); empty views share nothing
        t._base = base
        t._vcs = vc = base._vcs or base._vc
        t._view_version = vc[0]
        if creation is not None:
            t._creation = creation
        t._view_fn = _chain(parent_fn, spec, rest, k, replay)
        if a.dtype is not dtype and a.dtype != dtype:   # torch cannot express this view as as_strided of the base
            t._dtype_view = (t._view_fn, None)
        elif base_t._dtype_view is not None:
            t._dtype_view = (base_t._dtype_view[0], (a.shape, t.stride(), t.storage_offset()))


def dtype_view_fn(t):
    """How torch re-derives a view whose chain changed the dtype (view_as_real, view(dtype)) from its
    base: that view op replayed, then as_strided to the geometry the view had when made. An in-place
    view op (t_, transpose_) changes neither, so the result keeps torch's geometry (its known bug)."""
    prefix, geometry = t._dtype_view

    def view_fn(b):
        v = prefix(b)
        return v if geometry is None else v.as_strided(*geometry)
    return view_fn


def _may_share_memory(a, b):
    # NumPy arrays with one owner of their memory do (a view's base is the owner, never a view); sparse and
    # nested storages (no backend arrays) keep their values in NumPy arrays
    if type(a) is _ndarray and type(b) is _ndarray and (a.base if a.base is not None else a) is (
            b.base if b.base is not None else b):
        return True
    return ARRAY_TYPES.get(type(a), numpy_backend).may_share_memory(a, b)


def _chain(parent_fn, spec, rest, index, replay):
    def view_fn(b, symint_visitor_fn=None, tensor_visitor_fn=None):
        """The view, replayed on `b`; the visitors (Tensor._view_func) may replace the saved SymInt
        and Tensor arguments of each view op, for this replay only."""
        v = parent_fn(b, symint_visitor_fn, tensor_visitor_fn) if parent_fn is not None else b
        args = rest if symint_visitor_fn is None and tensor_visitor_fn is None else \
            _visit_args(spec, rest, symint_visitor_fn, tensor_visitor_fn)
        out = replay(spec, (v,) + args)   # positional, as recorded (forwards may have keyword-only args)
        return out[index] if type(out) is tuple else out
    return view_fn


def _visit_args(spec, rest, symint_fn, tensor_fn):
    types = [a.type for a in spec.entry.args[1:]] if spec.entry is not None else [""] * len(rest)
    out = []
    for a, kind in zip(rest, types):
        if symint_fn is not None and kind.startswith("SymInt"):
            a = type(a)(symint_fn(x) for x in a) if isinstance(a, (list, tuple)) else symint_fn(a)
        elif tensor_fn is not None and isinstance(a, Tensor):
            a = tensor_fn(a)
        out.append(a)
    return tuple(out) + tuple(rest[len(out):])



# ops whose every element gets one value: torch lets them write through an expand() (overlapping memory)
_WRITES_ONE_VALUE = frozenset({"zero_", "fill_.Scalar", "fill_.Tensor"})
# ops torch lets write through an expand() with a deprecation warning, writing only what they change
_WRITES_SOME = {"masked_fill.Scalar": ("masked_fill_", "mask] = scalar"),
                "masked_fill.Tensor": ("masked_fill_", "mask] = scalar"),
                "index_put": ("index_put_", "indices] = tensor")}


def write_into(self, data, op_name):
    """Copy `data` into self's memory with torch's casting and shape rules; bumps the version."""
    dst = self._array
    if self._math_bits:   # a lazy conjugate/negative view stores its values conjugated/negated
        data = apply_bits(data.astype(dst.dtype) if data.dtype.kind == "b" else data, self._math_bits)
    if _KIND_RANK[data.dtype.kind] > _KIND_RANK[dst.dtype.kind]:
        raise RuntimeError(f"result type {_dtype.type_word(data.dtype)} can't be cast to the desired "
                           f"output type {_dtype.type_word(dst.dtype)}")
    if data.shape != dst.shape and broadcast_shapes(data.shape, dst.shape) != dst.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, broadcast_shapes(data.shape, dst.shape)))}]")
    # (an empty tensor overlaps nothing, whatever its strides)
    changed = None
    if op_name not in _WRITES_ONE_VALUE and dst.size and any(s == 0 and n > 1 for s, n in zip(dst.strides, dst.shape)):
        if op_name not in _WRITES_SOME:
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")
        name, example = _WRITES_SOME[op_name]
        warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor before performing "
                      f"this operation. This also applies to advanced indexing e.g. tensor[{example}", UserWarning,
                      stacklevel=4)
        # elements left as they were are not written: they would undo the write through another alias
        changed = ~((data == dst) | ((data != data) & (dst != dst)))
    if not dst.flags.writeable:   # expand() gives NumPy's read-only broadcast views: write through the owner
        dst = _writable(self, dst)
    if type(dst) is NestedArray:   # a nested tensor: its components written (same structure)
        dst.write(data)
    elif changed is None:
        namespace(dst).copyto(dst, data)
    else:
        namespace(dst).copyto(dst, data, where=changed)
    (self._vcs or self._vc)[0] += 1


def _writable(t, dst):
    owner = _owner(t)
    if type(owner) is not numpy_backend.array_type or not owner.flags.writeable:
        return dst   # copyto raises NumPy's read-only error
    offset = dst.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return numpy_backend.array_type(dst.shape, dst.dtype, buffer=owner, offset=offset, strides=dst.strides)

def refuse_view_inplace(t, indirect=False):
    """torch's error for an in-place op on a view it forbids them on (`t._creation` set); indirect:
    the base or another view was modified, seen when t's history is regenerated."""
    fn = t._fn   # the history as recorded: reading t.grad_fn would regenerate it
    creation = t._creation
    modified = "its base or another view of its base has been" if indirect else "is being"
    op = f"Output {t._output_nr} of {fn.name().rsplit('Backward', 1)[0]}" if fn is not None else None
    if creation in ("no_grad", "inference") or fn is None:
        prefix = f"{op} is a view of a view which was created in" if fn is not None else "A view was created in"
        msg = (f"{prefix} inference mode and {modified} modified inplace in normal mode." if creation == "inference"
               else f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled.")
    else:
        msg = f"{op} is a view and {modified} modified inplace."
    if creation == "multi":
        msg += (" This view is the output of a function that returns multiple views. Such functions do not allow "
                "the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
    elif creation == "custom":
        msg += (" This view was created inside a custom Function (or because an input was returned as-is) and the "
                "autograd logic to handle view+inplace would override the custom backward associated with the "
                "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
                "cloning the output of the custom Function.")
    else:
        block = "inference_mode" if creation == "inference" else "no_grad"
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
                f"by moving both the view and the inplace either both inside the {block} block (if you don't want "
                "the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
    raise RuntimeError(msg)


def refuse_inference_inplace(t):
    """An in-place op on an inference tensor outside inference mode (a leaf that requires grad gets
    the leaf error first, as in torch)."""
    if state.enabled and t._requires_grad:
        check_leaf_inplace(t)
    raise RuntimeError(INFERENCE_INPLACE)


def check_leaf_inplace(t):
    if t._fn is None and t._requires_grad and t._base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if t._base is not None and (t._fn is None and t._requires_grad
                                or t._base._fn is None and t._base._requires_grad):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")



def rebase_history(self, node):
    """Make `node` (the in-place op's) the new history of self; for a view, of its base too."""
    for saved in expand_saved(node) or ():
        if type(saved) is SavedOutput:   # the op's output is self now
            saved.data, saved.vc = self._array, self._vc
    if node._saved is not None:
        node._versions = tuple(self._vc[0] if type(s) is SavedOutput else v
                               for s, v in zip(node._saved, node._versions))
    if self._base is None:
        move_retains_grad(self, self._fn, self._output_nr, node, 0)
        self._fn, self._output_nr, self._requires_grad = node, 0, True
        return
    base = self._base
    old_fn, old_nr = self._fn, self._output_nr
    view_fn = self._view_fn if self._dtype_view is None else dtype_view_fn(self)
    copy_slices = CopySlices(edge(base), (base._array.shape, base._array.dtype), view_fn, node)
    move_retains_grad(base, base._fn, base._output_nr, copy_slices, 0)
    base._fn = copy_slices
    base._output_nr = 0
    base._requires_grad = True
    self._requires_grad = True
    self._view_version = -1   # regenerate self's grad_fn from the base now
    fresh = self.grad_fn
    move_retains_grad(self, old_fn, old_nr, fresh, self._output_nr)
    # as torch: the op's output, unpacked, has the view's new history (not `node`, now inside
    # CopySlices), held weakly: the view's history holds node, through CopySlices
    for saved in expand_saved(node) or ():
        if type(saved) is SavedOutput and fresh is not None:
            saved.view_fn = weakref.ref(fresh)
            saved.output_nr = self._output_nr


def move_retains_grad(t, old_fn, old_nr, new_fn, new_nr):
    """retain_grad follows the tensor to its new history (its other hooks stay with the old one)."""
    if not t._retains_grad or old_fn is None or old_fn._extra is None:
        return
    hook = old_fn._extra.retains_grad_hooks.pop(old_nr, None)
    if hook is not None and new_fn is not None:
        new_fn._get_extra().retains_grad_hooks[new_nr] = hook



# --- version counters set by hand (see also graph.increment_version) ---
def _unsafe_set_version_counter(tensors, versions):
    if len(tensors) != len(versions):
        raise RuntimeError(f"tensors_len={len(tensors)}, versions_len={len(versions)}")
    for t, v in zip(tensors, versions):
        if v < 0:
            raise RuntimeError(f"Cannot set a version_counter to a value below 0: {v}")
        t._vc[0] = v


class _unsafe_preserve_version_counter:
    """Inside, in-place changes to `tensors` leave their version counters as they were on entry
    (a context manager or a decorator)."""

    def __init__(self, tensors):
        self.tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)

    def __enter__(self):
        self.prev_versions = tuple(t._vc[0] for t in self.tensors)

    def __exit__(self, *exc):
        _unsafe_set_version_counter(self.tensors, self.prev_versions)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper
