"""Distances, grid sampling, embedding_bag, attention, CTC, packed sequences and weight norm beyond
the registry (tests/op_db/distance.py, linalg.py, sampling.py, embedding.py, normalization.py,
attention.py, loss.py, recurrent.py): double-backward nodes, torch's backend choices, errors,
and the nn.utils pieces (rnn, parametrizations, weight_norm) run against torch."""
import warnings

import numpy as np
import pytest

import ndgrad
from parity import LIBS, both, parity, same_error


def _x(T, *shape, seed=0):
    rng = np.random.default_rng(seed)
    return T.tensor(rng.standard_normal(shape), requires_grad=True)


# ---- double backward: the backward kernels are ops with nodes of their own ------------------
@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
@pytest.mark.parametrize("op,node", [("pdist", "PdistBackwardBackward0"), ("cdist", "CdistBackwardBackward0")])
def test_distance_backward_records_a_node_that_raises(T, op, node):
    x = _x(T, 3, 2)
    y = T.pdist(x) if op == "pdist" else T.cdist(x, x.detach() * 2, p=1.0)
    g, = T.autograd.grad(y, x, T.ones_like(y, requires_grad=True), create_graph=True)
    assert g.grad_fn.name() == node
    with pytest.raises(NotImplementedError, match=f"the derivative for '_{op}_backward' is not implemented."):
        g.sum().backward()


