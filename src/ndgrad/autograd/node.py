"""Graph nodes: Node (base of every backward node), AccumulateGrad, saved values, hooks.

A Node is created by `autograd/record.py` for each recorded op. Its
`next_functions` are the edges `(node, output_nr)` to the nodes of its inputs, in the order of
the op's differentiable arguments. Generated subclasses (one per derivatives.yaml entry, see
loader.py) implement `_apply(grads, mask)`. Rarely used state (hooks, metadata) lives in one
lazily created `_extra` object so that recording an op stays cheap.
"""
import contextlib
import itertools
import re
import sys
import threading
import weakref

from . import forward_ad
from .._dtype import INEXACT_KINDS, from_numpy_dtype
from .grad_mode import state
from .gradient_checks import fill_missing
from .._hooks import HookDict, RemovableHandle  # noqa: F401  (RemovableHandle: torch's autograd.graph name)
from .._sparse_array import COO
from .._tensor import CPU, Tensor, dense_like
from ..backends import ARRAY_TYPES, is_array, numpy_backend

_next_seq = itertools.count().__next__
PackedSaved = None  # set by graph.py: a saved value that went through saved-tensor hooks
raw_saved = None    # set by graph.py: node._raw_saved_<name>, a saved value hooks can be registered on
saved_hooks = []    # the saved_tensors_hooks stack (graph.py); here so that the engine can restore it
_new_tensor = Tensor._make   # bound once: `Tensor._make(...)` binds the classmethod anew on every call
MAX_SEQ = 1 << 63  # AccumulateGrad runs before anything else that is ready, as in torch


class _Extra:
    __slots__ = ("pre_hooks", "post_hooks", "tensor_pre_hooks", "retains_grad_hooks", "metadata")

    def __init__(self):
        self.pre_hooks = HookDict()
        self.post_hooks = HookDict()
        self.tensor_pre_hooks = {}      # output_nr -> HookDict
        self.retains_grad_hooks = {}    # output_nr -> fn
        self.metadata = {}


class SavedOutput:
    """An operation's output as saved by its own node: ndgrad's own type.

    A node that needs its result for backward (``ExpBackward0`` saves ``result``) keeps the output's
    data, version counter and output number here rather than the tensor itself, so that node and
    tensor do not reference each other (the tensor's ``grad_fn`` is that node). Unpacking rebuilds
    a tensor with the node as its ``grad_fn``.

    A node whose only saved value is its result (``_result_only``: exp, tanh, sigmoid...) first keeps
    it compact when the output is a plain Tensor at version 0: its array as ``_saved`` and its version
    counter (a list) as ``_versions``, saved at version 0 (`is_compact`), or `LAZY_VC` while the output
    has no counter yet (see `version_counter`). That is two or three tracked objects less per node than
    a SavedOutput in a tuple, and the cyclic GC's full collections, which revisit every tracked object,
    dominate a long forward pass. `expand_saved` turns it into ``(SavedOutput,)`` for every reader but
    the unpacking fast paths.

    Args:
        tensor (Tensor): the output to save.

    Example::

        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> y = x.exp()
        >>> y.grad_fn._saved_result
        tensor([1.0000, 2.7183], grad_fn=<ExpBackward0>)
    """
    # fw: set by forward AD only; view_fn: for an in-place op on a view, a weakref to the view's
    # history after the op (record.rebase_history), which unpacking gives instead of the node (as torch)
    __slots__ = ("data", "vc", "output_nr", "requires_grad", "fw", "view_fn", "cls")

    def __init__(self, tensor):   # (record.record fills one in place for a saved result: keep the two alike)
        self.cls = type(tensor)   # a subclass (vmap's batched tensors) comes back as itself
        self.data = tensor._array
        self.vc = tensor._vc
        self.output_nr = tensor._output_nr
        self.requires_grad = tensor._requires_grad
        self.view_fn = None


# A compact saved result's `_versions` while its output has no version counter yet (version 0): made
# at run time, so that no other (0,) can be this object.
LAZY_VC = tuple([0])


def version_counter(t):
    """Tensor t's version counter, a one-int list its aliases, views and savers share: the `_vc` property.

    A tensor starts without one (`_vcs` None: version 0), as most are never shared: one tracked object
    less per op output for the cyclic GC (see SavedOutput). Made on first need, it is the one its own
    node's compact saved result already shares, if any, so that both see the next in-place change: code
    that replaces a tensor's data in place makes the counter before (`t._vcs = t._vc`). Hot paths write
    `(t._vcs or t._vc)`: the slot once the counter exists, the property's call only before."""
    vc = t._vcs
    if vc is None:
        with _counter_lock:   # threads sharing a tensor at once must share one counter (and link it once)
            vc = t._vcs
            if vc is None:
                vc = t._vcs = _output_counter(t)
    return vc


