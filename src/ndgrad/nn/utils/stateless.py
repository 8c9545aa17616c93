"""torch.nn.utils.stateless: the deprecated home of functional_call (torch.func.functional_call now)."""
import warnings

__all__ = ["functional_call"]

# torch.func.functional_call, set by ndgrad.func (a layer above nn) when it is imported
_functional_call = None


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Deprecated: :func:`torch.func.functional_call` after a FutureWarning.

    See :func:`torch.func.functional_call`."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
