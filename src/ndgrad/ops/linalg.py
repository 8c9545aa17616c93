"""Matrix products: mm, mv, dot, bmm, their fused add* forms, outer, and matmul.
Also here: bilinear (torch's _trilinear), kron, tensordot, multi_dot and chain_matmul.

The products are ops with derivatives.yaml entries. `matmul` (and `@`) is a public function that
picks among them the way torch does — dot, mv, mm, a batch folded into an mm, or a broadcast
bmm — with the same reshapes around them, so it records the graph (and grad_fn names) torch
records for the same call.
"""
import collections
import math

import numpy as np

from ..backends import ARRAY_TYPES, is_array

from .. import _dtype, _pool
from .._native import one_blas_thread
from .._sparse_array import COMPRESSED, COO, NAMES, sparse_coo, strided
from ._registry import OPS, composite, op, register
from .shape import _unsafe_view, expanded_shape


def _type_name(a):
    """torch's name for an array's scalar type in messages (Double, Float, Long...)."""
    return _dtype.type_word(a.dtype)


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
    for a in arrays:   # (a loop, not any(): these checks run on every product)
        if a.dtype is not first and a.dtype != first:
            names = ", ".join(_type_name(a) for a in arrays)
            raise RuntimeError(f"{op_name}: expected all tensors to have the same dtype, but got {names}; "
                               "cast them with .to(dtype) first")
    if first.kind == "b":
        raise NotImplementedError(f'"{op_name}" not implemented for \'Bool\'')


def _check_mm(op_name, a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"{op_name}: mat1 and mat2 shapes cannot be multiplied ({_x(a.shape)} and {_x(b.shape)})")


def _check_bmm(op_name, a, b):
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"{op_name}: Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")


def broadcast_shape(a, b):
    """The shape that shapes `a` and `b` broadcast to: ndgrad's own helper (torch has
    :func:`ndgrad.broadcast_shapes` for any number of shapes).

    Args:
        a (sequence of ints): the first shape.
        b (sequence of ints): the second shape.

    Returns:
        tuple of ints: the broadcast shape.

    Raises:
        RuntimeError: torch's error for tensors of these shapes, if they do not broadcast.

    Example::

        >>> torch.nn.functional.broadcast_shape((2, 1), (3,))
        (2, 3)
    """
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
    if input.shape == product.shape or input.ndim == 1 and product.ndim and input.shape[0] in (1, product.shape[-1]):
        shape = product.shape   # (the usual shapes, a bias's: np.broadcast_shapes costs a few us)
    else:
        try:
            shape = np.broadcast_shapes(input.shape, product.shape)
        except ValueError:
            shape = None
    if shape != product.shape:
        expanded_shape(input.shape, product.shape, _dtype.from_numpy_dtype(input.dtype).title)   # torch's error
    return _scaled_sum(product, input, beta, alpha)


# The in-place forms' errors where self's shape is not the result's (op()'s `inplace`)
def _same_shape(self, shape, name):   # torch's structured kernels: self must have it already
    raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output tensor size "
                       f"{list(shape)} should match")


def _same_shape_first(self, shape, name):   # addmm_: checked before addmm's own checks
    _same_shape(self, shape, name)


def _addr_shape(self, shape, name):
    if self.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
    raise RuntimeError(f"size mismatch, input: {list(self.shape)}, v1: [{shape[0]}], v2: [{shape[1]}]")


_same_shape_first.first = _addr_shape.first = True


def _scaled_sum(product, input, beta, alpha):
    if alpha != 1:
        product = product * alpha
    if beta == 0:   # torch ignores input entirely then (nan/inf in it do not propagate)
        return product
    if beta == 1 and type(product) is np.ndarray and type(input) is np.ndarray and input.dtype == product.dtype:
        return np.add(product, input, out=product)   # (product is this op's own: no second buffer)
    return product + (input if beta == 1 else input * beta)


