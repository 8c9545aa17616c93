"""ndgrad.autograd.graph: inspecting and hooking into the backward graph, as torch.autograd.graph.

- Node, GradientEdge, get_gradient_edge, increment_version.
- Saved-tensor hooks: while `saved_tensors_hooks(pack, unpack)` is active, every tensor an op
  (or a custom Function) saves for backward is replaced by `pack(tensor)`; backward calls
  `unpack(packed)` and gives the result the saved tensor's history. The op glue
  (`autograd.record.record`) calls `pack_node` only when the hook stack is not empty, so recording
  costs nothing extra otherwise. `save_on_cpu`, `allow_mutation_on_saved_tensors` and
  `utils.checkpoint` are built on this one mechanism; `_raw_saved_<name>.register_hooks` packs
  one value of one node.
- register_multi_grad_hook: a hook over several tensors, using the running engine's task.
- to_dot / to_svg / render / summary (graph_viz.py): pictures and memory of a graph.
"""
import weakref

from . import engine
from . import node as _node
from .._tensor import Tensor
from .grad_mode import grad_flag
from .node import GradientEdge, Node, SavedOutput  # noqa: F401
from .node import edge as _edge

saved_hooks = []        # active saved_tensors_hooks, innermost last (only the innermost applies)
_disabled = [None]      # message of the active disable_saved_tensors_hooks, or None


def get_gradient_edge(tensor):
    """The edge through which gradients reach `tensor` (usable as backward/grad output or input)."""
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, output_nr = _edge(tensor)
    if node._out_meta is None and output_nr == 0 and type(node) is not _node.AccumulateGrad:
        # an op node records the metadata of its outputs only when it has several; an edge used
        # as a backward/grad output needs it (implicit gradient, shape checks)
        node._out_meta = [(tensor._data.shape, tensor._data.dtype)]
    return GradientEdge(node, output_nr)


def increment_version(tensor):
    """Bump the version counter of `tensor` (or of each tensor of an iterable), as an in-place op does."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._vc[0] += 1


# ---- saved tensors -------------------------------------------------------------------------


class PackedSaved:
    """A saved value replaced by what a pack hook returned, plus what rebuilds its history.

    `edge` is the saved tensor's own edge (its grad_fn, or a leaf's AccumulateGrad); for an output
    saved by its own node it is None and the node is found at unpack time (no reference cycle).
    As in torch, values behind hooks are not version-checked.
    """
    __slots__ = ("packed", "unpack_hook", "edge", "output_nr", "requires_grad")

    def __init__(self, value, owner, pack_hook, unpack_hook):
        if type(value) is SavedOutput:
            tensor = Tensor._make(value.data, value.requires_grad, owner if value.requires_grad else None,
                                        value.output_nr)
            tensor._vc = value.vc
            self.edge, self.output_nr, self.requires_grad = None, value.output_nr, value.requires_grad
        else:
            tensor = value
            self.edge = _edge(value) if value._requires_grad else None
            self.output_nr, self.requires_grad = value._output_nr, value._requires_grad
        version = tensor._vc[0]
        with grad_flag(False):
            self.packed = pack_hook(tensor)
        if tensor._vc[0] != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open "
                "an issue if you need to perform in-place operations on the input to a pack hook.")
        self.unpack_hook = unpack_hook

    def unpack(self, owner):
        t = self.unpack_hook(self.packed)   # in the current grad mode, as torch (pack runs in no_grad)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        if not self.requires_grad:   # as torch: a tensor without history comes back as the hook gave it
            return t if not t._requires_grad else Tensor._make(t._data, False, None, 0)
        if self.edge is None:
            return Tensor._make(t._data, True, owner, self.output_nr)
        fn, nr = self.edge
        out = Tensor._make(t._data, True, None if type(fn) is _node.AccumulateGrad else fn, nr)
        if out._grad_fn is None:
            out._acc = weakref.ref(fn)   # gradients reach the leaf through its AccumulateGrad
        return out

    def nbytes(self):
        """Bytes the packed value holds (tensors or arrays found in it; 0 for a placeholder)."""
        seen, total, stack = set(), 0, [self.packed]
        while stack:
            v = stack.pop()
            data = v._data if isinstance(v, Tensor) else v
            if hasattr(data, "nbytes") and hasattr(data, "shape"):
                if id(data) not in seen:
                    seen.add(id(data))
                    total += data.nbytes
            elif isinstance(v, (tuple, list)):
                stack.extend(v)
        return total


_node.PackedSaved = PackedSaved


def _pack_slot(node, i, pack_hook, unpack_hook):
    value = node._saved[i]
    if type(value) is list:
        node._saved[i] = [v if v is None else PackedSaved(v, node, pack_hook, unpack_hook) for v in value]
    else:
        node._saved[i] = PackedSaved(value, node, pack_hook, unpack_hook)


class saved_tensors_hooks:
    """Context manager: tensors saved for backward inside it are `pack_hook(t)`; backward uses
    `unpack_hook(packed)`. Nested contexts: the innermost one applies. Hooks run in no_grad."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled[0] is not None:
            raise RuntimeError(_disabled[0])
        saved_hooks.append(self)
        return self

    def __exit__(self, *exc):
        saved_hooks.remove(self)
        return False

    def pack_node(self, node):
        """Pack the tensors `node` has just saved (called by the op glue and by custom Functions)."""
        versions = node._versions
        for i in range(len(node._saved)):
            if versions[i] is not None and type(node._saved[i]) is not PackedSaved:
                _pack_slot(node, i, self.pack_hook, self.unpack_hook)


