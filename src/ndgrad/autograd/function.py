"""Custom autograd Functions: a user-written forward and backward recorded as one graph node.

`MyFn.apply(*args)` runs `MyFn.forward` under no_grad and, when grad mode is on and a tensor
argument requires grad, makes the tensor outputs children of one node of class `MyFnBackward`
(created with the Function class). As in torch, that node is also the `ctx` that forward /
setup_context and backward receive. Its `_apply` fills in missing gradients, calls the user's
backward and checks what comes back; the engine then treats it like any generated node (edges,
sum_to / dtype cast through `_meta`, saved-tensor version checks, release after backward).
"""
import functools
import inspect
import warnings

from . import record
from . import anomaly_mode, forward_ad
from .grad_mode import grad_flag, state
from . import node as _node
from .._dtype import INEXACT_KINDS
from .._tensor import Tensor
from .graph import saved_hooks
from .node import Node, SavedOutput, _next_seq
from ..backends import current as current_backend, is_array, namespace


class FunctionCtx:
    """The context object (``ctx``) of a custom :class:`Function`.

    `forward` (or `setup_context`) uses it to prepare the backward: ``save_for_backward`` keeps
    tensors, which `backward` reads back version-checked as ``ctx.saved_tensors``; ``mark_dirty``
    declares the inputs changed in place, ``mark_non_differentiable`` the outputs without a gradient,
    ``set_materialize_grads(False)`` lets `backward` receive None for unused outputs. Other values
    can be stored as plain attributes (``ctx.k = k``).

    Example::

        >>> class Scale(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, k):
        ...         ctx.save_for_backward(x)
        ...         ctx.k = k
        ...         return x * x * k
        ...
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return grad * 2 * x * ctx.k, None
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> Scale.apply(x, 3.0).sum().backward()
        >>> x.grad
        tensor([ 6., 12.])
    """
    materialize_grads = True
    _materialize_non_diff_grads = True   # False: a non-differentiable output's gradient stays None
    _non_diff_outputs = ()
    to_save = ()
    saved_for_forward = ()
    dirty_tensors = ()
    non_differentiable = ()

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward, where `ctx.saved_tensors` returns them version-checked."""
        for i, t in enumerate(tensors):
            if t is not None and not _is_tensor(t):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        for t in tensors:
            if t is not None and not _is_tensor(t):
                raise TypeError(f"save_for_forward expects all arguments to be tensors; but got {type(t)}.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that forward modified in place (they must be returned as outputs)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that never carry a gradient (they will not require grad)."""
        for t in tensors:
            if not _is_tensor(t):
                raise RuntimeError(f"mark_non_differentiable only accepts variable arguments, but got "
                                   f"{type(t).__name__}")
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """True (default): backward gets zeros for outputs without a gradient; False: it gets None."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """Base of the `<Function>Backward` node classes (one per Function subclass)."""
    _forward_cls = None
    _takes_missing = True    # the engine hands over None for absent gradients; _apply fills them in
    _in_jvp = False

    __repr__ = object.__repr__   # a Python class, unlike the generated nodes: <module.FnBackward object at ...>

    def _init(self):
        self._sequence_nr_ = _next_seq()
        self._extra = None
        self.next_functions = ()
        self._meta = None
        self._out_meta = None
        self._saved = []
        self._versions = []

    @property
    def saved_tensors(self):
        if self._in_jvp:   # Function.jvp reads what forward kept with save_for_forward
            return tuple(self.saved_for_forward)
        if not self._forward_cls.clear_saved_tensors_on_access:
            return tuple(self._unpack_saved())
        if self.__dict__.get("_saved_cleared"):
            raise RuntimeError("saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is "
                               "set on the autograd.Function. Either access saved_tensors only once, or set "
                               "clear_saved_tensors_on_access=False.")
        values = tuple(self._unpack_saved())
        # the node lets go of them: the caller's references are the last ones
        self._saved, self._versions, self._saved_tensor_idx, self._saved_cleared = [], [], (), True
        return values

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self):
        """One SavedTensor per value passed to save_for_backward (hooks can be registered on them)."""
        if self._saved is None:
            self._unpack_saved()   # raises torch's "already been freed" error
        return tuple(_node.raw_saved(self, i) for i in range(len(self._saved)))

    def _user_fn(self):
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                               "You should only implement one of them.")
        return cls.vjp if cls.vjp is not Function.vjp else cls.backward

    def apply(self, *grads):
        """Call the user's backward directly (as the engine does, without the checks)."""
        return self._user_fn()(self, *grads)

    def _apply(self, grads, mask, create_graph):
        meta = self._out_meta
        if len(grads) < len(meta):
            grads = list(grads) + [None] * (len(meta) - len(grads))
        if self.materialize_grads:
            if not self._materialize_non_diff_grads:   # non-differentiable outputs keep None
                meta = [None if k in self._non_diff_outputs else m for k, m in enumerate(meta)]
            grads = _materialize(grads, meta)
        result = self._user_fn()(self, *grads)
        return self._check_result(result if type(result) is tuple else (result,))

    def _check_result(self, result):
        """One gradient per tensor input, in edge order, after torch's checks."""
        is_tensor = self._input_is_tensor
        n = len(is_tensor)
        if len(result) > n and all(r is None for r in result[n:]):
            result = result[:n]     # extra trailing Nones are allowed
        if len(result) != n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(result)})")
        out = []
        for i, (g, tensor_input) in enumerate(zip(result, is_tensor)):
            if g is not None and not _is_tensor(g):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if tensor_input:
                out.append(g)
            elif g is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
        return out

    def _release(self):
        self._saved = None   # as torch: saved_tensors is gone after a backward without retain_graph