# ---- products -----------------------------------------------------------------------------
def _check_coo_mm(mat1, dense):
    """torch's checks of a sparse COO `mat1` times a strided `dense` (its addmm kernel's messages)."""
    if mat1.sparse_dim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {mat1.sparse_dim}D tensor")
    if dense.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if dense.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {dense.ndim}D tensor")
    if dense.shape[0] != mat1.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {mat1.shape[1]}, got {dense.shape[0]}")
    if dense.dtype != mat1.dtype:
        raise RuntimeError(f"expected scalar type {_dtype.type_word(mat1.dtype)} but found "
                           f"{_dtype.type_word(dense.dtype)}")


@op("mm", method=True)
def mm(input, mat2):
    if type(input) is COO and type(mat2) in ARRAY_TYPES:
        _check_coo_mm(input, mat2)
    elif type(mat2) is COO and type(input) in ARRAY_TYPES and input.ndim == 2 and mat2.sparse_dim == 2:
        # computed as (mat2.T @ input.T).T
        _check_coo_mm(mat2.transpose(), input.T)
    _check_matrices("mm", input, mat2, "self")
    return _product(input, mat2)


def _check_matrices(op_name, mat1, mat2, first="mat1", *others):
    """mm's and addmm's checks (two matrices that multiply; `others` of their dtype too), their errors
    made only when one fails (a product of small matrices takes a few µs: so did the checks)."""
    if mat1.ndim != 2 or mat2.ndim != 2:
        _check_dims(op_name, **{first: (mat1, 2)}, mat2=(mat2, 2))
    dtype = mat1.dtype
    same = mat2.dtype is dtype and dtype.kind != "b"
    for a in others:   # (a loop, not any(): a generator costs as much as the product of small matrices' checks)
        same = same and a.dtype is dtype
    if not same:
        _check_same_dtype(op_name, *others, mat1, mat2)
    if mat1.shape[1] != mat2.shape[0]:
        _check_mm(op_name, mat1, mat2)


def _product(a, b):
    """np.matmul(a, b) of 2-D arrays, in blocks over the native pool's threads where it takes them. Just
    above the pool's size (1-2M float32 multiply-adds: a small MLP's hidden layers; 0.5-1M float64: an
    LSTM cell's gates) the helpers' job and wake-up cost more in a training step than they save: float32
    runs on the calling thread (in context 25-29 µs against 14-16; a small MLP's compiled step 262 -> 240
    µs, A/B), float64 on OpenBLAS's own threads (one thread takes twice as long; pytorch/examples'
    LSTMCell sequence predictor, forward and backward 181 -> 163 ms, A/B)."""
    if type(a) is not np.ndarray:
        return np.matmul(a, b)
    if a.shape[1] == 1 and a.shape[0] * b.shape[1] >= 1024 and a.dtype in _OUTER_DTYPES and b.dtype is a.dtype:
        # an outer product (a Linear(1, n), an LSTM of 1 feature): one product per element, which einsum makes as
        # BLAS does (0 + a*b: a zero product is +0.0), where OpenBLAS's gemm takes 2.5-5x as long
        return np.einsum("ik,kj->ij", a, b)
    size = a.size * b.shape[1] * a.itemsize
    if size < _pool.MIN_PRODUCT:   # (declined by the pool: OpenBLAS splits it or not)
        return np.matmul(a, b)
    if size < 2 * _pool.MIN_PRODUCT:
        if a.itemsize != 4:
            return np.matmul(a, b)
        with one_blas_thread():
            return np.matmul(a, b)
    out = _pool.matmul(a, b)
    return np.matmul(a, b) if out is None else out


_OUTER_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# ndgrad.compile's tapes call these instead (see compiler._callee): a replay's guard has already made
# the checks on dims, dtypes and shapes
mm.__wrapped__.replay = _product


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
    return np.matmul(input, tensor)   # (np.dot multiplies one-element vectors without the sum: 0 * -1 = -0.0)


