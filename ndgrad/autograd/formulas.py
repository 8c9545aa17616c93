"""Backward helpers too long for one readable yaml line (the names formulas may call).

Everything here works on Tensors through public ops, so formulas stay differentiable and
`create_graph=True` gives higher derivatives for free.
"""
import numpy as np


def sum_to(t, shape):
    """Sum `t` down to `shape` (undoing broadcasting); ValueError if it cannot be."""
    shape = tuple(shape)
    tshape = t._data.shape
    if tshape == shape:
        return t
    lead = len(tshape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot sum {tshape} to {shape}")
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and tshape[lead + i] != 1:
            dims.append(lead + i)
        elif s != tshape[lead + i]:
            raise ValueError(f"cannot sum {tshape} to {shape}")
    if dims:
        t = t.sum(dims, keepdim=True)
    return t.reshape(shape) if lead else t


def not_implemented(what):
    raise NotImplementedError(f"the derivative of {what} is not implemented in ndgrad yet")


def handle_r_to_c(self, grad):
    """A real input's gradient from a complex formula keeps only the real part."""
    if self is not None and getattr(self, "is_complex", None) is not None and not self.is_complex() \
            and grad.is_complex():
        return grad.real
    return grad


def scalar_dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else None


def unsqueeze_dims(t, dims, ndim):
    """Re-insert reduced dims (sorted, normalized) so `t` broadcasts against the input."""
    for d in sorted(int(d) % max(ndim, 1) for d in dims):
        t = t.unsqueeze(d)
    return t


def normalize_dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    return tuple(int(d) % max(ndim, 1) for d in dim)


def conj(x):
    """Complex conjugate of a tensor or Python number; identity for real values."""
    data = getattr(x, "_data", None)
    if data is not None:
        return x.conj() if data.dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, complex) else x


def maybe_multiply(grad, alpha):
    return grad if alpha == 1 else grad * alpha


def reduce_backward(grad, shape, dim, keepdim):
    """Give a reduction's gradient back the reduced dims (as size 1) so it broadcasts."""
    ndim = len(shape)
    if keepdim or ndim == 0:
        return grad
    return unsqueeze_dims(grad, normalize_dims(dim, ndim), ndim)


# ---- pointwise ----------------------------------------------------------------------------


# ---- reductions ---------------------------------------------------------------------------
def reduced_numel(shape, dim):
    """How many input elements each output element of a reduction over `dim` (None/(): all) sums."""
    n = 1
    for d in normalize_dims(dim, len(shape)) or range(len(shape)):
        n *= shape[d]
    return n


def masked_zero(t, mask):
    """t with zeros where mask holds (not t * ~mask, which turns an inf there into nan)."""
    return where(mask, zeros_like(t), t)


def mean_backward(grad, shape, dim, keepdim):
    return reduce_backward(grad, shape, dim, keepdim).expand(shape) / reduced_numel(shape, dim)


def amax_backward(grad, self, result, dim, keepdim):
    """amax/amin/aminmax: elements equal to the result share its gradient evenly."""
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    mask = self == reduce_backward(result, self.shape, dim, keepdim)
    return grad / mask.sum(dim, keepdim=True) * mask


def evenly_distribute_backward(grad, self, result):
    """max()/min()/median() of all elements: the elements equal to the result (or, when it is nan,
    the nans) share the gradient evenly."""
    mask = self.isnan() if result._data.dtype.kind in "fc" and np.isnan(result._data) else self == result
    return grad / mask.sum() * mask


def select_backward(grad, dim, indices, shape, keepdim):
    """max(dim)/min(dim)/median(dim): each output's gradient goes to the element its index picked."""
    if not shape:
        return grad
    d = normalize_dims(dim, len(shape))[0]
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    # the one-hot mask of the picked elements is a constant: only `grad *` needs to be differentiable
    positions = np.arange(shape[d]).reshape([-1 if i == d else 1 for i in range(len(shape))])
    return grad * as_tensor(positions == indices._data)


