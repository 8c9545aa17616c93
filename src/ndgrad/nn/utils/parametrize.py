"""torch.nn.utils.parametrize: parametrized tensors.

A parametrized tensor is recomputed from its originals on every access: register_parametrization
moves the tensor into `module.parametrizations[name]` (as `original`, or `original0..n` when the
parametrization's right_inverse returns several tensors) and gives the module a subclass whose
property `name` runs the parametrizations.
"""
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
                    new = module.right_inverse(new)
        if not isinstance(new, (Tensor, tuple, list)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        as_param = isinstance(original, Parameter)
        for i, t in enumerate([new] if self.is_tensor else new):
            name = "original" if self.is_tensor else f"original{i}"
            t = t.detach()
            if as_param:
                self.register_parameter(name, Parameter(t, original.requires_grad))
            else:
                self.register_buffer(name, t)

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
    setattr(cls, tensor_name, property(lambda self: self.parametrizations[tensor_name](),
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