@op("vdot", method=True)
def vdot(input, other):
    _check_vectors("vdot", input, other)
    return np.vdot(input, other)


@op("bmm", method=True)
def bmm(input, mat2):
    _check_dims("bmm", batch1=(input, 3), batch2=(mat2, 3))
    _check_same_dtype("bmm", input, mat2)
    _check_bmm("bmm", input, mat2)
    return _pool.stack_matmul(input, mat2)


# ---- fused add forms: beta * input + alpha * product --------------------------------------
@op("addmm", method=True, inplace=_same_shape_first)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _check_matrices("addmm", mat1, mat2, "mat1", input)
    if type(input) in ARRAY_TYPES and type(mat1) in ARRAY_TYPES and type(mat2) in ARRAY_TYPES:
        return _add_scaled(_product(mat1, mat2), input, beta, alpha, "addmm")
    return _add_scaled(_sparse_addmm_product(input, mat1, mat2), input, beta, alpha, "addmm")


def _addmm_replay(input, mat1, mat2, *, beta=1, alpha=1):
    return _scaled_sum(_product(mat1, mat2), input, beta, alpha)   # (a tape holds NumPy arrays only)


addmm.__wrapped__.replay = _addmm_replay


def _sparse_addmm_product(input, mat1, mat2):
    """mat1 @ mat2 under torch's rules for addmm with sparse operands (a strided input; COO only as sparse
    mat1 @ strided mat2), densified: the result is strided."""
    layouts = [getattr(a, "layout", strided) for a in (input, mat1, mat2)]
    names = [NAMES[x] for x in layouts]
    coo = sparse_coo in layouts
    if coo and any(x in COMPRESSED for x in layouts) or not coo and layouts[0] is not strided and \
            not all(x in COMPRESSED for x in layouts):
        raise RuntimeError(f"addmm: computation on CPU is not implemented for {names[0]} + {names[1]} @ {names[2]}")
    if layouts[0] is not strided:
        if coo:
            raise RuntimeError(f"addmm_sparse_dense: expected strided result tensor, got tensor with layout {names[0]}")
        raise NotImplementedError("ndgrad: addmm into a sparse compressed input (a sparse result)")
    if coo and (layouts[1] is not sparse_coo or layouts[2] is not strided):
        raise RuntimeError("addmm_sparse_dense: expected either 'mat1' to have sparse layout and 'mat2' to have "
                           f"strided layout, got 'mat1' with layout {names[1]} and 'mat2' with layout {names[2]}")
    product = np.matmul(mat1, mat2)
    return product if type(product) in ARRAY_TYPES else product.to_dense()


@op("addmv", method=True, inplace=_same_shape)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    if input.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    _check_same_dtype("addmv", input, mat, vec)
    if mat.shape[1] != vec.shape[0] or input.shape not in ((), (1,), (mat.shape[0],)):
        if input.ndim == 0:   # (torch's message reads input's size 0 first)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({_x(mat.shape)}), vec ({vec.shape[0]})")
    return _add_scaled(np.matmul(mat, vec), input, beta, alpha, "addmv")


@op("addr", method=True, inplace=_addr_shape)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    _check_dims("addr", vec1=(vec1, 1), vec2=(vec2, 1))
    _check_same_dtype("addr", input, vec1, vec2)
    return _add_scaled(np.multiply.outer(vec1, vec2), input, beta, alpha, "addr")


@op("baddbmm", method=True, inplace=_same_shape)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _check_dims("baddbmm", batch1=(batch1, 3), batch2=(batch2, 3))
    _check_same_dtype("baddbmm", input, batch1, batch2)
    _check_bmm("baddbmm", batch1, batch2)
    return _add_scaled(_pool.stack_matmul(batch1, batch2), input, beta, alpha, "baddbmm")


