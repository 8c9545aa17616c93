"""Lazy modules: LazyLinear, LazyConv*/LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*.

Their weights are UninitializedParameters until the first call, which reads the input's feature
or channel count, gives the parameters (and running statistics) their shapes, runs the layer's
default initialisation, and turns the module into its ordinary class (LazyLinear -> Linear), as
torch does. load_state_dict before the first call takes the shapes from the checkpoint.
"""
from ... import _dtype
from ..._tensor import Tensor
from ...ops.creation import empty
from ...ops._torch_function import _disabled_torch_function_impl
from ..parameter import Parameter
from .convolution import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d)


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet, as lazy modules hold until their first call.

    It is a :class:`~ndgrad.nn.Parameter` without data; ``materialize(shape)`` gives it its shape
    (and dtype) and turns it into a plain :class:`~ndgrad.nn.Parameter`, whose values the module
    then initialises.

    Args:
        requires_grad (bool, optional): whether the parameter requires grad. Default: True.
        device (ndgrad.device, optional): only the CPU is supported.
        dtype (ndgrad.dtype, optional): the dtype (default: the default float dtype).

    Example::

        >>> p = torch.nn.UninitializedParameter()
        >>> isinstance(p, torch.nn.Parameter)
        True
        >>> p.materialize((2, 3))
        >>> type(p).__name__, p.shape
        ('Parameter', torch.Size([2, 3]))
    """

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return super().__new__(cls, empty(0, dtype=dtype or _dtype.get_default_dtype()), requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        self.data = empty(*shape, dtype=dtype or self.dtype)
        self.__class__ = Parameter

    def __repr__(self):
        return "<UninitializedParameter>"


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet, as lazy modules hold until their first call (the running
    statistics of the lazy norm layers).

    ``materialize(shape)`` gives it its shape (and dtype) and turns it into a plain Tensor.

    Args:
        requires_grad (bool, optional): whether the buffer requires grad. Default: False.
        device (ndgrad.device, optional): only the CPU is supported.
        dtype (ndgrad.dtype, optional): the dtype (default: the default float dtype).

    Example::

        >>> type(torch.nn.LazyBatchNorm1d().running_mean).__name__
        'UninitializedBuffer'
        >>> b = torch.nn.UninitializedBuffer()
        >>> b.materialize((3,))
        >>> type(b).__name__, b.shape
        ('Tensor', torch.Size([3]))
    """
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        self = Tensor.__new__(cls)
        self.data = empty(0, dtype=dtype or _dtype.get_default_dtype())
        if requires_grad:
            self.requires_grad_(True)
        return self

    def materialize(self, shape, device=None, dtype=None):
        self.data = empty(*shape, dtype=dtype or self.dtype)
        self.__class__ = Tensor

    def __repr__(self):
        return "<UninitializedBuffer>"


def _uninitialized(value):
    return isinstance(value, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    """The mixin of lazy modules, whose parameter shapes come from their first input.

    Such a module (:class:`LazyLinear`, the lazy convolutions and norms) starts with
    :class:`UninitializedParameter` and :class:`UninitializedBuffer` values; its first call runs its
    ``initialize_parameters(*inputs)``, which materializes them, and then the module becomes an
    instance of its ``cls_to_become`` (``Linear`` for ``LazyLinear``). ``has_uninitialized_params()``
    tells whether that has happened; loading a state dict also gives the shapes.

    Example::

        >>> m = torch.nn.LazyLinear(4)
        >>> isinstance(m, torch.nn.modules.lazy.LazyModuleMixin), m.has_uninitialized_params()
        (True, True)
        >>> m(torch.ones(2, 3)).shape
        torch.Size([2, 4])
        >>> type(m).__name__, m.weight.shape
        ('Linear', torch.Size([4, 3]))
    """
    cls_to_become = None

    def _lazy_setup(self):
        self._lazy_hook = self.register_forward_pre_hook(_infer_parameters)

    def has_uninitialized_params(self):
        return any(_uninitialized(v) for v in list(self._parameters.values()) + list(self._buffers.values()))

    def load_state_dict(self, state_dict, strict=True, assign=False):
        for registry in (self._parameters, self._buffers):   # shapes come from the checkpoint
            for name, value in registry.items():
                if _uninitialized(value) and name in state_dict:
                    value.materialize(tuple(state_dict[name].shape))
        return Module.load_state_dict(self, state_dict, strict, assign)


def _infer_parameters(module, args):
    if module.has_uninitialized_params():
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._lazy_hook.remove()
    del module._lazy_hook
    module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """`Linear` with `in_features` left out: it is read from the first input (its last dimension). Until
    then `weight` and `bias` are uninitialized; the first call gives them their shapes, initialises them
    as `Linear` does and turns the module into a `Linear`.

    Args:
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.

    Example::

        >>> m = torch.nn.LazyLinear(4)
        >>> m(torch.ones(2, 3)).shape
        torch.Size([2, 4])
        >>> type(m).__name__, m.weight.shape
        ('Linear', torch.Size([4, 3]))
    """
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, 0, False)
        self.out_features = out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        self.in_features = input.shape[-1]
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        self.reset_parameters()


