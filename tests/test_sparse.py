"""Sparse tensors beyond single ops (those are in op_db/sparse.py): layouts and storage, the layout of
gradients that reach sparse leaves, accumulation into .grad, printing, and torch's errors."""
import numpy as np
import pytest

import ndgrad
from parity import LIBS, both, parity, same_error

X = [[1.0, 0.0, 3.0], [0.0, 2.0, 0.0], [4.0, 0.0, 0.0], [0.0, 5.0, 6.0]]


def dense_leaf(T):
    return T.tensor(X, dtype=T.float64, requires_grad=True)


def sparse_leaf(T, layout="coo"):
    x = T.tensor(X, dtype=T.float64)
    s = {"coo": x.to_sparse, "csr": x.to_sparse_csr, "csc": x.to_sparse_csc,
         "bsr": lambda: x.to_sparse_bsr((2, 1))}[layout]()
    return s.requires_grad_()


def grad_summary(t):
    g = t.grad
    return [str(g.layout), g.to_dense()]


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr"])
def test_storage_and_metadata(layout):
    def scenario(T):
        s = sparse_leaf(T, layout)
        if layout == "coo":
            parts = [s.indices(), s.is_coalesced(), s.is_sparse]
        elif layout in ("csr", "bsr"):
            parts = [s.crow_indices(), s.col_indices(), s.is_sparse_csr if layout == "csr" else 0]
        else:
            parts = [s.ccol_indices(), s.row_indices()]
        return parts + [s.values(), str(s.layout), list(s.shape), s._nnz(), s.sparse_dim(), s.dense_dim(),
                        s.numel(), s.dim(), str(s.dtype), s.to_dense()]
    parity(scenario)


def test_repr_matches_torch():
    def scenario(T):
        x = dense_leaf(T)
        v = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        return [repr(x.to_sparse()), repr(x.to_sparse(1)), repr(x.detach().to_sparse_csr()),
                repr(x.to_sparse_csc()), repr(x.to_sparse_bsr((2, 3))), repr(x.to_sparse_bsc((1, 1))),
                repr(T.sparse_coo_tensor(T.tensor([[0, 2, 0]]), v, (3,)).coalesce()),
                repr(T.zeros(2, 2).to_sparse()), repr(sparse_leaf(T)), repr(T.ones(2, 3, dtype=T.int32).to_sparse()),
                repr(T.arange(40.0).reshape(2, 20).to_sparse_csr())]
    parity(scenario)


def test_layout_objects():
    assert [repr(ndgrad.strided), str(ndgrad.sparse_coo), repr(ndgrad.sparse_bsc)] == \
        ["torch.strided", "torch.sparse_coo", "torch.sparse_bsc"]
    assert ndgrad.ones(2).layout is ndgrad.strided and not ndgrad.ones(2).is_sparse
    assert isinstance(ndgrad.sparse_csr, ndgrad.layout)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_leaf_gets_sparse_grad_from_sparse_mm(layout):
    def scenario(T):
        s = sparse_leaf(T, layout)
        d = T.arange(6, dtype=T.float64).reshape(3, 2).requires_grad_()
        T.sparse.mm(s, d).sum().backward()
        return grad_summary(s) + [d.grad]
    parity(scenario)


def test_sparse_grad_accumulates_over_two_backward_calls():
    def scenario(T):
        s = sparse_leaf(T)
        d = T.ones(3, 2, dtype=T.float64)
        for k in range(2):
            (T.sparse.mm(s, d) * (k + 1)).sum().backward()
        return grad_summary(s)
    parity(scenario)


def test_two_paths_into_a_sparse_leaf_sum_sparse_gradients():
    def scenario(T):
        s = sparse_leaf(T)
        out = T.sparse.sum(s, 0).to_dense().sum() + (s.to_dense() ** 2).sum()
        out.backward()
        return grad_summary(s)
    parity(scenario)


@pytest.mark.parametrize("call", [
    lambda T, s: s.to_dense(),
    lambda T, s: s.coalesce().values(),
    lambda T, s: T.sparse.softmax(s, 1).to_dense(),
    lambda T, s: T.sparse.log_softmax(s, 0).to_dense(),
    lambda T, s: T.sparse.sum(s, 1).to_dense(),
    lambda T, s: T.sparse.mm(s, s.t()).to_dense(),
    lambda T, s: s.t().to_dense(),
    lambda T, s: (s + s).to_dense(),
    lambda T, s: (s * 3).to_dense(),
    lambda T, s: s.to_sparse_csr().to_dense(),
], ids=["to_dense", "values", "softmax", "log_softmax", "sum", "sparse_mm", "t", "add", "mul", "to_csr"])
def test_gradient_layout_of_sparse_coo_leaf(call):
    def scenario(T):
        s = sparse_leaf(T)
        w = T.arange(float(np.prod(call(T, s).shape)), dtype=T.float64).reshape(call(T, s).shape)
        (call(T, s) * w).sum().backward()
        return grad_summary(s)
    parity(scenario)


