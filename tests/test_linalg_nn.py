"""The matmul family and nn.functional beyond the registry: whole recorded graphs compared with
torch's, and errors (type and message) for bad input."""
import numpy as np
import pytest

import ndgrad
import ndgrad.nn.functional as F
from parity import both, err, same_error

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def _graph(fn):
    """The backward graph below `fn` as nested (name, children) tuples, leaves as "Leaf"."""
    if fn is None:
        return None
    name = fn.name()
    if name.endswith("AccumulateGrad"):
        return "Leaf"
    return (name, tuple(_graph(f) for f, _ in fn.next_functions if f is not None))


def _same_graph(call, *shapes, requires_grad=None):
    requires_grad = requires_grad or [True] * len(shapes)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    graphs = []
    for T in (ndgrad, torch):
        inputs = [T.tensor(a, requires_grad=g) for a, g in zip(arrays, requires_grad)]
        graphs.append(_graph(call(T, *inputs).grad_fn))
    assert graphs[0] == graphs[1]


MATMUL_SHAPES = [
    ((3,), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)),
    ((2, 5, 2, 3), (2, 5, 3, 4)), ((2, 5, 2, 3), (3,)), ((3,), (2, 5, 3, 4)), ((1, 2, 3), (1, 3, 4)),
]


@needs_torch
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)], ids=str)
def test_matmul_records_torchs_graph(shapes, grads):
    _same_graph(lambda T, a, b: T.matmul(a, b), *shapes, requires_grad=list(grads))


@needs_torch
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3), (5,)), ((3,), (5, 3), (5,)), ((2, 4, 3), (5, 3), (5,)),
                                    ((2, 2, 4, 3), (5, 3), (5,)), ((4, 3), (5, 3)), ((2, 4, 3), (5, 3)),
                                    ((3,), (5, 3))], ids=str)
def test_linear_records_torchs_graph(shapes):
    _same_graph(lambda T, *xs: T.nn.functional.linear(*xs), *shapes)


@needs_torch
def test_cross_entropy_records_torchs_graph():
    target = [1, 0, 4, 2]
    _same_graph(lambda T, x: T.nn.functional.cross_entropy(x, T.tensor(target)), (4, 5))
    _same_graph(lambda T, x: T.nn.functional.nll_loss(x, T.tensor([[0, 2, 1]]), reduction="none"), (1, 3, 3))


@needs_torch
@pytest.mark.parametrize("call", [
    lambda T, x: T.softmax(x, 1), lambda T, x: T.log_softmax(x, 0), lambda T, x: T.relu(x),
    lambda T, x: T.nn.functional.gelu(x), lambda T, x: T.nn.functional.elu(x),
    lambda T, x: T.nn.functional.softplus(x), lambda T, x: T.nn.functional.leaky_relu(x, 0.1),
    lambda T, x: T.nn.functional.nll_loss(x, T.tensor([0, 2, 1])),
    lambda T, x: T.nn.functional.mse_loss(x, T.zeros(3, 4, dtype=T.float64)),
], ids=["softmax", "log_softmax", "relu", "gelu", "elu", "softplus", "leaky_relu", "nll_loss", "mse_loss"])
def test_double_backward_records_torchs_nodes(call):
    """First-order gradients are ops with derivatives of their own (SoftmaxBackwardDataBackward0...)."""
    names = []
    for T in (ndgrad, torch):
        x = T.tensor(np.linspace(-2, 2, 12).reshape(3, 4), requires_grad=True)
        out = call(T, x)
        g, = T.autograd.grad(out, x, T.ones_like(out), create_graph=True)
        names.append(g.grad_fn.name())
    assert names[0] == names[1]


# ---- numerics -----------------------------------------------------------------------------
def test_softmax_is_stable_for_large_inputs():
    x = ndgrad.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0]])
    np.testing.assert_allclose(ndgrad.softmax(x, 1).numpy().sum(1), [1, 1])
    assert np.isfinite(ndgrad.log_softmax(x, 1).numpy()).all()


def test_float32_stays_float32():
    x = ndgrad.randn(4, 5, dtype=ndgrad.float32, requires_grad=True)
    w = ndgrad.randn(3, 5, dtype=ndgrad.float32, requires_grad=True)
    out = F.cross_entropy(F.linear(x, w).relu(), ndgrad.tensor([0, 2, 1, 1]))
    assert out.dtype == ndgrad.float32
    out.backward()
    assert x.grad.dtype == ndgrad.float32 and w.grad.dtype == ndgrad.float32


def test_nll_loss_all_ignored_mean_is_nan():
    x = ndgrad.zeros(2, 3, requires_grad=True)
    assert np.isnan(F.nll_loss(x, ndgrad.tensor([-100, -100])).item())


