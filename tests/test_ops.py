"""Every op of the registry (tests/op_db) through the same checks:
gradcheck, gradgradcheck, grad_fn name, and — when torch is installed — forward values,
gradients and grad_fn names compared with torch on the same inputs."""
import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck
from op_db import all_ops
from op_db.forward_ad_support import SUPPORTED as FORWARD_AD_SUPPORT, TORCH_FAILED as FORWARD_AD_TORCH_FAILED

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


def _dense(out):
    """Sparse outputs through the differentiable .to_dense(), nested ones through .to_padded_tensor(0.0):
    values and gradients are checked dense."""
    if isinstance(out, (tuple, list)):
        return [_dense(o) for o in out]
    if getattr(out, "is_nested", False):
        return out.to_padded_tensor(0.0)
    return out.to_dense() if str(getattr(out, "layout", "torch.strided")) != "torch.strided" else out


@pytest.mark.parametrize("info", [o for o in OPS if o.check_grad], ids=repr)
def test_gradcheck(info):
    inputs = info.make_inputs(ndgrad)
    assert gradcheck(lambda *xs: _dense(info.call(ndgrad, *xs)), inputs)


@pytest.mark.parametrize("info", [o for o in OPS if o.check_grad and o.gradgrad], ids=repr)
def test_gradgradcheck(info):
    ndgrad.manual_seed(0)
    inputs = info.make_inputs(ndgrad)
    # fast mode (torch's random projections, as torch's OpInfo tests use): the full second-order
    # Jacobians of every op would dominate the suite's time
    assert gradgradcheck(lambda *xs: _dense(info.call(ndgrad, *xs)), inputs, fast_mode=True)


@pytest.mark.parametrize("info", [o for o in OPS if o.grad_fn], ids=repr)
def test_grad_fn_name(info):
    out = _first(info.call(ndgrad, *info.make_inputs(ndgrad)))
    assert out.grad_fn is not None and out.grad_fn.name() == info.grad_fn


# The metadata a node saves is exposed under torch's names (_saved_self_sym_sizes, _saved_bias_sym_sizes_opt,
# _saved_self_sym_argsize_minus_1, ...), which the derivatives loader derives from what the formulas read:
# they agree with torch's where the formulas read the same. The nodes whose formula reads other metadata:
_MM_LAYOUT = "torch's matrix-product formulas read the factors' sizes and strides (to choose a layout); ndgrad's do not"
_TYPE_AND_SIZE = "torch keeps the argument's type and size (TypeAndSize, not exposed); ndgrad's formula reads its sizes"
_SPLIT = ("torch's formula makes the absent gradients' zeros from self's sizes; ndgrad's engine fills them from the "
          "outputs' recorded metadata")
_READS_SIZES = "ndgrad's formula reads self's sizes, which torch's takes from elsewhere (a saved tensor, the gradient)"
_BLOCKSIZE = "torch saves the blocksize (_saved_self_self_sym_blocksize_opt); ndgrad's formula does not read it"
SAVED_METADATA_DIFFERS = {
    "AddmmBackward0": _MM_LAYOUT, "MmBackward0": _MM_LAYOUT, "SparseAddmmBackward0": _MM_LAYOUT,
    "AsStridedBackward0": "torch saves self's TensorGeometry, which it does not expose",
    "AsStridedBackward1": "torch saves self's TensorGeometry, which it does not expose",
    "DiagonalScatterBackward0": _TYPE_AND_SIZE, "SelectScatterBackward0": _TYPE_AND_SIZE,
    "SliceScatterBackward0": _TYPE_AND_SIZE, "MaskedScatterBackwardBackward0": _TYPE_AND_SIZE,
    "IndexAddBackward0": "torch's source formula reads source.dim() (for a 0-d source); ndgrad's does not",
    "IndexCopyBackward0": "torch's source formula reads source.dim() (for a 0-d source); ndgrad's does not",
    "LinalgSvdBackward0": "torch's formula reads S's last size; ndgrad's does not",
    "LuUnpackBackward0": "torch's formula reads LU_data's last two sizes; ndgrad's reads it whole",
    "MeanBackward1": "torch's formula reads self.sym_numel() besides its sizes",
    "SplitBackward0": _SPLIT, "SplitWithSizesBackward0": _SPLIT, "UnsafeSplitBackward0": _SPLIT,
    "UnsafeSplitWithSizesBackward0": _SPLIT,
    **dict.fromkeys(["MaskedSelectBackward0", "NansumBackward0", "StdMeanBackward0", "VarMeanBackward0",
                     "TakeBackward0", "PutBackward0", "MseLossBackwardBackward0", "NestedFromPaddedBackward0"],
                    _READS_SIZES),
    **dict.fromkeys(["ToSparseBackward0", "ToSparseBackward1", "ToSparseBscBackward0", "ToSparseBsrBackward0",
                     "ToSparseCscBackward0", "ToSparseCsrBackward0"], _BLOCKSIZE),
}