@pytest.mark.parametrize("layout,call", [
    ("csr", lambda T, s: s.to_dense()),
    ("csr", lambda T, s: s.values()),
    ("csr", lambda T, s: s.to_sparse().to_dense()),
    ("csr", lambda T, s: T.sparse.sampled_addmm(s, T.ones(4, 2, dtype=T.float64), T.ones(2, 3, dtype=T.float64)
                                                 ).to_dense()),
    ("csr", lambda T, s: T.sparse.mm(s, T.ones(3, 2, dtype=T.float64), "mean")),
], ids=["csr_to_dense", "csr_values", "csr_to_coo", "csr_sampled_addmm", "csr_mm_mean"])
def test_gradient_layout_of_csr_leaf(layout, call):
    def scenario(T):
        s = sparse_leaf(T, layout)
        out = call(T, s)
        w = T.arange(float(out.numel()), dtype=T.float64).reshape(out.shape)
        (out * w).sum().backward()
        return grad_summary(s)
    parity(scenario)


@pytest.mark.parametrize("layout", ["csc", "bsr"])
def test_gradient_of_csc_and_bsr_leaves(layout):
    # torch cannot accumulate into these leaves ("Sparse CSC tensors do not have is_contiguous");
    # ndgrad gives the gradient in the leaf's layout, on its stored elements
    s = sparse_leaf(ndgrad, layout)
    w = ndgrad.arange(12.0, dtype=ndgrad.float64).reshape(4, 3)
    (s.to_dense() * w).sum().backward()
    (s.t().to_dense() * w.t()).sum().backward()
    stored = s.detach().to_dense().numpy() != 0
    if layout == "bsr":   # whole (2, 1) blocks are stored
        stored = stored.reshape(2, 2, 3).any(1, keepdims=True).repeat(2, 1).reshape(4, 3)
    assert s.grad.layout is getattr(ndgrad, "sparse_" + layout)
    np.testing.assert_array_equal(s.grad.to_dense().numpy(), 2 * np.where(stored, w.numpy(), 0))


def test_dense_plus_sparse_and_transposes():
    def scenario(T):
        x, s = dense_leaf(T), sparse_leaf(T)
        c = sparse_leaf(T, "csr")
        y = x + s
        y.sum().backward()
        return [y, str(s.t().layout), str(c.t().layout), c.t().to_dense(), x.grad, grad_summary(s),
                (s - s).to_dense(), (-s).to_dense()]
    parity(scenario)


def test_uncoalesced_coo():
    def scenario(T):
        v = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        s = T.sparse_coo_tensor(T.tensor([[0, 2, 0], [1, 0, 1]]), v, (3, 2))
        c = s.coalesce()
        (c.values() * T.tensor([1.0, 10.0], dtype=T.float64)).sum().backward()
        return [s.is_coalesced(), c.is_coalesced(), c.indices(), c.values(), s._values(), s.to_dense(), v.grad,
                c.coalesce() is c, s._nnz(), c._nnz()]
    parity(scenario)


def test_sparse_mask_with_compressed_mask_forward():
    def scenario(T):
        x = T.arange(12, dtype=T.float64).reshape(4, 3)
        m = T.tensor(X, dtype=T.float64)
        return [x.sparse_mask(m.to_sparse_csc()).values(), x.sparse_mask(m.to_sparse_bsr((2, 1))).to_dense()]
    parity(scenario)


def test_mm_reduce_amax_picks_per_row_extreme_and_skips_empty_rows():
    def scenario(T):
        c = T.tensor([[1.0, 0.0, 3.0], [0.0, 0.0, 0.0], [-2.0, 5.0, 0.0]], dtype=T.float64).to_sparse_csr()
        c.requires_grad_()
        d = T.tensor([[1.0, -1.0], [2.0, 0.5], [0.1, 4.0]], dtype=T.float64, requires_grad=True)
        outs = [T.sparse.mm(c, d, r) for r in ("amax", "amin", "mean")]
        sum(o.sum() for o in outs).backward()
        return outs + [c.grad.values(), d.grad]
    parity(scenario)


def test_sparse_tensor_to_numpy_is_refused():
    same_error(lambda T: sparse_leaf(T).detach().numpy(), TypeError)


