"""torch.utils._mode_utils: `no_dispatch`, and `all_same_mode`."""
from ._python_dispatch import _no_dispatch

__all__ = ["no_dispatch", "all_same_mode"]


def no_dispatch():
    """A context manager under which no dispatch mode (TorchDispatchMode) and no Tensor subclass's
    ``__torch_dispatch__`` sees the ops: how a handler runs `func` on its own instances.

    Example::

        >>> class Sub(torch.Tensor):
        ...     @classmethod
        ...     def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        ...         print(func)
        ...         with torch.utils._mode_utils.no_dispatch():
        ...             return func(*args, **kwargs)
        >>> torch.cos(Sub._make_subclass(Sub, torch.zeros(2)))
        aten.cos.default
        tensor([1., 1.])
    """
    return _no_dispatch()


def all_same_mode(modes):
    """Whether every mode of `modes` is the first one (the same object)."""
    return all(mode is modes[0] for mode in modes)