@op("addbmm", method=True, inplace="resize")   # (as torch's: self takes the result's shape)
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
    """The inner product over the last dimension: for 1-D tensors their dot product; in general the dot
    product of every last-dimension vector of `input` with every one of `other` (a number as either
    operand multiplies).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor, with the same last dimension.

    Returns:
        Tensor: of shape ``input.shape[:-1] + other.shape[:-1]``.

    Example::

        >>> torch.inner(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        tensor(11.)
        >>> torch.inner(torch.tensor([[1.0, 2.0], [0.0, 1.0]]), torch.tensor([[1.0, 1.0]]))
        tensor([[3.],
                [1.]])
    """
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
    product = a.reshape(math.prod(free_a), size).mm(b.reshape(size, math.prod(free_b)))
    return product.view(free_a + free_b)


# ---- einsum: composed from differentiable ops, as torch does --------------------------------
def _einsum_sublists(args):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> ("ab,bc->ac", (op0, op1))."""
    def letters(sub):
        return "".join("..." if s is Ellipsis else "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[s]
                       for s in sub)
    operands, terms = args[0:-1:2] if len(args) % 2 else args[0::2], []
    for sub in args[1::2][:len(operands)]:
        terms.append(letters(sub))
    out = "->" + letters(args[-1]) if len(args) % 2 else ""
    return ",".join(terms) + out, tuple(operands)


def _einsum_parse(equation, operands):
    """Label lists per operand (ellipsis dims become ints, aligned from the right) and the output's."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for k, ch in enumerate(eq):
        if not (ch.isascii() and ch.isalpha()) and ch not in ".,->":
            raise RuntimeError(f"einsum(): invalid subscript given at index {k} in the equation string, "
                             "subscripts must be in [a-zA-Z]")
    n_ell = max((op.ndim - len(t.replace("...", "")) for t, op in zip(terms, operands) if "..." in t), default=0)
    labels = []
    for k, (term, op) in enumerate(zip(terms, operands)):
        plain = term.replace("...", "")
        if "..." not in term and len(plain) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(plain)}) does not match "
                               f"the number of dimensions ({op.ndim}) for operand {k} and no ellipsis was given")
        if "..." in term and len(plain) > op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(plain)}) is more than the "
                               f"number of dimensions ({op.ndim}) for operand {k}")
        head, _, tail = term.partition("...")
        ell = list(range(n_ell - (op.ndim - len(plain)), n_ell)) if "..." in term else []
        labels.append(list(head) + ell + list(tail))
    if arrow:
        out = []
        for ch in rhs.replace("...", "."):
            if ch == ".":
                out.extend(range(n_ell))
                continue
            if ch in out:
                raise RuntimeError(f"einsum(): output subscript {ch} appears more than once in the output")
            if not any(ch in lab for lab in labels):
                raise RuntimeError(f"einsum(): output subscript {ch} does not appear in the equation for any "
                                   "input operand")
            out.append(ch)
    else:   # implicit output: the broadcast dims, then the letters used once, in alphabetical order
        counts = collections.Counter(ch for lab in labels for ch in lab if isinstance(ch, str))
        out = list(range(n_ell)) + sorted(ch for ch, c in counts.items() if c == 1)
    return labels, out


def _einsum_diagonals(x, labels, k):
    """Take the diagonal of every label repeated within one operand (torch: `ii->i`)."""
    while len(set(labels)) < len(labels):
        lab = next(l for l in labels if labels.count(l) > 1)
        p = labels.index(lab)
        q = labels.index(lab, p + 1)
        if x.shape[p] != x.shape[q]:
            raise RuntimeError(f"einsum(): subscript {lab} is repeated for operand {k} but the sizes don't match, "
                               f"{x.shape[q]} != {x.shape[p]}")
        x = x.diagonal(0, p, q)
        labels = [l for i, l in enumerate(labels) if i not in (p, q)] + [lab]
    return x, labels


