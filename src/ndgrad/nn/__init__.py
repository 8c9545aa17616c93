"""ndgrad.nn: torch.nn's modules, parameters, initialisations and functional ops."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import utils  # noqa: F401
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
from .parameter import Buffer  # noqa: F401,E402
from . import grad  # noqa: F401,E402
# F.multi_head_attention_forward lives beside MultiheadAttention, its user (functional is imported first)
functional.multi_head_attention_forward = modules.attention.multi_head_attention_forward
functional.grad = grad

_FACTORY_KEYS = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs):
    """The factory arguments (device, dtype, memory_format) of a module's **kwargs as one dict,
    merged with those of its `factory_kwargs` entry; any other key, or one given twice, is a TypeError."""
    if kwargs is None:
        return {}
    unexpected = set(kwargs) - set(_FACTORY_KEYS) - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for key in _FACTORY_KEYS:
        if key in kwargs:
            if key in out:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            out[key] = kwargs[key]
    return out
