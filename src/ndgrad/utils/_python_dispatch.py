"""torch.utils._python_dispatch: `TorchDispatchMode`, which sees every op call at the level of the op
glue, as its `torch.ops.aten` overload (`aten.mul.Tensor`), the way torch's dispatch modes see
the operators below autograd.

The modes form a stack on the glue's one slot for this, `ops._registry.dispatch_hook` (which
ndgrad.compile's tracer also uses): pushing a mode keeps the hook below it and installs
`_dispatch`, which takes the innermost mode off the stack while its `__torch_dispatch__` runs,
so that the ops it calls (its `func` among them) go to the next mode, or run. Nothing is checked
on the ops' path beyond the glue's existing test of that slot.

Below autograd: the handler of an out-of-place op runs with grad mode off (what it computes
records nothing), and the result it returns is then recorded as the op's output, whatever
computed it. In-place ops are handed over with grad mode as it is (their `func` records the op).

`Tensor.detach` is no registry op; while a mode is active, Tensor.detach is swapped for a form that
hands the call to the innermost mode as `aten.detach.default` (nothing to pay while none is).
Factories (`torch.rand`, `zeros`, `ones_like`, ...) are no registry ops either: the ones registered
with their aten identity (`register(aten=...)`) hand their calls to the glue's `dispatch_factory`
while the hook slot is set. As in torch, the mode sees the call without `requires_grad`, which is
set on the result it returns.

A Tensor subclass that defines `__torch_dispatch__` (a classmethod) sees, the same way, the ops whose
arguments include its instances (`_dispatch_subclass`, the glue's `dispatch_subclass`), after the
modes. Its handler calls `func` on plain Tensors (unwrapped) or under `no_dispatch()`
(utils/_mode_utils.py), which keeps modes and subclasses from seeing the ops of the block. Its
`detach` (and `.data`), `item` and the `*_like` factories on its instances go to it too; a wrapper subclass
(`Tensor._make_wrapper_subclass`: instances with metadata and no data) returns instances of itself,
which are recorded as the op's outputs (saved ones as their detached instances, as torch saves them).
Forward AD's views (make_dual's, unpack_dual's) are seen as `aten.alias` of the primal, as torch's
autograd makes them around an alias.
"""
import contextlib
import copy

from .. import _tensor
from .._meta_array import WrapperArray
from .._tensor import Tensor, apply_bits
from ..autograd import record as _record
from ..autograd.graph import saved_hooks as _saved_hooks
from ..autograd.node import SavedOutput as _SavedOutput, expand_saved as _expand_saved
from ..autograd.grad_mode import grad_flag, state as _grad_state
from ..ops import _aten, _registry
from .. import overrides
from ..overrides import _Mode

__all__ = ["TorchDispatchMode"]

_stack = []   # (mode, the dispatch hook below it), innermost last (one stack for the process)


class TorchDispatchMode(_Mode):
    """A context manager that sees each op call as its aten overload while it is active.

    Subclasses define ``__torch_dispatch__(self, func, types, args=(), kwargs=None)``: `func`
    is the op's ``torch.ops.aten`` overload (callable; ``func.__name__`` is ``"mul.Tensor"``,
    ``func.overloadpacket`` is ``torch.ops.aten.mul``), `args` its arguments in order (defaults
    filled in), `types` empty. Calling ``func(*args, **kwargs)`` inside runs the op with this mode
    off the stack. Modes nest: the innermost sees a call first, the ops it runs go to the next.
    The ops of a backward pass are seen too.

    Example::

        >>> class Log(torch.utils._python_dispatch.TorchDispatchMode):
        ...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        ...         print(func)
        ...         return func(*args, **(kwargs or {}))
        >>> x = torch.ones(2, requires_grad=True)
        >>> with Log():
        ...     y = x.mul(2).sum()
        aten.mul.Tensor
        aten.sum.default
        >>> y.grad_fn.name()
        'SumBackward0'
    """

    def __init__(self, _dispatch_key=None):
        if _dispatch_key is not None:
            raise NotImplementedError("ndgrad: TorchDispatchMode with a _dispatch_key (pre-dispatch modes): "
                                      "ndgrad has no dispatch keys")

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    _push = staticmethod(lambda mode: _push_mode(mode))   # (looked up when called: defined below)
    _pop = staticmethod(lambda: _pop_mode())

    @classmethod
    def is_infra_mode(cls):
        return False

    def _dispatch_function(self, func, args, kwargs=None):
        """A call of a function that is no registry op (Tensor.detach, a factory) as `func` (this mode off
        the stack)."""
        return self.__torch_dispatch__(func, (), args, kwargs or {})

    _below_autograd = True   # _dispatch records the op around what _dispatch_op returns (see there)

    def _dispatch_op(self, spec, args, inplace):
        """One op call the glue hands over (this mode off the stack)."""
        func, args = _seen_as(spec, args, inplace)
        return self.__torch_dispatch__(func, (), args, {})


