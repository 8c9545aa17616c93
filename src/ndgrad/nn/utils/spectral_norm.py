"""torch.nn.utils.spectral_norm: the hook-based spectral normalization (a forward pre-hook divides
<name>_orig by its largest singular value, estimated by power iteration on the buffers <name>_u and
<name>_v, which advance one step per forward in training), and remove_spectral_norm."""
from ...autograd.grad_mode import no_grad
from ...ops.linalg import dot, mv
from ...ops.normalization import normalize
from ..modules.convolution import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.lazy import UninitializedParameter
from ..parameter import Parameter
from .weight_norm import remove_reparametrization_hook


class SpectralNorm:
    """The forward pre-hook of nn.utils.spectral_norm: sets `module.<name>` to <name>_orig / sigma."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix whose rows run along `dim`."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():   # the buffers advance in place, as torch's normalize(..., out=u)
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mv(matrix.t(), u), dim=0, eps=self.eps))
                    u.copy_(normalize(mv(matrix, v), dim=0, eps=self.eps))
                # clones, so that the in-place steps of the next forward do not invalidate this graph
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(matrix, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying spectral normalization")
        with no_grad():
            matrix = fn.reshape_weight_to_matrix(weight)
            h, w = matrix.size()
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward recomputes it (torch sets weight.data)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization of `module.<name>` by a forward pre-hook (the original in <name>_orig, the
    power-iteration vectors in the buffers <name>_u, <name>_v; dim 1 for transposed convolutions).

    Example::

        >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3))
        >>> sorted(name for name, _ in m.named_parameters()), sorted(name for name, _ in m.named_buffers())
        (['bias', 'weight_orig'], ['weight_u', 'weight_v'])
    """
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`: `module.<name>` becomes a parameter holding the normalized weight.

    Example::

        >>> m = torch.nn.utils.remove_spectral_norm(torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3)))
        >>> sorted(name for name, _ in m.named_parameters())
        ['bias', 'weight']
    """
    return remove_reparametrization_hook(module, name, SpectralNorm, "spectral_norm")