def _saved_metadata(fn):
    return sorted(n for n in dir(fn) if n.startswith("_saved_") and "_sym_" in n)


# nodes whose dims ndgrad's op receives normalized (non-negative), where torch keeps them as the caller gave them
# (its negative dims read as unsigned): the same positions, another spelling
SAVED_DIMS_NORMALIZED = {"PermuteBackward0", "FlipBackward0", "RollBackward0", "Rot90Backward0",
                         "MeanBackward1"}   # (mean: adaptive_avg_pool2d to 1x1, whose dims torch gives as -1, -2)


def _int_lists(nd_fn, th_fn):
    """{name: (ndgrad's value, torch's)} of the saved attributes both nodes expose where torch reads a tuple of
    ints (an int[N] argument: one int given for it reads as N of them). torch shows a negative int as
    unsigned (its -1 reads 2**64 - 1): ndgrad's value is compared in that form."""
    out = {}
    for n in dir(th_fn):
        if n.startswith("_saved_") and "_sym_" not in n and hasattr(nd_fn, n):   # (arguments, not metadata)
            theirs = getattr(th_fn, n)
            if type(theirs) is tuple and theirs and all(type(v) is int for v in theirs):
                ours = getattr(nd_fn, n)
                out[n] = (tuple(v % 2 ** 64 for v in ours) if type(ours) is tuple else ours, theirs)
    return out


@needs_torch
@pytest.mark.parametrize("info", [o for o in OPS if o.torch_parity], ids=repr)
def test_torch_parity(info):
    nd_in, th_in = info.make_inputs(ndgrad), info.make_inputs(torch)
    nd_out, th_out = info.call(ndgrad, *nd_in), info.call(torch, *th_in)
    for a, b in zip(_tensors(nd_out), _tensors(th_out)):   # layout and node as returned; values compared dense
        assert str(a.layout) == str(b.layout) and (a.grad_fn and a.grad_fn.name()) == (b.grad_fn and b.grad_fn.name())
        if a.grad_fn is not None and a.grad_fn.name() not in SAVED_METADATA_DIFFERS:
            assert _saved_metadata(a.grad_fn) == _saved_metadata(b.grad_fn)
        if a.grad_fn is not None and b.grad_fn is not None:
            for name, (ours, theirs) in _int_lists(a.grad_fn, b.grad_fn).items():
                if a.grad_fn.name() in SAVED_DIMS_NORMALIZED:
                    assert type(ours) is tuple and len(ours) == len(theirs), (a.grad_fn.name(), name)
                else:
                    assert ours == theirs, (a.grad_fn.name(), name)
    nd_out, th_out = _dense(nd_out), _dense(th_out)
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
            # torch may hand back a lazily negated gradient (a complex op's `grad.imag` of a conj)
            np.testing.assert_allclose(a.numpy(), b.resolve_neg().numpy(), atol=max(info.atol, 1e-7),
                                       rtol=max(info.rtol, 1e-6))