@pytest.mark.parametrize("call", [
    lambda T: dense_leaf(T).to_sparse(layout=T.sparse_bsr),
    lambda T: dense_leaf(T).to_sparse_bsr((3, 1)),
    lambda T: T.sparse_coo_tensor(T.tensor([[0, 0]]), T.tensor([1.0, 2.0]), (3,)).values(),
    lambda T: T.sparse_coo_tensor(T.tensor([[0, 0]]), T.tensor([1.0, 2.0]), (3,)).indices(),
    lambda T: T.sparse_coo_tensor(T.tensor([[0, 3]]), T.tensor([1.0, 2.0]), (3,), check_invariants=True),
    lambda T: sparse_leaf(T) + dense_leaf(T),
    lambda T: T.sparse.mm(sparse_leaf(T, "csr"), T.ones(3, 2, dtype=T.float64), "prod"),
    lambda T: dense_leaf(T).to_sparse(3),
    lambda T: T.sparse.mm(sparse_leaf(T), T.ones(2, 2, dtype=T.float64)),
    lambda T: T.sparse_csr_tensor(T.tensor([0, 1, 5]), T.tensor([0, 1]), T.tensor([1., 2.]), (2, 2),
                                  check_invariants=True),
    lambda T: T.sparse_csc_tensor(T.tensor([1, 1, 2]), T.tensor([0, 1]), T.tensor([1., 2.]), (2, 2),
                                  check_invariants=True),
    lambda T: dense_leaf(T).to_sparse().crow_indices(),
    lambda T: sparse_leaf(T, "csr").coalesce(),
    lambda T: sparse_leaf(T, "bsr").row_indices(),
    lambda T: dense_leaf(T).values(),
    lambda T: dense_leaf(T).sparse_mask(T.ones(3, 3).to_sparse()),
], ids=["bsr_without_blocksize", "bsr_indivisible", "values_uncoalesced", "indices_uncoalesced",
        "index_out_of_size", "sparse_plus_dense", "reduce_prod", "sparse_dim_out_of_range", "mm_shapes",
        "crow_end_not_nnz", "ccol_start_not_zero", "crow_of_coo", "coalesce_csr", "row_indices_of_bsr",
        "values_of_dense", "sparse_mask_sizes"])
def test_errors_match_torch(call):
    same_error(call, RuntimeError)


@pytest.mark.parametrize("call", [
    lambda T: sparse_leaf(T).exp(),
    lambda T: T.sparse.softmax(sparse_leaf(T, "csr"), 0),
    lambda T: T.sparse.sampled_addmm(sparse_leaf(T), T.ones(4, 2), T.ones(2, 3)),
    lambda T: T.sparse.mm(sparse_leaf(T), T.ones(3, 2, dtype=T.float64), "sum"),
    lambda T: T.sparse.softmax(dense_leaf(T), 0),
    lambda T: T.sparse.sum(dense_leaf(T), 0),
    lambda T: dense_leaf(T).sparse_mask(dense_leaf(T)),
    lambda T: dense_leaf(T)._nnz(),
], ids=["exp", "softmax_csr", "sampled_addmm_coo", "mm_reduce_coo", "softmax_dense", "sum_dense",
        "sparse_mask_dense_mask", "nnz_dense"])
def test_ops_torch_lacks_for_a_layout_raise_not_implemented(call):
    for T in LIBS:
        with pytest.raises(NotImplementedError, match="with arguments from the '(Sparse|SparseCsr)?CPU' backend"):
            call(T)


def _product_operand(T, sparse, layout, requires_grad, values):
    t = T.tensor(values, dtype=T.float64)
    if sparse:
        t = (t.to_sparse() if layout == "coo" else t.to_sparse_csr()).detach()
    return t.requires_grad_(requires_grad)


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("product", ["mm", "matmul", "addmm"])
@pytest.mark.parametrize("a_sparse, b_sparse", [(True, False), (False, True), (True, True)])
def test_dense_products_of_sparse_operands(layout, product, a_sparse, b_sparse):
    # the dense ops' own nodes (MmBackward0, AddmmBackward0): the product is sparse only when both operands are,
    # and the gradients (of a dense sum) are dense and unmasked, stored values or not
    def scenario(T):
        a = _product_operand(T, a_sparse, layout, True, [[1.0, 0.0, 2.0], [0.0, -3.0, 0.0]])
        b = _product_operand(T, b_sparse, layout, True, [[0.0, 4.0], [5.0, 0.0], [0.0, -1.0]])
        r = {"mm": lambda: a.mm(b), "matmul": lambda: a @ b,
             "addmm": lambda: T.addmm(T.ones(2, 2, dtype=T.float64), a, b, beta=2, alpha=3)}[product]()
        r.sum().backward()
        return [type(r.grad_fn).__name__, str(r.layout), r.to_dense(), grad_summary(a), grad_summary(b)]
    if product == "addmm" and layout == "coo" and b_sparse:   # torch's COO addmm is sparse @ strided only
        for T in LIBS:
            with pytest.raises(RuntimeError, match="addmm_sparse_dense: expected either 'mat1' to have sparse"):
                scenario(T)
        return
    name, out_layout, value, ga, gb = both(scenario)
    assert name == ("AddmmBackward0" if product == "addmm" else "MmBackward0")
    assert out_layout == ("torch.sparse_coo" if layout == "coo" else "torch.sparse_csr") \
        if a_sparse and b_sparse and product != "addmm" else out_layout == "torch.strided"
    np.testing.assert_allclose(ga[1], np.ones((2, 2)) @ np.array([[0.0, 4.0], [5.0, 0.0], [0.0, -1.0]]).T *
                               (3 if product == "addmm" else 1))
    assert ga[0] == gb[0] == "torch.strided"


