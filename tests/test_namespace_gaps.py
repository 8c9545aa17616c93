"""The last names of torch's namespace ndgrad lacked: the sparse accessors' *_copy forms, the products into
sparse results (sspaddmm, smm, saddmm, hspmm, hsmm) and dsmm, native_norm, resize_as_sparse_, hash_tensor,
from_file, thread_safe_generator, torch.windows, nn.LinearCrossEntropyLoss / LinearCrossEntropyOptions and
autograd.enforce_grad_layout_policy. Each is compared with torch: values, layouts, grad_fn names, errors."""
import os
import threading

import numpy as np
import pytest

import ndgrad
from parity import both, same_error

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None


def coo(T, idx, values, size):
    return T.sparse_coo_tensor(T.tensor(idx), T.tensor(values), size)


def S(T):     # 3x3 COO with a duplicate at (1, 2): coalesced rows 0 and 1
    return coo(T, [[1, 0, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (3, 3))


def D(T):
    return T.arange(6.0).reshape(3, 2)


def IN(T):    # the sparse input of sspaddmm, uncoalesced (two entries at (0, 1))
    return coo(T, [[0, 2, 0], [1, 0, 1]], [1.0, 2.0, 7.0], (3, 2))


def EMPTY(T, size=(3, 3)):
    return T.sparse_coo_tensor(T.zeros(2, 0, dtype=T.long), T.zeros(0), size)


def summary(r):
    """A sparse COO result as plain values: layout, dtype, shape, grad_fn name, indices, values, coalesced."""
    name = r.grad_fn.name() if r.grad_fn is not None else None
    return [str(r.layout), str(r.dtype), list(r.shape), name, r._indices().tolist(), r._values().tolist(),
            r.is_coalesced(), r.sparse_dim(), r.dense_dim()]


# ---- *_copy accessors --------------------------------------------------------------------------------
def compressed(T, layout):
    d = T.tensor([[1.0, 0.0], [0.0, 2.0]])
    return getattr(d, "to_sparse_" + layout)(*([(1, 1)] if layout in ("bsr", "bsc") else []))


@pytest.mark.parametrize("layout,name,expected", [
    ("csr", "crow_indices_copy", [0, 1, 2]), ("csr", "col_indices_copy", [0, 1]),
    ("bsr", "crow_indices_copy", [0, 1, 2]), ("csc", "ccol_indices_copy", [0, 1, 2]),
    ("csc", "row_indices_copy", [0, 1]), ("bsc", "row_indices_copy", [0, 1]),
    ("csr", "values_copy", [1.0, 2.0]), ("bsr", "values_copy", [[[1.0]], [[2.0]]])])
def test_copy_accessors(layout, name, expected):
    def scenario(T):
        t = compressed(T, layout)
        out = getattr(T, name)(t)
        out.view(-1)[0] = 9   # a copy: the tensor's own indices/values stay
        return [out.tolist(), str(out.dtype), getattr(t, name[:-5])().view(-1)[0].item()]
    got = both(scenario)
    written = np.array(expected)
    written.flat[0] = 9
    assert got[0] == written.tolist() and got[2] == np.array(expected).flat[0]


@pytest.mark.parametrize("layout,name", [
    ("csc", "crow_indices_copy"), ("csr", "ccol_indices_copy"), ("csr", "row_indices_copy"), ("bsc", "col_indices_copy"),
    ("csr", "indices_copy"), ("dense", "values_copy"), ("dense", "indices_copy"), ("dense", "crow_indices_copy")])
def test_copy_accessors_wrong_layout(layout, name):
    msg = same_error(lambda T: getattr(T, name)(T.ones(2) if layout == "dense" else compressed(T, layout)))
    assert msg.startswith(name[:-5] + " expected sparse")


@pytest.mark.parametrize("name", ["values_copy", "indices_copy", "crow_indices_copy", "row_indices_copy"])
def test_copy_accessors_refuse_coo(name):
    # torch has no SparseCPU kernel for any of them, not even values_copy / indices_copy
    for T in [ndgrad] + ([torch] if torch else []):
        with pytest.raises(NotImplementedError, match=f"Could not run 'aten::{name}' with arguments from the "
                                                      "'SparseCPU' backend"):
            getattr(T, name)(S(T).coalesce())


def test_values_copy_gradient():
    def scenario(T):
        c = T.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse_csr().requires_grad_()
        r = T.values_copy(c)
        (r * T.tensor([3.0, 4.0])).sum().backward()
        return [r.grad_fn.name(), str(c.grad.layout), c.grad.to_dense()]
    name, layout, grad = both(scenario)
    assert name == "ValuesBackward0_copy" and layout == "torch.sparse_csr"
    assert grad.tolist() == [[3.0, 0.0], [0.0, 4.0]]


# ---- products into sparse results ----------------------------------------------------------------------
def test_hspmm_keeps_rows_as_a_hybrid_tensor():
    for name in ("hspmm", "hsmm"):
        got = both(lambda T: summary(getattr(T, name)(S(T), D(T))))
        assert got == ["torch.sparse_coo", "torch.float32", [3, 2], None, [[0, 1]], [[0.0, 4.0], [32.0, 40.0]],
                       False, 1, 1]


def test_smm_and_sspaddmm_append_the_product_rows():
    assert both(lambda T: summary(T.smm(S(T), D(T)))) == both(lambda T: summary(S(T).smm(D(T)))) == [
        "torch.sparse_coo", "torch.float32", [3, 2], None, [[0, 0, 1, 1], [0, 1, 0, 1]], [0.0, 4.0, 32.0, 40.0],
        False, 2, 0]
    for name in ("sspaddmm", "saddmm"):
        got = both(lambda T: summary(getattr(T, name)(IN(T), S(T), D(T), beta=2, alpha=3)))
        # beta * input's entries as stored, then alpha * (mat1 @ mat2) for each row mat1 has
        assert got[4:6] == [[[0, 2, 0, 0, 0, 1, 1], [1, 0, 1, 0, 1, 0, 1]], [2.0, 4.0, 14.0, 0.0, 12.0, 96.0, 120.0]]


@pytest.mark.parametrize("case", ["coalesced input", "beta 0", "int alpha", "empty mat1", "empty both", "method"])
def test_sspaddmm_cases(case):
    def scenario(T):
        if case == "coalesced input":
            return summary(T.sspaddmm(IN(T).coalesce(), S(T), D(T)))
        if case == "beta 0":
            return summary(T.sspaddmm(IN(T), S(T), D(T), beta=0, alpha=0.5))
        if case == "int alpha":   # alpha is cast to the integer dtype (2)
            return summary(T.sspaddmm(IN(T).long(), S(T).long(), D(T).long(), alpha=2.5))
        if case == "empty mat1":
            return summary(T.sspaddmm(IN(T), EMPTY(T), D(T)))
        if case == "empty both":
            return summary(T.sspaddmm(EMPTY(T, (3, 2)), EMPTY(T), D(T)))
        return summary(IN(T).sspaddmm(S(T), D(T), alpha=2))
    got = both(scenario)
    expected_values = {"coalesced input": [8.0, 2.0, 0.0, 4.0, 32.0, 40.0], "beta 0": [0.0, 0.0, 0.0, 0.0, 2.0, 16.0, 20.0],
                       "int alpha": [1, 2, 7, 0, 8, 64, 80], "empty mat1": [1.0, 2.0, 7.0], "empty both": [],
                       "method": [1.0, 2.0, 7.0, 0.0, 8.0, 64.0, 80.0]}[case]
    assert got[5] == expected_values
    assert got[6] is (case == "empty both")   # coalesced only when empty


def test_empty_products_are_coalesced():
    assert both(lambda T: summary(T.hspmm(EMPTY(T), D(T))))[4:7] == [[[]], [], True]
    assert both(lambda T: summary(T.smm(EMPTY(T), D(T))))[4:7] == [[[], []], [], True]


@pytest.mark.parametrize("call", [
    lambda T: T.hspmm(D(T), S(T)),                 # a strided mat1 has 0 sparse dims
    lambda T: T.hspmm(S(T), S(T)),
    lambda T: T.hspmm(S(T), D(T).t()),
    lambda T: T.hspmm(S(T), D(T).double()),
    lambda T: T.hspmm(coo(T, [[0, 1]], [[1.0, 1, 1], [1, 1, 1]], (3, 3)), D(T)),
    lambda T: T.hspmm(S(T), T.ones(3)),
    lambda T: T.smm(D(T).t(), D(T)),
    lambda T: T.smm(D(T), S(T)),
    lambda T: T.smm(S(T), S(T)),
    lambda T: T.sspaddmm(IN(T), S(T), D(T).t()),
    lambda T: T.sspaddmm(T.ones(3, 3).to_sparse(), S(T), D(T)),
    lambda T: T.sspaddmm(IN(T), coo(T, [[0], [0], [0]], [1.0], (2, 2, 2)), D(T)),
    lambda T: T.sspaddmm(IN(T).double(), S(T), D(T)),
    lambda T: T.sspaddmm(IN(T), S(T).long(), D(T)),
    lambda T: T.saddmm(T.ones(3, 2), D(T).t(), D(T)),
    lambda T: T.dsmm(S(T), D(T).t()),
    lambda T: T.dsmm(D(T), S(T)),
    lambda T: T.dsmm(S(T), D(T).double()),
    lambda T: T.dsmm(coo(T, [[0, 1]], [[1.0, 1, 1], [1, 1, 1]], (3, 3)), D(T)),
    lambda T: T.dsmm(S(T), T.ones(3, 2, 2)),
    lambda T: T.dsmm(S(T), T.ones(3)),
], ids=["hspmm-strided-mat1", "hspmm-sparse-mat2", "hspmm-shape", "hspmm-dtype", "hspmm-hybrid", "hspmm-1d",
        "smm-dense", "smm-strided-mat1", "smm-sparse-mat2", "sspaddmm-shape", "sspaddmm-input-shape", "sspaddmm-3d",
        "sspaddmm-input-dtype", "sspaddmm-dtype", "saddmm-dense", "dsmm-shape", "dsmm-dense-sparse", "dsmm-dtype",
        "dsmm-hybrid", "dsmm-3d", "dsmm-1d"])
def test_product_errors(call):
    assert same_error(call, (RuntimeError, IndexError))


def test_hspmm_refuses_strided_and_compressed():
    for T in [ndgrad] + ([torch] if torch else []):
        with pytest.raises(NotImplementedError, match="Could not run 'aten::hspmm' with arguments from the 'CPU'"):
            T.hspmm(D(T).t(), D(T))
        with pytest.raises(NotImplementedError, match="'aten::hspmm' with arguments from the 'SparseCsrCPU'"):
            T.hspmm(S(T).to_sparse_csr(), D(T))


@pytest.mark.parametrize("name,args,op", [("hspmm", "sd", "hspmm"), ("hsmm", "sd", "hspmm"), ("smm", "sd", "sspaddmm"),
                                          ("sspaddmm", "isd", "sspaddmm"), ("saddmm", "isd", "sspaddmm")])
def test_products_record_not_implemented(name, args, op):
    def scenario(T):
        make = {"s": lambda: S(T).requires_grad_(), "d": lambda: D(T).requires_grad_(), "i": lambda: IN(T)}
        r = getattr(T, name)(*[make[a]() for a in args])
        return r.grad_fn.name()
    assert both(scenario) == "torch::autograd::NotImplemented"
    msg = same_error(lambda T: T.sparse.sum(getattr(T, name)(*[
        {"s": S(T).requires_grad_(), "d": D(T), "i": IN(T)}[a] for a in args])).backward())
    assert msg == f"derivative for aten::{op} is not implemented"


def test_dsmm_is_mm():
    def scenario(T):
        s, d = S(T).requires_grad_(), D(T).requires_grad_()
        r = T.dsmm(s, d)
        (r * T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
        return [str(r.layout), r.grad_fn.name(), r, s.grad.to_dense(), d.grad, T.dsmm(D(T).t(), D(T))]
    layout, name, r, sgrad, dgrad, dense = both(scenario)
    assert layout == "torch.strided" and name == "MmBackward0"
    assert r.tolist() == [[0.0, 4.0], [32.0, 40.0], [0.0, 0.0]] and dense.tolist() == [[20.0, 26.0], [26.0, 35.0]]
    assert sgrad.tolist() == [[2.0, 8.0, 14.0], [4.0, 18.0, 32.0], [6.0, 28.0, 50.0]]   # grad @ mat2.T, unmasked


# ---- native_norm -----------------------------------------------------------------------------------------
def NS(T):   # coalesced values 4, -4, 2 (3 and 1 summed at (0, 0))
    return coo(T, [[0, 0, 1, 0], [0, 1, 1, 0]], [3.0, -4.0, 2.0, 1.0], (2, 2))


@pytest.mark.parametrize("p,expected", [(0, 3.0), (1, 10.0), (2, 6.0), (float("inf"), 4.0), (float("-inf"), 2.0),
                                        (-1, 1.0), (3, 5.142563)])
def test_native_norm_of_the_coalesced_values(p, expected):
    got = both(lambda T: [T.native_norm(NS(T), p), str(T.native_norm(NS(T), p).dtype)], rtol=1e-6)
    assert got[0] == pytest.approx(expected, rel=1e-6) and got[1] == "torch.float32"


def test_native_norm_forms():
    def scenario(T):
        return [T.native_norm(NS(T), 2, [0, 1], False, None), T.native_norm(NS(T), None, [], False, None),
                T.native_norm(NS(T), 2, [-1, -2], False, None), T.native_norm(input=NS(T), p=1),
                T.native_norm(NS(T).double()), T.native_norm(NS(T).cfloat()), T.native_norm(EMPTY(T)),
                T.native_norm(coo(T, [[0, 0]], [[3.0, 4.0], [1.0, 1.0]], (2, 2)))]
    got = both(scenario)
    assert [float(g) for g in got[:4]] == [6.0, 6.0, 6.0, 10.0]
    assert got[4].dtype == np.float64 and got[5].dtype == np.float32 and float(got[6]) == 0.0
    assert float(got[7]) == pytest.approx(np.hypot(4, 5))


@pytest.mark.parametrize("call", [
    lambda T: T.native_norm(NS(T), 2, [1], False, None), lambda T: T.native_norm(NS(T), 2, [0, 0], False, None),
    lambda T: T.native_norm(NS(T), 2, [0, 1], True, None), lambda T: T.native_norm(NS(T), 2, [0, 1], False, T.float64),
    lambda T: T.native_norm(NS(T).long()), lambda T: T.native_norm(NS(T), 2, [0, 5], False, None)])
def test_native_norm_errors(call):
    same_error(call, (RuntimeError, IndexError))


def test_native_norm_type_error_and_backends():
    same_error(lambda T: T.native_norm(NS(T), "fro"), TypeError)
    for T in [ndgrad] + ([torch] if torch else []):
        with pytest.raises(NotImplementedError, match="Could not run 'aten::native_norm' with arguments from the 'CPU'"):
            T.native_norm(T.ones(2))
        with pytest.raises(NotImplementedError, match="'aten::native_norm.ScalarOpt_dim_dtype' with arguments from"):
            T.native_norm(T.ones(2), 2, [0], False, None)


def test_native_norm_records_not_implemented():
    assert both(lambda T: T.native_norm(NS(T).requires_grad_()).grad_fn.name()) == "torch::autograd::NotImplemented"
    msg = same_error(lambda T: T.native_norm(NS(T).requires_grad_()).backward())
    assert msg == "derivative for aten::native_norm is not implemented"


# ---- resize_as_sparse_ -------------------------------------------------------------------------------------
def PAIR(T):
    return coo(T, [[0, 1], [1, 0]], [1.0, 2.0], (2, 2))


def resized(T, a, template):
    out = T.resize_as_sparse_(a, template)
    return [out is a, a._version] + summary(a)


def test_resize_as_sparse_grows_keeping_entries():
    got = both(lambda T: resized(T, PAIR(T), coo(T, [[0], [1]], [5.0], (3, 3)).double()))
    assert got[:2] == [True, 1] and got[4] == [3, 3] and got[6:8] == [[[0, 1], [1, 0]], [1.0, 2.0]]
    assert got[3] == "torch.float32"   # self keeps its dtype
    got = both(lambda T: resized(T, EMPTY(T, (2, 2)), coo(T, [[0], [1]], [[1.0, 1.0, 1.0, 1.0]], (3, 3, 4))))
    assert got[4] == [3, 3, 4] and got[9:] == [2, 1]   # an empty tensor takes any sparse/dense split
    got = both(lambda T: resized(T, PAIR(T).coalesce(), PAIR(T).t().coalesce()))
    assert got[8] is True


@pytest.mark.parametrize("call", [
    lambda T: T.resize_as_sparse_(PAIR(T), coo(T, [[0], [1], [2]], [5.0], (3, 3, 3))),
    lambda T: T.resize_as_sparse_(PAIR(T), T.ones(2)),
    lambda T: T.resize_as_sparse_(PAIR(T), coo(T, [[0], [0]], [5.0], (1, 3))),
    lambda T: T.resize_as_sparse_(coo(T, [[0]], [[1.0, 1.0]], (2, 2)), coo(T, [[0]], [[1.0]], (2, 1))),
    lambda T: T.resize_as_sparse_(coo(T, [[0], [0]], [[1.0, 1.0]], (2, 2, 2)), coo(T, [[0], [0]], [1.0], (2, 2))),
    lambda T: T.resize_as_sparse_(PAIR(T).to_sparse_csr(), PAIR(T)),
    lambda T: T.resize_as_sparse_(PAIR(T), PAIR(T).to_sparse_csr()),
    lambda T: T.resize_as_sparse_(PAIR(T).requires_grad_(), coo(T, [[0], [1]], [5.0], (3, 3))),
])
def test_resize_as_sparse_errors(call):
    same_error(call)


def test_resize_as_sparse_history():
    def scenario(T):
        y = PAIR(T).requires_grad_() * 2
        y.resize_as_sparse_(coo(T, [[0], [1]], [5.0], (3, 3)))
        with T.no_grad():
            w = PAIR(T).requires_grad_()
            w.resize_as_sparse_(coo(T, [[0], [1]], [5.0], (3, 3)))
        return [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), list(y.shape), w.is_leaf, list(w.shape)]
    assert both(scenario) == ["torch::autograd::NotImplemented", "MulBackward0", [3, 3], True, [3, 3]]
    msg = same_error(lambda T: T.sparse.sum(T.resize_as_sparse_(PAIR(T).requires_grad_() * 2,
                                                                coo(T, [[0], [1]], [5.0], (3, 3)))).backward())
    assert msg == "derivative for aten::resize_as_sparse_ is not implemented"


# ---- hash_tensor -----------------------------------------------------------------------------------------
X = [[1.5, -2.0], [3.0, 0.25]]


def test_hash_tensor_xors_the_widened_bits():
    def scenario(T):
        x = T.tensor(X, requires_grad=True)
        return [T.hash_tensor(x), T.hash_tensor(x, 1), T.hash_tensor(x, [0], keepdim=True), x.hash_tensor(dim=1),
                T.hash_tensor(T.tensor([1, 2, -3], dtype=T.int32)), T.hash_tensor(T.tensor([1.5], dtype=T.float16)),
                T.hash_tensor(T.tensor([True, False])), T.hash_tensor(T.tensor([255, 3], dtype=T.uint8)),
                T.hash_tensor(T.zeros(0, 3), 1), T.hash_tensor(x).requires_grad]
    got = both(scenario)
    widened = np.array(X, np.float64).view(np.uint64)
    assert got[0] == np.bitwise_xor.reduce(widened.ravel()) and got[0].dtype == np.uint64
    assert got[1].tolist() == np.bitwise_xor.reduce(widened, axis=1).tolist() and got[2].shape == (1, 2)
    assert got[4] == 2 ** 64 - 2 and got[5] == np.float64(1.5).view(np.uint64) and got[6] == 1 and got[7] == 252
    assert got[8].shape == (0,) and got[9] is False


@pytest.mark.parametrize("call,exc", [
    (lambda T: T.hash_tensor(T.zeros(0)), RuntimeError), (lambda T: T.hash_tensor(T.zeros(0, 3), 0), IndexError),
    (lambda T: T.hash_tensor(T.ones(2), mode=1), RuntimeError), (lambda T: T.hash_tensor(T.ones(2, 2), 3), IndexError),
    (lambda T: T.hash_tensor(T.ones(2, 2), [0, 0]), RuntimeError),
    (lambda T: T.hash_tensor(T.tensor([1 + 2j])), NotImplementedError),
    (lambda T: T.hash_tensor(T.tensor([5], dtype=T.uint32)), NotImplementedError)])
def test_hash_tensor_errors(call, exc):
    same_error(call, exc)


# ---- from_file -------------------------------------------------------------------------------------------
@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(6, dtype=np.float64).tofile(path)
    return str(path)


def test_from_file_private_and_shared(data_file, tmp_path):
    def scenario(T):   # (a file per library: the results map their files)
        path = str(tmp_path / f"data-{T.__name__}.bin")
        np.arange(6, dtype=np.float64).tofile(path)
        private = T.from_file(path, shared=False, size=6, dtype=T.float64)
        private[0] = 100
        after_private = np.fromfile(path).tolist()
        shared = T.from_file(path, True, 6, dtype=T.float64)
        shared[1] = 200
        new = str(tmp_path / f"new-{T.__name__}.bin")
        created = T.from_file(new, shared=True, size=3)
        return [private.clone(), after_private, np.fromfile(path).tolist(), created.clone(), os.path.getsize(new),
                T.from_file(path, size=2, dtype=T.float64, requires_grad=True).requires_grad,
                T.from_file(path, dtype=T.float64).shape[0]]
    got = both(scenario)
    assert got[0].tolist() == [100.0, 1, 2, 3, 4, 5] and got[1] == [0.0, 1, 2, 3, 4, 5]   # private: the file stays
    assert got[2] == [0.0, 200, 2, 3, 4, 5]                                                # shared: written through
    assert got[3].tolist() == [0.0, 0.0, 0.0] and got[4] == 12 and got[5] is True and got[6] == 0


def test_from_file_errors(data_file, tmp_path):
    missing = str(tmp_path / "missing.bin")
    same_error(lambda T: T.from_file(data_file, shared=False, size=7, dtype=T.float64))
    same_error(lambda T: T.from_file(missing, size=2))
    same_error(lambda T: T.from_file(data_file, size=2, pin_memory=True))
    same_error(lambda T: T.from_file(data_file, size=2, dtype=T.int64, requires_grad=True))
    same_error(lambda T: T.from_file(tmp_path / "data.bin", size=2), TypeError)


# ---- thread_safe_generator, torch.windows -------------------------------------------------------------------
def test_thread_safe_generator():
    assert ndgrad.thread_safe_generator() is None and ndgrad.random.thread_safe_generator() is None
    if torch is not None:
        assert torch.thread_safe_generator() is None
    from ndgrad.utils.data import dataloader

    class Rng:
        torch_generator = ndgrad.Generator()

    old = dataloader._current_worker
    try:   # a worker that says it is a thread with its own generator gets that generator, as in torch
        dataloader._current_worker = dataloader.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None,
                                                           worker_method="thread", rng=Rng)
        assert ndgrad.thread_safe_generator() is Rng.torch_generator
        dataloader._current_worker = dataloader.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None)
        assert ndgrad.thread_safe_generator() is None    # a process worker: the default generator
    finally:
        dataloader._current_worker = old


