"""torch.autograd._functions: the legacy Functions torch still ships (Resize), written as custom
autograd Functions (so their nodes are custom-Function nodes, as in torch)."""
import math

from .._tensor import Tensor
from .function import Function

__all__ = ["Resize"]


class Resize(Function):
    """Resize.apply(tensor, sizes): `tensor` with shape `sizes` (same number of elements); the
    gradient is reshaped back."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.numel = math.prod(sizes)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements in total), but the given "
                f"tensor has a size of {'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). autograd's "
                "resize can only change the shape of a given tensor, while preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        # a new tensor on the same memory when it is contiguous (not a view: torch's tensor.new(tensor))
        return Tensor._make(tensor.contiguous()._array.reshape(tuple(sizes)), False, None, 0)

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output.numel() != ctx.numel:
            raise AssertionError(f"Expected grad_output to have {ctx.numel} elements, but got {grad_output.numel()}")
        return grad_output.contiguous().view(ctx.input_sizes), None