class _LazyConv(LazyModuleMixin):
    def _lazy_init(self, out_channels, bias, dtype):
        self.out_channels = out_channels
        self.in_channels = 0
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args):
        unbatched = input.dim() == self._dims + 1
        self.in_channels = input.shape[0 if unbatched else 1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self._transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv(base):
    if base._transposed:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                          padding_mode)
            self._lazy_init(out_channels, bias, dtype)
    else:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
            self._lazy_init(out_channels, bias, dtype)
    name = "Lazy" + base.__name__
    return type(name, (_LazyConv, base), {"__init__": __init__, "cls_to_become": base, "__module__": __name__,
                                          "__doc__": _lazy_doc(base, "in_channels", "out_channels, kernel_size")})


class _LazyNorm(LazyModuleMixin):
    def _lazy_init(self, dtype):
        if self.affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        self.num_features = input.shape[1]
        for value in (self.weight, self.bias, self.running_mean, self.running_var):
            if value is not None and _uninitialized(value):
                value.materialize((self.num_features,))
        self.reset_parameters()


def _lazy_norm(base, affine, track):
    def __init__(self, eps=1e-5, momentum=0.1, affine=affine, track_running_stats=track, device=None, dtype=None):
        base.__init__(self, 0, eps, momentum, affine, track_running_stats)
        self._lazy_init(dtype)
    name = "Lazy" + base.__name__
    return type(name, (_LazyNorm, base), {"__init__": __init__, "cls_to_become": base, "__module__": __name__,
                                          "__doc__": _lazy_doc(base, "num_features", "")})


def _lazy_doc(base, inferred, first_args):
    """The docstring of a generated lazy class, e.g. LazyConv2d: its example builds one, calls it and
    shows what it became."""
    dims = int(base.__name__[-2])
    shape = ", ".join(["2", "3"] + ["4"] * dims)
    make = f"torch.nn.Lazy{base.__name__}({'4, 3' if first_args else ''})"
    where = "its dimension 1, or 0 unbatched" if first_args else "its dimension 1"
    what = "parameters" if first_args else "parameters and running statistics"
    defaults = (" (`affine` and `track_running_stats` default to ``True`` here)"
                if base.__name__.startswith("Instance") else "")
    return f"""`{base.__name__}` with `{inferred}` left out: it is read from the first input ({where}).

Until then the {what} are uninitialized; the first call gives them their shapes,
initialises them as `{base.__name__}` does and turns the module into a `{base.__name__}`. The
constructor takes the arguments of `{base.__name__}` but `{inferred}`{defaults}.

Example::

    >>> m = {make}
    >>> m(torch.ones({shape})).shape[:2]
    torch.Size([2, {'4' if first_args else '3'}])
    >>> type(m).__name__, m.{'in_channels' if first_args else 'num_features'}
    ('{base.__name__}', 3)
"""


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv(c) for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv(c) for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
# torch's lazy instance norms default to affine=True and track_running_stats=True
LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (_lazy_norm(c, True, True)
                                                     for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy_norm(c, True, True) for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "UninitializedParameter", "UninitializedBuffer",
           "LazyModuleMixin"]
