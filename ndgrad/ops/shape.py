"""Shape and view ops: views share memory and the version counter with their base."""
import numpy as np

from .._dispatch import op, register


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(s) for s in size)


@op("view", public=False, view=True)
def _view(input, size):
    try:
        out = input.view()
        out.shape = size  # raises instead of copying when the memory layout does not allow a view
        return out
    except (AttributeError, ValueError):
        if np.prod(size) != input.size and -1 not in size:
            raise RuntimeError(f"shape '[{', '.join(map(str, size))}]' is invalid for input of size {input.size}") from None
        try:
            out = input.view()
            out.shape = size
            return out
        except (AttributeError, ValueError):
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None


@register(method=True)
def view(input, *size):
    return _view(input, _size(size))


@register(method=True)
def reshape(input, *shape):
    shape = _size(shape)
    if input._data.flags.c_contiguous:
        return _view(input, shape)
    return _view(input.clone(), shape)


@op("expand", public=False, view=True)
def _expand(input, size, *, implicit=False):
    nd = len(size) - input.ndim
    if nd < 0:
        raise RuntimeError(f"expand(torch.{input.dtype}{{[{', '.join(map(str, input.shape))}]}}, size=[{len(size)}]): "
                           "the number of sizes provided must be greater or equal to the number of dimensions in the tensor")
    target = tuple(input.shape[i - nd] if s == -1 and i >= nd else s for i, s in enumerate(size))
    try:
        return np.broadcast_to(input, target)
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor must match the existing size at non-singleton "
                           f"dimension. Target sizes: {list(size)}.  Tensor sizes: {list(input.shape)}") from None


@register(method=True)
def expand(input, *size, implicit=False):
    return _expand(input, _size(size), implicit=implicit)
