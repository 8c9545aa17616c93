"""More torch.nn modules against torch (padding, resampling, distances, triplet and other losses,
parameter containers, Bilinear, EmbeddingBag) and Module's full backward hooks."""
import warnings

import numpy as np
import pytest

import ndgrad
import ndgrad.nn as nn
import ndgrad.nn.functional as F
from test_nn_modules import check_parity, close, randn, to_torch

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def both(name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, tm = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(m) == repr(tm)
    return m, tm


@needs_torch
@pytest.mark.parametrize("name,args,shape", [
    ("ConstantPad1d", (2, 1.5), (2, 3, 4)), ("ConstantPad2d", ((1, 0, 2, 1), -1.0), (1, 2, 3, 3)),
    ("ConstantPad3d", (1, 0.0), (1, 1, 2, 2, 2)), ("ZeroPad1d", ((1, 2),), (2, 3, 4)),
    ("ZeroPad2d", (1,), (1, 2, 3, 3)), ("ZeroPad3d", ((1, 0, 0, 1, 1, 0),), (1, 1, 2, 2, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad2d", ((1, 0, 2, 1),), (1, 2, 3, 3)),
    ("ReflectionPad3d", (1,), (1, 1, 2, 2, 2)), ("ReplicationPad1d", (2,), (2, 3, 4)),
    ("ReplicationPad2d", (1,), (1, 2, 3, 3)), ("ReplicationPad3d", (1,), (1, 1, 2, 2, 2)),
    ("CircularPad1d", (2,), (2, 3, 4)), ("CircularPad2d", (1,), (1, 2, 3, 3)),
    ("CircularPad3d", (1,), (1, 1, 2, 2, 2)),
    ("Upsample", (), (1, 2, 3, 3)), ("UpsamplingNearest2d", (), (1, 2, 3, 3)),
    ("UpsamplingBilinear2d", (), (1, 2, 3, 3)), ("PixelShuffle", (2,), (1, 8, 2, 3)),
    ("PixelUnshuffle", (2,), (1, 2, 4, 6)), ("LocalResponseNorm", (3,), (2, 5, 3, 3)),
    ("LocalResponseNorm", (2, 1e-2, 0.5, 2.0), (2, 4, 3)),
], ids=lambda v: str(v))
def test_shape_modules_match_torch(name, args, shape):
    kwargs = {"scale_factor": 2} if name.startswith("Upsampl") else {}
    m, tm = both(name, *args, **kwargs)
    check_parity(m, tm, randn(*shape))


@needs_torch
def test_upsample_modes_and_size():
    for kwargs in ({"size": (5, 4), "mode": "bilinear"}, {"scale_factor": (2, 1), "mode": "nearest"},
                   {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True}):
        m, tm = both("Upsample", **kwargs)
        check_parity(m, tm, randn(1, 2, 3, 3))


@needs_torch
@pytest.mark.parametrize("name,kwargs", [("CosineSimilarity", {}), ("CosineSimilarity", {"dim": 0, "eps": 0.5}),
                                         ("PairwiseDistance", {}), ("PairwiseDistance", {"p": 1.0, "keepdim": True})],
                         ids=str)
def test_distance_modules_match_torch(name, kwargs):
    m, tm = both(name, **kwargs)
    check_parity(m, tm, randn(4, 3), randn(4, 3))


@needs_torch
@pytest.mark.parametrize("name,kwargs", [
    ("TripletMarginLoss", {}), ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True, "reduction": "none"}),
    ("TripletMarginWithDistanceLoss", {}), ("TripletMarginWithDistanceLoss", {"swap": True, "reduction": "sum"}),
], ids=str)
def test_triplet_losses_match_torch(name, kwargs):
    m, tm = both(name, **kwargs)
    check_parity(m, tm, randn(4, 3), randn(4, 3), randn(4, 3))


@needs_torch
def test_triplet_loss_with_custom_distance():
    def build(lib):
        return lib.nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1.0 - lib.nn.functional.cosine_similarity(a, b), margin=0.3)
    check_parity(build(ndgrad), build(torch), randn(4, 3), randn(4, 3), randn(4, 3))


@needs_torch
def test_nll_loss_2d_is_nll_loss():
    m, tm = both("NLLLoss2d")
    x, t = randn(2, 3, 2, 2), np.array([[[0, 1], [2, 0]], [[1, 1], [0, 2]]])
    close(m(ndgrad.tensor(x), ndgrad.tensor(t)), tm(torch.tensor(x), torch.tensor(t)))


