"""Splitting a batch into microbatches along dimension 0, and merging the outputs back."""
from ..._tensor import Tensor
from ...ops.shape import cat, tensor_split

__all__ = ["split_args_kwargs_into_chunks", "merge_chunks"]


def _split(value, chunks):
    if isinstance(value, Tensor):
        if value.dim() == 0 or value.shape[0] < chunks:
            raise ValueError(f"cannot split a tensor of shape {tuple(value.shape)} into {chunks} microbatches "
                             f"along dimension 0: it needs at least {chunks} rows")
        return list(tensor_split(value, chunks))
    return [value] * chunks   # non-tensors are given to every microbatch


def split_args_kwargs_into_chunks(args, kwargs, chunks):
    """([args of each microbatch], [kwargs of each microbatch]): tensors split along dim 0."""
    args_split = [_split(a, chunks) for a in args]
    kwargs_split = {k: _split(v, chunks) for k, v in (kwargs or {}).items()}
    return ([tuple(a[i] for a in args_split) for i in range(chunks)],
            [{k: v[i] for k, v in kwargs_split.items()} for i in range(chunks)])


def merge_chunks(chunks):
    """The outputs of the microbatches concatenated along dim 0 (tuples merged element-wise)."""
    first = chunks[0]
    if isinstance(first, Tensor):
        return cat(chunks, 0) if first.dim() > 0 else chunks
    if isinstance(first, (tuple, list)):
        return type(first)(merge_chunks([c[i] for c in chunks]) for i in range(len(first)))
    return chunks
