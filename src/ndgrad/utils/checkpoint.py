"""Activation checkpointing: keep less for backward and recompute it when backward needs it.

`checkpoint(fn, *args, use_reentrant=False)` runs fn inside saved_tensors_hooks whose pack hook
keeps only a position number: the graph is built as usual, but its nodes hold placeholders. The
first time backward unpacks one, fn runs again (same inputs, same random state, grad mode on)
with a pack hook that collects what its ops save, in the same order; each placeholder then
resolves to its recomputed value, and the gradients are exactly those without checkpointing.

Selective checkpointing (`context_fn=partial(create_selective_checkpoint_contexts, policy)`) asks
the policy about each op the original forward runs and keeps the outputs of those it says to
save; the recomputation takes them back, in order, instead of running those ops again.

`use_reentrant=True` is torch's older scheme: a custom Function that runs fn under no_grad and,
in its backward, reruns fn and calls backward on the result (so it cannot be used with
autograd.grad or backward(inputs=...)).
"""
import contextlib
import copy
import enum
import functools
import importlib
import traceback
import warnings
import weakref
from collections import defaultdict

from .. import _random
from ..amp import autocast_mode
from ..autograd import engine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad, state as _grad_state
from ..autograd.graph import saved_tensors_hooks
from .._tensor import Tensor
from ..autograd import backward
from ..ops import _aten, _registry
from .. import accelerator as _accelerator
from ._pytree import tree_leaves
from ._python_dispatch import TorchDispatchMode

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "GraphExecGroup", "set_checkpoint_debug_enabled",
           "set_checkpoint_early_stop", "CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS", "detach_variable", "check_backward_validity",
           "noop_context_fn", "get_device_states", "set_device_states", "DefaultDeviceType"]


def _is_tensor(x):
    return isinstance(x, Tensor)


def _detached(args):
    """The arguments as new leaves (same data) that require grad where the originals did."""
    return tuple(a.detach().requires_grad_(a.requires_grad) if _is_tensor(a) else a for a in args)


def detach_variable(inputs):
    """The tensors of the tuple `inputs` detached (new leaves on the same data) and requiring grad where
    the originals did; other items as they are.

    Example::

        >>> from ndgrad.utils.checkpoint import detach_variable
        >>> x = torch.ones(2, requires_grad=True) * 2
        >>> d, n = detach_variable((x, 3))
        >>> d.is_leaf, d.requires_grad, n
        (True, True, 3)
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return _detached(inputs)


def check_backward_validity(inputs):
    """Warns that gradients will be None when no tensor of `inputs` requires grad (checkpointing such a
    block records nothing to recompute).

    Example::

        >>> import warnings
        >>> from ndgrad.utils.checkpoint import check_backward_validity
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     check_backward_validity((torch.ones(1),))
        >>> str(caught[0].message)
        'None of the inputs have requires_grad=True. Gradients will be None'
    """
    if not any(a.requires_grad for a in inputs if _is_tensor(a)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def noop_context_fn():
    """checkpoint's default `context_fn`: no context around the forward nor around the recomputation.

    Example::

        >>> from ndgrad.utils.checkpoint import noop_context_fn
        >>> [type(c).__name__ for c in noop_context_fn()]
        ['nullcontext', 'nullcontext']
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


def _device_module(device_type):
    """ndgrad.<device_type> (ndgrad.cuda, ...): imported by name, these namespaces sit beside this layer."""
    try:
        return importlib.import_module(f"ndgrad.{device_type}")
    except ModuleNotFoundError:   # as torch's getattr(torch, device_type)
        raise AttributeError(f"module 'ndgrad' has no attribute {device_type!r}") from None