@needs_torch
@pytest.mark.skipif(not hasattr(F, "bilinear"), reason="F.bilinear is not in ndgrad yet")
def test_bilinear_matches_torch():
    m, tm = both("Bilinear", 3, 2, 4)
    check_parity(m, tm, randn(5, 3), randn(5, 2))
    bound = 1 / 3 ** 0.5
    assert m.weight.abs().max().item() <= bound and m.bias.abs().max().item() <= bound


@needs_torch
@pytest.mark.skipif(not hasattr(F, "embedding_bag"), reason="F.embedding_bag is not in ndgrad yet")
@pytest.mark.parametrize("mode", ["mean", "sum", "max"])
def test_embedding_bag_matches_torch(mode):
    m, tm = both("EmbeddingBag", 6, 3, mode=mode)
    to_torch(m, tm)
    idx, offsets = np.array([0, 2, 1, 5, 4]), np.array([0, 2])
    y = m(ndgrad.tensor(idx), ndgrad.tensor(offsets))
    ty = tm(torch.tensor(idx), torch.tensor(offsets))
    close(y, ty)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    close(m.weight.grad, tm.weight.grad)


def test_parameter_list_and_dict_register_parameters():
    params = nn.ParameterList([nn.Parameter(ndgrad.zeros(2)), ndgrad.ones(3)])
    params.append(ndgrad.zeros(1))
    assert len(params) == 3 and isinstance(params[1], nn.Parameter)
    assert [n for n, _ in params.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"a": ndgrad.zeros(2)})
    pd["b"] = nn.Parameter(ndgrad.ones(1))
    assert list(pd.keys()) == ["a", "b"] and isinstance(pd["a"], nn.Parameter)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = params
    assert list(Model().state_dict()) == ["ps.0", "ps.1", "ps.2"]


@needs_torch
def test_parameter_containers_repr_like_torch():
    ours = nn.ParameterList([nn.Parameter(ndgrad.zeros(2, 3)), nn.Parameter(ndgrad.zeros(1, dtype=ndgrad.float64))])
    theirs = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3)),
                                     torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))])
    assert repr(ours) == repr(theirs)
    ours = nn.ParameterDict({"a": ndgrad.zeros(2, 3), "b": ndgrad.zeros(1, dtype=ndgrad.float64)})
    theirs = torch.nn.ParameterDict({"a": torch.zeros(2, 3), "b": torch.zeros(1, dtype=torch.float64)})
    assert repr(ours) == repr(theirs)


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum", "blank": 2}, {"reduction": "none", "zero_infinity": True}],
                         ids=str)
def test_ctc_loss_matches_torch(kwargs):
    m, tm = both("CTCLoss", **kwargs)
    logits = randn(6, 2, 4).astype(np.float64)
    targets = np.array([[1, 3, 1], [3, 1, 0]]) if kwargs.get("blank") != 2 else np.array([[1, 3, 1], [3, 0, 0]])
    results = []
    for lib, mod in ((ndgrad, m), (torch, tm)):
        x = lib.tensor(logits, requires_grad=True)
        loss = mod(x.log_softmax(2), lib.tensor(targets), lib.tensor([6, 5]), lib.tensor([3, 2]))
        loss.sum().backward()
        results.append((loss, x.grad))
    close(results[0][0], results[1][0], 1e-9)
    close(results[0][1], results[1][1], 1e-9)