def test_a_sparse_gradient_through_a_sparse_product_stays_sparse():
    def scenario(T):
        a = T.tensor([[1.0, 0.0], [0.0, 2.0]], dtype=T.float64).to_sparse().requires_grad_()
        b = T.tensor([[0.0, 3.0], [4.0, 0.0]], dtype=T.float64).to_sparse().requires_grad_()
        T.sparse.sum(a.mm(b)).backward()
        return grad_summary(a) + grad_summary(b)
    a_layout, ga, b_layout, gb = both(scenario)
    assert a_layout == b_layout == "torch.sparse_coo"
    # the incoming gradient is 1 where a @ b stores values, (0, 1) and (1, 0)
    np.testing.assert_allclose(ga, [[3.0, 0.0], [0.0, 4.0]])
    np.testing.assert_allclose(gb, [[0.0, 1.0], [2.0, 0.0]])


@pytest.mark.parametrize("call", [
    lambda T, c, s, d: T.addmm(d, s, c), lambda T, c, s, d: T.addmm(s, s, d), lambda T, c, s, d: T.addmm(c, d, d),
    lambda T, c, s, d: s.mm(c)], ids=["coo_and_csr", "coo_input", "csr_input", "mm_coo_csr"])
def test_products_of_layouts_torch_refuses(call):
    def go(T):
        d = T.ones(3, 3, dtype=T.float64)
        call(T, d.to_sparse_csr(), d.to_sparse(), d)
    same_error(go, RuntimeError)


@pytest.mark.parametrize("convert", [lambda x: x.to_sparse(), lambda x: x.to_sparse_csr(),
                                     lambda x: x.to_sparse_bsc((2, 1)), lambda x: x.to_sparse(1)],
                         ids=["coo", "csr", "bsc", "sparse_dim"])
def test_a_conversion_runs_backward_twice_as_it_saves_no_tensor(convert):
    def scenario(T):
        x = dense_leaf(T)
        s = convert(x)
        for k in (2.0, 3.0):
            (s.to_dense() * k).sum().backward()
        return x.grad
    parity(scenario)


# ---- sparse gradients of embedding and embedding_bag -------------------------------------------------
def _coo_summary(g):
    return [str(g.layout), g.is_coalesced(), g._indices(), g._values()]


def test_embedding_sparse_gradient_is_one_row_per_index():
    def scenario(T):
        w = T.arange(12.0, dtype=T.float64).reshape(6, 2).requires_grad_()
        out = T.nn.functional.embedding(T.tensor([[1, 2, 4], [4, 3, 0]]), w, sparse=True, padding_idx=0)
        (out * T.arange(12.0, dtype=T.float64).reshape(2, 3, 2)).sum().backward()
        return [type(out.grad_fn).__name__] + _coo_summary(w.grad)
    name, layout, coalesced, indices, values = both(scenario)
    assert (name, layout, coalesced) == ("EmbeddingBackward0", "torch.sparse_coo", False)
    assert indices.tolist() == [[1, 2, 4, 4, 3]]   # in index order, repeats kept, padding_idx left out
    np.testing.assert_allclose(values, np.arange(10.0).reshape(5, 2))


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_sparse_gradient(mode):
    def scenario(T):
        w = T.arange(12.0, dtype=T.float64).reshape(6, 2).requires_grad_()
        r = T.nn.functional.embedding_bag(T.tensor([1, 2, 4, 5, 4, 3, 2, 0]), w, T.tensor([0, 4]), sparse=True,
                                          mode=mode, padding_idx=2)
        (r * T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)).sum().backward()
        return _coo_summary(w.grad)
    layout, _, indices, values = both(scenario)
    assert layout == "torch.sparse_coo" and indices.tolist() == [[1, 4, 5, 4, 3, 0]]
    first = [1.0, 2.0] if mode == "sum" else [1 / 3, 2 / 3]   # a mean over the 3 non-padding indices
    np.testing.assert_allclose(values[0], first)


