"""torch.nn.utils.parametrize: parametrized tensors.

A parametrized tensor is recomputed from its originals on every access: register_parametrization
moves the tensor into `module.parametrizations[name]` (as `original`, or `original0..n` when the
parametrization's right_inverse returns several tensors) and gives the module a subclass whose
property `name` runs the parametrizations.
"""
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and its originals; calling it evaluates the tensor."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:   # a parametrization that cannot be assigned to starts as is
                        pass
        if not isinstance(new, (Tensor, tuple, list)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        as_param = isinstance(original, Parameter)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if new is not original:   # the original tensor itself is kept, holding the new value (torch's set_)
                original.data = new.detach()
            self._register_original("original", original, as_param)
        else:
            for i, t in enumerate(new):
                t = t.detach()
                self._register_original(f"original{i}", Parameter(t, original.requires_grad) if as_param else t,
                                        as_param)
        if not unsafe:   # torch evaluates the parametrization once (a spectral norm's first power step)
            value = self()
            if not isinstance(value, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
            if value.dtype != original.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original.dtype}\n"
                                 f"parametrized dtype: {value.dtype}")
            if value.shape != original.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original.shape}\n"
                                 f"parametrized shape: {value.shape}")

    def _register_original(self, name, tensor, as_param):
        if as_param:
            self.register_parameter(name, tensor)
        else:
            self.register_buffer(name, tensor)

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes `value`."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                elif not self.unsafe:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                                       "right_inverse.")
            values = [value] if self.is_tensor else list(value)
            for i, v in enumerate(values):
                getattr(self, "original" if self.is_tensor else f"original{i}").copy_(v)

    def forward(self):
        mods = list(self)
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in mods[1:]:
            x = module(x)
        return x


_cache_enabled = 0   # depth of nested `cached()` contexts
_cache = {}          # (id(module), tensor name) -> the tensor computed once inside them


@contextmanager
def cached():
    """Inside this context a parametrized tensor is computed once, on first access, and reused (a
    parametrization used several times in one forward, as an RNN's weight at each step); the cache
    is emptied on leaving the outermost context.

    Example::

        >>> from torch.nn.utils import parametrize
        >>> m = parametrize.register_parametrization(torch.nn.Linear(2, 2), "weight", torch.nn.Identity())
        >>> with parametrize.cached():
        ...     m.weight is m.weight
        True
        >>> m.weight is m.weight
        False
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _get_parametrized(module, tensor_name):
    if not _cache_enabled:
        return module.parametrizations[tensor_name]()
    key = (id(module), tensor_name)
    tensor = _cache.get(key)
    if tensor is None:
        tensor = _cache[key] = module.parametrizations[tensor_name]()
    return tensor


def _parametrized_class(module):
    """Give `module` (once) its own subclass, so properties can be added per instance."""
    cls = type(module)
    if getattr(cls, "_is_parametrized_class", False):
        return cls
    new = type(f"Parametrized{cls.__name__}", (cls,), {"_is_parametrized_class": True})
    module.__class__ = new
    return new


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` the output of `parametrization` applied to stored originals."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    original = getattr(module, tensor_name)
    if not isinstance(original, Tensor):
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    cls = _parametrized_class(module)
    setattr(cls, tensor_name, property(lambda self: _get_parametrized(self, tensor_name),
                                       lambda self, value: self.parametrizations[tensor_name].right_inverse(value)))
    return module


def is_parametrized(module, tensor_name=None):
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if plists is None or not isinstance(plists, ModuleDict):
        return False
    return tensor_name is None and len(plists) > 0 or tensor_name in plists


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization: the tensor becomes a plain parameter again (its current value,
    or the original when leave_parametrized=False)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if leave_parametrized:
        with no_grad():
            value = getattr(module, tensor_name)
    elif plist.is_tensor:
        value = plist.original
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                         "in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    setattr(module, tensor_name, Parameter(value.detach()))
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class of `module` before any parametrization was registered on it.

    Example::

        >>> from torch.nn.utils import parametrize
        >>> m = parametrize.register_parametrization(torch.nn.Linear(2, 2), "weight", torch.nn.Identity())
        >>> type(m).__name__, parametrize.type_before_parametrizations(m).__name__
        ('ParametrizedLinear', 'Linear')
    """
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on `to_module` the parametrizations of `from_module` (all, or those of `tensor_name`),
    sharing its originals; a tensor `to_module` lacks is first created from `from_module`'s value.

    Example::

        >>> from torch.nn.utils import parametrize
        >>> a = parametrize.register_parametrization(torch.nn.Linear(2, 2), "weight", torch.nn.Identity())
        >>> b = parametrize.transfer_parametrizations_and_params(a, torch.nn.Linear(2, 2))
        >>> b.parametrizations.weight.original is a.parametrizations.weight.original
        True
    """
    if not is_parametrized(from_module):
        return to_module
    for name in (from_module.parametrizations if tensor_name is None else [tensor_name]):
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