# ---- full backward hooks ------------------------------------------------------------------------
def record_hooks(lib, module, calls):
    module.register_full_backward_pre_hook(lambda m, go: calls.append(("pre", [tuple(g.shape) for g in go])))
    module.register_full_backward_hook(lambda m, gi, go: calls.append(
        ("full", [None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))


@needs_torch
def test_full_backward_hooks_see_torch_gradients():
    for lib in (ndgrad, torch):
        calls = []
        m = lib.nn.Linear(3, 2)
        record_hooks(lib, m, calls)
        y = m(lib.ones(4, 3, requires_grad=True))
        assert type(y.grad_fn).__name__ == "BackwardHookFunctionBackward"
        assert type(y.grad_fn.next_functions[0][0]).__name__ == "AddmmBackward0"
        y.sum().backward()
        assert calls == [("pre", [(4, 2)]), ("full", [(4, 3)], [(4, 2)])]


def test_full_backward_hook_without_input_grad_warns_and_gets_none():
    calls = []
    m = nn.Linear(3, 2)
    record_hooks(ndgrad, m, calls)
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        m(ndgrad.ones(4, 3)).sum().backward()
    assert calls == [("pre", [(4, 2)]), ("full", [None], [(4, 2)])]


def test_backward_hooks_can_replace_gradients():
    m = nn.Linear(3, 2)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
    x = ndgrad.ones(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert m.weight.grad.sum().item() == pytest.approx(48.0)
    handle = m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,))
    x = ndgrad.ones(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert x.grad.abs().sum().item() == 0
    handle.remove()
    x = ndgrad.ones(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert x.grad.abs().sum().item() > 0


def test_backward_hook_on_container_sees_module_boundary():
    seen = []
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model.register_full_backward_hook(lambda m, gi, go: seen.append((tuple(gi[0].shape), tuple(go[0].shape))))
    model(ndgrad.ones(5, 3, requires_grad=True)).sum().backward()
    assert seen == [((5, 3), (5, 2))]


# ---- lazy modules -------------------------------------------------------------------------------
LAZY = [("LazyLinear", (3,), (2, 5)), ("LazyConv1d", (4, 3, 2, 1), (2, 6, 7)), ("LazyConv2d", (4, 3), (1, 2, 5, 5)),
        ("LazyConv3d", (2, 2), (1, 1, 3, 3, 3)), ("LazyConvTranspose1d", (4, 3), (2, 2, 5)),
        ("LazyConvTranspose2d", (2, 3, 2, 1, 1), (1, 2, 3, 3)), ("LazyConvTranspose3d", (2, 2), (1, 1, 2, 2, 2)),
        ("LazyBatchNorm1d", (), (4, 3)), ("LazyBatchNorm2d", (), (2, 3, 2, 2)),
        ("LazyBatchNorm3d", (), (2, 2, 2, 2, 2)),
        ("LazyInstanceNorm1d", (), (2, 3, 4)), ("LazyInstanceNorm2d", (), (2, 3, 4, 4)),
        ("LazyInstanceNorm3d", (), (2, 2, 2, 2, 3))]


@needs_torch
@pytest.mark.parametrize("name,args,shape", LAZY, ids=[e[0] for e in LAZY])
def test_lazy_module_initialises_on_first_call_like_torch(name, args, shape):
    m, tm = both(name, *args)
    assert isinstance(m.weight, nn.UninitializedParameter)
    x = randn(*shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm(torch.tensor(x))
    m(ndgrad.tensor(x))
    assert type(m).__name__ == type(tm).__name__ == name[4:]
    assert repr(m) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in m.state_dict().items()] == \
        [(n, tuple(p.shape)) for n, p in tm.state_dict().items()]
    check_parity(m, tm, x)


def test_lazy_module_takes_shapes_from_a_checkpoint():
    m = nn.LazyLinear(3)
    m.load_state_dict(nn.Linear(4, 3).state_dict())
    assert tuple(m.weight.shape) == (3, 4) and type(m).__name__ == "LazyLinear"
    m(ndgrad.ones(2, 4))
    assert type(m) is nn.Linear


@needs_torch
def test_adaptive_log_softmax_matches_torch():
    m, tm = both("AdaptiveLogSoftmaxWithLoss", 8, 20, [4, 10], div_value=2.0, head_bias=True)
    m, tm = m.double(), tm.double()
    to_torch(m, tm)
    x, target = randn(6, 8, dtype=np.float64), np.array([0, 5, 12, 19, 3, 9])
    results = []
    for lib, mod in ((ndgrad, m), (torch, tm)):
        xs = lib.tensor(x, requires_grad=True)
        out = mod(xs, lib.tensor(target))
        (out.loss + out.output.sum() * 0.1).backward()
        results.append([out.output, out.loss, xs.grad, mod.log_prob(lib.tensor(x)), mod.predict(lib.tensor(x))]
                       + [p.grad for p in mod.parameters()])
    for a, b in zip(*results):
        close(a, b, 1e-10)
    with pytest.raises(RuntimeError, match="Target values should be in"):
        m(ndgrad.tensor(x), ndgrad.tensor([0, 1, 2, 3, 4, 20]))
