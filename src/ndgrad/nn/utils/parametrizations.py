"""torch.nn.utils.parametrizations: weight_norm as a parametrization (g * v / ||v||, recomputed
on every access through torch's fused op _weight_norm), orthogonal (a matrix exponential, Cayley map
or Householder product of an unconstrained original) and spectral_norm (division by the largest
singular value, estimated by power iteration on the buffers _u, _v)."""
from enum import Enum, auto

from ... import linalg
from ..._tensor import Tensor
from ..._typeinfo import finfo
from ...autograd.grad_mode import no_grad
from ...ops.creation import eye, zeros_like
from ...ops.linalg import mv, vdot
from ...ops.linalg_decompositions import geqrf, matrix_exp

from ...ops.normalization import _weight_norm, normalize
from ...ops.pointwise import add, allclose
from ...ops.random import randn
from ...ops.reduction import norm_except_dim
from ...ops.shape import cat
from ..modules.convolution import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from .parametrize import register_parametrization


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.parametrizations.weight_norm: `name` = g * v / ||v|| with g, v as
    parametrizations.<name>.original0 / original1."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    return allclose(Q.mH @ Q, eye(k, dtype=Q.dtype), atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition, its columns' signs fixed by R's diagonal (a unique choice)."""
    X, tau = geqrf(A)
    Q = linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix (or batch) to an orthogonal one; with trivialization the result
    is multiplied by the buffer `base`, which assignments set (the original then maps to identity)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k   # work on the tall form
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:   # pad to square: exp / Cayley of a skew-symmetric matrix, then keep k columns
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype)
                Q = linalg.solve(add(Id, A, alpha=-0.5), add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                # the Householder reflectors of Q, the diagonal's signs keeping Q's columns' signs
                A, tau = geqrf(Q)
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:   # complete to a square orthogonal basis with random columns
                N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(cat([Q, N], dim=-1))
            self.base = Q
            # the original that every map sends to the identity (on the first k columns)
            neg_Id = zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make `module.<name>` (a matrix or batch of matrices) orthogonal (unitary), through the map
    "matrix_exp", "cayley" or "householder" (default: matrix_exp for square or complex matrices,
    householder otherwise); the original is `parametrizations.<name>.original`.

    Example::

        >>> m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3))
        >>> torch.allclose(m.weight @ m.weight.T, torch.eye(3), atol=1e-6)
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    register_parametrization(module, name, orth, unsafe=True)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight as a matrix (rows along `dim`),
    estimated by power iteration: 15 steps at creation, n_power_iterations per forward in training."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:   # a vector is simply normalized
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():   # the buffers advance in place (torch's normalize(..., out=))
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(mv(weight_mat.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the next forward's in-place steps must not touch what this graph saved
        sigma = vdot(self._u.clone(), mv(weight_mat, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization as a parametrization: `module.<name>` is the original
    (`parametrizations.<name>.original`) divided by its estimated largest singular value (dim 1 for
    transposed convolutions, 0 otherwise).

    Example::

        >>> m = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(4, 3))
        >>> sorted(m.state_dict())
        ['bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v', 'parametrizations.weight.original']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
