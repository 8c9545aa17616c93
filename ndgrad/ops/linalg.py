"""Matrix products: mm, mv, dot, bmm, their fused add* forms, outer, and matmul.

The products are ops with derivatives.yaml entries. `matmul` (and `@`) is a public function that
picks among them the way torch does — dot, mv, mm, a batch folded into an mm, or a broadcast
bmm — with the same reshapes around them, so it records the graph (and grad_fn names) torch
records for the same call.
"""
import numpy as np

from .. import _dtype
from .._dispatch import _TYPE_WORD, op, register
from .shape import _unsafe_view


def _type_name(a):
    """torch's name for an array's scalar type in messages (Double, Float, Long...)."""
    name = _dtype.from_numpy_dtype(a.dtype).name.capitalize()
    return _TYPE_WORD.get(name, name)


def _x(shape):
    return "x".join(map(str, shape))


def _check_dims(op_name, **arrays):
    """Each named array must have the given number of dims (name=(array, ndim))."""
    for name, (a, ndim) in arrays.items():
        if a.ndim != ndim:
            what = {1: "vector", 2: "matrix", 3: "3D tensor"}[ndim]
            raise RuntimeError(f"{op_name}: {name} must be a {what}, got {a.ndim}-D tensor of shape {list(a.shape)}")


def _check_same_dtype(op_name, *arrays):
    first = arrays[0].dtype
    if any(a.dtype != first for a in arrays[1:]):
        names = ", ".join(_type_name(a) for a in arrays)
        raise RuntimeError(f"{op_name}: expected all tensors to have the same dtype, but got {names}; "
                           "cast them with .to(dtype) first")
    if first == np.bool_:
        raise NotImplementedError(f'"{op_name}" not implemented for \'Bool\'')


def _check_mm(op_name, a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"{op_name}: mat1 and mat2 shapes cannot be multiplied ({_x(a.shape)} and {_x(b.shape)})")


def _check_bmm(op_name, a, b):
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"{op_name}: Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")


def broadcast_shape(a, b):
    """The broadcast of shapes a and b, with torch's error when they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        for i in range(1, min(len(a), len(b)) + 1):
            if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
                                   f"non-singleton dimension {max(len(a), len(b)) - i}") from None
        raise


def _add_scaled(product, input, beta, alpha, op_name):
    """beta * input + alpha * product, where input broadcasts to the product's shape (torch's add* ops)."""
    try:
        shape = np.broadcast_shapes(input.shape, product.shape)
    except ValueError:
        shape = None
    if shape != product.shape:
        raise RuntimeError(f"{op_name}: self of shape {list(input.shape)} cannot be broadcast to the result's shape "
                           f"{list(product.shape)}")
    if alpha != 1:
        product = product * alpha
    if beta == 0:   # torch ignores input entirely then (nan/inf in it do not propagate)
        return product
    return product + (input if beta == 1 else input * beta)


# ---- products -----------------------------------------------------------------------------
@op("mm", method=True)
def mm(input, mat2):
    _check_dims("mm", self=(input, 2), mat2=(mat2, 2))
    _check_same_dtype("mm", input, mat2)
    _check_mm("mm", input, mat2)
    return np.matmul(input, mat2)


@op("mv", method=True)
def mv(input, vec):
    _check_dims("mv", self=(input, 2), vec=(vec, 1))
    _check_same_dtype("mv", input, vec)
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"mv: size mismatch, got mat ({_x(input.shape)}), vec ({vec.shape[0]})")
    return np.matmul(input, vec)


def _check_vectors(op_name, a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"{op_name}: 1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError(f"{op_name}: inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got {a.shape[0]} and "
                           f"{b.shape[0]} elements respectively")
    _check_same_dtype(op_name, a, b)


@op("dot", method=True)
def dot(input, tensor):
    _check_vectors("dot", input, tensor)
    return np.dot(input, tensor)


@op("vdot", method=True)
def vdot(input, other):
    _check_vectors("vdot", input, other)
    return np.vdot(input, other)


@op("bmm", method=True)
def bmm(input, mat2):
    _check_dims("bmm", batch1=(input, 3), batch2=(mat2, 3))
    _check_same_dtype("bmm", input, mat2)
    _check_bmm("bmm", input, mat2)
    return np.matmul(input, mat2)


# ---- fused add forms: beta * input + alpha * product --------------------------------------
@op("addmm", method=True, inplace=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _check_dims("addmm", mat1=(mat1, 2), mat2=(mat2, 2))
    _check_same_dtype("addmm", input, mat1, mat2)
    _check_mm("addmm", mat1, mat2)
    return _add_scaled(np.matmul(mat1, mat2), input, beta, alpha, "addmm")


@op("addmv", method=True, inplace=True)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    _check_dims("addmv", mat=(mat, 2), vec=(vec, 1))
    _check_same_dtype("addmv", input, mat, vec)
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"addmv: size mismatch, got mat ({_x(mat.shape)}), vec ({vec.shape[0]})")
    return _add_scaled(np.matmul(mat, vec), input, beta, alpha, "addmv")


@op("addr", method=True, inplace=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    _check_dims("addr", vec1=(vec1, 1), vec2=(vec2, 1))
    _check_same_dtype("addr", input, vec1, vec2)
    return _add_scaled(np.multiply.outer(vec1, vec2), input, beta, alpha, "addr")


@op("baddbmm", method=True, inplace=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _check_dims("baddbmm", batch1=(batch1, 3), batch2=(batch2, 3))
    _check_same_dtype("baddbmm", input, batch1, batch2)
    _check_bmm("baddbmm", batch1, batch2)
    return _add_scaled(np.matmul(batch1, batch2), input, beta, alpha, "baddbmm")


@op("addbmm", method=True, inplace=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _check_dims("addbmm", batch1=(batch1, 3), batch2=(batch2, 3))
    _check_same_dtype("addbmm", input, batch1, batch2)
    (b, n, m), (b2, m2, p) = batch1.shape, batch2.shape
    if b != b2:
        raise RuntimeError(f"addbmm: batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if m != m2:
        raise RuntimeError(f"addbmm: Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    # the sum over the batch of the products is one (n, b*m) @ (b*m, p) product
    total = np.matmul(batch1.transpose(1, 0, 2).reshape(n, b * m), batch2.reshape(b * m, p))
    return _add_scaled(total, input, beta, alpha, "addbmm")


# ---- compositions (they record the ops torch records) -------------------------------------
@register(method=True)
def outer(input, vec2):
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return input.reshape(-1, 1) * vec2


register("ger", method=True)(outer)


@register(method=True)
def inner(input, other):
    """Contract the last dims, as torch: tensordot's permute, reshape to matrices, mm, view."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    free_a, free_b = tuple(input.shape[:-1]), tuple(other.shape[:-1])
    a = input.permute(tuple(range(input.ndim - 1)) + (-1,))
    b = other.permute((-1,) + tuple(range(other.ndim - 1)))
    if not free_a and not free_b:
        return dot(a, b).view(())
    size = input.shape[-1]
    product = a.reshape(int(np.prod(free_a)), size).mm(b.reshape(size, int(np.prod(free_b))))
    return product.view(free_a + free_b)