def var_backward(grad, self, dim, correction, keepdim):
    dof = reduced_numel(self.shape, dim) - correction
    scale = 2.0 / dof if dof > 0 else float("inf")   # torch: nan gradients when there is no dof left
    return scale * reduce_backward(grad, self.shape, dim, keepdim) * (self - self.mean(dim, keepdim=True))


def std_backward(result, grad, self, dim, correction, keepdim):
    """Through var = std**2, with a zero gradient where std is 0 (as torch)."""
    return var_backward(masked_zero(grad / (result * 2), result == 0), self, dim, correction, keepdim)


def logsumexp_backward(grad, self, result, dim, keepdim):
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    return grad * (self - reduce_backward(result, self.shape, dim, keepdim)).exp()


def exclusive_prod(x, dim):
    """The product of the other elements of each slice along `dim`, without dividing: a left and a
    right exclusive cumprod, so zeros in `x` are handled and every derivative order is exact."""
    n = x.shape[dim]
    one = x.new_ones([1 if d == dim else s for d, s in enumerate(x.shape)])
    left = cat([one, x], dim).cumprod(dim).split([n, 1], dim)[0]                 # prod of x[:i]
    right = cat([x, one], dim).flip(dim).cumprod(dim).flip(dim).split([1, n], dim)[1]   # prod of x[i+1:]
    return left * right


def prod_backward(grad, self, result, dim, keepdim):
    """prod over `dim` (None: every element)."""
    if self.ndim == 0:
        return grad
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    if not (self._data == 0).any():
        return grad * conj(reduce_backward(result, self.shape, dim, keepdim) / self)
    if dim is None:
        return grad * conj(exclusive_prod(self.reshape(-1), 0).reshape(self.shape))
    return grad * conj(exclusive_prod(self, normalize_dims(dim, self.ndim)[0]))


def reversed_cumsum(t, dim):
    return t.flip(dim).cumsum(dim).flip(dim)


def cumsum_backward(grad, dim):
    return reversed_cumsum(grad, dim) if grad.ndim else grad


def cumprod_backward(grad, self, dim, result):
    """d cumprod: out_j = prod_{m<=j} x_m, so grad_i = sum_{j>=i} grad_j * out_j / x_i without zeros.

    With zeros, split each slice at its first zero k (x' = x with x_k set to 1, out' = cumprod(x')):
    before k the division formula holds; at k the gradient is sum_{j>=k} grad_j * out'_j; after k
    it is x_k times the gradient of cumprod(x'), which is zero in value but is needed for exact
    higher derivatives (so it is only built when grad mode records them).
    """
    if self.ndim == 0 or self.numel() == 0:
        return grad
    x = self._data
    d = normalize_dims(dim, x.ndim)[0]
    if not (x == 0).any():
        return reversed_cumsum(grad * conj(result), d) / conj(self)
    zeros_seen = np.cumsum(x == 0, axis=d)
    before, first = as_tensor(zeros_seen == 0), as_tensor((zeros_seen == 1) & (x == 0))
    self_nz = where(before, self, ones_like(self))
    primed = where(first, ones_like(self), self)
    primed_result = primed.cumprod(d)
    at_first = where(first, reversed_cumsum(grad * conj(primed_result), d), zeros_like(grad))
    from .grad_mode import state
    if state.enabled:
        zero = (self * first).sum(d, keepdim=True)        # x_k: 0 in value, 1 in derivative
        after = conj(zero) * cumprod_backward(grad, primed, d, primed_result)
        at_first = at_first + where(before | first, zeros_like(grad), after)
    return where(before, reversed_cumsum(grad * conj(result), d) / conj(self_nz), at_first)


def linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim):
    """Gradient of ||x||_ord (a real function of possibly complex x)."""
    if ord == 0:
        return None   # torch: no gradient flows (the count of nonzeros is piecewise constant)
    grad = reduce_backward(grad, self.shape, dim, keepdim)
    norm = reduce_backward(result, self.shape, dim, keepdim)
    if ord == 1:
        return self.sgn() * grad
    if ord == 2:
        return self * masked_zero(grad / norm, norm == 0)
    if np.isinf(ord):   # like amax of |x|: the elements at the norm (or nan) share the gradient
        absx = self.abs()
        mask = (absx == norm).logical_or(absx.isnan())
        return self.sgn() * (grad / mask.sum(dim, keepdim=True) * mask)
    if ord < 1:
        return self.sgn() * masked_zero(self.abs().pow(ord - 1), self == 0) * grad * norm.pow(1 - ord)
    if ord < 2:
        return self.sgn() * self.abs().pow(ord - 1) * masked_zero(grad / norm.pow(ord - 1), norm == 0)
    return self * self.abs().pow(ord - 2) * masked_zero(grad / norm.pow(ord - 1), norm == 0)