def test_grid_sampler_double_backward_node():
    def scenario(T):
        x, grid = _x(T, 1, 1, 3, 3), (_x(T, 1, 2, 2, 2, seed=1) * 0.9).detach().requires_grad_()
        y = T.nn.functional.grid_sample(x, grid, mode="bicubic", padding_mode="border", align_corners=False)
        gx, gg = T.autograd.grad(y, (x, grid), T.ones_like(y, requires_grad=True) * 0.5, create_graph=True)
        names = (gx.grad_fn.name(), gg.grad_fn.name())
        return [names, list(T.autograd.grad((gx.sum() + (gg * gg).sum()), (x, grid)))]
    (n1, n2), _ = both(scenario)
    assert n1 == n2 == "GridSampler2DBackwardBackward0"


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_embedding_bag_per_sample_weights_double_backward_raises(T):
    w, psw = _x(T, 3, 2), _x(T, 2, seed=1)
    y = T.nn.functional.embedding_bag(T.tensor([0, 2]), w, T.tensor([0]), mode="sum", per_sample_weights=psw)
    gw, gp = T.autograd.grad(y, (w, psw), T.ones_like(y, requires_grad=True), create_graph=True)
    assert gw.grad_fn.name() == "EmbeddingBagBackwardBackward0"
    assert gp.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::_embedding_bag_per_sample_weights_backward"):
        gp.sum().backward()


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_ctc_and_flash_attention_backward_are_not_differentiable(T):
    x = _x(T, 4, 1, 3)
    loss = T.nn.functional.ctc_loss(x.log_softmax(2), T.tensor([[1, 2]]), [4], [2], reduction="sum")
    g, = T.autograd.grad(loss, x, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        g.sum().backward()
    q = _x(T, 1, 1, 2, 4)
    out = T.nn.functional.scaled_dot_product_attention(q, q, q)
    g, = T.autograd.grad(out.sum(), q, create_graph=True)
    with pytest.raises(RuntimeError, match="_scaled_dot_product_flash_attention_for_cpu_backward is not implemented"):
        g.sum().backward()


# ---- torch's choices of kernel --------------------------------------------------------------
@pytest.mark.parametrize("case", ["plain", "bool_mask", "gqa", "mask_requires_grad", "three_d", "dropout",
                                  "broadcast_batch", "value_dim", "fully_masked_math"])
def test_attention_backend_choice_and_values(case):
    def scenario(T):
        q, k, v = _x(T, 1, 2, 3, 4), _x(T, 1, 2, 3, 4, seed=1), _x(T, 1, 2, 3, 4, seed=2)
        kw = {}
        if case == "bool_mask":
            kw["attn_mask"] = T.tensor([[True, False, True], [False, False, False], [True, True, True]])
        elif case == "gqa":
            q, kw["enable_gqa"] = _x(T, 1, 4, 3, 4), True
        elif case == "mask_requires_grad":
            kw["attn_mask"] = _x(T, 3, 3, seed=3)
        elif case == "three_d":
            q, k, v = q[0], k[0], v[0]
        elif case == "dropout":
            kw["dropout_p"] = 0.3
        elif case == "broadcast_batch":
            q = _x(T, 2, 2, 3, 4)
        elif case == "value_dim":
            v = _x(T, 1, 2, 3, 5)
        elif case == "fully_masked_math":
            q, k, v = q[0], k[0], v[0]
            kw["attn_mask"] = T.tensor([[True, False, True], [False, False, False], [True, True, True]])
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        return [out.grad_fn.name()] + ([] if case == "dropout" else [out, *T.autograd.grad(out.sum(), (q, k, v))])
    parity(scenario)


@pytest.mark.parametrize("mode,p,rows,node", [
    ("use_mm_for_euclid_dist_if_necessary", 2.0, 3, "CdistBackward0"),
    ("use_mm_for_euclid_dist_if_necessary", 2.0, 26, "EuclideanDistBackward0"),
    ("use_mm_for_euclid_dist", 2.0, 3, "EuclideanDistBackward0"),
    ("use_mm_for_euclid_dist", 1.0, 3, "CdistBackward0"),
    ("donot_use_mm_for_euclid_dist", 2.0, 26, "CdistBackward0")])
def test_cdist_compute_mode(mode, p, rows, node):
    def scenario(T):
        y = T.cdist(_x(T, rows, 2), _x(T, 3, 2, seed=1), p=p, compute_mode=mode)
        fn = y.grad_fn
        return [fn.name() if fn.name() != "ViewBackward0" else fn.next_functions[0][0].name(), y]
    assert both(scenario, atol=1e-6)[0] == node


# ---- errors -------------------------------------------------------------------------------
ERRORS = [
    (lambda T: T.cdist(T.ones(3), T.ones(2, 3)), RuntimeError),
    (lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4)), RuntimeError),
    (lambda T: T.cdist(T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.int64)), RuntimeError),
    (lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1), RuntimeError),
    (lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), compute_mode="fast"), ValueError),
    (lambda T: T.pdist(T.ones(2, 3, 3)), RuntimeError),
    (lambda T: T.pdist(T.ones(2, 3, dtype=T.int64)), RuntimeError),
    (lambda T: T.nn.functional.bilinear(T.ones(2, 3), T.ones(2, 2), T.ones(1, 2, 2)), RuntimeError),
    (lambda T: T.nn.functional.bilinear(T.ones(2, 2), T.ones(3, 2), T.ones(1, 2, 2)), RuntimeError),
    (lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), (1, 1, 2), align_corners=False), NotImplementedError),
    (lambda T: T.nn.functional.affine_grid(T.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False), ValueError),
    (lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3, dtype=T.int64), (1, 1, 2, 2)), ValueError),
    (lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 3), align_corners=False), RuntimeError),
    (lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(2, 2, 2, 2), align_corners=False), RuntimeError),
    (lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2, 2), T.ones(1, 2, 2, 2, 3), mode="bicubic",
                                           align_corners=False), RuntimeError),
    (lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 2), mode="area"), ValueError),
    (lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 2), padding_mode="wrap"), ValueError),
    (lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(3, 2), T.tensor([0]), mode="mean",
                                             per_sample_weights=T.ones(2)), NotImplementedError),
    (lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(3, 2)), ValueError),
    (lambda T: T.nn.functional.embedding_bag(T.tensor([0, 5]), T.ones(3, 2), T.tensor([0])), RuntimeError),
    (lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(3, 2), T.tensor([0]), mode="median"),
     ValueError),
    (lambda T: T.nn.functional.ctc_loss(T.zeros(4, 2, 3), T.tensor([[1, 2], [2, 0]]), [5, 4], [2, 1]), RuntimeError),
    (lambda T: T.nn.functional.ctc_loss(T.zeros(4, 2, 3), T.tensor([[1], [2]]), [4, 4], [2, 1]), RuntimeError),
    (lambda T: T.nn.functional.scaled_dot_product_attention(T.ones(2, 2), T.ones(2, 2), T.ones(2, 2),
                                                            attn_mask=T.ones(2, 2), is_causal=True), RuntimeError),
    (lambda T: T.nn.utils.rnn.pack_padded_sequence(T.ones(3, 2), [1, 2]), RuntimeError),
    (lambda T: T.nn.utils.rnn.pack_padded_sequence(T.ones(3, 2), [2, 0]), RuntimeError),
    (lambda T: T.nn.utils.rnn.pack_padded_sequence(T.ones(3, 2), [3, 2, 1]), RuntimeError),
    (lambda T: T.nn.utils.rnn.pad_packed_sequence(T.nn.utils.rnn.pack_sequence([T.ones(3), T.ones(2)]),
                                                  total_length=2), ValueError),
]