class DefaultDeviceType:
    """The device type whose random states checkpointing saves when no argument is on a device: the
    current accelerator's, ``"cpu"`` when there is none (always, in ndgrad), unless set.

    Example::

        >>> from ndgrad.utils.checkpoint import DefaultDeviceType
        >>> DefaultDeviceType.get_device_type()
        'cpu'
    """
    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        """Sets the default device type (``"cuda"`` if not given)."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        """The default device type."""
        if not DefaultDeviceType._default_device_type:
            acc = _accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = acc.type if acc else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args):
    """(device ids, their generators' states) for the tensors of `args` (nested) that are on a device
    other than cpu and meta: ndgrad computes on the CPU, so ``([], [])`` for ndgrad's tensors.

    Example::

        >>> from ndgrad.utils.checkpoint import get_device_states
        >>> get_device_states(torch.ones(1), (torch.zeros(2),))
        ([], [])
    """
    on_device = [a for a in tree_leaves(args) if _is_tensor(a) and a.device.type not in ("cpu", "meta")]
    if not on_device:
        return [], []
    module = _device_module(on_device[0].device.type)
    ids = [a.get_device() for a in on_device]
    return ids, [module.get_rng_state(i) for i in ids]


def set_device_states(devices, states, *, device_type=None):
    """Sets the random states of the generators of `devices` (of `device_type`, by default
    :meth:`DefaultDeviceType.get_device_type`); nothing for meta.

    Example::

        >>> from ndgrad.utils.checkpoint import set_device_states
        >>> set_device_states([], [])
    """
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    module = _device_module(device_type)
    for device, state in zip(devices, states):
        module.set_rng_state(state, device)


class _rng_replay:
    """Run a block with the default generator set to `saved` (if any), then put its state back."""

    def __init__(self, saved):
        self.saved = saved

    def __enter__(self):
        if self.saved is not None:
            self.now = _random.get_rng_state()
            _random.set_rng_state(self.saved)

    def __exit__(self, *exc):
        if self.saved is not None:
            _random.set_rng_state(self.now)


def _autocast_now():
    """The CPU autocast region the forward ran in, as a maker of a like region to recompute in (backward
    runs outside the region, and recomputed products must have the dtypes the forward saved)."""
    return functools.partial(autocast_mode.autocast, "cpu", dtype=autocast_mode.get_autocast_dtype("cpu"),
                             enabled=autocast_mode.is_autocast_enabled("cpu"),
                             cache_enabled=autocast_mode.is_autocast_cache_enabled())


_early_stop_override = [None]   # set_checkpoint_early_stop's value while it is active
_debug_override = [None]        # set_checkpoint_debug_enabled's value while it is active


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Checkpoints run (forward) inside it stop their recomputation early or not, whatever their
    `early_stop` argument says (the value is fixed at forward time)."""
    prev = _early_stop_override[0]
    _early_stop_override[0] = enable
    try:
        yield
    finally:
        _early_stop_override[0] = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Inside it, checkpoints behave as with debug=enabled (None: their own argument decides)."""
    prev = _debug_override[0]
    _debug_override[0] = enabled
    try:
        yield
    finally:
        _debug_override[0] = prev


class CheckpointError(RuntimeError):
    pass


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    """function(*args, **kwargs), saving nothing inside it for backward: recomputed when needed.

    preserve_rng_state=True (a keyword) replays the random state, so dropout inside gives the same
    mask in the recomputation."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not None:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if _early_stop_override[0] is not None:
        early_stop = _early_stop_override[0]
    if _debug_override[0] is not None:
        debug = _debug_override[0]
    if context_fn is not None and debug:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    forward_context, recompute_context = context_fn() if context_fn is not None else (_nullcontext(), _nullcontext())
    if not _grad_state.enabled:   # as torch: nothing will be recomputed, so no context either
        return function(*args, **kwargs)
    rng = _random.get_rng_state() if preserve else None
    frame = _Frame(function, args, kwargs, rng, early_stop, determinism_check == "default", debug,
                   recompute_context, _autocast_now())
    with _ForwardHooks(frame), forward_context:
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


_nullcontext = contextlib.nullcontext


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every tensor still needed is recomputed."""


class _Holder:
    """What a node keeps for one checkpointed saved tensor: per backward (gid), the handle of its
    recomputed value, None once unpacked."""
    __slots__ = ("handles", "__weakref__")

    def __init__(self):
        self.handles = weakref.WeakKeyDictionary()


class _Handle:
    __slots__ = ("__weakref__",)


class _Gid:
    """Identity of an unpack outside any backward: each such unpack recomputes."""
    __slots__ = ("__weakref__",)


def _metadata(t):
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""   # torch's text, word for word (its messages end with it)

_DEBUG_REPORT = """An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.

Tensors saved for backward during the original forward (with the stack that saved each):

{forward}
Tensors saved for backward during recomputation:

{recompute}
ERROR: Detected non-determinism while running activation checkpointing

You are seeing this error because you passed `debug=True` to checkpoint and
tensors to be saved during the original forward and differ between those saved
during recomputation. This can happen if different operators were ran in the
original forward and in the recomputation: compare the two lists above.
"""


class _Frame:
    """One checkpointed call: the function and its inputs, a weak reference to the holder of each
    tensor its forward saved (in order) and, per backward, what the recomputation gave them.

    A backward (a graph task, or a GraphExecGroup) recomputes the function once, on the first
    unpack; each recomputed value is dropped as it is unpacked."""

    def __init__(self, function, args, kwargs, rng, early_stop, check, debug, recompute_context, autocast):
        self.autocast = autocast
        self.function, self.args, self.kwargs, self.rng = function, args, kwargs, rng
        self.recompute_context = recompute_context
        self.early_stop, self.check, self.debug = early_stop, check, debug
        self.weak_holders = []
        self.metadata = []
        self.forward_completed = False
        self.ignore_saved_mismatch = False
        self.recomputed = weakref.WeakKeyDictionary()     # gid -> {handle: tensor} (weak handles)
        self.counter = weakref.WeakKeyDictionary()        # gid -> tensors saved by its recomputation
        self.logs = ([], [])                              # debug: (forward, recomputation) saves

    def log(self, which, t):
        if self.debug:
            frames = [f"{f.filename}:{f.lineno}:{f.name}" for f in traceback.extract_stack()[:-3]]
            self.logs[which].append(f"{_metadata(t)}\n" + "\n".join(frames) + "\n")

    def unpack(self, holder):
        try:
            return self._unpack(holder)
        except CheckpointError:
            if not self.debug:
                raise
            forward, recompute = ("\n".join(log) for log in self.logs)
            raise CheckpointError(_DEBUG_REPORT.format(forward=forward, recompute=recompute)) from None

    def _unpack(self, holder):
        gid = _current_gid()
        if gid not in self.recomputed:
            self.recomputed[gid] = weakref.WeakKeyDictionary()
            self.counter[gid] = 0
            del self.logs[1][:]
            try:
                with _rng_replay(self.rng), self.autocast(), _RecomputeHooks(self, gid), enable_grad(), \
                        self.recompute_context:
                    self.function(*self.args, **self.kwargs)
            except _StopRecomputation:
                pass
            self._check_match(gid)
        handle = holder.handles.get(gid)
        if handle is None:
            extra = ""
            if _graph_exec_group[0] is not None:
                extra = ("Performing two backward calls that overlap (i.e. require the same saved activation in "
                         "order to compute gradients) is not allowed while under the "
                         "torch.utils.checkpoint.GraphExecGroup context. ")
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                f"{extra}If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise "
                "please open an issue with details on your use case.")
        value = self.recomputed[gid].pop(handle)
        holder.handles[gid] = None
        return value

    def _check_match(self, gid):
        if not self.check or self.ignore_saved_mismatch:
            return
        if self.counter[gid] != len(self.weak_holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.weak_holders)}\nNumber of "
                f"tensors saved during recomputation: {self.counter[gid]}.\n{_DEBUG_TIP}")
        different = ""
        for i, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:
                continue
            now = _metadata(self.recomputed[gid][holder.handles[gid]])
            if now != self.metadata[i]:
                different += f"tensor at position {i}:\nsaved metadata: {self.metadata[i]}\nrecomputed metadata: {now}\n"
        if different:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have different "
                                  f"metadata than during the forward pass.\n{different}.\n{_DEBUG_TIP}")


class _ForwardHooks(saved_tensors_hooks):
    """The original forward: each saved tensor becomes a holder, to be filled by recomputation."""

    def __init__(self, frame):
        def pack(t):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            frame.metadata.append(_metadata(t))
            frame.log(0, t)
            return holder
        super().__init__(pack, frame.unpack)


class _RecomputeHooks(saved_tensors_hooks):
    """The recomputation for backward `gid`: the k-th tensor saved fills the k-th holder."""

    def __init__(self, frame, gid):
        def pack(t):
            t = t.detach() if t.requires_grad else t
            k = frame.counter[gid]
            frame.counter[gid] = k + 1
            frame.log(1, t)
            if k >= len(frame.weak_holders):
                if not frame.forward_completed:
                    # backward inside the checkpointed function while its forward runs: the
                    # recomputation goes past the tensors saved so far
                    frame.ignore_saved_mismatch = True
                    return t
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      f"than during the original forward pass.\n{_DEBUG_TIP}")
            holder = frame.weak_holders[k]()
            if holder is not None:   # its node may be gone (a backward inside the forward freed it)
                handle = _Handle()
                holder.handles[gid] = handle
                frame.recomputed[gid][handle] = t
            if frame.early_stop and k + 1 == len(frame.weak_holders):
                raise _StopRecomputation
            return t
        super().__init__(pack, lambda t: t)


_graph_exec_group = [None]   # the active GraphExecGroup


def _current_gid():
    if _graph_exec_group[0] is not None:
        return _graph_exec_group[0]
    task = engine.current_task()
    return task if task is not None else _Gid()


class GraphExecGroup:
    """Backward calls inside one group share one recomputation per checkpointed region (at most
    once, even across several backward calls); they must then use disjoint parts of the graph."""

    def __enter__(self):
        if _graph_exec_group[0] is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group {_graph_exec_group[0]}")
        _graph_exec_group[0] = self
        return self

    def __exit__(self, *exc):
        _graph_exec_group[0] = None

    @classmethod
    def _get_current_group(cls):
        return _graph_exec_group[0]


class CheckpointFunction(Function):
    """use_reentrant=True: one node whose backward reruns the function and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _random.get_rng_state() if preserve_rng_state else None
        ctx.autocast = _autocast_now()
        ctx.tensor_positions = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.other_args = list(args)
        for i in ctx.tensor_positions:
            ctx.other_args[i] = None
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])
        if not any(a.requires_grad for a in args if _is_tensor(a)):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        task = engine.current_task()
        if task is not None and task.targets is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument.")
        args = list(ctx.other_args)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            args[i] = t
        inputs = _detached(args)
        with _rng_replay(ctx.rng), ctx.autocast(), enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if _is_tensor(o) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if _is_tensor(a) else None for a in inputs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules/functions in `segments` checkpointed chunks (the last is run as usual)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. use_reentrant=False is recommended, but if you need to preserve the current "
                      "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)
    size = len(functions) // segments

    def run(start, end):
        def forward(x):
            for fn in functions[start:end]:
                x = fn(x)
            return x
        return forward

    last = size * (segments - 1)
    for start in range(0, last, size):
        input = checkpoint(run(start, start + size), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(last, len(functions))(input)


# --- selective activation checkpointing ------------------------------------------------------


class SelectiveCheckpointContext:
    """What a policy is told besides the op: `op_output`, the op's output. The policy is asked
    during the original forward only, so `is_recompute` is always False (kept for old policies)."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    """A policy's answer for one op: *_SAVE keeps its output for backward (not recomputed),
    *_RECOMPUTE recomputes it. MUST_ and PREFER_ differ only for compilers (none here); the
    CPU_OFFLOAD answers recompute (there is no device to offload from)."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)

# Ops the policy is not asked about (always run): torch's list, those of them ndgrad has as ops.
SAC_IGNORED_OPS = {ov for name in ("detach", "size", "stride", "dim", "numel", "storage_offset", "is_contiguous",
                                   "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
                                   "is_strides_like_format", "is_non_overlapping_and_dense")
                   for packet in (getattr(_aten.aten, name, None),) if packet is not None
                   for ov in (getattr(packet, o) for o in packet.overloads())}

_RECOMPUTE = object()   # a storage entry: the op runs again
_CONSUMED = object()    # a storage entry whose value a recomputation took


class _Cached:
    """A saved op output: detached (no path back to the graph that holds the storage) and the
    versions it had, to refuse it once changed in place."""
    __slots__ = ("outs", "versions", "is_tuple")

    def __init__(self, out):
        self.is_tuple = type(out) is tuple
        # (a custom op's non-Tensor outputs, ops._registry.Opaque, are kept as they are)
        self.outs = tuple(o.detach() if isinstance(o, Tensor) else o for o in out) if self.is_tuple else (out.detach(),)
        self.versions = tuple(o._vc[0] if isinstance(o, Tensor) else None for o in self.outs)

    @property
    def val(self):
        """The saved output (a tuple of them for an op with several), as torch's storage entries name it."""
        return self.outs if self.is_tuple else self.outs[0]

    def raw(self, allow_mutation):
        """The arrays the op's forward returned (what the glue wraps and records again)."""
        if not allow_mutation and any(v is not None and o._vc[0] != v for o, v in zip(self.outs, self.versions)):
            raise RuntimeError("Tensor cached during selective activation checkpoint has been mutated")
        return tuple(o._array if isinstance(o, Tensor) else o for o in self.outs) if self.is_tuple else \
            self.outs[0]._array


class _OpMode(TorchDispatchMode):
    """A dispatch mode (utils/_python_dispatch.py) that passes each op call to `handle`. Modes nest:
    the op an inner mode runs is seen by the mode active before it."""

    def __init__(self, storage):
        super().__init__()
        self.storage = storage               # op -> {index of the call: _Cached, _RECOMPUTE or _CONSUMED}
        self.counter = defaultdict(int)      # op -> calls seen

    _below_autograd = False   # handle runs the op through the glue, which records it

    def _dispatch_op(self, spec, args, inplace):
        # what runs meanwhile (the op, an in-place op's out-of-place call, the policy's own ops) is
        # not seen by this mode: it is off the stack, as torch pops a dispatch mode while it handles an op
        return self.handle(spec, args, inplace)

    def _dispatch_function(self, func, args, kwargs=None):
        return func(*args, **(kwargs or {}))   # detach and factories: the policy is not asked about them

    @staticmethod
    def run(spec, args, inplace):
        return (_registry.call_inplace if inplace else _registry.call)(spec, args)

    def index(self, op):
        i = self.counter[op]
        self.counter[op] = i + 1
        return i


class _CachingMode(_OpMode):
    """The original forward: run each op, ask the policy, keep the outputs it says to save."""

    def __init__(self, policy_fn, storage):
        super().__init__(storage)
        self.policy_fn = policy_fn

    def handle(self, spec, args, inplace):
        out = self.run(spec, args, inplace)
        op = _aten.overload(spec, inplace)
        if op in SAC_IGNORED_OPS:
            return out
        i = self.index(op)
        with no_grad():   # as below torch's autograd, where its dispatch modes run: the policy's ops record nothing
            policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out), op, *args)
        if isinstance(policy, bool):   # True: save
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        self.storage[op][i] = _Cached(out) if policy in _SAVE else _RECOMPUTE
        return out


