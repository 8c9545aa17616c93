"""torch.utils.hooks: the handle that removes a hook (the one class every ndgrad hook registration
returns, from `_hooks`) and the helpers for hooks on tensors that are serialized.

torch's ``BackwardHook`` (the machinery behind ``Module.register_full_backward_hook``) is absent: ndgrad's
modules run their full backward hooks through their own autograd Function (nn/modules/module.py).
"""
import warnings

from .._hooks import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Marks `f` as a hook that is not meant to be saved with its tensor: :func:`warn_if_has_hooks` stays
    silent about it.

    Example::

        >>> @torch.utils.hooks.unserializable_hook
        ... def hook(grad):
        ...     return grad
        >>> hook.__torch_unserializable__
        True
    """
    f.__torch_unserializable__ = True
    return f


def _tensor_hooks(tensor):
    """The backward hooks registered on `tensor`: torch's legacy ``_backward_hooks`` dictionary if someone
    set one, else those of ``register_hook`` (kept on a leaf, or on the node that made the tensor)."""
    hooks = tensor._backward_hooks
    if hooks:
        return list(hooks.values())
    fn = tensor._grad_fn
    if fn is None:
        return list((tensor._hooks or {}).values())
    extra = fn._extra
    return list(extra.tensor_pre_hooks.get(tensor._output_nr, {}).values()) if extra is not None else []


def warn_if_has_hooks(tensor):
    """Warns (UserWarning) about each backward hook of `tensor` that serializing it would drop, unless the
    hook is marked with :func:`unserializable_hook`.

    Example::

        >>> import warnings
        >>> x = torch.zeros(2, requires_grad=True)
        >>> _ = x.register_hook(lambda grad: grad)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     torch.utils.hooks.warn_if_has_hooks(x)
        >>> "will not be serialized" in str(caught[0].message)
        True
    """
    for hook in _tensor_hooks(tensor):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this "
                          "warning", stacklevel=2)