_counter_lock = threading.Lock()


def _output_counter(t):
    # the counter t's own node already holds for it as its compact (or expanded) saved result, else a new one
    fn = t._fn
    if fn is not None and t._output_nr == 0 and getattr(fn, "_result_only", False):
        saved = getattr(fn, "_saved", None)   # (unset while its op is being recorded)
        if saved is t._array:   # compact
            vc = fn._versions
            if vc is LAZY_VC:
                vc = fn._versions = [0]
                return vc
            if type(vc) is list:
                return vc
        elif type(saved) is tuple and len(saved) == 1 and type(s := saved[0]) is SavedOutput and s.data is t._array:
            return s.vc
    return [0]


def _set_version_counter(t, vc):
    t._vcs = vc


Tensor._vc = property(version_counter, _set_version_counter)


def expand_saved(node):
    """node._saved, its compact saved result (see SavedOutput) made a ``(SavedOutput,)`` first: what
    every reader of a node's saved values but the unpacking fast paths calls."""
    saved = node._saved
    if saved is not None and is_compact(node):
        with _counter_lock:   # (see version_counter: the output may be making its counter in another thread)
            saved = node._saved
            if saved is None or type(saved) is tuple:   # freed or expanded meanwhile
                return saved
            s = SavedOutput.__new__(SavedOutput)
            s.data, s.vc = saved, node._versions if node._versions is not LAZY_VC else [0]
            s.cls, s.output_nr, s.requires_grad, s.view_fn = Tensor, 0, True, None
            saved = node._saved = (s,)
            node._versions = (0,)
    return saved


def is_compact(node):
    """Whether `node` keeps its saved result compact (see SavedOutput): its _versions is then the
    output's version counter itself, a list, or LAZY_VC (a node's saved versions are otherwise a tuple)."""
    return node._result_only and (type(node._versions) is list or node._versions is LAZY_VC)


def saved_output_tensor(value, fn):
    """SavedOutput `value` as a tensor with history `fn`: of the output's class (vmap's batched tensors);
    a __torch_dispatch__ subclass's output is saved as its detached instance (its `data`, see
    utils/_python_dispatch._record_around), which is detached again, as torch unpacks it."""
    if isinstance(value.data, Tensor):
        t = value.data.detach()
        t._requires_grad, t._fn, t._output_nr = value.requires_grad, fn, value.output_nr
    else:
        t = _new_tensor(value.data, value.requires_grad, fn, value.output_nr)
        if value.cls is not Tensor:
            t.__class__ = value.cls
    t._vc = value.vc
    return t


