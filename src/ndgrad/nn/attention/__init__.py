"""torch.nn.attention: choosing the kernels `scaled_dot_product_attention` may use.

On the CPU torch (and ndgrad) has two: the fused flash kernel, taken for plain 4-D inputs without
dropout, and the composite math path; ``sdpa_kernel`` narrows the choice inside a ``with`` block
(allowing only kernels that cannot run makes the call fail, as in torch).
"""
import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The kernels of scaled_dot_product_attention."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# the backends.cuda switch of each kernel (OVERRIDEABLE and ERROR have none)
_SWITCH = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
           SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Inside the block, scaled_dot_product_attention uses only the kernels in `backends`.

    Args:
        backends (SDPBackend or list of SDPBackend): the kernels allowed.
        set_priority (bool): try them in the given order (ndgrad has one order: flash, then math).

    Example::

        >>> from torch.nn.attention import SDPBackend, sdpa_kernel
        >>> q = torch.randn(1, 2, 4, 8, requires_grad=True)
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
        >>> out.grad_fn.name()
        'UnsafeViewBackward0'
    """
    listed = backends if isinstance(backends, (list, tuple)) else [backends]
    for b in listed:
        assert isinstance(b, SDPBackend), ("Backend must be an instance of SDPBackend or a list of SDPBackend "
                                           f"instances, got {type(b).__name__}")
    before = dict(_cuda._sdp_enabled)
    for b, switch in _SWITCH.items():
        _cuda._sdp_enabled[switch] = b in listed
    try:
        yield {}
    finally:
        _cuda._sdp_enabled.update(before)