_MISMATCH = ("This can happen if the operations in the checkpointed region are nondeterministic or depend on global "
             "state that changed between forward and backward.")


class _CachedMode(_OpMode):
    """The recomputation: the k-th call of an op gets the k-th forward call's saved output (once)."""

    def __init__(self, storage, allow_cache_entry_mutation):
        super().__init__(storage)
        self.allow_mutation = allow_cache_entry_mutation

    def __enter__(self):
        self.counter.clear()   # each recomputation counts from the start
        return super().__enter__()

    def handle(self, spec, args, inplace):
        op = _aten.overload(spec, inplace)
        if op in SAC_IGNORED_OPS:
            return self.run(spec, args, inplace)
        i = self.index(op)
        entries = self.storage.get(op)
        if entries is None:
            raise RuntimeError(f"{op} encountered during backward but not found in storage. {_MISMATCH}")
        entry = entries.get(i)
        if entry is None:
            raise RuntimeError(f"{op} invocation index {i} encountered during backward but not found in storage. "
                               f"{_MISMATCH}")
        if entry is _CONSUMED:
            raise RuntimeError("Trying to backward an extra time. You are only allowed to backward once on any region "
                               "computed under selective activation checkpoint.")
        if entry is _RECOMPUTE:
            return self.run(spec, args, inplace)
        raw = entry.raw(self.allow_mutation)
        entries[i] = _CONSUMED
        return self.run(_replaying(spec, raw), args, inplace)


