"""ndgrad.jit (torch.jit): TorchScript is not compiled in ndgrad; this module is torch.jit as torch
behaves with its JIT disabled (``PYTORCH_JIT=0``): ``script`` and ``trace`` give back what they are
handed, which then runs eagerly with the same numbers; ``fork`` runs the call at once and returns a
completed :class:`~ndgrad.futures.Future`; the decorators (``ignore``, ``unused``, ``export``...) are
pass-throughs. What needs compiled TorchScript (``save``, ``load``, ``freeze``, a graph) raises.
"""
import builtins
import functools
import typing

from ..futures import Future

__all__ = ["Attribute", "Error", "Final", "Future", "ScriptFunction", "ScriptModule", "annotate", "export", "fork",
           "freeze", "ignore", "interface", "is_scripting", "is_tracing", "isinstance", "load", "save", "script",
           "script_if_tracing", "trace", "trace_module", "unused", "wait"]

Final = typing.Final


class Error(RuntimeError):
    """torch.jit.Error: TorchScript's runtime error."""


class ScriptModule:
    """No object is ever a ScriptModule in ndgrad (``script`` returns the module itself)."""


class ScriptFunction:
    """No object is ever a ScriptFunction in ndgrad (``script`` returns the function itself)."""


def script(obj=None, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Return `obj` itself: ndgrad runs it eagerly (torch.jit.script with the JIT disabled).

    Example::

        >>> @torch.jit.script
        ... def f(x):
        ...     return x * 2
        >>> f(torch.ones(2))
        tensor([2., 2.])
    """
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Return `func` itself: ndgrad runs it eagerly (torch.jit.trace with the JIT disabled)."""
    return func


def trace_module(mod, inputs, *args, **kwargs):
    """Return `mod` itself (torch.jit.trace_module with the JIT disabled)."""
    return mod


def script_if_tracing(fn):
    """`fn`, run eagerly (nothing is ever traced in ndgrad)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def fork(func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` now and return a completed Future holding its result (torch's
    fork, called from eager code, also runs the call inline)."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The result of a Future from :func:`fork`."""
    return future.wait()


_fork, _wait = fork, wait   # torch.jit._fork / _wait, the older spellings


def is_scripting():
    """False: nothing runs as TorchScript in ndgrad."""
    return False


def is_tracing():
    """False: nothing is traced in ndgrad."""
    return False


def annotate(the_type, the_value):
    """`the_value` (the type is TorchScript's hint only)."""
    return the_value


def Attribute(value, type):   # noqa: N802,A002 - torch's name and parameters
    """`value` (the type is TorchScript's hint only)."""
    return value


def _pass_through(fn=None, **kwargs):
    """A decorator that changes nothing, usable bare or called with options."""
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


ignore = unused = export = interface = _pass_through


def isinstance(obj, target_type):   # noqa: A001 - torch.jit.isinstance
    """Whether `obj` is a `target_type`, where that may be a parametrised container type
    (``List[int]``, ``Dict[str, Tensor]``, ``Optional[int]``, ``Tuple[int, str]``), checked element by element."""
    origin = typing.get_origin(target_type)
    args = typing.get_args(target_type)
    if origin is None:
        return builtins.isinstance(obj, target_type)
    if origin is typing.Union:
        return any(isinstance(obj, t) for t in args)
    if not builtins.isinstance(obj, origin):
        return False
    if origin in (list, set, frozenset):
        return all(isinstance(x, args[0]) for x in obj) if args else True
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items()) if args else True
    if origin is tuple:
        return len(obj) == len(args) and all(isinstance(x, t) for x, t in zip(obj, args)) if args else True
    return True


def _no_torchscript(what):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"torch.jit.{what}: ndgrad compiles no TorchScript (torch.jit.script and trace "
                                  "return their argument unchanged). Save weights with ndgrad.save(model.state_dict(), "
                                  "path) instead.")
    refuse.__name__ = what
    return refuse


save, load = _no_torchscript("save"), _no_torchscript("load")


def _refuse_plain_module(what):
    # nothing is a ScriptModule in ndgrad: torch's refusal of a plain module
    raise RuntimeError(f"{what} expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace to "
                       "script your 'nn.Module'.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Refused: freezing needs a ScriptModule, and ndgrad has none."""
    _refuse_plain_module("Freezing")


def optimize_for_inference(mod, other_methods=None):
    """Refused: it needs a ScriptModule, and ndgrad has none."""
    _refuse_plain_module("optimize_for_inference")
