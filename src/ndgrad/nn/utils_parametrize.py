"""torch.nn.utils.parametrize / .parametrizations and the hook-based weight_norm.

A parametrized tensor is recomputed from its originals on every access: register_parametrization
moves the tensor into `module.parametrizations[name]` (as `original`, or `original0..n` when the
parametrization's right_inverse returns several tensors) and gives the module a subclass whose
property `name` runs the parametrizations. weight_norm uses torch's fused op (_weight_norm).
"""
import warnings

import ndgrad as _nd
from .module import Module
from .modules import ModuleDict, ModuleList
from .parameter import Parameter


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and its originals; calling it evaluates the tensor."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with _nd.no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if not isinstance(new, (_nd.Tensor, tuple, list)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, _nd.Tensor)
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
        with _nd.no_grad():
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
    if not isinstance(original, _nd.Tensor):
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
        with _nd.no_grad():
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


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _nd._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _nd.norm_except_dim(weight, 2, self.dim), weight


def parametrizations_weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.parametrizations.weight_norm: `name` = g * v / ||v|| with g, v as
    parametrizations.<name>.original0 / original1."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


class WeightNorm:
    """The forward pre-hook of the deprecated nn.utils.weight_norm: recomputes the weight from
    <name>_g and <name>_v before every forward."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        return _nd._weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_nd.norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with _nd.no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