def test_windows_is_signal_windows():
    assert ndgrad.windows is ndgrad.signal.windows
    got = both(lambda T: T.windows.hann(5))
    assert got.tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]


# ---- nn.LinearCrossEntropyLoss ------------------------------------------------------------------------------
def test_linear_cross_entropy_loss():
    def scenario(T):
        m = T.nn.LinearCrossEntropyLoss(3, 4, bias=True)
        with T.no_grad():
            m.linear.weight.copy_(T.arange(12.0).reshape(4, 3) / 10)
            m.linear.bias.copy_(T.arange(4.0) / 5)
        x = T.arange(15.0).reshape(5, 3) / 7
        loss = m(x, T.tensor([0, 1, 2, 3, 1]))
        loss.backward()
        k = T.nn.LinearCrossEntropyLoss(3, 4, out_features=(2,), reduction="none")
        return [loss, loss.grad_fn.name(), m.linear.bias.grad, repr(m), list(k.linear.weight.shape),
                list(k(x, T.zeros(5, 2, dtype=T.long)).shape)]
    loss, name, bias_grad, text, wshape, kshape = both(scenario, rtol=1e-5, atol=1e-6)
    assert name == "NllLossBackward0" and wshape == [8, 3] and kshape == [5, 2]
    assert float(loss) == pytest.approx(1.9287, abs=1e-4) and abs(bias_grad.sum()) < 1e-6
    assert "in_features=3, num_classes=4, out_features=(), bias=True" in text