def test_sparse_embedding_gradients_accumulate():
    def scenario(T):
        w = T.zeros(6, 2, dtype=T.float64, requires_grad=True)
        for _ in range(2):
            r = T.nn.functional.embedding_bag(T.tensor([1, 2, 4, 2]), w, T.tensor([0, 2]), sparse=True, mode="sum",
                                              per_sample_weights=T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64))
            r.sum().backward()
        (w * 3).sum().backward()   # a dense gradient into the sparse .grad
        return grad_summary(w)
    layout, dense = both(scenario)
    assert layout == "torch.strided"
    np.testing.assert_allclose(dense[:, 0], [3.0, 5.0, 15.0, 3.0, 9.0, 3.0])


def test_embedding_module_sparse_and_the_old_embedding_bag_argument_order():
    def scenario(T):
        T.manual_seed(0)
        emb = T.nn.Embedding(5, 2, sparse=True)
        emb(T.tensor([0, 4, 4])).sum().backward()
        w = T.arange(8.0).reshape(4, 2)
        old_order = T.nn.functional.embedding_bag(w, T.tensor([0, 3, 1]), T.tensor([0, 2]))   # (weight, input)
        return [str(emb.weight.grad.layout), emb.weight.grad.to_dense(), old_order]
    layout, grad, old_order = both(scenario)
    assert layout == "torch.sparse_coo"
    np.testing.assert_allclose(grad[:, 0], [1.0, 0.0, 0.0, 0.0, 2.0])
    np.testing.assert_allclose(old_order, [[3.0, 4.0], [2.0, 3.0]])


@pytest.mark.parametrize("bag", [False, True])
def test_sparse_embedding_gradient_refuses_scale_grad_by_freq(bag):
    def go(T):
        w = T.ones(4, 2, requires_grad=True)
        F = T.nn.functional
        out = F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), sparse=True, scale_grad_by_freq=True) if bag \
            else F.embedding(T.tensor([0, 1]), w, sparse=True, scale_grad_by_freq=True)
        out.sum().backward()
    assert "scale_grad_by_freq not supported" in same_error(go, RuntimeError)


