"""Activation checkpointing: keep less for backward and recompute it when backward needs it.

`checkpoint(fn, *args, use_reentrant=False)` runs fn inside saved_tensors_hooks whose pack hook
keeps only a position number: the graph is built as usual, but its nodes hold placeholders. The
first time backward unpacks one, fn runs again (same inputs, same random state, grad mode on)
with a pack hook that collects what its ops save, in the same order; each placeholder then
resolves to its recomputed value, and the gradients are exactly those without checkpointing.

`use_reentrant=True` is torch's older scheme: a custom Function that runs fn under no_grad and,
in its backward, reruns fn and calls backward on the result (so it cannot be used with
autograd.grad or backward(inputs=...)).
"""
import warnings

from .. import _random
from ..autograd import engine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad
from ..autograd.graph import saved_tensors_hooks
from .._tensor import Tensor
from ..autograd import backward

__all__ = ["checkpoint", "checkpoint_sequential"]


def _is_tensor(x):
    return isinstance(x, Tensor)


def _detached(args):
    """The arguments as new leaves (same data) that require grad where the originals did."""
    return tuple(a.detach().requires_grad_(a.requires_grad) if _is_tensor(a) else a for a in args)


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
    rng = _random.get_rng_state() if preserve else None
    recompute = _Recompute(function, _detached(args), kwargs, rng)
    with recompute.placeholders():
        return function(*args, **kwargs)


class _Recompute:
    """The saved values of one checkpointed call: placeholders now, recomputed on first use."""

    def __init__(self, function, args, kwargs, rng):
        self.function, self.args, self.kwargs, self.rng = function, args, kwargs, rng
        self.count = 0
        self.values = None

    def placeholders(self):
        def pack(t):
            self.count += 1
            return self.count - 1

        return saved_tensors_hooks(pack, self.value)

    def value(self, k):
        if self.values is None:
            values = []
            with _rng_replay(self.rng), enable_grad(), saved_tensors_hooks(lambda t: values.append(t) or t,
                                                                           lambda t: t):
                self.function(*self.args, **self.kwargs)
            if len(values) != self.count:
                raise RuntimeError(f"torch.utils.checkpoint: the recomputation saved {len(values)} tensors for "
                                   f"backward but the original forward saved {self.count}: the checkpointed "
                                   "function must do the same operations when it is run again.")
            self.values = values
        return self.values[k]


class CheckpointFunction(Function):
    """use_reentrant=True: one node whose backward reruns the function and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _random.get_rng_state() if preserve_rng_state else None
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
        with _rng_replay(ctx.rng), enable_grad():
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