def test_linear_cross_entropy_loss_errors():
    same_error(lambda T: T.nn.LinearCrossEntropyLoss(3, 4, weight=T.ones(3)))
    same_error(lambda T: T.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2))


@pytest.mark.parametrize("kwargs", [dict(acc_policy="x"), dict(chunking_method="foo"),
                                    dict(chunking_method="aspect_ratio:0"), dict(batch_chunk_size=0),
                                    dict(batch_chunk_size=2.0), dict(acc_dtype="int64")])
def test_linear_cross_entropy_options_checks(kwargs):
    same_error(lambda T: T.nn.LinearCrossEntropyOptions(**{k: getattr(T, v) if k == "acc_dtype" else v
                                                           for k, v in kwargs.items()}), ValueError)


def test_linear_cross_entropy_options_value():
    def scenario(T):
        o = T.nn.LinearCrossEntropyOptions(batch_chunk_size=3)
        m = T.nn.LinearCrossEntropyLoss(3, 4, options=o)
        with T.no_grad():
            m.linear.weight.copy_(T.arange(12.0).reshape(4, 3) / 10)
        return [repr(o), o == T.nn.LinearCrossEntropyOptions(batch_chunk_size=3),
                m(T.arange(15.0).reshape(5, 3) / 7, T.tensor([0, 1, 2, 3, 1]))]
    text, equal, loss = both(scenario, rtol=1e-5)
    assert text.startswith("LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=3") and equal
    with pytest.raises(AttributeError):
        ndgrad.nn.LinearCrossEntropyOptions().acc_policy = "compact"   # frozen