# --- forward-mode AD: dual numbers against central finite differences ---------------------------
# Which samples support forward AD is torch's answer, recorded in op_db/forward_ad_support.py by
# tools/gen_forward_ad_support.py, never ndgrad's own derivatives.yaml: a deleted `result:` formula
# must fail here, not turn into an "expected to raise" pass.
# Samples where ndgrad deliberately differs from torch (support is the opposite of torch's), and why.
# All are ops torch 2.13 leaves without a forward formula (it raises "Trying to use forward AD with
# ... not been implemented yet") where ndgrad's yaml states one; the tangent is still checked below.
_NO_TORCH_FORMULA = "torch 2.13 has no forward formula; ndgrad's derives from the op's backward formula"
FORWARD_AD_DIFFERS = {
    **dict.fromkeys(["asinh_inplace", "acosh_inplace", "atanh_inplace", "arcsinh_inplace", "arccosh_inplace",
                     "arctanh_inplace"], "torch 2.13 lacks the in-place variants' formula (out-of-place has one)"),
    **dict.fromkeys(["index_reduce_prod", "index_reduce_prod_exclude_self", "index_reduce_mean",
                     "index_reduce_mean_exclude_self", "index_reduce_amax", "index_reduce_amax_exclude_self",
                     "index_reduce_amin", "index_reduce_amin_exclude_self",
                     "index_reduce_amax_exclude_self_equal_to_result"], _NO_TORCH_FORMULA),
    **dict.fromkeys(["cholesky", "cholesky_upper_method"],
                    "deprecated torch.cholesky has no formula in torch; ndgrad shares linalg.cholesky's"),
    **dict.fromkeys(["ormqr", "ormqr_transpose", "ormqr_wide", "ormqr_right", "ormqr_right_transpose",
                     "special_zeta", "special_zeta_scalar_self", "multi_margin_loss",
                     "multi_margin_loss_p2_weight_none", "multi_margin_loss_1d", "multilabel_margin_loss",
                     "multilabel_margin_loss_none", "_foreach_pow_scalar_and_tensor"], _NO_TORCH_FORMULA),
    **dict.fromkeys(["_masked_softmax", "_masked_softmax_dim0", "_masked_softmax_key_padding",
                     "_masked_softmax_src_mask"], _NO_TORCH_FORMULA),
    **dict.fromkeys(["conv_tbc", "thnn_conv2d", "slow_conv3d", "slow_conv_dilated2d", "slow_conv_dilated3d",
                     "slow_conv_transpose2d", "slow_conv_transpose3d"],
                    "torch's slow/legacy conv kernels have none; ndgrad shares convolution's formula"),
    "sdpa_math_mask_requires_grad": "torch's CPU flash-attention kernel has none; ndgrad's math path does",
}
# Samples torch supports and ndgrad does not yet (xfail strict: fixing one makes it fail until removed):
FORWARD_AD_GAPS = {
}


def _float_outputs(out):
    return [o for o in _tensors(out) if o.dtype.is_floating_point or o.is_complex()]


def _forward_ad_expectation(info):
    """True: torch supports forward AD on this sample (unless ndgrad deliberately differs). Samples
    where torch has a formula but fails for a bug of its own (TORCH_FAILED) count as supported."""
    torch_has = info.name in FORWARD_AD_SUPPORT or info.name in FORWARD_AD_TORCH_FAILED
    return torch_has != (info.name in FORWARD_AD_DIFFERS)


def _forward_ad_param(info):
    if info.name in FORWARD_AD_GAPS:
        return pytest.param(info, marks=pytest.mark.xfail(reason=FORWARD_AD_GAPS[info.name], strict=True))
    return info


@pytest.mark.parametrize("info", [_forward_ad_param(o) for o in OPS if o.check_grad], ids=repr)
def test_forward_ad(info):
    """The tangent from dual numbers is the directional derivative (finite differences)."""
    fwAD = ndgrad.autograd.forward_ad
    inputs = info.make_inputs(ndgrad)
    rng = np.random.default_rng(2)
    diff = [i for i, t in enumerate(inputs) if hasattr(t, "requires_grad") and t.requires_grad]
    tangents = {i: ndgrad.tensor(rng.standard_normal(tuple(inputs[i].shape)).astype(inputs[i].numpy(force=True).dtype))
                for i in diff}
    expected = _forward_ad_expectation(info)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(t, tangents[i]) if i in tangents else t for i, t in enumerate(inputs)]
        ndgrad.manual_seed(0)
        try:
            out = info.call(ndgrad, *duals)
        except NotImplementedError as e:
            assert not expected, f"torch supports forward AD here, ndgrad raised: {e}"
            assert str(e).startswith("Trying to use forward AD with")
            return
        got = [fwAD.unpack_dual(o).tangent for o in _float_outputs(out)]
    assert expected, "forward AD worked where torch raises (list it in FORWARD_AD_DIFFERS with the reason)"

    def shifted(eps):
        with ndgrad.no_grad():
            xs = [t.detach() + eps * tangents[i] if i in tangents else t for i, t in enumerate(inputs)]
            ndgrad.manual_seed(0)
            return [o.numpy() for o in _float_outputs(info.call(ndgrad, *xs))]
    eps = 1e-6
    for g, plus, minus in zip(got, shifted(eps), shifted(-eps)):
        fd = (plus - minus) / (2 * eps)
        g = np.zeros_like(fd) if g is None else g.detach().numpy()
        np.testing.assert_allclose(g, fd, atol=1e-5, rtol=1e-4)


def test_forward_ad_exceptions_name_samples():
    """Every name in the forward-AD exception tables is a sample of the registry (no stale entries)."""
    names = {o.name for o in OPS if o.check_grad}
    assert set(FORWARD_AD_DIFFERS) - names == set()
    assert set(FORWARD_AD_GAPS) - names == set()
    assert set(FORWARD_AD_DIFFERS) & set(FORWARD_AD_GAPS) == set()