_CachingTorchDispatchMode, _CachedTorchDispatchMode = _CachingMode, _CachedMode   # torch's names


def _replaying(spec, raw):
    """A copy of op `spec` whose forward returns `raw` the first time, so that the glue wraps and
    records the saved output as if computed; later calls (a view regenerated from its base) compute."""
    replay = copy.copy(spec)

    def forward(*_):
        replay.forward = spec.forward
        return raw
    replay.forward = forward
    return replay


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The two contexts for `checkpoint(..., context_fn=...)` that make it selective.

    policy_fn_or_list: `policy(ctx, op, *args, **kwargs)` returning a CheckpointPolicy (or a bool,
    True for MUST_SAVE), asked about each op of the original forward; or a list of ops
    (`torch.ops.aten.mm.default`, ...) whose outputs to save. allow_cache_entry_mutation: use a
    saved output changed in place since instead of raising."""
    if isinstance(policy_fn_or_list, list):
        ops = policy_fn_or_list
        for op in ops:
            if not isinstance(op, _aten.OpOverload):
                extra = ("Please update the OpOverloadPacket to a specific OpOverload.For example, if you have "
                         "`torch.ops.aten.mm`, change it to `torch.ops.aten.mm.default`."
                         if isinstance(op, _aten.OpOverloadPacket) else "")
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. "
                                 f"{extra}")

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage = defaultdict(dict)
    return _CachingMode(policy_fn, storage), _CachedMode(storage, allow_cache_entry_mutation)