def _einsum_pair(a, la, b, lb, keep, k):
    """Contract a (labels la) with b (labels lb), keeping the labels in `keep`: one bmm, or a product."""
    batch = [l for l in la if l in lb and l in keep]
    summed = [l for l in la if l in lb and l not in keep]
    lo = [l for l in la if l not in lb]
    ro = [l for l in lb if l not in la]
    size = {}
    for x, labs in ((a, la), (b, lb)):
        for l, n in zip(labs, x.shape):
            if size.get(l, 1) not in (1, n) and n != 1:
                what = f"subscript {l}" if isinstance(l, str) else "ellipsis dimension"
                raise RuntimeError(f"einsum(): {what} has size {n} for operand {k} which does not broadcast with "
                                   f"previously seen size {size[l]}")
            size[l] = max(size.get(l, 1), n)
    if not summed:   # an outer/elementwise product: align the labels and multiply
        order = batch + lo + ro
        return (_einsum_align(a, la, order) * _einsum_align(b, lb, order)), order, False
    for l in summed:   # summing against a broadcast (size-1) dim: sum the other operand first
        if a.shape[la.index(l)] != b.shape[lb.index(l)]:
            if a.shape[la.index(l)] == 1:
                b = b.sum(lb.index(l), keepdim=True)
            else:
                a = a.sum(la.index(l), keepdim=True)
            size[l] = 1
    a = _einsum_align(a, la, batch + lo + summed, size)
    b = _einsum_align(b, lb, batch + summed + ro, size)
    nb, nlo, ns, nro = (math.prod(size[l] for l in g) for g in (batch, lo, summed, ro))
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {a.dtype.title} but found {b.dtype.title}")
    out = a.reshape(nb, nlo, ns).bmm(b.reshape(nb, ns, nro))
    return out.view([size[l] for l in batch + lo + ro]), batch + lo + ro, True


def _einsum_align(x, labels, order, size=None):
    """x permuted to `order`'s label order, with size-1 dims for the labels it lacks (or broadcast
    to `size` when given)."""
    x = x.permute([labels.index(l) for l in order if l in labels])
    for i, l in enumerate(order):
        if l not in labels:
            x = x.unsqueeze(i)
    target = [size[l] for l in order] if size else None
    return x.expand(target) if target and list(x.shape) != target else x


def _einsum_sum_alone(x, labels, needed):
    """x summed over its labels not in `needed`: (tensor, remaining labels, whether it summed)."""
    alone = [j for j, l in enumerate(labels) if l not in needed]
    if not alone:
        return x, labels, False
    return x.sum(alone), [l for l in labels if l in needed], True