class Function(FunctionCtx):
    """Base class of custom autograd operations: subclass it and call ``MyFn.apply(...)``.

    Subclasses define static methods:

    - ``forward(ctx, *args)``, which computes the result and saves what backward needs
      (``ctx.save_for_backward(*tensors)``, or attributes of `ctx`); or ``forward(*args)`` together
      with ``setup_context(ctx, inputs, output)``;
    - ``backward(ctx, *grad_outputs)`` (or ``vjp``), which returns one gradient (or None) per
      argument of forward;
    - optionally ``jvp(ctx, *tangents)`` for forward-mode AD.

    The node a call records is named after the class (``MyFnBackward``) and its formulas run like
    those of a built-in op, hooks included.

    Example::

        >>> class Square(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> x = torch.tensor([1.0, 3.0], requires_grad=True)
        >>> y = Square.apply(x)
        >>> y.grad_fn.name()
        'SquareBackward'
        >>> y.sum().backward()
        >>> x.grad
        tensor([2., 6.])
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # torch makes the node class in torch.autograd.function, so that is the module its repr shows
        # (`<torch.autograd.function.MyFnBackward object at ...>` for every grad_fn printed): named as
        # torch names it, as generated nodes are named as torch's C++ classes are
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": "torch.autograd.function"})

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will "
                      "raise an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    generate_vmap_rule = False   # ndgrad's func.vmap has no rule generation for custom Functions
    clear_saved_tensors_on_access = False   # True: ctx.saved_tensors may be read once, then the node lets go

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        separate_setup = cls.setup_context is not Function.setup_context
        if separate_setup:
            args, kwargs = _bind_defaults(cls, args, kwargs)
        inputs = args + tuple(kwargs.values()) if kwargs else args
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        ctx._init()
        is_tensor, needs, tensors = [], [], []
        for a in inputs:
            t = isinstance(a, Tensor)
            is_tensor.append(t)
            needs.append(t and a._requires_grad)
            if t:
                tensors.append(a)
        ctx._input_is_tensor = is_tensor
        ctx.needs_input_grad = tuple(needs)
        recording = state.enabled and any(needs)
        if recording:
            # the edges are the inputs' histories from before forward (a dirty input gets a new one)
            ctx.next_functions = tuple([_node.edge(t) for t in tensors])
            ctx._meta = [(t._array.shape, t._array.dtype) for t in tensors]
        prev = state.enabled
        state.enabled = False
        fw_level = forward_ad.state.level
        forward_ad.state.level = None   # forward sees no tangents (as in torch): jvp gives the outputs'
        try:
            if separate_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        finally:
            state.enabled = prev
            forward_ad.state.level = fw_level
        is_tuple = isinstance(output, tuple)
        outputs = _wrap_outputs(ctx, inputs, tensors, output if is_tuple else (output,), recording)
        if fw_level is not None:
            _forward_ad(cls, ctx, inputs, outputs)
        _save(ctx, outputs)
        if recording and anomaly_mode.state.enabled:
            anomaly_mode.record(ctx)
        return tuple(outputs) if is_tuple else outputs[0]


Function._backward_cls = type("FunctionBackward", (BackwardCFunction,), {"_forward_cls": Function})


def _zeros_like(t):
    data = t._array
    return Tensor._make(namespace(data).zeros(data.shape, data.dtype), False, None, 0)


def _forward_ad(cls, ctx, inputs, outputs):
    """Forward AD through a custom Function: its jvp maps the inputs' tangents (zeros for floating
    tensors without one, None for other arguments) to one tangent per output, which must respect
    what forward did: None for a non-differentiable output, the input's tangent modified in place
    for a dirty one, a view of the input's tangent (or of its base) for a view of an input."""
    tangents = [forward_ad.tangent_of(a) if isinstance(a, Tensor) else None for a in inputs]
    if all(t is None for t in tangents):
        return
    tangents = [t if t is not None or not isinstance(a, Tensor) or a._array.dtype.kind not in INEXACT_KINDS else _zeros_like(a)
                for a, t in zip(inputs, tangents)]
    versions = [t._vc[0] if t is not None else None for t in tangents]
    level = forward_ad.state.level
    ctx._in_jvp = True
    try:
        with forward_ad._paused():
            result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected "
                           f"{len(outputs)} but got {len(result)})")
    for i, (out, t) in enumerate(zip(outputs, result)):
        if t is None:
            continue
        if not isinstance(out, Tensor) or i in ctx._non_diff_outputs:
            raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding forward "
                               "output is not a differentiable Tensor.You should return None at that position instead.")
        k = _index_in(inputs, out)
        if k is not None:   # a dirty input, returned modified in place
            if t is not tangents[k] or t._vc[0] == versions[k]:
                raise RuntimeError("An inplace custom Function is not modifying the forward mode gradients inplace. "
                                   "If the forward is modifying an input inplace, then the jvp function must modify "
                                   "the corresponding gradient inplace.")
        elif out._base is not None:
            _check_view_tangent(out, t, inputs, tangents)
        out._fw = (level, t)


