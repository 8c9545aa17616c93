"""torch.nn.LinearCrossEntropyOptions: how F.linear_cross_entropy would split its batch into chunks.

torch uses these options to compute the loss chunk by chunk without the whole logits (a memory
saving); ndgrad always computes the whole logits, so the options are checked and kept, and change
neither the loss nor its gradients.
"""
import dataclasses

from ... import _dtype

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


def _valid_chunking(method):
    """'auto', None, 'aspect_ratio' or 'aspect_ratio:N' with N a positive integer."""
    if method is None or method == "auto":
        return True
    name, colon, factor = method.partition(":")
    return name == "aspect_ratio" and (not colon or factor.isdigit() and int(factor) > 0)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """The chunking options of :func:`ndgrad.nn.functional.linear_cross_entropy` (immutable, checked when made).

    Args:
        allow_retain_graph (bool): allow a second backward through torch's chunked loss. Default: ``False``.
        batch_chunk_size (int, optional): rows of the batch per chunk (positive), or ``None``.
        chunking_method (str, optional): ``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` or ``None``.
        acc_policy (str): ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"``.
        acc_dtype (torch.dtype, optional): a floating dtype for the accumulation, or ``None``.

    ndgrad computes the whole logits at once: the options change nothing in the result.

    Example::

        >>> torch.nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
        64
    """
    allow_retain_graph: bool = False
    batch_chunk_size: "int | None" = None
    chunking_method: "str | None" = "auto"
    acc_policy: str = "auto"
    acc_dtype: "object | None" = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if not _valid_chunking(self.chunking_method):
            raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and not (isinstance(size, int) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (_dtype.float16, _dtype.bfloat16, _dtype.float32,
                                                                 _dtype.float64):
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")