@register()
def einsum(*args):
    """einsum(equation, *operands) -> Tensor

    Sums the products of the elements of `operands` over the dimensions that Einstein summation
    notation names in `equation` (``"ij,jk->ik"``: a matrix product); the operands may also be given as one list.

    Args:
        equation (str): a label per dimension of each operand, separated by commas, and optionally
            ``->`` with the labels of the output (without it: the labels seen once, in alphabetical order).
        operands (Tensor): the tensors.

    Returns:
        Tensor: the result.

    Example::

        >>> a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.einsum("ij,jk->ik", a, a)
        tensor([[ 7., 10.],
                [15., 22.]])
        >>> torch.einsum("ii", a)
        tensor(5.)
        >>> torch.einsum("ij->j", a)
        tensor([4., 6.])
    """
    if args and not isinstance(args[0], str):
        equation, operands = _einsum_sublists(args)
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    labels, out = _einsum_parse(equation, operands)
    ops = []
    for k, (x, lab) in enumerate(zip(operands, labels)):
        ops.append(_einsum_diagonals(x, lab, k))
    if len(ops) == 1:
        x, lab = ops[0]
        summed = [l for l in lab if l not in out]
        x = x.permute([lab.index(l) for l in out + summed])
        return x.sum(list(range(len(out), len(lab)))) if summed else x
    x, lab = ops[0]
    summed_alone = False
    for i in range(1, len(ops)):
        later = set(out).union(*(set(l) for _, l in ops[i + 1:]))
        y, ly = ops[i]
        x, lab, alone_x = _einsum_sum_alone(x, lab, later.union(ly))   # labels no one else needs
        y, ly, alone_y = _einsum_sum_alone(y, ly, later.union(lab))    # are summed out first
        summed_alone = summed_alone or alone_x or alone_y
        x, lab, contracted = _einsum_pair(x, lab, y, ly, later, i)
    if contracted or summed_alone:   # torch ends a contraction with permute + view, whatever the order
        x = x.permute([lab.index(l) for l in out])
        return x.view(x.shape)
    return x.permute([lab.index(l) for l in out]) if lab != out else x


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
    shape, strides = list(big.shape), list(big._array.strides)
    if big is b:   # the fold works on b.mT: its last two dims swap
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _folded(a, b):
    """N-D @ 1-D/2-D (or the transpose case 1-D/2-D @ N-D) as one mm or mv on the flattened batch."""
    transpose = b.ndim > a.ndim
    big = b.mT if transpose else a
    small = (a.t() if a.ndim == 2 else a) if transpose else b
    out_shape = tuple(big.shape[:-1])
    flat = big.reshape(math.prod(out_shape), big.shape[-1])
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
    count = math.prod(batch)
    a3 = a.expand(batch + (n, m)).reshape(count, n, m)
    if b.ndim == 1:
        b3 = b.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
        out = a3.bmm(b3).squeeze(-1)
    else:
        out = a3.bmm(b.expand(batch + (m2, p)).reshape(count, m2, p))
    return _unsafe_view(out, batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ()))


@register(method=True)
def matmul(input, other):
    if input.is_nested or other.is_nested:   # (is_nested only: vmap's batched tensors refuse reads of _array)
        from .nested import nested_matmul   # late: nested.py wraps ops of every family, so it loads after them
        return nested_matmul(input, other)
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


# ---- bilinear -----------------------------------------------------------------------------
def trilinear_operands(i1, i2, i3, expand1, expand2, expand3):
    """The three inputs with their expand dims inserted (works on arrays and Tensors)."""
    out = []
    for x, dims in ((i1, expand1), (i2, expand2), (i3, expand3)):
        for d in sorted(dims):
            x = x[(slice(None),) * d + (None,)] if is_array(x) else x.unsqueeze(d)
        out.append(x)
    return out


@op("_trilinear", public="_trilinear", promote="same")
def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    a, b, c = trilinear_operands(i1, i2, i3, expand1, expand2, expand3)
    return (a * b * c).sum(tuple(sumdim)) if sumdim else a * b * c


@register()
def bilinear(input1, input2, weight, bias=None):
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[-1] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected "
                           f"{weight.shape[0]}")
    out_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    a = input1.reshape(-1, input1.shape[-1])
    b = input2.reshape(-1, input2.shape[-1])
    out = _trilinear(a, weight, b, [1, 3], [0], [1, 2], [2, 3]).reshape(out_shape)
    return out if bias is None else out + bias


@register(method=True)
def kron(input, other):
    """The Kronecker product of `input` and `other`: every element of `input` multiplies a whole copy of
    `other`, block by block (the shorter shape is padded with leading 1s).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        Tensor: the product, of shape ``input.shape[i] * other.shape[i]`` per dimension.

    Example::

        >>> torch.kron(torch.tensor([[1, 2], [3, 4]]), torch.ones(2, 2, dtype=torch.int64))
        tensor([[1, 1, 2, 2],
                [1, 1, 2, 2],
                [3, 3, 4, 4],
                [3, 3, 4, 4]])
    """
    nd = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (nd - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (nd - other.ndim) + tuple(other.shape))
    a_shape = [s for d in a.shape for s in (d, 1)]
    b_shape = [s for d in b.shape for s in (1, d)]
    out = a.reshape(a_shape) * b.reshape(b_shape)
    return _unsafe_view(out, tuple(x * y for x, y in zip(a.shape, b.shape)))


