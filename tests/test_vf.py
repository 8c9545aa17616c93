"""torch's raw bindings: `torch._VF` / `torch._C._VariableFunctions` (the torch-namespace ATen functions,
in their binding's form where torch wraps them in Python), the functional RNN ops torch.lstm, gru,
rnn_tanh, rnn_relu (padded and packed), and `torch._C._nn` (the nn bindings), against torch."""
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, same_error
from test_nn_recurrent import graph

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def described(out):
    """(shape, dtype, grad_fn name, values) of each Tensor of an op's result, and the result's type."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [type(out).__name__] + [[list(o.shape), str(o.dtype).split(".")[-1], o.grad_fn and o.grad_fn.name(),
                                    o.detach().numpy()] for o in outs]


# ---- _VF and _C._VariableFunctions ---------------------------------------------------------------------
def test_vf_is_a_module_reading_the_variable_functions_namespace():
    assert type(ndgrad._VF).__name__ == "VFModule" and ndgrad._VF.vf is ndgrad._C._VariableFunctions
    assert type(ndgrad._C._VariableFunctions) is ndgrad._C._VariableFunctionsClass
    # where torch's Python function is the binding itself, the binding is ndgrad's namespace function
    for name in ("add", "lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "istft", "frobenius_norm", "_unique2",
                 "dropout", "threshold_", "detach", "numel"):
        assert getattr(ndgrad._VF, name) is getattr(ndgrad, name), name
    # where torch wraps the binding in Python, the binding's form, not the wrapper
    for name in ("norm", "split", "stft", "tensordot", "cdist", "einsum", "meshgrid", "broadcast_tensors",
                 "unique_consecutive", "atleast_1d", "chain_matmul"):
        assert getattr(ndgrad._VF, name) is not getattr(ndgrad, name), name
    assert "unique_dim" in dir(ndgrad._C._VariableFunctions) and "unique" not in dir(ndgrad._C._VariableFunctions)


def test_missing_names_raise_attribute_error_naming_them():
    for name in ("no_such_op", "unique", "no_grad", "Tensor", "manual_seed", "broadcast_shapes"):
        with pytest.raises(AttributeError) as err:
            getattr(ndgrad._VF, name)
        assert str(err.value) == f"'ndgrad._C._VariableFunctionsClass' object has no attribute '{name}'"
        if torch is not None:   # torch's message, its module's name aside
            with pytest.raises(AttributeError) as theirs:
                getattr(torch._VF, name)
            assert str(theirs.value).replace("torch.", "ndgrad.") == str(err.value)


@needs_torch
def test_the_same_names_resolve_as_in_torch():
    """Every name torch binds that ndgrad has resolves; names torch defines only in Python do not."""
    from ndgrad.ops import _registry
    torch_names = {n for n in dir(torch._C._VariableFunctions) if not n.startswith("__")}
    ours = {n for n in dir(ndgrad) if callable(getattr(ndgrad, n, None))} | set(_registry.OPS)
    for name in sorted((ours | torch_names) - {n for n in ours if n.startswith("_") and n not in torch_names}):
        if name in torch_names and not hasattr(ndgrad, name) and name != "unique_dim":
            continue   # a binding ndgrad does not have at all
        assert hasattr(ndgrad._VF, name) == hasattr(torch._VF, name), name


BINDINGS = {
    "norm": lambda T, a, b: T._VF.norm(a),
    "norm_p": lambda T, a, b: T._VF.norm(a, 3),
    "norm_dim": lambda T, a, b: T._VF.norm(b, 1, 1, True),
    "norm_none_dim": lambda T, a, b: T._VF.norm(b, None, [0], False),
    "norm_dtype": lambda T, a, b: T._VF.norm(a.float(), None, dtype=T.float64),
    "norm_dim_dtype": lambda T, a, b: T._VF.norm(b.float(), 2, [0], False, dtype=T.float64),
    "frobenius_norm": lambda T, a, b: T._VF.frobenius_norm(b, [0, 1]),
    "nuclear_norm": lambda T, a, b: T._VF.nuclear_norm(b),
    "split": lambda T, a, b: T._VF.split(b, 2, 1),
    "split_sizes": lambda T, a, b: T._VF.split(b, [1, 2], 1),
    "split_with_sizes": lambda T, a, b: T._VF.split_with_sizes(b, [1, 1], 0),
    "tensordot": lambda T, a, b: T._VF.tensordot(b, b.t(), [1], [0]),
    "tensordot_all": lambda T, a, b: T._VF.tensordot(b, b, [0, 1], [0, 1]),
    "cdist": lambda T, a, b: T._VF.cdist(b, b * 2, 2.0, None),
    "cdist_mode": lambda T, a, b: T._VF.cdist(b, b * 2, 1.0, 2),
    "einsum": lambda T, a, b: T._VF.einsum("ij,jk->ik", [b, b.t()]),
    "einsum_tuple": lambda T, a, b: T._VF.einsum("ij->j", (b,)),
    "meshgrid": lambda T, a, b: T._VF.meshgrid([a, a[:2]]),
    "meshgrid_xy": lambda T, a, b: T._VF.meshgrid([a, a[:2]], indexing="xy"),
    "broadcast_tensors": lambda T, a, b: T._VF.broadcast_tensors([a, b[:1]]),
    "cartesian_prod": lambda T, a, b: T._VF.cartesian_prod([a, a]),
    "chain_matmul": lambda T, a, b: T._VF.chain_matmul([b, b.t(), b]),
    "block_diag": lambda T, a, b: T._VF.block_diag([a, b]),
    "atleast_1d": lambda T, a, b: T._VF.atleast_1d(a[0]),
    "atleast_2d_list": lambda T, a, b: T._VF.atleast_2d([a, a[0]]),
    "atleast_3d": lambda T, a, b: T._VF.atleast_3d(b),
    "unique_consecutive": lambda T, a, b: T._VF.unique_consecutive(T.tensor([1., 1, 2], requires_grad=True)),
    "unique_consecutive_dim": lambda T, a, b: T._VF.unique_consecutive(b, True, True, 0),
    "unique_dim": lambda T, a, b: T._VF.unique_dim(T.tensor([[1., 2], [1, 2], [0, 1]], requires_grad=True), dim=0,
                                                   sorted=True, return_inverse=True, return_counts=False),
    "stft": lambda T, a, b: T._VF.stft(T.arange(16.0, requires_grad=True), 4, 2, 4, T.hann_window(4), False, True,
                                       True),
    "stft_center": lambda T, a, b: T._VF.stft(T.arange(16.0, requires_grad=True), 4, 2, None, T.hann_window(4), True,
                                              "constant", False, None, True),
    "istft": lambda T, a, b: T._VF.istft(T._VF.stft(T.arange(16.0), 4, 1, 4, T.hann_window(4), True, "reflect",
                                                    False, True, True), 4, 1, 4, T.hann_window(4), True, False,
                                         True, 16, False),
}


@pytest.mark.parametrize("name", sorted(BINDINGS))
def test_bindings_take_the_aten_arguments(name):
    def scenario(T):
        a = T.tensor([0.5, -1.5, 2.0], dtype=T.float64, requires_grad=True)
        b = T.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=T.float64, requires_grad=True)
        return described(BINDINGS[name](T, a, b))
    out = both(scenario, rtol=1e-5, atol=1e-6)
    assert out[0] in ("Tensor", "tuple") and all(isinstance(o[0], list) for o in out[1:])


def test_binding_results():
    """A few values written out (the bindings' forms, not the Python wrappers')."""
    a = ndgrad.tensor([3.0, -4.0], requires_grad=True)
    assert ndgrad._VF.norm(a).item() == 5.0 and ndgrad._VF.norm(a).grad_fn.name() == "NormBackward0"
    n = ndgrad._VF.norm(a, None, dtype=ndgrad.float64)
    assert n.dtype == ndgrad.float64 and n.grad_fn.name() == "NormBackward2"
    n.backward()
    assert np.allclose(a.grad.tolist(), [0.6, -0.8]) and a.grad.dtype == ndgrad.float32
    assert ndgrad._VF.tensordot(ndgrad.eye(2), ndgrad.ones(2, 3), [1], [0]).tolist() == [[1.0] * 3] * 2
    values, inverse, counts = ndgrad._VF.unique_dim(ndgrad.tensor([[1, 2], [1, 2], [0, 1]]), 0)
    assert values.tolist() == [[0, 1], [1, 2]] and inverse.tolist() == [1, 1, 0] and counts.tolist() == [1, 2]
    v, i, c = ndgrad._VF.unique_consecutive(ndgrad.tensor([1, 1, 2]))
    assert v.tolist() == [1, 2] and i.numel() == 0 and c.numel() == 0   # always three results
    assert [t.shape for t in ndgrad._VF.split(ndgrad.zeros(5), [2, 3])] == [(2,), (3,)]
    assert ndgrad._VF.stft(ndgrad.ones(8), 4, 4, window=ndgrad.ones(4), return_complex=True).shape == (3, 2)   # no centre padding


def test_forward_ad_and_packed_sequence_bindings():
    def scenario(T):
        with T.autograd.forward_ad.dual_level():
            dual = T._VF._make_dual(T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0]), 0)
            primal, tangent = T._VF._unpack_dual(dual * dual, 0)
        data = T.arange(5.0, requires_grad=True)
        padded = [T._VF._pad_packed_sequence(data, T.tensor([2, 2, 1]), first, -1.0, 4) for first in (False, True)]
        return [primal, tangent] + [[out.grad_fn.name(), out, lengths] for out, lengths in padded]
    primal, tangent, (name, out, lengths), (name_first, out_first, _) = both(scenario)
    assert primal.tolist() == [1.0, 4.0] and tangent.tolist() == [6.0, 16.0]
    assert name == "torch::autograd::CopySlices" and name_first == "TransposeBackward0" and lengths.tolist() == [3, 2]
    assert out.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, -1.0], [-1.0, -1.0]] and out_first.shape == (2, 4)
    same_error(lambda T: T._VF._make_dual(T.ones(2), T.ones(2), 0))   # no level open


@pytest.mark.parametrize("call, exc", [
    (lambda T: T._VF.norm(T.ones(2), "fro"), TypeError),
    (lambda T: T._VF.norm(T.ones(2, dtype=T.float64), None, dtype=T.float32), RuntimeError),
    (lambda T: T._VF.norm(T.ones(2), 2, dtype=T.complex64), RuntimeError),
    (lambda T: T._VF.split(T.ones(2)), TypeError),
    (lambda T: T._VF.broadcast_tensors(T.ones(2), T.ones(2)), TypeError),
    (lambda T: T._VF.cdist(T.ones(2, 2), T.ones(2, 2), 2.0, "x"), TypeError),
    (lambda T: T._VF.unique_dim(T.ones(2)), TypeError),
    (lambda T: T._VF.tensordot(T.ones(2), T.ones(2), 1), TypeError),
])
def test_binding_errors_are_torchs(call, exc):
    same_error(call, exc)


# ---- the functional RNNs ----------------------------------------------------------------------------------
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def rnn_case(T, mode, dtype, layers, bidirectional, bias, proj=0, seed=0):
    """Weights, input and states of a functional RNN, from one seed (the same numbers for both libraries)."""
    g = np.random.RandomState(seed)
    hidden, size, batch, steps = 3, 2, 2, 4
    directions = 2 if bidirectional else 1
    params = []
    for layer in range(layers):
        for _ in range(directions):
            inp = size if layer == 0 else (proj or hidden) * directions
            shapes = [(GATES[mode] * hidden, inp), (GATES[mode] * hidden, proj or hidden)]
            shapes += [(GATES[mode] * hidden,)] * 2 if bias else []
            shapes += [(proj, hidden)] if proj else []
            params += [T.tensor(g.randn(*s), dtype=dtype, requires_grad=True) for s in shapes]
    x = T.tensor(g.randn(steps, batch, size), dtype=dtype, requires_grad=True)
    h = T.tensor(g.randn(layers * directions, batch, proj or hidden), dtype=dtype, requires_grad=True)
    hx = [h, T.tensor(g.randn(layers * directions, batch, hidden), dtype=dtype)] if mode == "lstm" else h
    return params, x, hx


def outcome(T, outs, leaves):
    """Outputs (values, grad_fn names, graphs) and the gradients of every leaf for a loss on all outputs."""
    grads = T.autograd.grad(sum(((o * o).sum() * (i + 1) for i, o in enumerate(outs))), leaves, allow_unused=True)
    return [[o.grad_fn.name(), graph(o), o.detach().numpy()] for o in outs] + [None if g is None else g.numpy()
                                                                                for g in grads]


CASES = [(mode, dtype, layers, bidirectional, batch_first, bias, proj)
         for mode in GATES for dtype in ("float32", "float64")
         for layers, bidirectional, batch_first, bias, proj in ((1, False, False, True, 0), (2, True, True, False, 0),
                                                                (2, True, False, True, 2))
         if not proj or mode == "lstm"]


@needs_torch
@pytest.mark.parametrize("mode, dtype, layers, bidirectional, batch_first, bias, proj", CASES)
def test_functional_rnn_padded_is_torchs(mode, dtype, layers, bidirectional, batch_first, bias, proj):
    def scenario(T):
        params, x, hx = rnn_case(T, mode, getattr(T, dtype), layers, bidirectional, bias, proj)
        if batch_first:
            x = x.detach().transpose(0, 1).contiguous().requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # torch: projections are not supported with oneDNN
            outs = getattr(T, mode)(x, hx, params, bias, layers, 0.0, True, bidirectional, batch_first)
        assert isinstance(outs, tuple) and len(outs) == (3 if mode == "lstm" else 2)
        return outcome(T, outs, [x, hx[0] if mode == "lstm" else hx] + params)
    tol = 1e-4 if dtype == "float32" else 1e-9
    both(scenario, rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("mode, dtype, layers, bidirectional, batch_first, bias, proj", CASES)
def test_functional_rnn_packed_is_torchs(mode, dtype, layers, bidirectional, batch_first, bias, proj):
    def scenario(T):
        params, _, hx = rnn_case(T, mode, getattr(T, dtype), layers, bidirectional, bias, proj)
        data = T.tensor(np.random.RandomState(1).randn(7, 2), dtype=getattr(T, dtype), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = getattr(T, mode)(data, T.tensor([2, 2, 2, 1]), hx, params, bias, layers, 0.0, True, bidirectional)
        return outcome(T, outs, [data] + params)
    tol = 1e-4 if dtype == "float32" else 1e-9
    both(scenario, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode, cls", [("lstm", "LSTM"), ("gru", "GRU"), ("rnn_tanh", "RNN"), ("rnn_relu", "RNN")])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functional_rnn_is_the_modules_computation(mode, cls, dtype):
    """The op given a module's flat weights gives the module's outputs, graph and gradients, dropout included."""
    kwargs = {"nonlinearity": "relu"} if mode == "rnn_relu" else {}
    m = getattr(ndgrad.nn, cls)(2, 3, num_layers=2, bidirectional=True, batch_first=True, dropout=0.5,
                                **kwargs).to(getattr(ndgrad, dtype))
    x = ndgrad.randn(2, 4, 2, dtype=getattr(ndgrad, dtype), requires_grad=True)
    h = ndgrad.zeros(4, 2, 3, dtype=x.dtype)
    hx = (h, h) if mode == "lstm" else h
    flat = [getattr(m, n) for n in m._flat_weights_names]
    results = []
    for run in (lambda: m(x, hx), lambda: getattr(ndgrad, mode)(x, hx, flat, True, 2, 0.5, True, True, True)):
        ndgrad.manual_seed(3)   # the same dropout masks
        out, *state = run()
        state = state[0] if len(state) == 1 and isinstance(state[0], tuple) else state   # the module's (h, c)
        grads = ndgrad.autograd.grad((out * out).sum() + sum(s.sum() for s in state), [x] + flat)
        results.append(([out, *state], grads))
    (outs, grads), (f_outs, f_grads) = results
    for a, b in zip(outs + list(grads), f_outs + list(f_grads)):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    assert [graph(o) for o in outs] == [graph(o) for o in f_outs]
    assert f_outs[0].grad_fn.name() == ("TransposeBackward0" if mode == "lstm" else "TransposeBackward1")


def test_functional_rnn_refuses_inputs_of_other_dimensions():
    with pytest.raises(RuntimeError, match=r"^gru: expected an input \(seq, batch, features\), got a 4-D tensor$"):
        ndgrad.gru(ndgrad.ones(2, 1, 1, 1), ndgrad.ones(1, 1, 1), [ndgrad.ones(3, 1)] * 2, False, 1, 0.0, False, False,
                   False)
    with pytest.raises(RuntimeError, match=r"^lstm: expected packed data \(rows, features\), got a 3-D tensor$"):
        ndgrad.lstm(ndgrad.ones(2, 1, 1), ndgrad.tensor([1, 1]), [ndgrad.ones(1, 1, 1)] * 2, [ndgrad.ones(4, 1)] * 2,
                    False, 1, 0.0, False, False)


def test_functional_rnn_values():
    out, h, c = ndgrad.lstm(ndgrad.ones(3, 1, 2), [ndgrad.zeros(1, 1, 1), ndgrad.ones(1, 1, 1)],
                            [ndgrad.zeros(4, 2), ndgrad.zeros(4, 1)], False, 1, 0.0, False, False, False)
    assert out.shape == (3, 1, 1) and c.item() == 0.125 and h.grad_fn is None   # c halves at every step
    out, h = ndgrad.rnn_relu(ndgrad.ones(2, 1, 1), ndgrad.zeros(1, 1, 1), [ndgrad.ones(1, 1), ndgrad.ones(1, 1)],
                             False, 1, 0.0, False, False, False)
    assert out.flatten().tolist() == [1.0, 2.0] and h.grad_fn is None


@pytest.mark.parametrize("call, exc", [
    (lambda T: T.lstm(T.ones(2, 1, 1), (T.ones(1, 1, 1),), [T.ones(4, 1)] * 2, False, 1, 0.0, False, False, False),
     RuntimeError),
    (lambda T: T.lstm(T.ones(2, 1, 1), [T.ones(1, 1, 1)] * 2, [T.ones(4, 1)] * 3, True, 1, 0.0, False, False, False),
     RuntimeError),
    (lambda T: T.lstm(T.ones(2, 1, 1), T.ones(1, 1, 1), [T.ones(4, 1)] * 2, False, 1, 0.0, False, False, False),
     TypeError),
    (lambda T: T.gru(T.ones(2, 1, 1), T.ones(1, 1, 1), [T.ones(3, 1)] * 2, False, 1, 0.0, False, False), TypeError),
    (lambda T: T.lstm(T.ones(2, 1), [T.ones(1, 1)] * 2, [T.ones(4, 1)] * 2, False, 1, 0.0, False, False, False),
     IndexError),
    (lambda T: T.lstm(T.ones(2), [T.ones(1, 1, 1)] * 2, [T.ones(4, 1)] * 2, False, 1, 0.0, False, False, True),
     IndexError),
])
def test_functional_rnn_errors_are_torchs(call, exc):
    same_error(call, exc)


# ---- _C._nn ------------------------------------------------------------------------------------------------
NN = {
    "linear": lambda T, x: T._C._nn.linear(x, x[:1] * 2, T.ones(1, dtype=x.dtype)),
    "gelu": lambda T, x: T._C._nn.gelu(x, approximate="tanh"),
    "softplus": lambda T, x: T._C._nn.softplus(x, 2, 1),
    "softshrink": lambda T, x: T._C._nn.softshrink(x, 0.7),
    "glu": lambda T, x: T._C._nn.glu(x, 0),
    "pad": lambda T, x: T._C._nn.pad(x, [1, 2], "constant", 0.5),
    "one_hot": lambda T, x: T._C._nn.one_hot(T.tensor([0, 2, 1]), 4),
    "hardtanh": lambda T, x: T._C._nn.hardtanh(x, -0.5, 0.5),
    "hardtanh_": lambda T, x: T._C._nn.hardtanh_(x * 1, -0.5, 0.5),
    "leaky_relu": lambda T, x: T._C._nn.leaky_relu(x, 0.2),
    "leaky_relu_": lambda T, x: T._C._nn.leaky_relu_(x * 1, 0.2),
    "hardsigmoid": lambda T, x: T._C._nn.hardsigmoid(x),
    "hardswish": lambda T, x: T._C._nn.hardswish(x),
    "mish": lambda T, x: T._C._nn.mish(x),
    "silu": lambda T, x: T._C._nn.silu(x),
    "relu6": lambda T, x: T._C._nn.relu6(x * 4),
    "avg_pool2d": lambda T, x: T._C._nn.avg_pool2d(x[None, None], [2, 2], [1, 1], 0, False, True, None),
    "avg_pool3d": lambda T, x: T._C._nn.avg_pool3d(x[None, None, None], [1, 2, 2], [1, 1, 1]),
    "adaptive_avg_pool2d": lambda T, x: T._C._nn.adaptive_avg_pool2d(x[None], [1, 2]),
    "adaptive_avg_pool3d": lambda T, x: T._C._nn.adaptive_avg_pool3d(x[None, None], [1, 1, 2]),
    "scaled_dot_product_attention": lambda T, x: T._C._nn.scaled_dot_product_attention(x, x, x, None, 0.0, True),
    "_test_warn_in_autograd": lambda T, x: T._C._nn._test_warn_in_autograd(x),
}


def test_nn_names_are_the_checked_ones():
    assert sorted(ndgrad._C._nn.__all__) == sorted(NN)
    with pytest.raises(AttributeError, match="module 'ndgrad._C._nn' has no attribute 'mse_loss'"):
        ndgrad._C._nn.mse_loss   # the binding takes reduction as a number: absent


@pytest.mark.parametrize("name", sorted(NN))
def test_nn_bindings_are_torchs(name):
    def scenario(T):
        x = T.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=T.float64, requires_grad=True)
        out = NN[name](T, x)
        grad = T.autograd.grad((out * out).sum(), x)[0] if out.requires_grad else None
        return described(out) + [None if grad is None else grad.numpy()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = both(scenario, rtol=1e-6, atol=1e-9)
    assert out[0] == "Tensor"


def test_test_warn_in_autograd_warns_in_backward():
    a = ndgrad.zeros((), requires_grad=True)
    b = ndgrad._C._nn._test_warn_in_autograd(a)
    assert b.grad_fn.name() == "TestWarnInAutogradBackward0" and not np.shares_memory(a.detach().numpy(), b.detach().numpy())
    with pytest.warns(UserWarning, match="^Warn from backward$"):
        b.backward()
    assert a.grad.item() == 1.0
