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
import abc
import weakref

from . import engine
from . import node as _node
from .._tensor import DISPATCH_TYPES, Tensor
from .grad_mode import grad_flag
from .node import GradientEdge, SavedOutput  # noqa: F401
from .node import edge as _edge
from .node import PYTHON_NUMBERS as _NUMBERS

saved_hooks = _node.saved_hooks   # active saved_tensors_hooks, innermost last (only the innermost applies)
_disabled = [None]      # message of the active disable_saved_tensors_hooks, or None


class Node(abc.ABC):
    """The abstract type of the nodes of the backward graph.

    Every node (generated backward functions such as ``MulBackward0``, ``AccumulateGrad``, custom
    :class:`~ndgrad.autograd.Function` nodes) is an instance, as a virtual subclass: ``isinstance``
    and ``issubclass`` hold although Node is in no node class's MRO. A node gives its ``name()``, its
    ``next_functions`` (the edges ``(node, output_nr)`` to the nodes of its inputs), a ``metadata``
    dict for the user's own data, and takes hooks: ``register_hook(fn)`` (``fn(grad_inputs,
    grad_outputs)``, after it runs) and ``register_prehook(fn)`` (``fn(grad_outputs)``, before).

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 2
        >>> isinstance(y.grad_fn, torch.autograd.graph.Node), y.grad_fn.name()
        (True, 'MulBackward0')
        >>> y.grad_fn.next_functions[0][0].name()
        'torch::autograd::AccumulateGrad'
    """

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and isinstance(subclass, type) and issubclass(subclass, _node.Node):
            return True
        return NotImplemented

    @abc.abstractmethod
    def name(self):
        """The node's name, e.g. MulBackward0."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """The edges (node, output_nr) to the nodes of the inputs."""

    @property
    @abc.abstractmethod
    def metadata(self):
        """A dict for the user's own data."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after the node runs."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """fn(grad_outputs) before the node runs."""

    @property
    @abc.abstractmethod
    def _input_metadata(self):
        """The metadata of the gradient each output takes (a tuple of InputMetadata)."""


def get_gradient_edge(tensor):
    """The :class:`GradientEdge` through which gradients reach `tensor`.

    For a tensor computed by an operation it is ``(tensor.grad_fn, output_nr)``; for a leaf, the
    edge to its ``AccumulateGrad`` node. The edge can be passed to
    :func:`ndgrad.autograd.grad` or :func:`ndgrad.autograd.backward` in place of the tensor, as an
    output or an input.

    Args:
        tensor (Tensor): a tensor that requires grad.

    Returns:
        GradientEdge: the edge.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 2
        >>> edge = torch.autograd.graph.get_gradient_edge(y)
        >>> edge.node is y.grad_fn, edge.output_nr
        (True, 0)
    """
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, output_nr = _edge(tensor)
    if node._out_meta is None and output_nr == 0 and type(node) is not _node.AccumulateGrad:
        # an op node records the metadata of its outputs only when it has several; an edge used
        # as a backward/grad output needs it (implicit gradient, shape checks)
        node._out_meta = [(tensor._array.shape, tensor._array.dtype)]
    return GradientEdge(node, output_nr)