class TensorMeta:
    """What a formula needs of an argument it only asks the shape, strides or dtype of (saves memory)."""
    __slots__ = ("shape", "_np_dtype", "_strides", "_offset")

    def __init__(self, tensor):
        self.shape = tensor.shape
        self._np_dtype = tensor._array.dtype
        self._strides = tensor._array.strides

    @classmethod
    def with_offset(cls, tensor):
        """The metadata and the storage offset (torch's TensorGeometry), for the formulas that read it."""
        meta = cls(tensor)
        meta._offset = tensor.storage_offset()
        return meta

    def storage_offset(self):
        return self._offset

    def stride(self, dim=None):
        st = tuple(s // self._np_dtype.itemsize for s in self._strides)
        return st if dim is None else st[dim]

    @property
    def dtype(self):
        return from_numpy_dtype(self._np_dtype)

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_complex(self):
        return self._np_dtype.kind == "c"


_ZERO_NRS = ((), (0,), (0, 0), (0, 0, 0))


def output_nrs(nrs):
    """`nrs` (a tuple of output numbers), as a shared tuple when all are 0 (the usual case)."""
    return _ZERO_NRS[len(nrs)] if len(nrs) < 4 and not any(nrs) else nrs


class Node:
    """A node of the autograd graph: the backward function of one recorded op (``grad_fn``).

    ``next_functions`` holds, for each input of the op, the node its gradient flows to next (with
    the input's output number); ``name()``, ``register_hook`` / ``register_prehook``,
    ``metadata`` and the saved values (``_saved_*``) are available as in torch.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = (x * 2).sum()
        >>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
        ('SumBackward0', 'MulBackward0')
        >>> isinstance(y.grad_fn, torch.autograd.graph.Node)
        True
    """
    # The edges are kept as two tuples, the next nodes and their output numbers (`next_functions`
    # zips them): a tuple of (node, output_nr) pairs is one more object per edge that the cyclic GC
    # tracks and revisits in every full collection; output numbers are mostly the shared (0,), (0, 0).
    # Nodes stay tracked by the cyclic GC, although its full collections dominate a long forward pass:
    # an untracked object is a root to the collector, and every node reaches leaf tensors (through
    # AccumulateGrad), which may hold anything (attributes, hooks, a create_graph .grad), so a cycle
    # such as `x.out = f(x)` would leak, as it does in torch (tests/test_gc_cycles.py).
    __slots__ = ("_next_fns", "_next_nrs", "_sequence_nr_", "_saved", "_versions", "_meta", "_out_meta", "_extra",
                 "__weakref__")
    _saved_names = ()          # names of the saved values, in `_saved` order (generated nodes)
    _saved_tensor_idx = ()     # which of them are tensors (version-checked)
    _result_only = False       # the one saved value is output 0: `_saved` may be compact (see SavedOutput)
    _takes_missing = False     # custom Function nodes get None for absent gradients and fill them in
    _backward_alone = None     # (out, retain_graph) -> whether the node ran out.backward() itself (compiler.py)
    _apply_arrays = None       # (grads, mask) -> gradients as arrays or None: the engine's array path (loader.py)

    @property
    def next_functions(self):
        if self._meta is not None:   # the nodes handed out learn their output's metadata (_input_metadata)
            _tell_output_meta(self)
        return tuple(zip(self._next_fns, self._next_nrs))

    @next_functions.setter
    def next_functions(self, edges):
        self._next_fns = tuple([e[0] for e in edges])
        self._next_nrs = output_nrs(tuple([e[1] for e in edges]))

    def name(self):
        return type(self).__name__

    def _sequence_nr(self):
        return self._sequence_nr_

    def _set_sequence_nr(self, sequence_nr):
        """Change the node's priority: among ready nodes, the engine runs the highest number first."""
        if not isinstance(sequence_nr, int):   # a bool is an int here too, as torch takes it
            raise TypeError("an integer is required")
        if sequence_nr < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if sequence_nr >= 1 << 64:
            raise OverflowError("int too big to convert")
        self._sequence_nr_ = int(sequence_nr)

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def metadata(self):
        return self._get_extra().metadata

    def _get_extra(self):
        extra = self._extra
        if extra is None:
            extra = self._extra = _Extra()
        return extra

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after the node; it may return new grad_inputs."""
        return self._get_extra().post_hooks.add(fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before the node; it may return new grad_outputs."""
        return self._get_extra().pre_hooks.add(fn)

    def _register_tensor_pre_hook(self, output_nr, fn):
        return self._get_extra().tensor_pre_hooks.setdefault(output_nr, HookDict()).add(fn)

    def __call__(self, *grads):
        expected = len(self._out_meta) if self._out_meta else 1   # one gradient per forward output
        if len(grads) != expected:
            raise TypeError(f"expected {expected} arguments, got {len(grads)} instead")
        for i, g in enumerate(grads):
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"argument {i} is not a Variable")
        mask = tuple(fn is not None for fn in self._next_fns)
        grads = list(grads)
        missing = sum(g is None for g in grads)
        if missing and not self._takes_missing:   # as the engine does: no gradient in, none out; else zeros
            if missing == len(grads):
                return None if len(mask) == 1 else (None,) * len(mask)
            if self._out_meta is not None:
                grads = fill_missing(self, grads)
        out = self._apply(grads, mask, state.enabled)
        return out[0] if len(out) == 1 else tuple(out)

    @property
    def _input_metadata(self):
        """The metadata (shape, dtype, device, nestedness) of each forward output, which is the
        gradient this node takes there (torch calls the node's gradients its inputs): a tuple of
        InputMetadata, one per differentiable output.

        Built on request from what the node recorded, so that the forward pays nothing: a node with
        several outputs records them; one with a single output learns its output's metadata when it
        is reached from that tensor (``grad_fn``) or from the node that consumed it
        (``next_functions``), or reads its saved result."""
        return tuple([InputMetadata(m) for m in _output_metas(self)])

    # saved values -------------------------------------------------------------------------
    def _unpack_saved(self):
        """The saved values as the formulas see them, after the version checks."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after "
                "they have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.")
        if not self._saved_tensor_idx:
            return saved
        if (vc := self._versions) is LAZY_VC or self._result_only and type(vc) is list:   # compact: as below
            if not vc[0] and forward_ad.state.level is None:
                t = _new_tensor(saved, True, self, 0)
                if vc is not LAZY_VC:   # (else it finds its node's counter when it needs one)
                    t._vcs = vc
                return [t]
            saved = expand_saved(self)
        values = saved   # copied into a list once a value needs replacing
        versions = self._versions
        for i in self._saved_tensor_idx:
            version = versions[i]
            if version is not None:
                if values is saved:
                    values = list(saved)
                value = values[i]
                # an argument saved as is and not modified since, or the op's own output (no hooks, forward
                # AD, subclass or in-place history): what _unpack_one returns, without the call
                if type(value) is SavedOutput and value.vc[0] == version and value.view_fn is None \
                        and value.cls is Tensor and forward_ad.state.level is None:
                    t = values[i] = _new_tensor(value.data, value.requires_grad,
                                                self if value.requires_grad else None, value.output_nr)
                    t._vcs = value.vc
                elif type(value) is not Tensor or (value._vcs or value._vc)[0] != version \
                        or value._detached_from is not None:
                    values[i] = self._unpack_one(value, version)
        return values

    def _unpack_one(self, value, version):
        kind = type(value)
        if kind is SavedOutput:   # the op's own output (the most common case: tried first)
            if value.vc[0] != version:
                _raise_modified(value.data, value.output_nr, self, value.vc[0], version)
            # the view's history if still alive, else (as torch) the node itself
            fn = self if value.view_fn is None else value.view_fn() or self
            t = saved_output_tensor(value, fn if value.requires_grad else None)
            if forward_ad.state.level is not None:
                forward_ad.restore_saved(value, t)
            return t
        if kind is list:  # a saved Tensor[] argument
            return list(map(self._unpack_one, value, version))
        if not isinstance(value, Tensor):
            return value if kind is not PackedSaved else value.unpack(self)
        if (value._vcs or value._vc)[0] != version:
            _raise_modified(value._array, value._output_nr, value._fn, value._vc[0], version)
        if value._detached_from is not None and value._fn is None:
            old = value._detached_from()
            if old is not None and old in self._next_fns:   # saved with that history (nodes compare by identity)
                raise RuntimeError("Trying to use a saved tensor that has been detached in-place, i.e. with "
                                   ".detach_().This is not supported, please use out-of-place `.detach()` instead")
        return value

    def _release(self):
        # like torch, only saved tensors are freed: a node that saved none can run again
        if self._saved is not None:
            for v in self._versions:
                if v is not None:
                    self._saved = None
                    return


class InputMetadata:
    """torch._C._autograd._InputMetadata: what a node knows of the gradient one of its outputs takes
    (that output's ``shape`` as a list, ``dtype``, ``device``, whether it is a nested tensor).

    Example::

        >>> m = (torch.ones(2, 3, requires_grad=True) * 2).grad_fn._input_metadata[0]
        >>> m.shape, m.dtype, m.device, m.is_nested_tensor
        ([2, 3], torch.float32, device(type='cpu'), False)
    """
    __slots__ = ("shape", "dtype", "device", "is_nested_tensor", "is_cpp_nested_tensor")

    def __init__(self, meta):
        if meta is None:   # an output without gradient (torch's undefined input): default metadata
            shape, np_dtype = (), numpy_backend.np.dtype("float32")
        else:
            shape, np_dtype = meta
        self.shape = list(shape)
        self.dtype = from_numpy_dtype(np_dtype)
        # ndgrad's meta tensors are not told apart here: (shape, dtype) is what nodes record
        self.device = CPU
        # a ragged size (nested tensors' j1, ...) marks a nested tensor; ndgrad does not record the layout,
        # so the strided one (torch's C++ NestedTensorImpl, for which torch raises here) reads as jagged
        self.is_nested_tensor = any(not isinstance(d, int) for d in shape)
        self.is_cpp_nested_tensor = False

    def __repr__(self):
        return f"<torch._C._autograd._InputMetadata object at {id(self):#x}>"


def _output_metas(node):
    """(shape, numpy dtype) or None for each differentiable output of `node`, from what it recorded."""
    if type(node) is AccumulateGrad:
        return [(node.variable._array.shape, node.variable._array.dtype)]
    metas = node._out_meta
    if metas is None:
        saved = getattr(node, "_saved", None)   # (a slot some node kinds leave unset)
        if saved is not None and is_compact(node):   # the compact saved result
            return [(saved.shape, saved.dtype)]
        for name, value in zip(type(node)._saved_names, saved or ()):
            if name == "result" and type(value) is SavedOutput:
                return [(value.data.shape, value.data.dtype)]
        raise RuntimeError(
            f"{node.name()} has no record of its output's metadata: ndgrad records it for a node with one "
            "output when the node is reached from that output (its grad_fn) or from the node that consumed "
            "it (next_functions), and this node was reached otherwise")
    entry = getattr(type(node), "_entry", None)
    out_diff = entry.output_differentiability if entry is not None else None
    if out_diff is not None:   # torch's node has an input for each differentiable output only
        return [m for m, d in zip(metas, out_diff) if d]
    # a custom Function's output that takes no gradient (not a Tensor, or not floating) is undefined
    return [m if m is not None and m[1].kind in INEXACT_KINDS else None for m in metas]


def _tell_output_meta(node):
    """Hand each single-output node `node` consumes the metadata of that output (node._meta has it)."""
    for fn, nr, m in zip(node._next_fns, node._next_nrs, node._meta):
        if fn is not None and nr == 0 and m is not None and fn._out_meta is None and type(fn) is not AccumulateGrad:
            fn._out_meta = [m]


META = "__meta"   # the suffix of an argument's metadata saved apart from it (derivatives/loader.py)


def arg_name(saved_name):
    """The argument (or result) a saved value is of: `mat2` for `mat2__meta`."""
    return saved_name[:-len(META)] if saved_name.endswith(META) else saved_name


def saved_accessors(names, meta_views=None, meta_only=None, types=None):
    """The attributes `_saved_<name>` (e.g. _saved_self, _saved_result) and `_raw_saved_<name>` of a
    node class whose saved values are `names`, as torch exposes them. Properties of each class, not
    a __getattr__ on Node: that one would keep CPython from specialising every attribute read of
    every node (the engine reads a handful per node). `meta_views[i]`, where not None, are torch's
    suffixes for the metadata of value i its formulas read (`_saved_self_sym_sizes`), exposed beside
    it, or instead of it where `meta_only[i]` (only that metadata is saved). `types[i]`: value i's
    schema type, where it decides the Python type torch reads it as (a `float` argument given 1 reads 1.0)."""
    accessors = {}
    for i, name in enumerate(names):
        alias = name.endswith(META)   # an argument's metadata saved apart from it
        name = arg_name(name)
        if meta_views is not None and meta_views[i] is not None:
            for suffix in meta_views[i]:
                view = suffix[:-4] if suffix.endswith("_opt") else suffix
                accessors[f"_saved_{name}_{suffix}"] = property(
                    lambda self, i=i, f=_META_VIEWS.get(view, view), o=view != suffix: _meta_view(self, i, f, o))
            if meta_only[i]:
                continue
        if alias:
            continue
        if "_saved_" + name not in accessors:   # a name saved twice reads as its first
            if types is not None and types[i] is not None and types[i].startswith("float"):
                accessors["_saved_" + name] = property(lambda self, i=i: _as_floats(self._unpack_saved()[i]))
            elif types is not None and types[i] in ("Scalar", "Scalar?"):
                accessors["_saved_" + name] = property(lambda self, i=i: _as_scalar(self._unpack_saved()[i]))
            elif types is not None and types[i] is not None and types[i].startswith("Tensor"):
                accessors["_saved_" + name] = property(lambda self, i=i: _expose_tensor(self._unpack_saved()[i]))
            elif types is not None and types[i] is not None and (m := _INT_LIST.fullmatch(types[i])):
                accessors["_saved_" + name] = property(
                    lambda self, i=i, n=int(m.group(1) or 1): _expose_ints(self._unpack_saved()[i], n))
            else:
                accessors["_saved_" + name] = property(lambda self, i=i: _expose(self._unpack_saved()[i]))
            if types is None or types[i] is None or types[i].startswith("Tensor"):   # (torch's: tensors only)
                accessors["_raw_saved_" + name] = property(lambda self, i=i: raw_saved(self, i))
    return accessors


# what each of torch's names for an argument's saved metadata reads (sym_argsize_k: size(k))
_META_VIEWS = {"sym_sizes": lambda m: tuple(m.shape), "sym_strides": lambda m: m.stride(),
               "sym_numel": lambda m: m.numel(), "dim": lambda m: m.dim(),
               "sym_storage_offset": lambda m: m.storage_offset()}


def _meta_view(node, i, view, optional):
    saved = expand_saved(node)
    # metadata saved alone is read as is (no version check, as torch's sizes); a whole tensor is unpacked
    value = saved[i] if saved is not None and type(saved[i]) is TensorMeta else node._unpack_saved()[i]
    if value is None:   # an absent Tensor? (torch 2.13 reads its sizes as (0,)), or not saved (no formula that runs reads it)
        return (0,) if optional and view is _META_VIEWS["sym_sizes"] else None
    if view is _META_VIEWS["sym_strides"] and not _argument_requires_grad(node, i):
        return ()   # torch keeps an argument's strides only where it requires grad (strides_or_error)
    if callable(view):
        return view(value)
    k = view[len("sym_argsize_"):]
    return value.shape[-int(k[len("minus_"):]) if k.startswith("minus_") else int(k)]


def _argument_requires_grad(node, i):
    """Whether the argument saved value i is of required grad when the node was made (its edge is set);
    True where that cannot be told (a result, a Tensor[] argument, a non-differentiable argument)."""
    cls = type(node)
    entry = getattr(cls, "_entry", None)
    if entry is None or getattr(node, "_edge_slices", None) is not None:
        return True
    p = entry.saved_pos[i]
    return p not in cls._diff_args or node._next_fns[cls._diff_args.index(p)] is not None


def _as_floats(value):
    # a saved float / float[] argument, as torch's double / ArrayRef<double> reads back
    if value is None:
        return None
    return tuple(float(v) for v in value) if isinstance(value, (list, tuple)) else float(value)


def _as_scalar(value):
    # a Scalar given as a one-element Tensor reads as torch's Scalar does: the number
    return value.item() if isinstance(value, Tensor) else value


def _expose(value):
    # as torch: a saved list (Tensor[], Tensor?[] or int[]) reads as a tuple
    return tuple(value) if isinstance(value, list) else value


_INT_LIST = re.compile(r"(?:Sym)?[Ii]nt\[(\d*)\]\??")


def _expose_ints(value, n):
    """An int[N] argument's saved value as torch reads it: one int given for it stands for N of them (torch's
    IntArrayRef of an int: avg_pool2d's kernel_size=2 reads (2, 2), amax's dim=1 reads (1,))."""
    return (value,) * n if type(value) is int else _expose(value)


# Python numbers, as ops take them for a Tensor argument (x * 2.0): torch wraps such a number in a 0-d
# tensor of its default dtype and saves it as a tensor (freed with the graph: see record)
PYTHON_NUMBERS = {bool: numpy_backend.np.bool_, int: numpy_backend.np.int64, float: numpy_backend.np.float64,
                  complex: numpy_backend.np.complex128}
# the version record gives such a number (no tensor has it): what is released with the graph, never unwrapped
WRAPPED = -1


class NoTensors(tuple):
    """A node's versions where it saved no tensor (each entry None, or WRAPPED: x * 2.0's node), one shared
    tuple per value (record's _no_tensors), of their own type so that the backward's array path sees at a
    glance that nothing saved needs unwrapping."""
    __slots__ = ()


def _expose_tensor(value):
    """A Tensor argument's saved value as torch reads it: a Python number as torch's wrapped number."""
    if type(value) in PYTHON_NUMBERS:
        return Tensor._make(numpy_backend.np.asarray(value, PYTHON_NUMBERS[type(value)]), False, None, 0)
    return _expose(value)


def _raise_modified(data, output_nr, grad_fn, version, expected):
    title = from_numpy_dtype(data.dtype).title
    # torch names the tensor's type as its C++ type does: a legacy name (torch.FloatTensor) where the
    # dtype has one, else the backend type (CPUComplexFloatType, CPUBoolType, CPUBFloat16Type)
    kind = f"torch.{title}Tensor" if title in _LEGACY_TYPE_TITLES else f"CPU{title}Type"
    # torch's short name: AddBackward0 -> Add, but AcoshBackward1 (acosh_'s node) -> Acosh1
    op = re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) == "0" else m.group(1), grad_fn.name()) \
        if grad_fn is not None else ""
    where = f", which is output {output_nr} of {op}," if grad_fn is not None else ""
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{kind} [{', '.join(map(str, data.shape))}]]{where} is at version {version}; expected "
        f"version {expected} instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


_LEGACY_TYPE_TITLES = frozenset(("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"))


class AccumulateGrad(Node):
    """The sink of a leaf tensor: adds the incoming gradient into `variable.grad`.

    A leaf has one AccumulateGrad at a time (edge() creates it under a lock), and its lock
    serialises the additions of several threads' backward passes into `.grad`, as torch's mutex
    does; the rest of those passes, post-accumulate hooks included (as in torch), runs concurrently."""
    __slots__ = ("variable", "_lock")

    def __init__(self, variable):
        self.variable = variable
        self._lock = threading.Lock()
        self._next_fns = self._next_nrs = ()
        self._sequence_nr_ = MAX_SEQ
        self._saved = None
        self._meta = None
        self._out_meta = None
        self._extra = None

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def _apply(self, grads, mask, create_graph):
        accumulate_grad(self.variable, grads[0], create_graph, self._lock)
        return ()


def accumulate_grad(var, grad, create_graph, lock=contextlib.nullcontext()):
    if grad is None:
        return
    with lock:   # AccumulateGrad's: threads adding into one leaf at once add one after the other
        old = var._grad
        if old is None:
            # Keep the gradient the engine hands over when nothing else can see it (saves a copy of
            # every weight gradient); anything shared is copied so that `.grad` never aliases. The kept
            # or copied gradient is strided like var (torch's layout contract) when var is dense.
            if create_graph:
                var._grad = _differentiable_copy(grad, var)
            # (a kept gradient is detached, as torch's AccumulateGrad: a root gradient given by the caller
            # may require grad; dispatch modes see the detach)
            elif type(grad._array) not in ARRAY_TYPES or type(var._array) not in ARRAY_TYPES:
                var._grad = grad.detach() if _only_engine_holds(grad, _ENGINE_ONLY) else grad.detach().clone()
            elif (dense := dense_like(grad._array, var._array)) is grad._array:
                dense = None   # (a name for grad's array would count as a reference in _only_engine_holds)
                var._grad = grad.detach() if _only_engine_holds(grad, _ENGINE_ONLY) else \
                    Tensor._make(dense_like(grad._array, var._array, copy=True), False, None, 0)
            elif not state.grad_layout and _only_engine_holds(grad, _ENGINE_ONLY):
                var._grad = grad.detach()   # enforce_grad_layout_policy(False): kept with its own strides
            else:
                var._grad = Tensor._make(dense, False, None, 0)   # (the copy dense_like made above)
        elif create_graph or not is_array(old._array) and is_array(grad._array):
            # a sparse .grad plus a dense gradient is a new dense tensor (added dense first, as torch)
            var._grad = old + grad if is_array(old._array) or not is_array(grad._array) else grad + old
        else:
            old._array += grad._array if old._array.dtype == grad._array.dtype else grad._array.astype(old._array.dtype)
    hooks = var._post_acc_hooks
    if hooks:
        for fn in list(hooks.values()):
            if fn(var) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _differentiable_copy(grad, var):
    """A first gradient accumulated with create_graph: a copy recorded in the graph (never the
    engine's tensor itself), strided like var when var is dense (CopyBackwards), else a
    contiguous clone (CloneBackward0), as torch's layout contract does."""
    if type(grad._array) not in ARRAY_TYPES or type(var._array) not in ARRAY_TYPES or not _is_dense(var._array):
        return grad.clone()
    return Tensor._make(dense_like(grad._array, var._array, copy=True), False, None, 0).copy_(grad)


def _is_dense(array):
    """Whether the array's elements fill its memory without gaps or overlaps (in some order)."""
    step = array.itemsize
    for stride, size in sorted(zip(array.strides, array.shape)):
        if size > 1:
            if stride != step:
                return False
            step *= size
    return True


def _only_engine_holds(grad, expected=None):
    """Whether `grad` and its memory are referenced by the engine's buffer alone.

    With expected=None it returns the reference counts instead (used once, to calibrate)."""
    data = grad._array
    base = data.base   # a fresh result may be a whole-array view (a transpose) of a fresh array
    counts = (sys.getrefcount(grad), sys.getrefcount(data), sys.getrefcount(base) if base is not None else 0)
    if expected is None:
        return counts
    if cached_tensors_enabled and is_cached_tensor(grad):   # the cache's reference is not a user's
        counts = (counts[0] - 1,) + counts[1:]
    if type(data) is COO and grad._fn is None:   # a sparse gradient is kept when it alone holds its arrays
        return counts[0] <= expected[0] and counts[1] <= expected[1] and _sole_array(data.indices, expected[2]) \
            and _sole_array(data.values, expected[2])
    if grad._fn is not None or type(data) not in ARRAY_TYPES or not data.flags.writeable:
        return False
    if base is not None and not (type(base) in ARRAY_TYPES and base.flags.owndata and base.size == data.size):
        return False
    return counts[0] <= expected[0] and counts[1] <= expected[1] and counts[2] <= expected[2]


# torch's cached tensors (at::caching; CUDA graph trees register their pool's outputs): a tensor one
# of whose references belongs to a cache, so that the check above does not count it and the engine
# still keeps such a gradient as `.grad` instead of copying it. Off unless _C._set_cached_tensors_enabled.
cached_tensors_enabled = False
_cached_tensors = {}   # id(tensor) -> a weak reference to it (the cache does not keep a tensor alive)


def is_cached_tensor(t):
    ref = _cached_tensors.get(id(t)) if cached_tensors_enabled else None
    return ref is not None and ref() is t


def add_cached_tensor(t):
    key = id(t)
    _cached_tensors[key] = weakref.ref(t, lambda _: _cached_tensors.pop(key, None))


def remove_cached_tensor(t):
    if is_cached_tensor(t):
        del _cached_tensors[id(t)]


def _sole_array(a, expected):
    """Whether `a` owns its contiguous memory and only the caller's container refers to it (counted as a base is)."""
    return a.base is None and a.flags.c_contiguous and a.flags.writeable and sys.getrefcount(a) <= expected


def _calibrate(var, grad, create_graph):  # calls _only_engine_holds exactly as accumulate_grad does
    return _only_engine_holds(grad)


class _Probe:
    __slots__ = ("_array",)


def _new_probe():
    probe = _Probe()
    probe._array = numpy_backend.zeros((2, 2)).T    # an array that is a whole view of its own fresh base
    return probe


# The reference counts of a gradient held by the engine's buffer list alone, as _only_engine_holds
# sees them. Measured, not assumed: they depend on the interpreter. The probe is held by the list
# alone (no global name), as a gradient is by one buffer: one held by two buffers (a backward that
# returns one tensor for two inputs) must be copied for one of them.
_ENGINE_ONLY = (lambda grads: _calibrate(None, grads[0], False))([_new_probe()])


class GraphRoot(Node):
    """Holds the gradients the user passes to backward, so the engine has one start node."""
    __slots__ = ("grads",)

    def __init__(self, edges, grads):
        if len(edges) == 1:   # (backward() of one tensor: the setter's work without its lists)
            fn, nr = edges[0]
            self._next_fns, self._next_nrs = (fn,), _ZERO_NRS[1] if not nr else (nr,)
        else:
            self.next_functions = tuple(edges)
        self.grads = grads
        self._sequence_nr_ = MAX_SEQ
        self._saved = None
        self._meta = None
        self._out_meta = None
        self._extra = None

    def _apply(self, grads, mask, create_graph):
        return self.grads


def edge(t):
    """The edge through which a gradient reaches tensor `t`'s history."""
    fn = t._fn if t._base is None else t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        return (None, 0)
    acc = t._acc
    node = acc() if acc is not None else None
    if node is None:
        with _new_acc_lock:   # threads recording on one leaf at once must share one AccumulateGrad (its lock)
            acc = t._acc
            node = acc() if acc is not None else None
            if node is None:
                node = AccumulateGrad(t)
                t._acc = weakref.ref(node)
    return (node, 0)


_new_acc_lock = threading.Lock()


class GradientEdge(tuple):
    """Where a tensor's gradient enters the graph: output ``output_nr`` of the node ``node``.

    A named pair (``edge.node``, ``edge.output_nr``), obtained with :func:`get_gradient_edge`. It can
    stand for a tensor among the outputs or inputs of :func:`ndgrad.autograd.grad` and
    :func:`ndgrad.autograd.backward`, so that a gradient is computed with respect to a point of the
    graph rather than a tensor (which may since have been modified in place).

    Args:
        node (Node): the node that receives the gradient.
        output_nr (int): which of the node's outputs the gradient belongs to.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> edge = torch.autograd.graph.get_gradient_edge(y)
        >>> edge.node.name(), edge.output_nr
        ('MulBackward0', 0)
        >>> torch.autograd.grad(y.sum(), edge)
        (tensor([1., 1.]),)
    """
    __slots__ = ()

    def __new__(cls, node, output_nr):
        return tuple.__new__(cls, (node, output_nr))

    node = property(lambda self: self[0])
    output_nr = property(lambda self: self[1])

    def __repr__(self):
        return f"GradientEdge(node={self[0]!r}, output_nr={self[1]})"


def output_meta(node, output_nr):
    """(shape, numpy dtype) of output `output_nr` of `node` (the tensor whose gradient enters
    there), or None where the node does not record it (a single-output op node that no
    get_gradient_edge asked about)."""
    if type(node) is AccumulateGrad:
        return node.variable._array.shape, node.variable._array.dtype
    meta = node._out_meta
    if meta is not None and output_nr < len(meta):
        return meta[output_nr]
    return None