def test_relu_inplace_on_leaf_refuses():
    with pytest.raises(RuntimeError, match="leaf Variable"):
        ndgrad.relu_(ndgrad.randn(3, requires_grad=True))


# ---- errors: torch's exception type, and torch's message within ours -----------------------
ERRORS = [
    ("mm_shapes", lambda T: T.mm(T.ones(2, 3), T.ones(2, 3)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("mm_not_matrix", lambda T: T.mm(T.ones(3), T.ones(3, 2)), RuntimeError, "must be a matrix"),
    ("mm_dtypes", lambda T: T.mm(T.ones(2, 3), T.ones(3, 2, dtype=T.float64)), RuntimeError, "dtype"),
    ("mv_sizes", lambda T: T.mv(T.ones(2, 3), T.ones(2)), RuntimeError, "size mismatch"),
    ("dot_sizes", lambda T: T.dot(T.ones(3), T.ones(4)), RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements"),
    ("dot_2d", lambda T: T.dot(T.ones(3, 1), T.ones(3)), RuntimeError, "1D tensors expected, but got 2D and 1D"),
    ("bmm_sizes", lambda T: T.bmm(T.ones(2, 3, 4), T.ones(2, 3, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    ("bmm_2d", lambda T: T.bmm(T.ones(3, 4), T.ones(2, 4, 5)), RuntimeError, "batch1 must be a 3D tensor"),
    ("matmul_0d", lambda T: T.matmul(T.ones(()), T.ones(3)), RuntimeError,
     "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    ("matmul_1d_2d", lambda T: T.matmul(T.ones(3), T.ones(4, 2)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)"),
    ("matmul_3d_2d", lambda T: T.ones(5, 2, 3) @ T.ones(4, 2), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (10x3 and 4x2)"),
    ("matmul_batch", lambda T: T.matmul(T.ones(5, 2, 3), T.ones(4, 3, 2)), RuntimeError, ""),
    ("addbmm_batches", lambda T: T.addbmm(T.ones(3, 5), T.ones(2, 3, 4), T.ones(3, 4, 5)), RuntimeError,
     "batch1 and batch2 must have same number of batches, got 2 and 3"),
    ("outer_2d", lambda T: T.outer(T.ones(2, 3), T.ones(3)), RuntimeError, "outer: Expected 1-D argument self"),
    ("inner_sizes", lambda T: T.inner(T.ones(2, 3), T.ones(2, 4)), RuntimeError,
     "inner() the last dimension must match on both input tensors"),
    ("linear_shapes", lambda T: T.nn.functional.linear(T.ones(2, 3), T.ones(4, 4)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)"),
    ("nll_target_oob", lambda T: T.nn.functional.nll_loss(T.ones(3, 5), T.tensor([1, 5, 2])), IndexError,
     "Target 5 is out of bounds."),
    ("nll_target_negative", lambda T: T.nn.functional.nll_loss(T.ones(3, 5), T.tensor([1, -2, 2])), IndexError,
     "Target -2 is out of bounds."),
    ("nll_batch", lambda T: T.nn.functional.nll_loss(T.ones(3, 5), T.tensor([1, 2])), ValueError,
     "Expected input batch_size (3) to match target batch_size (2)."),
    ("nll_float_target", lambda T: T.nn.functional.nll_loss(T.ones(3, 5), T.ones(3)), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    ("nll_4d_target", lambda T: T.nn.functional.nll_loss(T.ones(2, 5, 3, 3), T.zeros(2, 3, 2, dtype=T.long)),
     RuntimeError, "size mismatch (got input: [2, 5, 3, 3] , target: [2, 3, 2]"),
    ("nll_3d_target", lambda T: T.nn.functional.nll_loss(T.ones(2, 5, 3), T.zeros(2, 4, dtype=T.long)),
     RuntimeError, "Expected target size [2, 3], got [2, 4]"),
    ("nll_0d_input", lambda T: T.nn.functional.nll_loss(T.ones(()), T.tensor([1])), ValueError,
     "Expected 1 or more dimensions (got 0)"),
    ("nll_bad_reduction", lambda T: T.nn.functional.nll_loss(T.ones(2, 5), T.tensor([1, 2]), reduction="foo"),
     ValueError, "foo is not a valid value for reduction"),
    ("cross_entropy_oob", lambda T: T.nn.functional.cross_entropy(T.ones(3, 5), T.tensor([1, 5, 2])), IndexError,
     "Target 5 is out of bounds."),
    ("cross_entropy_batch", lambda T: T.nn.functional.cross_entropy(T.ones(3, 5), T.tensor([1, 2])), ValueError,
     "Expected input batch_size (3) to match target batch_size (2)."),
    ("cross_entropy_smoothing", lambda T: T.nn.functional.cross_entropy(T.ones(3, 5), T.tensor([1, 2, 3]),
                                                                       label_smoothing=1.5), RuntimeError,
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    ("cross_entropy_int_probs", lambda T: T.nn.functional.cross_entropy(T.ones(3, 5), T.ones(3, 5, dtype=T.long)),
     RuntimeError, "Expected floating point type for target with class probabilities, got Long"),
    ("nll_weight_requires_grad", lambda T: T.nn.functional.nll_loss(
        T.ones(3, 5), T.tensor([1, 2, 3]), weight=T.ones(5, requires_grad=True)), RuntimeError,
     "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'."),
    ("mse_shapes", lambda T: T.nn.functional.mse_loss(T.ones(3, 5), T.ones(3, 4)), RuntimeError, ""),
    ("softmax_dim", lambda T: T.softmax(T.ones(3, 5), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("softmax_int", lambda T: T.softmax(T.tensor([1, 2]), 0), NotImplementedError, ""),
    ("relu_bool", lambda T: T.relu(T.tensor([True])), RuntimeError, "Boolean inputs not supported for relu"),
]


@needs_torch
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name, call, exc, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, call, exc, message):
    with pytest.raises(exc) as theirs:
        call(torch)
    with pytest.raises(exc) as ours:
        call(ndgrad)
    assert message in str(theirs.value) and message in str(ours.value)


@pytest.mark.parametrize("call", [
    lambda T: T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(4, 5)),
    lambda T: T.einsum("ij,jk->ik", T.ones(2, 3)),
    lambda T: T.einsum("i->i", T.ones(2), T.ones(2)),
    lambda T: T.einsum("ij->ik", T.ones(2, 3)),
    lambda T: T.einsum("ijk->ik", T.ones(2, 3)),
    lambda T: T.einsum("ij->ii", T.ones(2, 3)),
    lambda T: T.einsum("ii->i", T.ones(2, 3)),
    lambda T: T.einsum("i1->i", T.ones(2, 3)),
    lambda T: T.einsum("i,i", T.ones(2, dtype=T.float64), T.ones(2)),
], ids=["broadcast", "fewer", "more", "output_missing", "ndim", "output_repeated", "diagonal_sizes",
        "bad_subscript", "dtypes"])
def test_einsum_errors(call):
    same_error(call)


_LU_SINGULAR = ("U[1,1] is zero and using it on lu_solve would result in a division by zero. If you still want to "
                "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@pytest.mark.parametrize("call, message", [
    (lambda T: T.linalg.lu_factor(T.zeros(2, 2)), "torch.linalg.lu_factor: " + _LU_SINGULAR),
    (lambda T: T.linalg.lu_factor(T.stack([T.eye(2), T.zeros(2, 2)])),
     "torch.linalg.lu_factor: (Batch element 1): " + _LU_SINGULAR),
    (lambda T: T.linalg.lu_factor_ex(T.zeros(2, 2), check_errors=True), "torch.linalg.lu_factor_ex: " + _LU_SINGULAR),
    (lambda T: T.linalg.lu_factor_ex(T.zeros(3, 2, 2), check_errors=True),
     "torch.linalg.lu_factor_ex: (Batch element 0): " + _LU_SINGULAR),
])
def test_lu_factor_of_a_singular_matrix_is_a_plain_runtime_error(call, message):
    # torch raises RuntimeError itself here, not its LinAlgError subclass, for batches as well
    assert both(lambda T: err(lambda: call(T))) == ["RuntimeError", message]


def test_lu_factor_ex_reports_singular_matrices_in_info():
    LU, pivots, info = both(lambda T: list(T.linalg.lu_factor_ex(T.tensor([[1.0, 2.0], [2.0, 4.0]]))))
    np.testing.assert_array_equal(LU, [[2.0, 4.0], [0.5, 0.0]])
    np.testing.assert_array_equal(pivots, [2, 2])
    assert info == 2


def test_lu_warns_once_per_process_that_it_is_deprecated(monkeypatch):
    from ndgrad.ops import linalg_decompositions
    monkeypatch.setattr(linalg_decompositions, "_lu_warned", [])
    A = ndgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.warns(UserWarning, match=r"^torch.lu is deprecated in favor of torch.linalg.lu_factor") as seen:
        LU, pivots = ndgrad.lu(A)
        ndgrad.lu(A)
    assert len(seen) == 1 and pivots.tolist() == [2, 2]
    assert np.allclose(LU.numpy(), [[3.0, 4.0], [1 / 3, 2 / 3]])


def test_frexp_gives_torchs_return_type():
    out = ndgrad.frexp(ndgrad.tensor([8.0, -0.75]))
    assert out.mantissa.tolist() == [0.5, -0.75] and out.exponent.tolist() == [4, 0]
    assert repr(out).startswith("torch.return_types.frexp(\nmantissa=tensor([ 0.5000, -0.7500]),")