@register()
def tensordot(a, b, dims=2):
    """The sum of the products of `a` and `b` over the given dimensions: the last `dims` of `a` with the
    first `dims` of `b`, or the listed dimensions of each.

    Args:
        a (Tensor): the first tensor.
        b (Tensor): the second tensor.
        dims (int or tuple of two lists of int): how many dimensions to contract, or which ones
            (``([dims of a], [dims of b])``). Default: ``2``.

    Returns:
        Tensor: the free dimensions of `a` followed by those of `b`.

    Example::

        >>> a = torch.arange(6.0).reshape(2, 3)
        >>> b = torch.arange(6.0).reshape(3, 2)
        >>> torch.tensordot(a, b, dims=1)
        tensor([[10., 13.],
                [28., 40.]])
        >>> torch.tensordot(a, b.T, dims=([0, 1], [0, 1]))
        tensor(50.)
    """
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    da, db = [d % max(a.ndim, 1) for d in da], [d % max(b.ndim, 1) for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for x, y in zip(da, db):
        # a size-1 dim broadcasts against the other's: summed at once, as torch does
        if b.shape[y] == 1:
            a = a.sum(x, keepdim=True)
        elif a.shape[x] == 1:
            b = b.sum(y, keepdim=True)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} and "
                               f"second has size {b.shape[y]} in dim {y}")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = math.prod([a.shape[d] for d in da])
    out_shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    left = a.permute(free_a + da).reshape(-1, k)
    right = b.permute(db + free_b).reshape(k, -1)
    return mm(left, right).reshape(out_shape)


def multi_dot(tensors):
    """The product of a chain of matrices (three of them in the cheaper order; longer chains left to right).

    The first tensor may be a vector (read as a row) and the last one a vector (read as a column);
    the result then drops those dimensions.

    Args:
        tensors (Sequence[Tensor]): two or more tensors, all 2-D but the first and the last.

    Returns:
        Tensor: the product.

    Example::

        >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.linalg.multi_dot([torch.tensor([1.0, 1.0]), A, A, torch.tensor([1.0, 0.0])])
        tensor(22.)
        >>> torch.linalg.multi_dot([A, torch.eye(2), A])
        tensor([[ 7., 10.],
                [15., 22.]])
    """
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    mats = [first.unsqueeze(0) if first.ndim == 1 else first] + list(tensors[1:-1]) + \
        [last.unsqueeze(-1) if last.ndim == 1 else last]
    for i, t in enumerate(mats):
        if t.ndim != 2:
            where = "first" if i == 0 else "last" if i == n - 1 else None
            raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.ndim}D" if where else
                               f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    if n == 3:   # the cheaper of (AB)C and A(BC)
        a, b, c, d = mats[0].shape[0], mats[1].shape[0], mats[2].shape[0], mats[2].shape[1]
        if b * c * d + a * b * d < a * b * c + a * c * d:
            out = mats[0].mm(mats[1].mm(mats[2]))
        else:
            out = mats[0].mm(mats[1]).mm(mats[2])
    else:
        out = mats[0]
        for t in mats[1:]:
            out = out.mm(t)
    shape = ((first.shape[0],) if first.ndim == 2 else ()) + ((last.shape[1],) if last.ndim == 2 else ())
    return out.view(shape)


@register()
def chain_matmul(*matrices):
    return multi_dot(list(matrices))


