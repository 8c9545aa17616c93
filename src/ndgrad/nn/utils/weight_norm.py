"""torch.nn.utils.weight_norm: the deprecated hook-based weight normalization (a forward pre-hook
recomputes the weight from <name>_g and <name>_v), and remove_weight_norm."""
import warnings

from ...autograd.grad_mode import no_grad
from ...ops.normalization import _weight_norm
from ...ops.reduction import norm_except_dim
from ..parameter import Parameter


class WeightNorm:
    """The forward pre-hook of the deprecated nn.utils.weight_norm: recomputes the weight from
    <name>_g and <name>_v before every forward."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

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
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with no_grad():
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
    return remove_reparametrization_hook(module, name, WeightNorm, "weight_norm")


def remove_reparametrization_hook(module, name, hook_type, label):
    """Undo a hook-based reparametrization of `module.<name>` (weight_norm, spectral_norm): the hook
    of `hook_type` removes itself, leaving a plain parameter; torch's error when there is none."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{label} of '{name}' not found in {module}")