def test_sparse_embedding_gradient_is_differentiable():
    def scenario(T):
        w = T.arange(12.0, dtype=T.float64).reshape(6, 2).requires_grad_()
        go = T.ones(3, 2, dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(T.nn.functional.embedding(T.tensor([1, 1, 3]), w, sparse=True), w, go,
                             create_graph=True)
        (gg,) = T.autograd.grad(T.sparse.sum(g * 2), go)
        return [type(g.grad_fn).__name__, gg]
    name, gg = both(scenario)
    assert name == "SparseCooTensorWithDimsAndTensorsBackward0"
    np.testing.assert_allclose(gg, np.full((3, 2), 2.0))


# ---- keeping (not copying) a sparse gradient in .grad -----------------------------------------------
def test_a_sparse_gradient_only_the_engine_holds_is_kept_unless_its_values_are_a_view():
    T = ndgrad
    ptrs = {}

    class Fixed(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, contiguous):
            ctx.contiguous = contiguous
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            values = T.ones(3, 1) if ctx.contiguous else T.ones(1, 1).expand(3, 1)   # an expanded view is copied
            g = T.sparse_coo_tensor(T.tensor([[0, 2, 2]]), values, (4, 1))
            ptrs["made"] = g._values().data_ptr()
            return g, None

    for contiguous in (True, False):
        x = T.zeros(4, 1, requires_grad=True)
        Fixed.apply(x, contiguous).sum().backward()
        assert (x.grad._values().data_ptr() == ptrs["made"]) is contiguous
        np.testing.assert_allclose(x.grad.to_dense().numpy()[:, 0], [1.0, 0.0, 2.0, 0.0])


# ---- sparse * dense and sparse * sparse ----------------------------------------------------------------
def _stored(r):
    return [str(r.dtype), r.is_coalesced(), r._indices(), r._values()]


def _coo(T, indices, values, size, coalesce=False):
    t = T.sparse_coo_tensor(T.tensor(indices), T.tensor(values, dtype=T.float64), size)
    return t.coalesce() if coalesce else t


@pytest.mark.parametrize("dense, expected", [([[1.0, 2.0], [3.0, 4.0]], [2.0, 6.0, 9.0]), ([1.0, 2.0], [2.0, 2.0, 3.0]),
                                             (3.0, [3.0, 6.0, 9.0])], ids=["same_shape", "broadcast", "zero_dim"])
def test_sparse_times_dense_keeps_the_sparse_pattern(dense, expected):
    def scenario(T):
        s = _coo(T, [[0, 1, 1], [1, 0, 0]], [1.0, 2.0, 3.0], (2, 2))   # uncoalesced: (1, 0) twice
        d = T.tensor(dense, dtype=T.float32)
        csr = s.to_sparse_csr() * d if isinstance(dense, float) or len(dense) == 2 and isinstance(dense[0], list) \
            else s.to_sparse_csr() * d.expand(2, 2)   # the compressed layouts do not broadcast
        return _stored(s * d) + _stored(d * s) + [str(csr.layout), csr.to_dense()]
    out = both(scenario)
    assert out[0] == "torch.float64" and out[2].tolist() == [[0, 1, 1], [1, 0, 0]]
    np.testing.assert_allclose(out[3], expected)
    np.testing.assert_allclose(out[7], out[3])
    assert out[8] == "torch.sparse_csr"
    np.testing.assert_allclose(out[9], [[0.0, expected[0]], [expected[1] + expected[2], 0.0]])


@pytest.mark.parametrize("pair", ["c1*c2", "u1*c2", "c2*u1", "u1*u2", "u2*u1", "u1*u3", "u3*u1", "u1*u1"])
def test_sparse_times_sparse_pattern(pair):
    def scenario(T):
        ops = {"c1": _coo(T, [[0, 1, 2]], [1.0, 2.0, 3.0], (4,), True),
               "c2": _coo(T, [[1, 2, 3]], [10.0, 20.0, 30.0], (4,), True),
               "u1": _coo(T, [[2, 0, 2, 1]], [1.0, 2.0, 3.0, 4.0], (4,)),
               "u2": _coo(T, [[3, 2, 2]], [10.0, 20.0, 30.0], (4,)),
               "u3": _coo(T, [[3, 3, 2, 2]], [10.0, 20.0, 30.0, 40.0], (4,))}
        a, b = pair.split("*")
        r = ops[a] * ops[b]
        return _stored(r) + [r.to_dense()]
    _, coalesced, indices, _, dense = both(scenario)
    expected = {"c1*c2": [0, 20, 60, 0], "u1*c2": [0, 40, 80, 0], "c2*u1": [0, 40, 80, 0], "u1*u2": [0, 0, 200, 0],
                "u2*u1": [0, 0, 200, 0], "u1*u3": [0, 0, 280, 0], "u3*u1": [0, 0, 280, 0], "u1*u1": [4, 16, 16, 0]}
    np.testing.assert_allclose(dense, expected[pair])
    assert coalesced == (pair == "c1*c2")


def test_sparse_mul_errors():
    same_error(lambda T: T.ones(4).to_sparse() * T.ones(5), RuntimeError)
    same_error(lambda T: T.ones(4).to_sparse() * T.ones(5).to_sparse(), RuntimeError)
    same_error(lambda T: T.ones(2, 2).to_sparse_csr() * T.ones(2), RuntimeError)


def test_gradients_of_sparse_mul_are_sparse():
    def scenario(T):
        a = _coo(T, [[0, 1, 1], [1, 0, 0]], [1.0, 2.0, 3.0], (2, 2)).requires_grad_()
        d = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
        y = a * d
        y.to_dense().sum().backward()
        return [type(y.grad_fn).__name__] + grad_summary(a) + grad_summary(d)
    name, a_layout, ga, d_layout, gd = both(scenario)
    assert name == "MulBackward0" and a_layout == d_layout == "torch.sparse_coo"
    np.testing.assert_allclose(ga, [[0.0, 2.0], [3.0, 0.0]])
    np.testing.assert_allclose(gd, [[0.0, 1.0], [5.0, 0.0]])   # only where a stores values


def test_save_on_cpu_keeps_sparse_saved_tensors_sparse():
    def scenario(T):
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            a = T.sparse_coo_tensor(T.tensor([[1, 1]]), T.tensor([1.0, 1.0], dtype=T.float64), requires_grad=True)
            y = a * a
            saved = y.grad_fn._saved_self
            y.to_dense().sum().backward()
        return [str(saved.layout), saved.to_dense(), a.grad.coalesce().to_dense()]
    layout, saved, grad = both(scenario)
    assert layout == "torch.sparse_coo"
    np.testing.assert_allclose(saved, [0.0, 2.0])
    np.testing.assert_allclose(grad, [0.0, 4.0])


def test_spmm_is_mm_for_sparse_and_dense_operands():
    def scenario(T):
        a = T.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
        d = T.ones(2, 3, requires_grad=True)
        out = T.spmm(a, d)
        out.sum().backward()
        return [out.tolist(), out.grad_fn.name(), d.grad.tolist(), T.spmm(T.eye(2), d).tolist()]
    values, name, grad, dense = both(scenario)
    assert values == [[1.0] * 3, [2.0] * 3] and name == "MmBackward0" and grad == [[2.0] * 3, [1.0] * 3]


def test_sampled_addmm_dense_gradient_reaches_mat1_mat2_through_the_pattern_only():
    """A dense gradient given for the sparse result: mat1 and mat2 get it only at self's sampled
    (diagonal) entries, self gets all of it (beta times)."""
    def scenario(T):
        s = T.eye(3, dtype=T.float64).to_sparse_csr()
        a = T.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=T.float64, requires_grad=True)
        b = T.tensor([[1., -1., 2.], [0.5, 1., -2.]], dtype=T.float64, requires_grad=True)
        out = T.sparse.sampled_addmm(s, a, b, beta=0.5, alpha=2.0)
        g = T.arange(9, dtype=T.float64).reshape(3, 3) + 1
        ga, gb = T.autograd.grad(out, (a, b), g)
        return ga, gb
    ga, gb = both(scenario)
    diag = np.diag([1., 5., 9.])   # g's diagonal: the sampled entries
    b = np.array([[1., -1., 2.], [0.5, 1., -2.]])
    a = np.array([[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_allclose(ga, 2.0 * diag @ b.T)
    np.testing.assert_allclose(gb, 2.0 * a.T @ diag)


def test_sampled_addmm_complex_gradients_conjugate():
    """For complex inputs the gradients are the conjugate-transpose products, times conj(alpha)."""
    def scenario(T):
        s = T.eye(2, dtype=T.complex128).to_sparse_csr()
        a = T.tensor([[1 + 1j, 2.], [0.5j, -1.]], dtype=T.complex128, requires_grad=True)
        b = T.tensor([[1., -1j], [2 + 1j, 1.]], dtype=T.complex128, requires_grad=True)
        out = T.sparse.sampled_addmm(s, a, b, beta=0.5, alpha=2 - 1j)
        g = T.tensor([[1., 2.], [3., 4j]], dtype=T.complex128)
        return T.autograd.grad(out, (a, b), g)
    ga, gb = both(scenario)
    diag = np.diag([1., 4j])
    a = np.array([[1 + 1j, 2.], [0.5j, -1.]])
    b = np.array([[1., -1j], [2 + 1j, 1.]])
    np.testing.assert_allclose(ga, np.conj(2 - 1j) * diag @ b.conj().T)
    np.testing.assert_allclose(gb, np.conj(2 - 1j) * a.conj().T @ diag)


# ---- the compressed constructors' keyword names are torch's, per layout ---------------------------
def test_compressed_constructors_take_torchs_keywords():
    def scenario(T):
        i, j = T.tensor([0, 1, 2]), T.tensor([1, 0])
        v, blocks = T.tensor([3.0, 4.0]), T.ones(2, 1, 1)
        return [T.sparse_csr_tensor(crow_indices=i, col_indices=j, values=v, size=(2, 2)).to_dense(),
                T.sparse_csr_tensor(col_indices=j, values=v, crow_indices=i).to_dense(),
                T.sparse_csc_tensor(ccol_indices=i, row_indices=j, values=v, size=(2, 2)).to_dense(),
                T.sparse_bsr_tensor(crow_indices=i, col_indices=j, values=blocks).to_dense(),
                T.sparse_bsc_tensor(ccol_indices=i, row_indices=j, values=blocks, size=(2, 2),
                                    layout=T.sparse_bsc, dtype=T.float64).to_dense(),
                str(T.sparse_csr_tensor(i, j, v, (2, 2), layout=T.sparse_csr).layout)]
    csr, csr_unsized, csc, bsr, bsc, layout = both(scenario)
    np.testing.assert_array_equal(csr, [[0.0, 3.0], [4.0, 0.0]])
    np.testing.assert_array_equal(csr_unsized, csr)
    np.testing.assert_array_equal(csc, [[0.0, 4.0], [3.0, 0.0]])
    np.testing.assert_array_equal(bsr, [[0.0, 1.0], [1.0, 0.0]])
    assert bsc.dtype == np.float64 and bsc.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert layout == "torch.sparse_csr"


def test_compressed_constructor_errors():
    i, j, v = (lambda T: T.tensor([0, 1, 2])), (lambda T: T.tensor([1, 0])), (lambda T: T.tensor([3.0, 4.0]))
    assert same_error(lambda T: T.sparse_csr_tensor(ccol_indices=i(T), col_indices=j(T), values=v(T)),
                      TypeError) == \
        'sparse_csr_tensor() missing 3 required positional argument: "crow_indices", "col_indices", "values"'
    # several keywords: the overloads listed as torch's (torch prints the keywords in its hash order)
    messages = []
    for T in LIBS:
        with pytest.raises(TypeError) as e:
            T.sparse_csr_tensor(ccol_indices=i(T), col_indices=j(T), values=v(T), size=(2, 2))
        messages.append(str(e.value))
    msg = messages[0]
    assert all(m.partition("\n")[2] == msg.partition("\n")[2] for m in messages)
    assert msg.startswith("sparse_csr_tensor() received an invalid combination of arguments")
    assert ("\n * (object crow_indices, object col_indices, object values, tuple of ints size, *, torch.dtype dtype "
            "= None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
            "requires_grad = False, bool check_invariants = None)\n") in msg
    assert same_error(lambda T: T.sparse_csr_tensor(i(T), j(T), v(T), (2, 2), layout=T.sparse_csc)) == \
        "sparse_csr_tensor: layout must be SparseCsr but got SparseCsc"


# ---- gather(..., sparse_grad=True): a COO gradient, one entry per gathered element ----------------
def test_gather_sparse_grad_is_an_uncoalesced_coo_tensor():
    def scenario(T):
        x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
        index = T.tensor([[0, 0], [2, 1]])
        g = T.autograd.grad(T.gather(x, 1, index, sparse_grad=True), x,
                            T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64))[0]
        x.gather(1, index, sparse_grad=True).sum().backward()
        x.gather(1, index, sparse_grad=True).sum().backward()   # accumulated: summed, coalesced
        dense = T.autograd.grad(x.gather(1, index).sum(), x)[0]
        return [str(g.layout), g.is_coalesced(), g._indices(), g._values(), str(x.grad.layout), x.grad.to_dense(),
                str(dense.layout)]
    layout, coalesced, indices, values, acc_layout, acc, dense_layout = both(scenario)
    assert layout == acc_layout == "torch.sparse_coo" and not coalesced and dense_layout == "torch.strided"
    np.testing.assert_array_equal(indices, [[0, 0, 1, 1], [0, 0, 2, 1]])
    np.testing.assert_array_equal(values, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(acc, [[4.0, 0.0, 0.0], [0.0, 2.0, 2.0]])


def test_gather_sparse_grad_double_backward_and_0d():
    def scenario(T):
        x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
        gy = T.ones(1, 3, dtype=T.float64, requires_grad=True)
        g = T.autograd.grad(x.gather(0, T.tensor([[1, 0, 1]]), sparse_grad=True), x, gy, create_graph=True)[0]
        s = T.tensor(2.0, requires_grad=True)
        g0 = T.autograd.grad(T.gather(s, 0, T.tensor(0), sparse_grad=True), s)[0]
        return [T.autograd.grad(g.to_dense().pow(2).sum(), gy)[0], list(g0._indices().shape), g0._values()]
    second, shape0, values0 = both(scenario)
    np.testing.assert_array_equal(second, [[2.0, 2.0, 2.0]])
    assert shape0 == [0, 1]
    np.testing.assert_array_equal(values0, [1.0])


@pytest.mark.parametrize("x_shape, index_shape, expected", [
    ((4,), (), [3.0, 0.0, 0.0, 0.0]), ((), (2,), 6.0), ((), (), 3.0),
])
def test_gather_sparse_grad_with_0d_input_or_index(x_shape, index_shape, expected):
    # one index row per dim of the input (none for a 0-dim input); entries summed when densified
    def scenario(T):
        x = T.ones(x_shape, dtype=T.float64, requires_grad=True)
        out = T.gather(x, 0, T.zeros(index_shape, dtype=T.int64), sparse_grad=True)
        out.backward(T.full_like(out, 3.0))
        return [list(x.grad._indices().shape), x.grad.sparse_dim(), x.grad.to_dense(), x.grad.coalesce()._values()]
    shape, sparse_dim, dense, coalesced = both(scenario)
    nnz = int(np.prod(index_shape))
    assert shape == [len(x_shape), nnz] and sparse_dim == len(x_shape)
    np.testing.assert_array_equal(dense, expected)
    np.testing.assert_array_equal(coalesced, [3.0] if x_shape else [expected])