# ---- autograd.enforce_grad_layout_policy ----------------------------------------------------------------------
def test_enforce_grad_layout_policy():
    def scenario(T):
        out = []
        for enable in (True, False):
            with T.autograd.enforce_grad_layout_policy(enable):
                p = T.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
                (p * T.ones(4, 2, 3)).sum().backward()              # a contiguous gradient for a permuted leaf
                q = T.zeros(4, 2, 3).requires_grad_()
                (q * T.ones(2, 3, 4).permute(2, 0, 1)).sum().backward()
                y = T.ones(3, 4).t().requires_grad_()
                y.backward(T.ones(4, 3))                             # the caller's gradient: copied, like y
                out.append([p.grad.stride(), q.grad.stride(), y.grad.stride()])
        return out
    on, off = both(scenario)
    assert on == [[1, 12, 4], [6, 3, 1], [1, 4]]
    assert off == [[6, 3, 1], [1, 12, 4], [1, 4]]


def test_enforce_grad_layout_policy_flag():
    def scenario(T):
        e = T.autograd.enforce_grad_layout_policy
        flag = T._C._is_grad_layout_enforcement_enabled

        @e(False)
        def inside():
            return flag()
        made = e(False)
        states = [inside(), flag(), flag()]
        with made:
            states.append(flag())
        states += [flag(), made.clone().mode, flag()]
        T.autograd.enforce_grad_layout_policy(True)
        return states + [flag()]
    # made as an object (or called as a function, or cloned) it is set at once; a decorator sets it per call;
    # leaving `with` restores the flag from before the object was made
    assert both(scenario) == [False, False, False, False, True, False, False, True]


def test_enforce_grad_layout_policy_is_per_thread():
    seen = []
    with ndgrad.autograd.enforce_grad_layout_policy(False):
        t = threading.Thread(target=lambda: seen.append(ndgrad._C._is_grad_layout_enforcement_enabled()))
        t.start()
        t.join()
        assert ndgrad._C._is_grad_layout_enforcement_enabled() is False
    assert seen == [True] and ndgrad._C._is_grad_layout_enforcement_enabled() is True