_SEEN_AS_ALIAS = frozenset(("_make_dual", "_fw_primal"))


def _seen_as(spec, args, inplace):
    """(func, args) as a mode or subclass sees a call of op `spec`: forward AD's views are an alias of
    their first argument (torch's autograd makes the view and its tangent around that alias)."""
    if spec.name in _SEEN_AS_ALIAS:
        return _aten.aten.alias.default, args[:1]
    return _aten.overload(spec, inplace), args


def _requires_grad(args):
    for a in args:
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif type(a) in (list, tuple) and _requires_grad(a):
            return True
    return False


def _record_around(spec, args, out, early=None):
    """`out` (the handler's result) recorded as the output of op `spec` on `args`: the glue runs
    the op on a copy of its spec whose forward gives out's arrays, its hook and profiler slots
    empty until then (the op is not seen twice)."""
    outs = out if type(out) is tuple else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        return out
    # a subclass's instance (a wrapper subclass's, with no data) is itself the output the glue records
    raw = tuple(o if type(o) is not Tensor else o._array if spec.view or not o._math_bits else
                apply_bits(o._array, o._math_bits) for o in outs)
    replay = copy.copy(spec)
    hook, profile = _registry.dispatch_hook, _registry.profile_op

    def forward(*_):
        # the slots back once the glue is past them: what recording runs (saved-tensor hooks) is seen
        _registry.dispatch_hook, _registry.profile_op = hook, profile
        replay.forward = spec.forward   # later calls (a view regenerated from its base) compute
        return raw if type(out) is tuple else raw[0]
    replay.forward = forward
    _registry.dispatch_hook = _registry.profile_op = None
    sub, _registry.dispatch_subclass = _registry.dispatch_subclass, None   # (nor a subclass's __torch_dispatch__)
    _record.early_packed = early   # the inputs packed before the handler ran: record() takes them
    # a subclass's instances out: as torch, a saved one is its detached instance (its handler's), which
    # the saved-tensor hooks then pack (held back until it is)
    instances = raw[0] is outs[0]
    hooks = _saved_hooks[:] if instances else None
    if hooks:
        _saved_hooks.clear()
    try:
        result = _registry.call(replay, args)
    finally:
        _registry.dispatch_hook, _registry.profile_op = hook, profile
        _registry.dispatch_subclass = sub
        if hooks:
            _saved_hooks[:] = hooks
    node = outs[0]._fn if instances else None
    try:
        if node is not None:
            _save_detached(node, outs)
            if hooks:
                if _record.early_packed is not None:
                    _record._take_early_packed(node)
                hooks[-1].pack_node(node)
    finally:
        _record.early_packed = None
    return result


def _save_detached(node, outs):
    """The outputs of a __torch_dispatch__ subclass that `node` saves, saved as their detached instances
    (the subclass's handler makes them; saving the output itself would keep it alive through its node)."""
    for s in _expand_saved(node) or ():
        if type(s) is _SavedOutput and s.cls in _tensor.DISPATCH_TYPES and not isinstance(s.data, Tensor):
            s.data = outs[s.output_nr].detach()


def _dispatch(spec, args, inplace=False):
    """The glue's dispatch hook while a mode is innermost: the call goes to that mode, popped; an
    out-of-place op that autograd records is handled with grad mode off and recorded around the
    result once the mode is back on the stack (as torch's autograd sits above every mode)."""
    entry = _stack.pop()
    mode = entry[0]
    _registry.dispatch_hook = entry[1]
    below = mode._below_autograd and not inplace and _grad_state.enabled and spec.node_cls is not None and \
        _requires_grad(args)
    try:
        # autograd above the mode saves the inputs before the op reaches it (checkpoint's early stop
        # raises from a pack hook and the mode never sees the op)
        early = _record.pack_inputs(spec, args, _saved_hooks[-1]) if below and _saved_hooks else None
        with _handling(below):
            out = mode._dispatch_op(spec, args, inplace)
    finally:
        _stack.append(entry)
        _registry.dispatch_hook = _dispatch
    return _record_around(spec, args, out, early) if below else out


@contextlib.contextmanager
def _handling(below):
    """A handler runs: with grad mode off when `below` autograd (an op autograd records);
    overrides.enable_reentrant_dispatch turns it back to what it was when the op was called."""
    overrides._outside_dispatch.append(_grad_state.enabled)
    try:
        if below:
            with grad_flag(False):
                yield
        else:
            yield
    finally:
        overrides._outside_dispatch.pop()