def _check_view_tangent(out, t, inputs, tangents):
    """The tangent of an output that is a view of an input (or the input as-is) must be a view of
    that input's tangent: of its base when the input's tangent is itself a view."""
    base = out._base
    k = next((k for k, a in enumerate(inputs) if isinstance(a, Tensor) and (a is base or a._base is base)), None)
    if k is None or tangents[k] is None:
        return   # a view of something forward made: nothing to match
    if t._base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                           "returning a view.")
    given = tangents[k]
    if given._base is None:
        if t._base is not given:
            raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the "
                               "given grad input.")
    elif t._base is not given._base:
        raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the same "
                           "base as the given grad input.")


def _index_in(items, x):
    for k, item in enumerate(items):
        if item is x:
            return k
    return None


def _bind_defaults(cls, args, kwargs):
    """With setup_context, forward's defaults are filled in so `inputs` lists every argument (as torch)."""
    info = cls.__dict__.get("_forward_signature")
    if info is None:
        sig = inspect.signature(cls.forward)
        positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        simple = len(positional) == len(sig.parameters)
        info = (sig, len(positional) if simple else -1)
        cls._forward_signature = info
    sig, n_positional = info
    if not kwargs and len(args) == n_positional:
        return args, kwargs     # nothing to bind: every parameter given positionally
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


def _is_in(items, x):
    """Whether object x is one of items (by identity: tensors compare elementwise with ==)."""
    for item in items:
        if item is x:
            return True
    return False