@composite
def linear(input, weight, bias=None):
    # input @ weight.T + bias, as addmm or matmul as torch picks (its graph); docstring in ndgrad/_docs
    if input.is_nested:
        return OPS["_nested_linear"](input, weight, bias)   # registered by ops/nested.py
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"linear: both arguments to linear need to be at least 1D, but they are {input.ndim}D "
                           f"and {weight.ndim}D")
    if bias is not None:
        if input.ndim == 2:
            return addmm(bias, input, weight.t())
        if input.is_contiguous() and (input.ndim == 3 or bias.ndim == 1):
            # one addmm on the flattened batch, as torch
            out = addmm(bias, input.view(-1, input.shape[-1]), weight.t())
            return out.view(tuple(input.shape[:-1]) + (out.shape[-1],))
    out = matmul(input, weight.t())
    return out if bias is None else out + bias


def vander(x, *, N=None):
    """The Vandermonde matrix of `x`: the powers ``x ** 0, x ** 1, ..., x ** (N - 1)`` of each element, as columns.

    Args:
        x (Tensor): the values, of shape ``(*, n)``.
        N (int, optional): the number of columns. Default: ``n``.

    Returns:
        Tensor: the matrix, of shape ``(*, n, N)``.

    Example::

        >>> torch.linalg.vander(torch.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [1, 2, 4],
                [1, 3, 9]])
        >>> torch.linalg.vander(torch.tensor([2.0, 0.5]), N=4)
        tensor([[1.0000, 2.0000, 4.0000, 8.0000],
                [1.0000, 0.5000, 0.2500, 0.1250]])
    """
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = OPS["ones_like"](x).unsqueeze(-1)
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)
    return OPS["cat"]([ones, powers], -1)


# ---- api: the functions torch 1.9 deprecated and later removed: they remain, raising torch's RuntimeError
_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REMOVED_HOW = {
    "eig": " `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
           "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
           "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
           "L_complex, V_complex = torch.linalg.eig(A)",
    "lstsq": " `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
             "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
             "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
             "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
             "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
             "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
             "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B)."
             "solution",
    "solve": " `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
             "reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
             "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should "
             "be replaced with:\nX = torch.linalg.solve(A, B)",
    "symeig": " The default behavior has changed from using the upper triangular portion of the matrix by default "
              "to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
              "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
              "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "matrix_rank": "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
                   "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
}

_REPLACEMENT = {"symeig": "eigh"}   # the others keep their name in torch.linalg


def _removed(name):
    def removed(*args, **kwargs):
        raise RuntimeError(_REMOVED + _REMOVED_HOW[name])
    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = (
        f"Removed from torch (deprecated in 1.9): any call raises torch's RuntimeError, "
        f"whose message shows how to write it with :func:`ndgrad.linalg.{_REPLACEMENT.get(name, name)}`.\n\n"
        f"Example::\n\n    >>> torch.{name}(torch.eye(2), torch.eye(2))\n    Traceback (most recent call last):\n"
        f"    ...\n    RuntimeError: {_REMOVED[:-1]}...\n")
    return register(name)(removed)


for _name in _REMOVED_HOW:
    _removed(_name)


@register()
def spmm(input, mat2):
    """The matrix product of `input` and `mat2`: the older name of :func:`ndgrad.mm`, kept by programs that
    multiply a sparse matrix by a dense one.

    Args:
        input (Tensor): the first matrix (sparse or dense), (n, m).
        mat2 (Tensor): the second matrix, (m, p).

    Returns:
        Tensor: the product, (n, p).

    Example::

        >>> s = torch.tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse()
        >>> torch.spmm(s, torch.tensor([[1.0], [3.0]]))
        tensor([[6.],
                [1.]])
    """
    return mm(input, mat2)


@register()
def dsmm(input, mat2):
    """The older name of :func:`ndgrad.mm` for a sparse `input` times a dense `mat2` (a dense result); like
    torch's, it takes any operands :func:`ndgrad.mm` takes.

    Example::

        >>> s = torch.tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse()
        >>> torch.dsmm(s, torch.tensor([[1.0], [3.0]]))
        tensor([[6.],
                [1.]])
    """
    return mm(input, mat2)
