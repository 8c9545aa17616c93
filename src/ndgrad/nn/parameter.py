"""Parameter: a leaf Tensor that a Module registers as one of its learnable weights."""
from .._tensor import PLAIN_TYPES, Tensor
from ..ops._torch_function import _disabled_torch_function_impl


class Parameter(Tensor):
    """A tensor that is a module parameter: `Parameter(data, requires_grad=True)` shares `data`'s
    memory, and assigning it to a `Module` attribute registers it in the module's parameters (what
    `parameters()` returns and optimizers update). Operations on a Parameter give plain tensors.

    Args:
        data (Tensor, optional): the values (default: an empty tensor).
        requires_grad (bool): whether autograd records operations on it. Default: ``True``.

    Example::

        >>> class Scale(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.factor = torch.nn.Parameter(torch.tensor([2.0]))
        ...     def forward(self, x):
        ...         return x * self.factor
        >>> m = Scale()
        >>> [name for name, _ in m.named_parameters()]
        ['factor']
        >>> m.factor
        Parameter containing:
        tensor([2.], requires_grad=True)
        >>> type(m.factor * 1).__name__
        'Tensor'
    """
    _is_param = True
    __torch_function__ = _disabled_torch_function_impl   # as torch: ops on a Parameter give plain Tensors

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: expected a Tensor as data, got {type(data).__name__}")
        self = Tensor.__new__(cls)
        self._array = data._array          # shares memory and version counter, as torch's Parameter(t)
        self._vc = data._vc
        self.requires_grad_(requires_grad)
        return self

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


PLAIN_TYPES.add(Parameter)   # (its __torch_function__ is disabled: ops see a Tensor)


# ---- api: Buffer
class _BufferMeta(type):
    # a Buffer is a plain Tensor marked as one: isinstance looks at the mark
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor marked as a module buffer: `Buffer(data, persistent=True)` is `data` detached, and
    assigning it to a `Module` attribute registers a buffer (module state that is not a parameter, such
    as running statistics; persistent: saved in the `state_dict`). What it returns is a Tensor.

    Args:
        data (Tensor, optional): the values (default: an empty tensor).
        persistent (bool): keep it in the module's `state_dict`. Default: ``True``.

    Example::

        >>> m = torch.nn.Module()
        >>> m.steps = torch.nn.Buffer(torch.zeros(1))
        >>> m.cache = torch.nn.Buffer(torch.ones(2), persistent=False)
        >>> [name for name, _ in m.named_buffers()], list(m.state_dict())
        (['steps', 'cache'], ['steps'])
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = Tensor()
        t = data.detach().requires_grad_(data.requires_grad)
        t._is_buffer = True
        t.persistent = persistent
        return t