def _wrap_outputs(node, inputs, input_tensors, outputs, recording):
    """Give the tensor outputs their history (node, output_nr), as torch does for custom Functions."""
    dirty, non_diff = node.dirty_tensors, node.non_differentiable
    for t in dirty:
        if not _is_in(outputs, t):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                               "output. The inputs that are modified inplace must all be outputs of the Function.")
    if dirty and not all(_is_in(input_tensors, t) for t in dirty):
        dirty = _dirty_inputs(dirty, input_tensors)
    result = list(outputs)
    n_diff = 0
    for k, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            continue
        if dirty and _is_in(dirty, t):
            t._vc[0] += 1
            if recording:
                _rebase_dirty(node, t, k, len(outputs), input_tensors[0])
            continue
        if _is_in(input_tensors, t):
            # an input returned as-is: the output is a new alias (a view, as torch, unless grad mode is
            # off), so the input keeps its own history
            if state.enabled:
                with grad_flag(False):
                    t = result[k] = t.view(t.shape)
            else:
                t = result[k] = Tensor._make(t._array, False, None, 0)
                t._vc = outputs[k]._vc
        float_type = t._array.dtype.kind in INEXACT_KINDS
        differentiable = float_type and not (non_diff and _is_in(non_diff, t))
        if not differentiable:
            node._non_diff_outputs += (k,)
        if recording and differentiable:
            t._requires_grad, t._grad_fn, t._output_nr = True, node, k
            n_diff += 1
        if t._base is not None and float_type:   # torch forbids in-place ops on views a custom Function
            t._creation = "custom"               # returns, recorded or not (integer views are no views there)
    if n_diff > 1:   # ... with its own message when several outputs are differentiable
        for t in result:
            if isinstance(t, Tensor) and t._creation == "custom":
                t._creation = "multi"
    node._out_meta = [(t._array.shape, t._array.dtype) if isinstance(t, Tensor) else None for t in result]
    node.__dict__.pop("dirty_tensors", None)   # the node must not keep its outputs alive (a cycle)
    node.__dict__.pop("non_differentiable", None)
    return result


def _dirty_inputs(dirty, input_tensors):
    """mark_dirty of a tensor forward made: refused for a view (its base's history could not be
    rewritten), otherwise a warning and the tensor is an ordinary output."""
    msg = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated "
           "should be passed to ctx.mark_dirty().")
    kept = []
    for t in dirty:
        if _is_in(input_tensors, t):
            kept.append(t)
        elif t._base is not None:
            raise RuntimeError(msg)
        else:
            warnings.warn(msg, UserWarning, stacklevel=4)
    return tuple(kept)


def _rebase_dirty(node, t, k, n_outputs, first_tensor):
    """A dirty input's history becomes the node (through CopySlices for a view)."""
    if t._grad_fn is None and t._requires_grad and t._base is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    if t._base is not None:
        if t._creation is not None:   # a view of a multi-output op, made in no_grad, or a custom Function's
            record.refuse_view_inplace(t)
        base = t._base
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        if n_outputs > 1:
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot "
                "return more than one Tensor. This is not supported by the current autograd engine. You should "
                "either make sure the input is not a view (using .clone() for example) or make your Function only "
                "return one Tensor (potentially splitting it into two Functions: one doing the inplace that returns "
                "a single Tensor and a second one that does the other operations). You can ask on the forum "
                "https://discuss.pytorch.org/ if you need help to do this change.")
        if first_tensor is not t:   # CopySlices routes the view's gradient through the node's first edge
            raise NotImplementedError("ndgrad: mark_dirty on a view is supported only for the first tensor "
                                      "argument of the Function")
    record.rebase_history(t, node)
    if t._base is None:
        t._output_nr = k


def _save(node, outputs):
    """Turn ctx.to_save into version-checked saved values; outputs are saved without a reference cycle."""
    saved, versions = [], []
    for t in node.to_save:
        if t is None:
            saved.append(None)
            versions.append(None)
        else:
            saved.append(SavedOutput(t) if _is_in(outputs, t) else t)
            versions.append(t._vc[0])
    node._saved, node._versions = saved, versions
    node._saved_tensor_idx = range(len(saved))
    node.to_save = None
    if saved_hooks:
        saved_hooks[-1].pack_node(node)


class Error(Node):
    """A node whose backward raises: what DelayedError gives its outputs (@once_differentiable)."""
    __slots__ = ("msg",)
    _takes_missing = True   # it raises whatever arrives: no zeros to make (some outputs may be None)

    def __init__(self, msg, inputs):
        self.msg = msg
        self.next_functions = tuple([_node.edge(t) if t is not None else (None, 0) for t in inputs])
        self._meta = [(t._array.shape, t._array.dtype) if t is not None else None for t in inputs]
        self._out_meta = self._meta if len(inputs) > 1 else None
        self._sequence_nr_ = _next_seq()
        self._saved = None
        self._extra = None

    def name(self):
        return "torch::autograd::Error"

    def _apply(self, grads, mask, create_graph):
        raise RuntimeError(self.msg)