@register()
def einsum(equation, *operands):
    raise NotImplementedError("ndgrad.einsum is not implemented yet; write the contraction with matmul, "
                              "mul and sum (or permute/reshape + bmm)")


def _should_fold(a, b):
    """torch's rule for computing an N-D @ (1-D or 2-D) product (either order) as one mm/mv.

    Folding the batch into the rows avoids an expanded gradient for the smaller operand; it is
    skipped when it would force a copy of the larger operand.
    """
    big, small = (a, b) if a.ndim >= b.ndim else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = list(big.shape), list(big._data.strides)
    if big is b:   # the fold works on b.mT: its last two dims swap
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _folded(a, b):
    """N-D @ 1-D/2-D (or the transpose case 1-D/2-D @ N-D) as one mm or mv on the flattened batch."""
    transpose = b.ndim > a.ndim
    big = b.mT if transpose else a
    small = (a.t() if a.ndim == 2 else a) if transpose else b
    out_shape = tuple(big.shape[:-1])
    flat = big.reshape(int(np.prod(out_shape)), big.shape[-1])
    if small.ndim == 1:
        return _unsafe_view(flat.mv(small), out_shape)
    out = _unsafe_view(flat.mm(small), out_shape + (small.shape[1],))
    return out.mT.contiguous() if transpose else out


def _batched(a, b):
    """The general case: broadcast the batch dims and multiply with one bmm."""
    n = a.shape[-2] if a.ndim > 1 else 1
    m = a.shape[-1]
    m2 = b.shape[-2] if b.ndim > 1 else b.shape[0]
    p = b.shape[-1] if b.ndim > 1 else 1
    batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
    count = int(np.prod(batch))
    a3 = a.expand(batch + (n, m)).reshape(count, n, m)
    if b.ndim == 1:
        b3 = b.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
        out = a3.bmm(b3).squeeze(-1)
    else:
        out = a3.bmm(b.expand(batch + (m2, p)).reshape(count, m2, p))
    return _unsafe_view(out, batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ()))


@register(method=True)
def matmul(input, other):
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return mm(input.unsqueeze(0), other).squeeze_(0)
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 3 and db == 3 and input.shape[0] != other.shape[0]:
        # a grad-requiring operand with a batch of one is multiplied as a matrix, so its
        # gradient is not computed expanded to the other's batch
        if input.shape[0] == 1 and input.requires_grad:
            input = input.squeeze(0)
        elif other.shape[0] == 1 and other.requires_grad:
            other = other.squeeze(0)
    if _should_fold(input, other):
        return _folded(input, other)
    return _batched(input, other)