# ---- shape and views ----------------------------------------------------------------------
def invert_permutation(dims):
    return tuple(np.argsort(dims).tolist())


def cat_backward(grad, dim, sizes):
    """grad split back into cat's inputs; a skipped 1-D empty input (size None) gets an empty grad."""
    parts = iter(grad.split([s for s in sizes if s is not None], dim))
    return [next(parts) if s is not None else grad.new_zeros(0) for s in sizes]


def repeat_backward(grad, repeats, input_shape):
    """Sum the tiles: split every dim of grad into (repeat, size) and sum over the repeat axes."""
    if not repeats:
        return grad
    shape = (1,) * (len(repeats) - len(input_shape)) + tuple(input_shape)
    tiles = grad.reshape([n for r, s in zip(repeats, shape) for n in (r, s)])
    return tiles.sum(tuple(range(0, 2 * len(shape), 2))).reshape(input_shape)


def as_strided_backward(grad, input, size, stride, offset):
    """Each output element's gradient goes to the input elements at its memory location; input elements
    sharing one location (an expanded input) share its gradient equally, as in torch."""
    from ..ops.shape import _storage, storage_positions
    a = input._data
    start = _storage(a)[1]
    in_pos = storage_positions(a.shape, [s // a.itemsize for s in a.strides], start)
    out_pos = storage_positions(size, stride, start + offset)
    g = strided_sum(grad, out_pos, in_pos, a.shape)
    counts = np.bincount(in_pos.ravel())[in_pos] if in_pos.size else in_pos
    return g if counts.max(initial=1) == 1 else g * grad.new_tensor(1.0 / counts)


def strided_sum(grad, src_pos, dst_pos, dst_shape):
    from ..ops.shape import _strided_sum
    return _strided_sum(grad, src_pos, dst_pos, dst_shape)


def diagonal_backward(grad, input_sizes, offset, dim1, dim2):
    from ..ops.shape import _diagonal_backward
    return _diagonal_backward(grad, tuple(input_sizes), offset, dim1, dim2)


# ---- indexing -----------------------------------------------------------------------------


# ---- matmul, linear algebra and nn --------------------------------------------------------
def silu_backward(grad, x):
    s = x.sigmoid()
    return grad * s * (1 + x * (1 - s))


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, x):
    """d(elu_backward)/d(self_or_result): zero on the positive side."""
    if is_result:   # the slope there is (result / scale + alpha) * input_scale * scale
        curvature = input_scale
    else:
        curvature = (x * input_scale).exp() * (alpha * scale * input_scale * input_scale)
    return where(x > 0, zeros_like(x), grad * grad_output * curvature)


_GELU_K = float(np.sqrt(2 / np.pi))
_GELU_C = 0.044715


def gelu_second_derivative(x, approximate):
    if approximate == "tanh":
        t = (_GELU_K * (x + _GELU_C * x * x * x)).tanh()
        du = _GELU_K * (1 + 3 * _GELU_C * x * x)
        return (1 - t * t) * (du - x * (t * du * du - 3 * _GELU_K * _GELU_C * x))
    return (x * x * -0.5).exp() * (float(1 / np.sqrt(2 * np.pi))) * (2 - x * x)


def softplus_second_derivative(x, beta, threshold):
    s = (x * beta).sigmoid()
    return where(x * beta > threshold, zeros_like(x), s * (1 - s) * beta)


def mse_loss_double_backward(grad, grad_output, numel, reduction):
    """d(mse_loss_backward)/d(self): 2 * grad_output (/ numel for the mean) per element."""
    return grad * grad_output * (2 / numel if reduction == 1 else 2)