def _dispatch_subclass(spec, args, inplace=False):
    """The glue's `dispatch_subclass`: op `spec` on arguments among which are instances of Tensor
    subclasses that define __torch_dispatch__, handed to the first of those that handles it
    (subclasses before their bases); an out-of-place op that autograd records is handled below it
    and recorded around the result, as a mode's (see _dispatch)."""
    func, seen = _seen_as(spec, args, inplace)
    types = _dispatch_types(seen)
    if not types:   # only in arguments the op's aten form does not take (make_dual's tangent): it runs
        _registry.dispatch_subclass = None
        try:
            return (_registry.call_inplace if inplace else _registry.call)(spec, args)
        finally:
            _registry.dispatch_subclass = _dispatch_subclass
    below = not inplace and _grad_state.enabled and spec.node_cls is not None and _requires_grad(args)
    with _handling(below):
        out = _torch_dispatch(func, types, seen)
    # (a view op's result is a view of its input whether or not it is recorded, as torch's autograd makes it)
    return _record_around(spec, args, out) if below or spec.view and not inplace else out


def _dispatch_types(args):
    """The __torch_dispatch__ subclasses of the arguments (and list elements), in order of first
    appearance, each subclass before its bases."""
    types = []
    for a in args:
        for t in map(type, a if type(a) in (list, tuple) else (a,)):
            if t in _tensor.DISPATCH_TYPES and t not in types:
                at = next((i for i, u in enumerate(types) if issubclass(t, u)), len(types))
                types.insert(at, t)
    return types


def _torch_dispatch(func, types, args, kwargs=None):
    for t in types:
        out = t.__torch_dispatch__(func, tuple(types), args, kwargs or {})
        if out is not NotImplemented:
            return out
    listed = "".join(f"  - tensor subclass {t}\n" for t in types)
    raise TypeError(f"Multiple dispatch failed for 'torch._ops.aten.{func.__name__}'; all __torch_dispatch__ "
                    f"handlers returned NotImplemented:\n\n{listed}")


_registry.dispatch_subclass = _dispatch_subclass

# The metadata queries a wrapper subclass made with a dispatch_sizes_strides_policy hands to its
# __torch_dispatch__ (_tensor.py's `_asked_*` methods): their aten overloads, each running the query
# on what the handler calls it with (its inner tensors)
_METADATA = {("sym_size", "default"): lambda t: list(t.shape), ("sym_size", "int"): lambda t, dim: t.size(dim),
             ("dim", "default"): lambda t: t.dim(),
             ("sym_numel", "default"): lambda t: t.numel(), ("sym_stride", "default"): lambda t: list(t.stride()),
             ("is_contiguous", "default"): lambda t: t.is_contiguous(),
             ("is_contiguous", "memory_format"): lambda t, memory_format: t.is_contiguous(memory_format),
             ("sym_storage_offset", "default"): lambda t: t.storage_offset()}
_METADATA = {key: _aten.function_overload(*key, fn) for key, fn in _METADATA.items()}


def _dispatch_metadata(name, overload, t, *args):
    """_tensor's `dispatch_metadata`: metadata query `name.overload` of t answered by its type's
    __torch_dispatch__ (dispatch modes do not see it: ndgrad's own metadata reads never dispatch)."""
    return _torch_dispatch(_METADATA[(name, overload)], _dispatch_types((t,)), (t,) + args)


_tensor.dispatch_metadata = _dispatch_metadata


@contextlib.contextmanager
def _no_dispatch():
    """The block's ops seen by no dispatch mode and no __torch_dispatch__ subclass (compile's tracer
    keeps seeing them: it is no dispatch mode)."""
    hook, sub = _registry.dispatch_hook, _registry.dispatch_subclass
    if hook is _dispatch:
        _registry.dispatch_hook = None
    _registry.dispatch_subclass = None
    try:
        yield
    finally:
        _registry.dispatch_hook, _registry.dispatch_subclass = hook, sub


_plain_detach = Tensor.detach
_DETACH = _aten.function_overload("detach", "default", _plain_detach)


def _detach(self):
    """Tensor.detach while a mode is active: seen by the innermost mode when it is next in line."""
    if _registry.dispatch_hook is not _dispatch:   # its own handler runs, or another hook is innermost
        return _plain_detach(self)
    return _to_innermost(_DETACH, (self,), None)


_detach.__doc__ = _plain_detach.__doc__


