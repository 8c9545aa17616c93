"""torch.nn.utils.init: skip_init, a module built without initializing its parameters and buffers."""
import inspect

from ..._random import get_rng_state, set_rng_state
from ..modules.module import Module


def skip_init(module_cls, *args, **kwargs):
    """Instantiate `module_cls(*args, **kwargs)` with uninitialized parameters and buffers (as if made
    by torch.empty), leaving the random generator untouched; the class must take a `device` argument.

    Torch builds the module on the meta device, where its initializers draw nothing. ndgrad's modules
    are built on the CPU: the draws of their initializers are undone by restoring the default
    generator, and `to_empty` then replaces every tensor with uninitialized storage.

    Example::

        >>> m = torch.nn.utils.skip_init(torch.nn.Linear, 5, 1)
        >>> m.weight.shape, m.weight.requires_grad
        (torch.Size([1, 5]), True)
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
    return module.to_empty(device=final_device)