class disable_saved_tensors_hooks:
    """Inside it, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.prev = _disabled[0]
        _disabled[0] = self.error_message
        return self

    def __exit__(self, *exc):
        _disabled[0] = self.prev
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept as host (NumPy) copies and moved back to their device in backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, t.detach().cpu().clone()

        def unpack(packed):
            device, t = packed
            return t.to(device)
        super().__init__(pack, unpack)


before_inplace = None   # set while allow_mutation_on_saved_tensors is active: called by in-place ops
                        # (ops._registry.call_inplace) with the tensor about to be written


class _Handle:
    __slots__ = ("__weakref__",)


def _storage_id(t):
    """Identity of the memory `t` views (the array that owns it)."""
    a = t._data
    while getattr(a, "base", None) is not None:
        a = a.base
    return id(a)


class _AllowMutationOnSavedContext:
    """The saved tensors of the graph recorded inside allow_mutation_on_saved_tensors.

    Each saved (tensor, version) gets one handle, held by the nodes that saved it:
    `tid_to_weakhandle` maps (id, version) to it while a node still holds it; `original` keeps the
    tensor; `cloned` is the copy made just before an in-place op writes its memory, which
    backward then uses. Entries go away with the nodes."""

    def __init__(self):
        self.original = weakref.WeakKeyDictionary()
        self.cloned = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = {}
        self.closed = False

    def pack(self, t):
        tid = (id(t), t._vc[0])
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = t
            self.sid_to_tid.setdefault(_storage_id(t), set()).add(tid)
        return self, handle

    def before_write(self, t):
        tids = self.sid_to_tid.get(_storage_id(t))
        if not tids:
            return
        for tid in list(tids):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None:   # no node holds it any more
                tids.discard(tid)
            elif handle not in self.cloned:
                self.cloned[handle] = self.original.pop(handle).clone()

    def clear(self):
        self.original.clear()
        self.cloned.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


class allow_mutation_on_saved_tensors:
    """In-place ops may modify tensors saved for backward: backward uses the values from save time.

    As torch, a saved tensor is copied only when an in-place op is about to write its memory (and
    only while some node still holds it)."""

    def __enter__(self):
        global before_inplace
        if before_inplace is not None:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        self.ctx = _AllowMutationOnSavedContext()
        self.hooks = _MutationHooks(self.ctx)
        self.hooks.__enter__()
        before_inplace = self.ctx.before_write
        return self.ctx

    def __exit__(self, *exc):
        global before_inplace
        before_inplace = None
        self.hooks.__exit__(*exc)
        self.ctx.closed = True
        self.ctx.clear()
        return False


class _MutationHooks(saved_tensors_hooks):
    def __init__(self, ctx):
        def unpack(packed):
            ctx, handle = packed
            if ctx.closed:
                raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                     "in which the graph was originally recorded.")
            clone = ctx.cloned.get(handle)
            return clone if clone is not None else ctx.original[handle]
        super().__init__(ctx.pack, unpack)


class SavedTensor:
    """`node._raw_saved_<name>`: one saved value of a node, on which hooks can be registered."""
    __slots__ = ("node", "index", "item")

    def __init__(self, node, index, item=None):
        self.node, self.index, self.item = node, index, item

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook and unpack_hook must be "
                            "callables")
        saved = self.node._saved
        if saved is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
                "to backward through the graph a second time or if you need to access saved variables after calling "
                "backward.")
        slot = saved[self.index]
        value = slot if self.item is None else slot[self.item]
        if value is None or self.node._versions[self.index] is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if type(value) is PackedSaved:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        packed = PackedSaved(value, self.node, pack_hook, unpack_hook)
        if self.item is None:
            saved[self.index] = packed
        else:
            slot[self.item] = packed


def raw_saved(node, index):
    """What `_raw_saved_<name>` returns: a SavedTensor (a list of them for a Tensor[] value)."""
    saved = node._saved
    if saved is not None and type(saved[index]) is list:
        return [SavedTensor(node, index, k) for k in range(len(saved[index]))]
    return SavedTensor(node, index)


_node.raw_saved = raw_saved


# ---- hooks over several tensors -------------------------------------------------------------
class _MultiHandle:
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode="all": fn(grads) once the gradients of all `tensors` this backward computes have
    arrived (None for the others); mode="any": fn(grad) with the first one to arrive."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    pending = weakref.WeakKeyDictionary()   # backward pass -> [grads, arrived, expected]

    def make_hook(i):
        def hook(grad):
            task = engine.current_task()
            if mode == "any":
                if task not in pending:
                    pending[task] = True
                    fn(grad)
                return None
            st = pending.get(task)
            if st is None:
                expected = sum(1 for t in tensors if t._requires_grad and task.will_execute(_edge(t)[0]))
                st = pending[task] = [[None] * len(tensors), 0, expected]
            st[0][i] = grad
            st[1] += 1
            if st[1] == st[2]:
                fn(st[0])
            return None
        return hook
    return _MultiHandle([t.register_hook(make_hook(i)) for i, t in enumerate(tensors) if t._requires_grad])


from .graph_viz import render, summary, to_dot, to_svg  # noqa: E402,F401
