"""The functorch.* spellings of torch.func's transforms (deprecated in torch 2.0): each warns once
per call with torch's FutureWarning and runs the torch.func function."""
import functools
import warnings

from .. import func as _func
from .make_functional import combine_state_for_ensemble, make_functional, make_functional_with_buffers  # noqa: F401

__all__ = ["combine_state_for_ensemble", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev",
           "jvp", "make_functional", "make_functional_with_buffers", "vjp", "vmap"]


def _deprecated(name, new=None):
    target = getattr(_func, name)

    @functools.wraps(target)
    def wrapper(*args, **kwargs):
        warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, "
                      f"`functorch.{name}` is deprecated as of PyTorch 2.0 and will be deleted in a future version of "
                      f"PyTorch >= 2.3. Please use `torch.func.{new or name}` instead; see the PyTorch 2.0 release "
                      "notes and/or the `torch.func` migration guide for more details "
                      "https://pytorch.org/docs/main/func.migrating.html", FutureWarning, stacklevel=2)
        return target(*args, **kwargs)
    return wrapper


vmap, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, functionalize = (
    _deprecated(n) for n in ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
                             "functionalize"))
