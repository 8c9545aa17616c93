"""Every op of the registry (tests/op_db) through the same checks:
gradcheck, gradgradcheck, grad_fn name, and — when torch is installed — forward values,
gradients and grad_fn names compared with torch on the same inputs."""
import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck
from op_db import all_ops

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

OPS = all_ops()
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def _tensors(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if hasattr(o, "grad_fn")]


def _diff_outputs(out):
    return [o for o in _tensors(out) if o.requires_grad]


def _grad_inputs(inputs):
    return [t for t in inputs if hasattr(t, "requires_grad") and t.requires_grad]


@pytest.mark.parametrize("info", [o for o in OPS if o.check_grad], ids=repr)
def test_gradcheck(info):
    inputs = info.make_inputs(ndgrad)
    assert gradcheck(lambda *xs: info.call(ndgrad, *xs), inputs)


@pytest.mark.parametrize("info", [o for o in OPS if o.check_grad and o.gradgrad], ids=repr)
def test_gradgradcheck(info):
    ndgrad.manual_seed(0)
    inputs = info.make_inputs(ndgrad)
    assert gradgradcheck(lambda *xs: info.call(ndgrad, *xs), inputs)


@pytest.mark.parametrize("info", [o for o in OPS if o.grad_fn], ids=repr)
def test_grad_fn_name(info):
    out = _first(info.call(ndgrad, *info.make_inputs(ndgrad)))
    assert out.grad_fn is not None and out.grad_fn.name() == info.grad_fn


@needs_torch
@pytest.mark.parametrize("info", [o for o in OPS if o.torch_parity], ids=repr)
def test_torch_parity(info):
    nd_in, th_in = info.make_inputs(ndgrad), info.make_inputs(torch)
    nd_out, th_out = info.call(ndgrad, *nd_in), info.call(torch, *th_in)
    nd_t, th_t = _tensors(nd_out), _tensors(th_out)
    assert len(nd_t) == len(th_t)
    for a, b in zip(nd_t, th_t):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=info.atol, rtol=info.rtol)
        assert (a.grad_fn and a.grad_fn.name()) == (b.grad_fn and b.grad_fn.name())
    # gradients for the same upstream gradient
    nd_d, th_d = _diff_outputs(nd_out), _diff_outputs(th_out)
    if not nd_d:
        return
    rng = np.random.default_rng(1)
    gos = [rng.standard_normal(tuple(o.shape)).astype(str(o.dtype).split(".")[1]) for o in th_d]
    nd_g = ndgrad.autograd.grad(nd_d, _grad_inputs(nd_in), [ndgrad.tensor(g) for g in gos], allow_unused=True)
    th_g = torch.autograd.grad(th_d, _grad_inputs(th_in), [torch.tensor(g) for g in gos], allow_unused=True)
    for a, b in zip(nd_g, th_g):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=max(info.atol, 1e-7), rtol=max(info.rtol, 1e-6))