def increment_version(tensor):
    """Increase the version counter of `tensor` by one, as an in-place operation does.

    For code that changes a tensor's data behind autograd's back (through ``.data`` or NumPy): a
    node that saved the tensor then detects the change when backward unpacks it. Inference tensors,
    which have no version counter, are left alone.

    Args:
        tensor (Tensor or iterable of Tensors): the tensor(s) to mark as modified.

    Example::

        >>> t = torch.ones(2)
        >>> t._version
        0
        >>> torch.autograd.graph.increment_version(t)
        >>> t._version
        1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not t._inference:   # inference tensors have no version counter
            t._vc[0] += 1


# ---- saved tensors -------------------------------------------------------------------------


class PackedSaved:
    """A value saved for backward as replaced by a pack hook: ndgrad's own type.

    While :class:`saved_tensors_hooks` are active, a node saves ``pack_hook(tensor)`` in this wrapper
    (attribute ``packed``), with the ``unpack_hook`` to apply at backward and what rebuilds the
    tensor's autograd history then. As in torch, values behind hooks are not version-checked.

    `edge` is the saved tensor's own edge (its grad_fn, or a leaf's AccumulateGrad); for an output
    saved by its own node it is None and the node is found at unpack time (no reference cycle).

    Example::

        >>> G = torch.autograd.graph
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with G.saved_tensors_hooks(lambda t: t * 10, lambda t: t / 10):
        ...     y = x.cos()
        >>> packed = y.grad_fn._saved[0]
        >>> isinstance(packed, G.PackedSaved), packed.packed
        (True, tensor([10., 20.]))
    """
    __slots__ = ("packed", "unpack_hook", "edge", "output_nr", "requires_grad")

    def __init__(self, value, owner, pack_hook, unpack_hook):
        if type(value) is SavedOutput:
            tensor = _node.saved_output_tensor(value, owner if value.requires_grad else None)
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
            return t if not t._requires_grad else _with_history(t, False, None, 0)
        if self.edge is None:
            return _with_history(t, True, owner, self.output_nr)
        fn, nr = self.edge
        out = _with_history(t, True, None if type(fn) is _node.AccumulateGrad else fn, nr)
        if out._grad_fn is None:
            out._acc = weakref.ref(fn)   # gradients reach the leaf through its AccumulateGrad
        return out

    def nbytes(self):
        """Bytes the packed value holds (tensors or arrays found in it; 0 for a placeholder)."""
        seen, total, stack = set(), 0, [self.packed]
        while stack:
            v = stack.pop()
            data = v._array if isinstance(v, Tensor) else v
            if hasattr(data, "nbytes") and hasattr(data, "shape"):
                if id(data) not in seen:
                    seen.add(id(data))
                    total += data.nbytes
            elif isinstance(v, (tuple, list)):
                stack.extend(v)
        return total


_node.PackedSaved = PackedSaved


def _with_history(t, requires_grad, fn, output_nr):
    """A tensor on t's data with the given history; of t's class when that defines __torch_dispatch__ (its
    detached instance: a wrapper subclass's data is its own), else a plain Tensor."""
    if type(t) in DISPATCH_TYPES:
        out = t.detach()
        out._requires_grad, out._fn, out._output_nr = requires_grad, fn, output_nr
        return out
    return Tensor._make(t._array, requires_grad, fn, output_nr)


def _pack_slot(node, i, pack_hook, unpack_hook):
    if type(node._saved) is tuple:   # (ops record their saved values as a tuple)
        node._saved = list(node._saved)
    value = node._saved[i]
    if type(value) is list:
        node._saved[i] = [v if v is None else PackedSaved(v, node, pack_hook, unpack_hook) for v in value]
    else:
        node._saved[i] = PackedSaved(value, node, pack_hook, unpack_hook)


class saved_tensors_hooks:
    """Context manager that intercepts the tensors saved for backward.

    Inside it, every tensor an op saves is passed to ``pack_hook(tensor)`` and what it returns is
    stored instead; backward passes that to ``unpack_hook(packed)`` to get the tensor back. Use it to
    offload or compress saved values. The innermost context applies; the hooks run with grad mode off.

    Args:
        pack_hook: a function of the saved tensor that returns anything.
        unpack_hook: a function of what `pack_hook` returned that returns a tensor of the same value.

    Example::

        >>> packed = []
        >>> def pack(t):
        ...     packed.append(t.shape)
        ...     return t.numpy().copy()
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with torch.autograd.graph.saved_tensors_hooks(pack, torch.from_numpy):
        ...     y = (x * x).sum()
        >>> packed
        [torch.Size([2]), torch.Size([2])]
        >>> y.backward()
        >>> x.grad
        tensor([2., 4.])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        push_hooks(self)
        return self

    def __exit__(self, *exc):
        pop_hooks()   # the innermost, as torch (a backward restores the stack it started with)
        return False

    def pack_node(self, node):
        """Pack the tensors `node` has just saved (called by the op glue and by custom Functions)."""
        _node.expand_saved(node)
        versions = node._versions
        for i in _pack_order(node):
            # (a Python number saved for a Tensor argument, torch's wrapped number, is not packed: as torch)
            if versions[i] is not None and not _packed(node._saved[i]) and type(node._saved[i]) not in _NUMBERS:
                _pack_slot(node, i, self.pack_hook, self.unpack_hook)


def _packed(value):
    """Whether a saved slot is packed already (a Tensor[] slot: its elements; record's early packing)."""
    return type(value) is PackedSaved or type(value) is list and any(type(v) is PackedSaved for v in value)


def _pack_order(node):
    """Slots in torch's packing order: saved arguments sorted by name, then saved outputs."""
    cls = type(node)
    order = cls.__dict__.get("_pack_order_")
    if order is None:
        names = cls._saved_names
        if not names:
            return range(len(node._saved))
        outputs = [i for i, n in enumerate(names) if n == "result" or n.startswith("result") and n[6:].isdigit()]
        inputs = sorted((i for i in range(len(names)) if i not in outputs), key=names.__getitem__)
        order = cls._pack_order_ = tuple(inputs + outputs)
    return order


def push_hooks(hooks):
    """Make `hooks` the innermost saved-tensor hooks, as entering a :class:`saved_tensors_hooks` block
    does; :func:`pop_hooks` removes them. ndgrad's own name (torch keeps its equivalent private).

    Args:
        hooks (saved_tensors_hooks): the hooks (an object with ``pack_hook`` and ``unpack_hook``).

    Raises:
        RuntimeError: while saved-tensor hooks are disabled (:class:`disable_saved_tensors_hooks`).

    Example::

        >>> G = torch.autograd.graph
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> G.push_hooks(G.saved_tensors_hooks(lambda t: t * 10, lambda t: t / 10))
        >>> y = x.cos()
        >>> G.pop_hooks()
        >>> y.grad_fn._raw_saved_self.data
        tensor([10., 20.])
    """
    if _disabled[0] is not None:
        raise RuntimeError(_disabled[0])
    saved_hooks.append(hooks)


def pop_hooks():
    """Removes the innermost saved-tensor hooks (those the last :func:`push_hooks` made current), as
    leaving a :class:`saved_tensors_hooks` block does. ndgrad's own name (torch keeps its equivalent private).

    Example::

        >>> hooks = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
        >>> torch.autograd.graph.push_hooks(hooks)
        >>> torch.autograd.graph.pop_hooks()
    """
    if not saved_hooks:
        raise RuntimeError("pop_hooks: there are no saved tensors hooks to pop (more exits than enters)")
    saved_hooks.pop()


def hooks_enabled():
    """Whether saved-tensor hooks may be entered now (``False`` after :func:`disable_hooks`).
    ndgrad's own name (torch keeps its equivalent private).

    Example::

        >>> torch.autograd.graph.hooks_enabled()
        True
    """
    return _disabled[0] is None


def disable_hooks(message, fail_if_non_empty=True):
    """Disable saved-tensor hooks until they are enabled again: entering
    :class:`saved_tensors_hooks` then raises ``RuntimeError(message)``. torch's
    ``torch._C._autograd._saved_tensors_hooks_disable``; ``_saved_tensors_hooks_enable`` there undoes
    it. :class:`disable_saved_tensors_hooks` is the scoped form.

    Args:
        message (str): the error message.
        fail_if_non_empty (bool, optional): raise the error at once if hooks are active now.
            Default: True.

    Example::

        >>> G = torch.autograd.graph
        >>> G.disable_hooks("saved-tensor hooks are off here")
        >>> with G.saved_tensors_hooks(lambda t: t, lambda t: t):
        ...     pass
        Traceback (most recent call last):
          ...
        RuntimeError: saved-tensor hooks are off here
        >>> torch._C._autograd._saved_tensors_hooks_enable()
    """
    _disabled[0] = message
    if saved_hooks and fail_if_non_empty:
        raise RuntimeError(message)


class disable_saved_tensors_hooks:
    """A context manager inside which saved-tensor hooks are disabled.

    Entering :class:`saved_tensors_hooks` inside it raises ``RuntimeError(error_message)``, and so
    does entering it while hooks are active; on exit the previous state comes back. For code whose
    saved tensors must stay plain tensors.

    Args:
        error_message (str): the message of the error.

    Example::

        >>> G = torch.autograd.graph
        >>> with G.disable_saved_tensors_hooks("no hooks in this block"):
        ...     with G.saved_tensors_hooks(lambda t: t, lambda t: t):
        ...         pass
        Traceback (most recent call last):
          ...
        RuntimeError: no hooks in this block
    """

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.prev = _disabled[0]
        try:
            disable_hooks(self.error_message)
        except RuntimeError:
            _disabled[0] = self.prev
            raise
        return self

    def __exit__(self, *exc):
        _disabled[0] = self.prev
        return False


class save_on_cpu(saved_tensors_hooks):
    """Context manager that keeps the tensors saved for backward as host (NumPy) copies.

    Each saved tensor is copied to the CPU when saved and moved back to its device in backward, which
    frees accelerator memory between the passes. ndgrad's tensors live on the CPU already, so today
    it only copies them.

    Args:
        pin_memory: accepted for compatibility (pinned memory is a CUDA notion).
        device_type: the device the tensors come from.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with torch.autograd.graph.save_on_cpu():
        ...     y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([2., 4.])
    """

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
    a = t._array
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
    """A context manager inside which in-place operations may modify tensors saved for backward.

    Normally, changing a saved tensor in place makes its backward raise (its version changed).
    Inside this block, backward uses the values from the time they were saved: as in torch, a saved
    tensor is copied only when an in-place operation is about to overwrite it (and only while some
    node still holds it). The backward must run inside the block too.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = x.clone()
        ...     y = a * a
        ...     _ = a.mul_(10)
        ...     y.sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """

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
    """A value that a node saved for its backward, as seen from Python.

    A node's ``_raw_saved_<name>`` attribute gives one (a list of them for a list of tensors); so
    does :func:`make_saved_tensor`. It cannot be created directly. ``unpack()`` gives the saved
    tensor (through its unpack hook, if any); ``register_hooks(pack_hook, unpack_hook)`` sets
    saved-tensor hooks on this value alone, once, before the graph is freed.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x.sin()
        >>> saved = y.grad_fn._raw_saved_self
        >>> type(saved).__name__, saved.unpack() is x
        ('SavedTensor', True)
        >>> saved.register_hooks(lambda t: t * 10, lambda t: t / 10)
        >>> y.grad_fn._saved_self
        tensor([1., 2.], requires_grad=True)
    """
    __slots__ = ("node", "index", "item")

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    @classmethod
    def _of(cls, node, index, item=None):
        self = object.__new__(cls)
        self.node, self.index, self.item = node, index, item
        return self

    def _slot(self):
        """(value, version) of the slot, or None once the node's saved values are freed."""
        saved = _node.expand_saved(self.node)
        if saved is None:
            return None
        value, version = saved[self.index], self.node._versions[self.index]
        return (value, version) if self.item is None else (value[self.item], version[self.item])

    @property
    def data(self):
        """What the pack hook returned, as is; without hooks the saved tensor (an output detached,
        since its history is its own node); None once freed."""
        slot = self._slot()
        value = None if slot is None else slot[0]
        if type(value) is PackedSaved:
            return value.packed
        if type(value) is SavedOutput:
            t = _node.saved_output_tensor(value, None)
            t._requires_grad, t._output_nr = False, 0
            return t
        return value

    @property
    def unpack_hook(self):
        slot = self._slot()
        return slot[0].unpack_hook if slot is not None and type(slot[0]) is PackedSaved else None

    def unpack(self):
        """The saved tensor with its history (through the unpack hook if one is set)."""
        slot = self._slot()
        if slot is None:
            self.node._unpack_saved()   # raises torch's "already been freed" error
        value, version = slot
        return value if version is None else self.node._unpack_one(value, version)

    def register_hooks(self, *hooks):
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: Callable, arg1: Callable) "
                            "-> None")
        pack_hook, unpack_hook = hooks
        saved = _node.expand_saved(self.node)
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
        if type(value) in _NUMBERS:   # torch's wrapped number: the hooks see (and give back) its 0-d tensor
            value = _node._expose_tensor(value)
        if type(value) is PackedSaved:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        packed = PackedSaved(value, self.node, pack_hook, unpack_hook)
        if self.item is None:
            if type(saved) is tuple:   # (ops record their saved values as a tuple)
                saved = self.node._saved = list(saved)
            saved[self.index] = packed
        else:
            slot[self.item] = packed