def _subclass_detach(self):
    """Tensor.detach of an instance of a __torch_dispatch__ subclass: seen by the innermost mode, else
    handed to its type's __torch_dispatch__ as aten.detach.default (as torch: the detached tensor is
    what the handler makes of it)."""
    if _registry.dispatch_hook is _dispatch:
        return _to_innermost(_DETACH, (self,), None)
    if _registry.dispatch_subclass is None or type(self) not in _tensor.DISPATCH_TYPES:   # under no_dispatch()
        return _plain_detach(self)
    with _handling(False):
        return _torch_dispatch(_DETACH, _dispatch_types((self,)), (self,))


_subclass_detach.__doc__ = _plain_detach.__doc__


def _subclass_data(self):
    """Tensor.data of an instance of a __torch_dispatch__ subclass: its detach (as torch; a version counter
    of its own, as Tensor.data's)."""
    t = _subclass_detach(self)
    if t is not self and type(t._array) is not WrapperArray:   # (a wrapper's handler made it: its own)
        t._vc = [t._vc[0]]
    return t


_LOCAL_SCALAR = _aten.function_overload("_local_scalar_dense", "default", Tensor.item)


def _subclass_item(self):
    """Tensor.item of an instance of a __torch_dispatch__ subclass: handed to it as
    aten._local_scalar_dense.default (as torch), after the element count check."""
    if self.numel() != 1:
        return Tensor.item(self)   # (torch's error)
    if _registry.dispatch_subclass is None or type(self) not in _tensor.DISPATCH_TYPES:   # under no_dispatch()
        return Tensor.item(self)
    with _handling(False):
        return _torch_dispatch(_LOCAL_SCALAR, _dispatch_types((self,)), (self,))


_subclass_item.__doc__ = Tensor.item.__doc__
_tensor.subclass_methods.update(detach=_subclass_detach, item=_subclass_item,
                                data=property(_subclass_data, Tensor.data.fset, Tensor.data.fdel, Tensor.data.__doc__))


def _to_innermost(func, args, kwargs):
    """A call of `func` (no registry op) handed to the innermost mode, popped while it handles it."""
    entry = _stack.pop()
    _registry.dispatch_hook = entry[1]
    try:
        with _handling(False):
            return entry[0]._dispatch_function(func, args, kwargs)
    finally:
        _stack.append(entry)
        _registry.dispatch_hook = _dispatch


def _dispatch_factory(aten, public, fn, args, kwargs):
    """The glue's `dispatch_factory`: a factory call (`aten`: see ops._registry.register) seen by the
    innermost mode as its aten overload, whose call runs `public` (the modes below see it in turn); with
    no mode, one on a __torch_dispatch__ subclass's instance (ones_like) handed to that subclass."""
    innermost = _registry.dispatch_hook is _dispatch
    types = None if innermost or _registry.dispatch_hook is not None else _dispatch_types(args[:1])
    if not innermost and not types:   # another hook (compile's tracer) is innermost: it sees ops only
        return fn(*args, **kwargs)
    requires_grad = kwargs.pop("requires_grad", False)   # (kwargs: the dict of this call)
    if kwargs.get("generator") is not None:
        overload = "generator"
    else:
        overload = aten[min(len(args), len(aten) - 1) or 1]
    func = _aten.function_overload(aten[0], overload, public)
    if innermost:
        out = _to_innermost(func, args, kwargs)
    else:
        with _handling(False):
            out = _torch_dispatch(func, types, args, kwargs)
    if requires_grad:   # as torch: set on the result, outside the modes
        out.requires_grad_(True)
    return out


_registry.dispatch_factory = _dispatch_factory


def _push_mode(mode):
    if not _stack:
        Tensor.detach = _detach
    _stack.append((mode, _registry.dispatch_hook))
    _registry.dispatch_hook = _dispatch


def _pop_mode(k=None):
    if k is not None:
        raise NotImplementedError("ndgrad: popping a dispatch mode by key (ndgrad has no dispatch keys)")
    if not _stack:
        raise RuntimeError("trying to pop from empty mode stack")
    mode, below = _stack.pop()
    _registry.dispatch_hook = below
    if not _stack:
        Tensor.detach = _plain_detach
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily(k=None):
    """The innermost dispatch mode off the stack for the block (yielded), back on after it."""
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)


def _get_current_dispatch_mode():
    """The innermost active dispatch mode (the next op call goes to it), or None."""
    return _stack[-1][0] if _stack else None


def _get_current_dispatch_mode_stack():
    """The active dispatch modes, innermost last."""
    return [mode for mode, _ in _stack]


def _len_torch_dispatch_stack():
    return len(_stack)


@contextlib.contextmanager
def _disable_current_modes():
    """Every dispatch mode off the stack for the block (yielded as a list, outermost first)."""
    popped = [_pop_mode() for _ in range(len(_stack))]
    try:
        yield popped[::-1]
    finally:
        for mode in reversed(popped):
            _push_mode(mode)