class DelayedError(Node):
    """`DelayedError(msg, n)(*tensors)`: aliases of the n tensors (None stays None) whose grad_fn is
    an Error node, so that differentiating them raises RuntimeError(msg) (torch._C._functions).
    A node applied to tensors in forward, as torch's C++ nodes called from Python are."""
    __slots__ = ("msg", "num_inputs")

    def __init__(self, msg, num_inputs):
        self.next_functions, self._meta, self._out_meta, self._saved, self._extra = (), None, None, None, None
        self._sequence_nr_ = _next_seq()
        self.msg = msg.decode() if isinstance(msg, bytes) else msg
        self.num_inputs = num_inputs

    def __call__(self, *inputs):
        if len(inputs) != self.num_inputs:
            raise TypeError(f"expected {self.num_inputs} arguments, got {len(inputs)} instead")
        err = None
        if state.enabled and any(t is not None and t._requires_grad for t in inputs):
            err = Error(self.msg, inputs)
        outs = tuple(None if t is None else Tensor._make(t._array, err is not None, err, k)
                     for k, t in enumerate(inputs))
        return outs[0] if len(outs) == 1 else outs


class UndefinedGradBackward(Node):
    """Passes no gradient on: the input's gradient is undefined (None)."""
    __slots__ = ()

    def __init__(self, t):
        self.next_functions = (_node.edge(t),)
        self._meta = [(t._array.shape, t._array.dtype)]
        self._out_meta = None
        self._sequence_nr_ = _next_seq()
        self._saved = None
        self._extra = None

    def name(self):
        return "torch::autograd::UndefinedGradBackward"

    def _apply(self, grads, mask, create_graph):
        return [None]


class UndefinedGrad(Node):
    """`UndefinedGrad()(t)`: an alias of t whose gradient reaches t's history as None (undefined),
    the way to test what a backward does without a gradient (torch._C._functions; a node applied
    in forward, like DelayedError)."""
    __slots__ = ()

    def __init__(self):
        self.next_functions, self._meta, self._out_meta, self._saved, self._extra = (), None, None, None, None
        self._sequence_nr_ = _next_seq()

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"expected 1 arguments, got {len(inputs)} instead")
        t = inputs[0]
        if not (state.enabled and t._requires_grad):
            return Tensor._make(t._array, False, None, 0)
        return Tensor._make(t._array, True, UndefinedGradBackward(t), 0)


def once_differentiable(fn):
    """Decorate the `backward` of a custom :class:`Function` that is not itself differentiable.

    The decorated backward runs without recording a graph, so it may use operations autograd cannot
    follow. Where a double backward could reach its results, they carry a node that raises
    RuntimeError if differentiated, instead of silently giving wrong second derivatives.

    Args:
        fn (callable): the ``backward(ctx, *grads)`` static method.

    Returns:
        callable: the wrapped backward.

    Example::

        >>> class Cube(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...
        ...     @staticmethod
        ...     @torch.autograd.function.once_differentiable
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return grad * 3 * x ** 2
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> torch.autograd.grad(Cube.apply(x).sum(), x)
        (tensor([ 3., 12.]),)
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_flag(False):
            outputs = fn(ctx, *args)
        if not state.enabled or not any(_is_tensor(a) and a._requires_grad for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        err_fn = DelayedError("trying to differentiate twice a function that was marked with @once_differentiable",
                              len(outs))
        leaves = []
        for o in outs:   # detached aliases that require grad: the Error node needs an edge to each
            if o is not None:
                o = o.detach()
                o._requires_grad = True
            leaves.append(o)
        return err_fn(*leaves)
    return wrapper


class InplaceFunction(Function):
    """Kept for compatibility with old code, as in torch: use Function."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def _is_tensor(x):
    return isinstance(x, Tensor)


def _materialize(grads, meta):
    """Zeros (on the backend of the gradients present) for the absent gradients of tensor outputs."""
    present = next((g for g in grads if g is not None and is_array(g._array)), None)   # sparse ones have no backend
    backend = namespace(present._array) if present is not None else current_backend()
    return [g if g is not None or m is None else Tensor._make(backend.zeros(m[0], m[1]), False, None, 0)
            for g, m in zip(grads, meta)]