def raw_saved(node, index):
    """The value that `node` saved in its slot `index`, as a :class:`SavedTensor` (a list of them for
    a list of tensors): what a node's ``_raw_saved_<name>`` attribute returns. ndgrad's own name.

    Args:
        node (Node): a backward node.
        index (int): the position of the saved value among the node's saved values.

    Returns:
        SavedTensor or list of SavedTensor.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x.sin()
        >>> torch.autograd.graph.raw_saved(y.grad_fn, 0).unpack() is x
        True
    """
    saved = _node.expand_saved(node)
    if saved is not None and type(saved[index]) is list:
        return [SavedTensor._of(node, index, k) for k in range(len(saved[index]))]
    return SavedTensor._of(node, index)


class _SavedHolder(_node.Node):
    """The owner of a SavedTensor made outside any node (make_saved_tensor)."""
    __slots__ = ()

    def __init__(self, value, version):
        self.next_functions, self._extra, self._meta, self._out_meta = (), None, None, None
        self._sequence_nr_ = -1
        self._saved, self._versions = [value], [version]

    def _release(self):
        pass   # nothing runs it: the value lives as long as the SavedTensor


def make_saved_tensor(tensor, is_output=None, is_inplace_on_view=False):
    """Save `tensor` as a node would, packed with the active saved-tensor hooks.

    torch's ``torch._C._autograd._make_saved_tensor``. Without a node to own it, an output keeps
    its history, so `is_output` only matters to a node; `is_inplace_on_view` is accepted for the same
    reason.

    Args:
        tensor (Tensor): the tensor to save.
        is_output (bool): whether the tensor is an output of the node that saves it.
        is_inplace_on_view (bool, optional): accepted and ignored. Default: False.

    Returns:
        SavedTensor: the saved value.

    Example::

        >>> x = torch.tensor([1.0, 2.0])
        >>> saved = torch.autograd.graph.make_saved_tensor(x, is_output=False)
        >>> saved.unpack() is x
        True
    """
    if not isinstance(tensor, Tensor) or not isinstance(is_output, bool):
        raise TypeError("_make_saved_tensor(): incompatible function arguments. The following argument types are "
                        "supported:\n    1. (tensor: torch.Tensor, is_output: bool, is_inplace_on_view: bool = False) "
                        f"-> torch._C._autograd.SavedTensor\n\nInvoked with: {tensor!r}; "
                        f"kwargs: is_output={is_output!r}")
    holder = _SavedHolder(tensor, tensor._vc[0])
    if saved_hooks:
        saved_hooks[-1].pack_node(holder)
    return SavedTensor._of(holder, 0)


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
    """Call `fn` once the gradients of several tensors are known in a backward pass.

    Args:
        tensors: the tensors to watch.
        fn: with ``mode="all"``, ``fn(grads)`` with a list of one gradient per tensor (None for a tensor this
            backward does not reach); with ``mode="any"``, ``fn(grad)`` with the first one computed.
        mode: ``"all"`` (default) or ``"any"``.

    Returns:
        RemovableHandle: ``handle.remove()`` unregisters the hook.

    Example::

        >>> a = torch.tensor(1.0, requires_grad=True)
        >>> b = torch.tensor(2.0, requires_grad=True)
        >>> seen = []
        >>> handle = torch.autograd.graph.register_multi_grad_hook((a, b), seen.append)
        >>> (a * b).backward()
        >>> seen
        [[tensor(2.), tensor(1.)]]
    """
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