@pytest.mark.parametrize("call,exc", ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(call, exc):
    same_error(call, exc)


# ---- values beyond the registry -----------------------------------------------------------
def test_ctc_loss_infeasible_targets():
    def scenario(T):
        x = _x(T, 4, 2, 3)
        out = []
        for zero_infinity in (False, True):
            loss = T.nn.functional.ctc_loss(x.log_softmax(-1), T.tensor([[1, 1, 1], [2, 0, 0]]), [3, 4], [3, 1],
                                            reduction="none", zero_infinity=zero_infinity)
            out += [loss, T.autograd.grad(loss.sum(), x)[0]]
        return out
    parity(scenario)


def test_ctc_loss_float32_and_blank():
    def scenario(T):
        x = _x(T, 5, 2, 3).float().detach().requires_grad_()
        loss = T.nn.functional.ctc_loss(x.log_softmax(-1), T.tensor([[0, 1], [1, 0]]), [5, 3], [2, 2], blank=2)
        return [loss, T.autograd.grad(loss, x)[0]]
    parity(scenario, rtol=1e-5, atol=1e-6)


def test_top_level_ctc_loss_reductions():
    # uniform log-probabilities over (blank, 1), three steps: target [1] has 6 of the 8 paths,
    # [1, 1] one (1 blank 1); torch.ctc_loss's omitted reduction is none (its binding reads 0)
    def scenario(T):
        lp = T.zeros(3, 2, 2, dtype=T.float64).log_softmax(2).requires_grad_()
        args = (lp, T.tensor([[1, 0], [1, 1]]), T.tensor([3, 3]), T.tensor([1, 2]))
        losses = [T.ctc_loss(*args), T.ctc_loss(*args, 0, 0), T.ctc_loss(*args, 0, 1), T.ctc_loss(*args, 0, 2)]
        return losses + [[loss.grad_fn.name() for loss in losses]]
    default, none, mean, total, names = both(scenario)
    np.testing.assert_allclose(none, [-np.log(0.75), np.log(8)])
    np.testing.assert_array_equal(default, none)
    assert mean.shape == () and total.shape == ()
    np.testing.assert_allclose(mean, (-np.log(0.75) + np.log(8) / 2) / 2)
    np.testing.assert_allclose(total, -np.log(0.75) + np.log(8))
    assert names == ["CtcLossBackward0", "CtcLossBackward0", "MeanBackward0", "SumBackward0"]


# torch's top-level max pools are aten's: no return_indices (nn.functional's forms have it)
@pytest.mark.parametrize("call, message", [
    (lambda T, x: T.max_pool1d(x, 2, return_indices=True),
     "max_pool1d() got an unexpected keyword argument 'return_indices'"),
    (lambda T, x: T.max_pool2d(x, 2, 2, 0, 1, False, True),
     "max_pool2d() takes from 2 to 6 positional arguments but 7 were given"),
    (lambda T, x: T.max_pool3d(x.unsqueeze(0), 1, return_indices=True),
     "max_pool3d() got an unexpected keyword argument 'return_indices'"),
    (lambda T, x: T.max_pool1d_with_indices(x, 2, return_indices=True),
     "max_pool1d_with_indices() got an unexpected keyword argument 'return_indices'"),
    (lambda T, x: T.adaptive_max_pool1d(x, 2, return_indices=True),
     "adaptive_max_pool1d() got an unexpected keyword argument 'return_indices'"),
    (lambda T, x: T.max_pool1d(x), 'max_pool1d() missing 1 required positional arguments: "kernel_size"'),
])
def test_top_level_max_pools_take_no_return_indices(call, message):
    assert same_error(lambda T: call(T, T.ones(1, 2, 4)), TypeError) == message


def test_top_level_max_pools_values():
    def scenario(T):
        x = T.tensor([[[1.0, 3.0, 2.0, 4.0]]])
        return [T.max_pool1d(x, 2), *T.max_pool1d_with_indices(x, kernel_size=2, stride=1, ceil_mode=True),
                T.max_pool2d(T.arange(16.0).reshape(1, 4, 4), [2, 2], []), *T.adaptive_max_pool1d(x, 2),
                *T.nn.functional.max_pool1d(x, 2, return_indices=True)]
    pool1, with_idx, idx, pool2, adaptive, adaptive_idx, functional, functional_idx = both(scenario)
    np.testing.assert_array_equal(pool1, [[[3.0, 4.0]]])
    np.testing.assert_array_equal(with_idx, [[[3.0, 3.0, 4.0]]])
    np.testing.assert_array_equal(idx, [[[1, 1, 3]]])
    np.testing.assert_array_equal(pool2, [[[5.0, 7.0], [13.0, 15.0]]])
    np.testing.assert_array_equal(adaptive, [[[3.0, 4.0]]])
    np.testing.assert_array_equal(adaptive_idx, [[[1, 3]]])
    np.testing.assert_array_equal(functional_idx, [[[1, 3]]])


def test_embedding_bag_max_with_empty_bags_and_float32():
    def scenario(T):
        w = _x(T, 4, 3).float().detach().requires_grad_()
        out = T.nn.functional.embedding_bag(T.tensor([1, 1, 2]), w, T.tensor([0, 0, 1, 3]), mode="max")
        return [out, T.autograd.grad(out.sum(), w)[0]]
    parity(scenario)


def test_grid_sample_float32_and_unit_size():
    def scenario(T):
        x = T.tensor(np.linspace(-2, 2, 24, dtype=np.float32).reshape(1, 2, 3, 4))
        grid = T.tensor(np.linspace(-1.3, 1.25, 8, dtype=np.float32).reshape(1, 2, 2, 2))
        thin = T.tensor(np.arange(12.0).reshape(1, 1, 1, 12))
        return ([T.nn.functional.grid_sample(x, grid, mode=m, padding_mode="reflection", align_corners=False)
                 for m in ("bilinear", "nearest", "bicubic")] +
                [T.nn.functional.grid_sample(thin, grid.double(), padding_mode=p, align_corners=a)
                 for p in ("zeros", "border", "reflection") for a in (False, True)])
    parity(scenario, rtol=1e-5, atol=1e-6)


# ---- nn.utils.rnn -------------------------------------------------------------------------
def test_packed_sequence_round_trip():
    def scenario(T):
        rnn = T.nn.utils.rnn
        a, b, c = _x(T, 2, 2), _x(T, 3, 2, seed=1), _x(T, 1, 2, seed=2)
        packed = rnn.pack_sequence([a, b, c], enforce_sorted=False)
        padded, lengths = rnn.pad_packed_sequence(packed, batch_first=True, total_length=4)
        seqs = rnn.unpack_sequence(packed)
        loss = (padded * T.arange(1.0, 9.0, dtype=T.float64).reshape(1, 4, 2)).sum()
        return [packed.data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, padded, lengths,
                seqs, padded.grad_fn.name(), list(T.autograd.grad(loss, (a, b, c)))]
    parity(scenario)


def test_import_paths_of_nn_utils():
    from ndgrad.nn.utils.rnn import PackedSequence, pack_sequence  # noqa: F401
    from ndgrad.nn.utils.parametrize import register_parametrization  # noqa: F401
    from ndgrad.nn.utils.parametrizations import weight_norm  # noqa: F401
    assert isinstance(pack_sequence([ndgrad.ones(2), ndgrad.ones(1)]), PackedSequence)


# ---- weight norm --------------------------------------------------------------------------
def test_parametrizations_weight_norm():
    def scenario(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 2, dtype=T.float64)
        with T.no_grad():
            lin.weight.copy_(T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=T.float64))
            lin.bias.fill_(0.25)
        m = T.nn.utils.parametrizations.weight_norm(lin)
        names = sorted(n for n, _ in m.named_parameters())
        g, v = m.parametrizations.weight.original0, m.parametrizations.weight.original1
        w = m.weight
        (m(T.ones(1, 3, dtype=T.float64)) ** 2).sum().backward()
        T.nn.utils.parametrize.remove_parametrizations(m, "weight")
        return [type(m).__name__, names, w.grad_fn.name(), w, g.grad, v.grad,
                sorted(n for n, _ in m.named_parameters()), m.weight]
    parity(scenario)


