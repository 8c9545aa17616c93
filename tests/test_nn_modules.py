"""ndgrad.nn modules against torch.nn: the same weights (copied through state_dict) and inputs
give the same outputs and gradients; registration, state_dict, hooks, repr and init behave as torch."""
import copy
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import ndgrad
import ndgrad.nn as nn
from ndgrad.nn import init
from parity import both

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def to_torch(module, tmodule):
    """Copy ndgrad module's state into the torch module (through numpy arrays)."""
    tmodule.load_state_dict({k: torch.tensor(np.array(v.numpy())) for k, v in module.state_dict().items()})
    return tmodule


def close(a, b, tol=1e-5):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def check_parity(m, tm, *inputs, loss=lambda y: (y * y).sum()):
    """Forward and backward parity of m (ndgrad) and tm (torch) on the same inputs."""
    to_torch(m, tm)
    xs = [ndgrad.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    txs = [torch.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    y, ty = m(*xs), tm(*txs)
    close(y, ty)
    loss(y).backward()
    loss(ty).backward()
    for x, tx in zip(xs, txs):
        if tx.requires_grad:
            close(x.grad, tx.grad)
    tparams = dict(tm.named_parameters())
    for name, p in m.named_parameters():
        close(p.grad, tparams[name].grad)
    return y


rng = np.random.default_rng(0)


def randn(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# ---- layers and containers: parity ------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_parity(shape, bias):
    check_parity(nn.Linear(3, 2, bias=bias), torch.nn.Linear(3, 2, bias=bias), randn(*shape))


@needs_torch
def test_linear_double():
    m = nn.Linear(3, 2, dtype=ndgrad.float64)
    assert m.weight.dtype == ndgrad.float64
    check_parity(m, torch.nn.Linear(3, 2, dtype=torch.float64), randn(4, 3, dtype=np.float64))


@needs_torch
def test_mlp_cross_entropy_parity():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(6, 8), lib.nn.Tanh(), lib.nn.Linear(8, 8),
                                 lib.nn.ReLU(), lib.nn.Linear(8, 4))
    m, tm = build(ndgrad), build(torch)
    target = np.array([0, 3, 1, 2, 3])
    x = randn(5, 2, 3)
    y = check_parity(m, tm, x, loss=lambda y: (y.sum(), None)[0])
    for p in list(m.parameters()) + list(tm.parameters()):
        p.grad = None
    lm = nn.CrossEntropyLoss()(m(ndgrad.tensor(x)), ndgrad.tensor(target))
    lt = torch.nn.CrossEntropyLoss()(tm(torch.tensor(x)), torch.tensor(target))
    close(lm, lt)
    lm.backward()
    lt.backward()
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn
        close(p.grad, tp.grad)
    assert y.shape == (5, 4)


ACTIVATIONS = [("ReLU", ()), ("ReLU6", ()), ("SELU", ()), ("SiLU", ()), ("Sigmoid", ()), ("Tanh", ()),
               ("LeakyReLU", (0.2,)), ("ELU", (0.5,)), ("CELU", (1.5,)), ("GELU", ()), ("GELU", ("tanh",)),
               ("Softplus", (2.0, 1.0)), ("Hardtanh", (-0.5, 0.7)), ("Threshold", (0.1, 2.0)),
               ("Softmax", (1,)), ("Softmin", (0,)), ("LogSoftmax", (-1,)), ("Identity", ()),
               ("Flatten", ()), ("Flatten", (0, 1)), ("Unflatten", (1, (2, 2)))]


@needs_torch
@pytest.mark.parametrize("name,args", ACTIVATIONS, ids=lambda v: str(v))
def test_activation_parity(name, args):
    m, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(m) == repr(tm)
    check_parity(m, tm, randn(3, 4))


@needs_torch
@pytest.mark.parametrize("name", ["ReLU", "LeakyReLU", "ELU", "Hardtanh", "ReLU6", "SELU", "CELU", "SiLU"])
def test_inplace_activation(name):
    m, tm = getattr(nn, name)(inplace=True), getattr(torch.nn, name)(inplace=True)
    assert repr(m) == repr(tm)
    x = randn(3, 4)
    a, ta = ndgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = m(a * 1), tm(ta * 1)
    close(y, ty)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    y.sum().backward()
    ty.sum().backward()
    close(a.grad, ta.grad)


@needs_torch
@pytest.mark.parametrize("name,kwargs,target", [
    ("MSELoss", {}, "float"), ("MSELoss", {"reduction": "sum"}, "float"),
    ("NLLLoss", {}, "class"), ("NLLLoss", {"reduction": "none", "ignore_index": 1}, "class"),
    ("CrossEntropyLoss", {}, "class"), ("CrossEntropyLoss", {"label_smoothing": 0.1}, "class"),
    ("CrossEntropyLoss", {"reduction": "sum"}, "prob"),
], ids=str)
def test_loss_parity(name, kwargs, target):
    m, tm = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(m) == repr(tm)
    x = randn(5, 4)
    t = {"float": randn(5, 4), "class": np.array([0, 1, 3, 2, 1]),
         "prob": np.abs(randn(5, 4)) / 4}[target]
    a, ta = ndgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = m(a, ndgrad.tensor(t)), tm(ta, torch.tensor(t))
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    close(a.grad, ta.grad)


@needs_torch
def test_weighted_loss_buffer():
    w = np.array([1.0, 2.0, 0.5], dtype=np.float32)
    m, tm = nn.CrossEntropyLoss(weight=ndgrad.tensor(w)), torch.nn.CrossEntropyLoss(weight=torch.tensor(w))
    assert list(m.state_dict()) == list(tm.state_dict()) == ["weight"]
    x, t = randn(4, 3), np.array([0, 2, 1, 1])
    close(m(ndgrad.tensor(x), ndgrad.tensor(t)), tm(torch.tensor(x), torch.tensor(t)))


def test_legacy_reduction_warns():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        m = nn.MSELoss(size_average=False)
    assert m.reduction == "sum"


# ---- registration, traversal, state_dict --------------------------------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.shared = self.fc            # the same module twice
        self.register_buffer("running", ndgrad.zeros(4))
        self.register_buffer("scratch", ndgrad.ones(2), persistent=False)
        self.scale = nn.Parameter(ndgrad.ones(1))

    def forward(self, x):
        return self.block(self.fc(x)) * self.scale + self.running


@needs_torch
def test_traversal_matches_torch():
    m = Net()
    tm = torch.nn.Module()
    tm.fc = torch.nn.Linear(3, 4)
    tm.block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    tm.shared = tm.fc
    tm.register_buffer("running", torch.zeros(4))
    tm.register_buffer("scratch", torch.ones(2), persistent=False)
    tm.scale = torch.nn.Parameter(torch.ones(1))
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in tm.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in m.named_children()] == [n for n, _ in tm.named_children()]
    assert [n for n, _ in m.named_modules()] == [n for n, _ in tm.named_modules()]
    assert list(m.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert len(list(m.parameters())) == 5 and len(list(m.modules())) == 5


def test_setattr_registration_and_errors():
    m = Net()
    assert set(m._parameters) == {"scale"} and set(m._modules) == {"fc", "block", "shared"}
    m.scale = None
    assert m.scale is None and "scale" in m._parameters
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'scale' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.scale = ndgrad.ones(1)
    with pytest.raises(TypeError, match="as child module 'fc'"):
        m.fc = 3
    with pytest.raises(TypeError, match="as buffer 'running'"):
        m.running = 3
    m.running = ndgrad.ones(4)                  # a tensor replaces a buffer
    assert "running" in m._buffers
    m.fc = nn.Parameter(ndgrad.ones(2))         # a parameter replaces a module
    assert "fc" not in m._modules and "fc" in m._parameters
    del m.fc
    assert not hasattr(m, "fc")
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        m.nothing
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        m.register_buffer("forward", ndgrad.ones(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ndgrad.ones(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


@needs_torch
def test_load_state_dict_errors_match_torch():
    m, tm = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    for bad in [{"weight": np.zeros((3, 2), np.float32), "foo": np.zeros(1, np.float32)},
                {"weight": np.zeros((2, 2), np.float32)},
                {"weight": np.zeros((2, 2), np.float32), "bias": np.zeros(2, np.float32), "x": np.zeros(1)}]:
        with pytest.raises(RuntimeError) as ours:
            m.load_state_dict({k: ndgrad.tensor(v) for k, v in bad.items()})
        with pytest.raises(RuntimeError) as theirs:
            tm.load_state_dict({k: torch.tensor(v) for k, v in bad.items()})
        assert str(ours.value) == str(theirs.value)
    res = m.load_state_dict({"weight": ndgrad.zeros(2, 2), "x": ndgrad.zeros(1)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == ["x"]
    assert (m.weight == 0).all() and m.weight.requires_grad and isinstance(m.weight, nn.Parameter)
    assert repr(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"


def test_state_dict_detached_and_shared_memory():
    m = nn.Linear(2, 3)
    sd = m.state_dict()
    assert not sd["weight"].requires_grad
    with ndgrad.no_grad():
        m.weight.add_(1)
    close(sd["weight"], m.weight)               # a view of the same data, as in torch
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    m2 = nn.Linear(2, 3)
    m2.load_state_dict(sd)
    close(m2.weight, m.weight)
    m3 = nn.Linear(2, 3)
    m3.load_state_dict(sd, assign=True)
    assert isinstance(m3.weight, nn.Parameter) and m3.weight.requires_grad


# ---- modes, conversion, hooks -------------------------------------------------------------------
def test_train_eval_zero_grad_apply_requires_grad():
    m = Net()
    assert m.training and m.block.training
    m.eval()
    assert not m.training and not m.block[1].training
    m.train()
    assert m.block[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train(1)
    m(ndgrad.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all((p.grad == 0).all() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "ReLU", "Sequential", "Net"]
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype_keeps_parameter_objects():
    m = Net()
    w = m.fc.weight
    m.fc.weight.grad = ndgrad.ones(4, 3)
    assert m.double() is m
    assert m.fc.weight is w and w.dtype == ndgrad.float64 and w.grad.dtype == ndgrad.float64
    assert m.running.dtype == ndgrad.float64 and isinstance(w, nn.Parameter)
    m.to(ndgrad.float32)
    assert w.dtype == ndgrad.float32
    m.to(dtype=ndgrad.float64).float()
    assert m.scale.dtype == ndgrad.float32
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        m.to(ndgrad.int64)
    y = m(ndgrad.ones(2, 3))
    assert y.dtype == ndgrad.float32


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: out + 1)
    m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    y = m(ndgrad.ones(1, 2))
    close(y, m.bias.detach().view(1, 2) + 1)
    assert calls == ["first"]
    h1.remove()
    h2.remove()
    close(m(ndgrad.zeros(1, 2)), m.bias.detach().view(1, 2))
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"input": args[0]}) if False else None,
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: out * 2, with_kwargs=True)
    close(m(ndgrad.zeros(1, 2)), m.bias.detach().view(1, 2) * 2)


def test_missing_forward():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)


# ---- containers ---------------------------------------------------------------------------------
@needs_torch
def test_repr_matches_torch():
    def build(lib):
        return lib.nn.Sequential(OrderedDict(
            stem=lib.nn.Linear(2, 3), act=lib.nn.ReLU(),
            body=lib.nn.Sequential(lib.nn.Linear(3, 3, bias=False), lib.nn.Tanh()),
            heads=lib.nn.ModuleList([lib.nn.Linear(3, 1) for _ in range(3)] + [lib.nn.ReLU()]),
            extra=lib.nn.ModuleDict({"a": lib.nn.Identity(), "b": lib.nn.Softmax(dim=1)}),
            loss=lib.nn.CrossEntropyLoss(), empty=lib.nn.Sequential()))
    assert repr(build(ndgrad)) == repr(build(torch))
    assert repr(nn.Parameter(ndgrad.ones(2))) == repr(torch.nn.Parameter(torch.ones(2)))
    assert repr(nn.Parameter(ndgrad.ones(2), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.ones(2), requires_grad=False))


def test_sequential_ops():
    a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    s = nn.Sequential(a, b)
    assert len(s) == 2 and s[0] is a and s[-1] is b
    assert isinstance(s[1:], nn.Sequential) and s[1:][0] is b
    s.append(c)
    assert list(s) == [a, b, c] and list(s._modules) == ["0", "1", "2"]
    del s[0]
    assert list(s) == [b, c] and list(s._modules) == ["0", "1"]
    s.insert(0, a)
    assert list(s) == [a, b, c]
    s[1] = nn.Identity()
    assert isinstance(s[1], nn.Identity)
    with pytest.raises(IndexError):
        s[3]
    named = nn.Sequential(OrderedDict(first=a, second=b))
    assert named.first is a and list(named[1:]._modules) == ["second"]
    close(nn.Sequential(nn.Flatten(), nn.ReLU())(ndgrad.tensor([[[-1.0, 2.0]]])), np.array([[0.0, 2.0]]))


def test_modulelist_and_moduledict():
    layers = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.ReLU())
    layers += [nn.Tanh()]
    del layers[0]
    assert list(layers._modules) == ["0", "1", "2", "3"]
    assert isinstance(layers[-1], nn.Tanh) and isinstance(layers[:2], nn.ModuleList)
    layers.insert(1, nn.Sigmoid())
    assert isinstance(layers[1], nn.Sigmoid) and layers.pop(1) is not None and len(layers) == 4
    d = nn.ModuleDict({"a": nn.ReLU()})
    d["b"] = nn.Linear(2, 2)
    d.update([("c", nn.Tanh())])
    assert list(d) == ["a", "b", "c"] and "b" in d and len(list(d.parameters())) == 2
    assert d.pop("a") is not None and list(d.keys()) == ["b", "c"]


def test_deepcopy_module():
    m = Net()
    m2 = copy.deepcopy(m)
    assert m2.fc is m2.shared and m2.fc.weight is not m.fc.weight
    close(m2.fc.weight, m.fc.weight)
    close(m2(ndgrad.ones(1, 3)), m(ndgrad.ones(1, 3)))
    d = copy.deepcopy(Net().double())   # the copy keeps the dtype and the Parameter type
    assert d.fc.weight.dtype == ndgrad.float64 and isinstance(d.fc.weight, nn.Parameter)


# ---- init ----------------------------------------------------------------------------------------
def test_linear_default_init_and_seeding():
    ndgrad.manual_seed(0)
    a = nn.Linear(50, 40)
    ndgrad.manual_seed(0)
    b = nn.Linear(50, 40)
    close(a.weight, b.weight)
    bound = 1 / math.sqrt(50)
    w = a.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01
    assert np.abs(a.bias.detach().numpy()).max() <= bound


@needs_torch
def test_calculate_gain_and_fans():
    for nl, param in [("linear", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
                      ("leaky_relu", 0.2), ("selu", None), ("conv2d", None)]:
        assert init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param))
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(ndgrad.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_normal_(ndgrad.empty(3, 3), mode="fan_avg")


def test_init_distributions():
    ndgrad.manual_seed(1)
    w = ndgrad.empty(200, 300, requires_grad=True)
    assert init.uniform_(w, -2, 3) is w and w.grad_fn is None
    v = w.detach().numpy()
    assert v.min() >= -2 and v.max() <= 3 and abs(v.mean() - 0.5) < 0.05
    init.normal_(w, 1.0, 2.0)
    assert abs(w.detach().numpy().mean() - 1) < 0.05 and abs(w.detach().numpy().std() - 2) < 0.05
    init.xavier_uniform_(w, gain=2.0)
    assert abs(w.detach().numpy().std() - 2 * math.sqrt(2 / 500)) < 0.005
    init.xavier_normal_(w)
    assert abs(w.detach().numpy().std() - math.sqrt(2 / 500)) < 0.003
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.detach().numpy().std() - math.sqrt(2 / 200)) < 0.005
    init.kaiming_uniform_(w, a=1.0)
    assert abs(w.detach().numpy().std() - 1 / math.sqrt(300)) < 0.003
    init.trunc_normal_(w, mean=0.5, std=1.0, a=-1.0, b=1.0)
    v = w.detach().numpy()
    assert v.min() >= -1 and v.max() <= 1 and v.mean() > 0
    init.constant_(w, 0.3)
    assert (w == 0.3).all()
    init.ones_(w)
    init.zeros_(w)
    assert (w == 0).all()
    init.eye_(w)
    close(w, np.eye(200, 300))
    q = init.orthogonal_(ndgrad.empty(3, 5), gain=2.0)
    close(q @ q.t(), 4 * np.eye(3))
    q = init.orthogonal_(ndgrad.empty(6, 2, 2))
    close(q.view(6, 4).t() @ q.view(6, 4), np.eye(4))
    d = init.dirac_(ndgrad.empty(4, 2, 3))
    assert d.sum().item() == 2 and d[1, 1, 1].item() == 1
    with pytest.warns(UserWarning, match="zero-element"):
        init.kaiming_uniform_(ndgrad.empty(0, 3))


# ---- utils ---------------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_grad_norm_parity(norm_type):
    grads = [randn(3, 4), randn(5)]
    ps = [ndgrad.zeros(g.shape, requires_grad=True) for g in grads]
    tps = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    for p, tp, g in zip(ps, tps, grads):
        p.grad, tp.grad = ndgrad.tensor(g), torch.tensor(g)
    total = nn.utils.clip_grad_norm_(ps, 0.5, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(tps, 0.5, norm_type)
    close(total, ttotal)
    for p, tp in zip(ps, tps):
        close(p.grad, tp.grad)


def test_clip_grad_value_and_vectors():
    p = ndgrad.zeros(4, requires_grad=True)
    p.grad = ndgrad.tensor([-3.0, 0.5, 2.0, -0.1])
    nn.utils.clip_grad_value_(p, 1.0)
    close(p.grad, np.array([-1.0, 0.5, 1.0, -0.1]))
    assert nn.utils.clip_grad_norm_([ndgrad.zeros(2, requires_grad=True)], 1.0).item() == 0
    m = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == (8,) and type(vec.grad_fn).__name__ == "CatBackward0"
    nn.utils.vector_to_parameters(ndgrad.arange(8.0), m.parameters())
    close(m.weight, np.arange(6.0).reshape(2, 3))
    close(m.bias, np.array([6.0, 7.0]))
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.vector_to_parameters([1.0], m.parameters())
    with pytest.raises(RuntimeError, match="non-finite"):
        p.grad = ndgrad.tensor([math.inf, 0, 0, 0])
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)


def test_parameter_basics():
    t = ndgrad.ones(3)
    p = nn.Parameter(t)
    assert isinstance(p, ndgrad.Tensor) and p.requires_grad and p.is_leaf
    with ndgrad.no_grad():
        p.mul_(2)
    assert (t == 2).all()                 # shares memory with the tensor it wraps
    assert type(p * 2) is ndgrad.Tensor
    assert not nn.Parameter(ndgrad.ones(1), requires_grad=False).requires_grad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.Parameter().shape == (0,)


def test_data_parallel_on_one_device_wraps_the_module_as_torch_does():
    def scenario(T):
        T.manual_seed(0)
        inner = T.nn.Linear(2, 3)
        model = T.nn.DataParallel(inner, device_ids=[0])
        out = model(T.ones(4, 2))
        out.sum().backward()
        return [list(model.state_dict()), model.device_ids, model.module is inner, repr(model),
                inner.weight.grad.tolist()]
    names, device_ids, same, text, grad = both(scenario)
    assert names == ["module.weight", "module.bias"] and device_ids == [] and same
    assert text.startswith("DataParallel(\n  (module): Linear(in_features=2") and grad == [[4.0, 4.0]] * 3


def test_torchs_module_paths_for_recurrent_and_embedding_layers():
    assert nn.modules.rnn.LSTM is nn.LSTM and nn.modules.sparse.EmbeddingBag is nn.EmbeddingBag
    lstm = nn.LSTM(2, 3)
    before = [p.data_ptr() for p in lstm.parameters()]
    assert lstm.flatten_parameters() is None and [p.data_ptr() for p in lstm.parameters()] == before