def test_deprecated_weight_norm_hook():
    def scenario(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin = T.nn.Linear(2, 2, dtype=T.float64)
            with T.no_grad():
                lin.weight.copy_(T.tensor([[1.0, 2.0], [-3.0, 0.5]], dtype=T.float64))
                lin.bias.fill_(-1.0)
            m = T.nn.utils.weight_norm(lin, dim=None)
        names = sorted(n for n, _ in m.named_parameters())
        with T.no_grad():
            m.weight_g.mul_(2.0)
        out = m(T.ones(1, 2, dtype=T.float64))   # the pre-hook recomputes the weight
        T.nn.utils.remove_weight_norm(m)
        return [names, m.weight_g if hasattr(m, "weight_g") else None, out, sorted(n for n, _ in m.named_parameters())]
    parity(scenario)


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_weight_norm_twice_raises(T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = T.nn.utils.weight_norm(T.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
            T.nn.utils.weight_norm(m)


# ---- average pooling: each window summed in torch's order (row-major over the kernel) -----------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("args", [((2,), (2,), 0, False, True), ((3,), (2,), 1, True, True),
                                  ((3,), (2,), 1, True, False), ((7,), (7,), 0, False, True),
                                  ((3, 2), (1,), (1, 0), False, False)], ids=str)
def test_avg_pool2d_gives_torchs_bits(dtype, args):
    kernel, stride, padding, ceil_mode, count_include_pad = args
    x = (np.random.default_rng(1).standard_normal((3, 4, 17, 19)) * 10).astype(dtype)

    def s(T):
        return T.nn.functional.avg_pool2d(T.from_numpy(x.copy()), kernel, stride, padding, ceil_mode,
                                          count_include_pad)
    parity(s, rtol=0, atol=0)
