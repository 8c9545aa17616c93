"""Registry entries for torch.special's functions, dist / renorm, segment_reduce, the gamma
sampler and fake quantization (see op_db/__init__.py for the format)."""
from . import I, OpInfo, S

POS = dict(low=0.2, high=2.0)
UNIT = dict(low=0.05, high=0.95)

SPECIAL = [
    OpInfo("i0", lambda T, x: T.i0(x), [S(2, 3, low=-2, high=2)], grad_fn="I0Backward0"),
    OpInfo("i0_method", lambda T, x: x.i0(), [S(3)], grad_fn="I0Backward0"),
    OpInfo("i0_inplace", lambda T, x: x.clone().i0_(), [S(3)], grad_fn="I0Backward0"),
    OpInfo("special_i0", lambda T, x: T.special.i0(x), [S(3)], grad_fn="I0Backward0"),
    OpInfo("special_i0e", lambda T, x: T.special.i0e(x), [S(2, 3, low=-3, high=3)], grad_fn="SpecialI0EBackward0"),
    OpInfo("special_i1", lambda T, x: T.special.i1(x), [S(2, 3, low=-3, high=3)], grad_fn="SpecialI1Backward0"),
    OpInfo("special_i1_at_zero", lambda T, x: T.special.i1(x), [S(2, fill=[0.0, 0.5])],
           grad_fn="SpecialI1Backward0"),
    OpInfo("special_i1e", lambda T, x: T.special.i1e(x), [S(2, 3, low=-3, high=3)], grad_fn="SpecialI1EBackward0"),
    OpInfo("special_i1e_at_zero", lambda T, x: T.special.i1e(x), [S(2, fill=[0.0, -0.5])],
           grad_fn="SpecialI1EBackward0"),
    OpInfo("special_erfcx", lambda T, x: T.special.erfcx(x), [S(2, 3, low=-2, high=2)],
           grad_fn="SpecialErfcxBackward0"),
    OpInfo("special_entr", lambda T, x: T.special.entr(x), [S(2, 3, **POS)], grad_fn="SpecialEntrBackward0"),
    OpInfo("special_ndtri", lambda T, x: T.special.ndtri(x), [S(2, 3, **UNIT)], grad_fn="SpecialNdtriBackward0"),
    OpInfo("special_log_ndtr", lambda T, x: T.special.log_ndtr(x), [S(2, 3, low=-3, high=3)],
           grad_fn="SpecialLogNdtrBackward0"),
    OpInfo("special_xlog1py", lambda T, x, y: T.special.xlog1py(x, y), [S(2, 3), S(3, **POS)],
           grad_fn="SpecialXlog1PyBackward0"),
    OpInfo("special_xlog1py_zero_self", lambda T, x, y: T.special.xlog1py(x * 0, y), [S(3), S(3, low=-1, high=-1)],
           grad_fn="SpecialXlog1PyBackward0", check_grad=False),
    OpInfo("special_xlog1py_scalar_self", lambda T, y: T.special.xlog1py(2.5, y), [S(3, **POS)],
           grad_fn="SpecialXlog1PyBackward1"),
    OpInfo("special_xlog1py_scalar_other", lambda T, x: T.special.xlog1py(x, 1.5), [S(3)],
           grad_fn="SpecialXlog1PyBackward2"),
    OpInfo("special_zeta", lambda T, q, x: T.special.zeta(x, q), [S(2, 3, low=0.5, high=3), S(3, fill=[2.0, 3.5, 5.0],
                                                                                               requires_grad=False)],
           grad_fn="SpecialZetaBackward0"),
    OpInfo("special_xlog1py_scalar_keeps_float32", lambda T, y: T.special.xlog1py(2, y), [S(3, dtype="float32")],
           grad_fn="SpecialXlog1PyBackward1", check_grad=False, atol=1e-6, rtol=1e-6),
    OpInfo("special_zeta_scalar_self", lambda T, q: T.special.zeta(3.0, q), [S(3, low=0.5, high=3)],
           grad_fn="SpecialZetaBackward1"),
    OpInfo("special_xlogy", lambda T, x, y: T.special.xlogy(x, y), [S(3), S(3, **POS)], grad_fn="XlogyBackward0"),
    OpInfo("special_expit", lambda T, x: T.special.expit(x), [S(3)], grad_fn="SigmoidBackward0"),
    OpInfo("special_gammaln", lambda T, x: T.special.gammaln(x), [S(3, **POS)], grad_fn="LgammaBackward0"),
    OpInfo("special_psi", lambda T, x: T.special.psi(x), [S(3, **POS)], grad_fn="DigammaBackward0"),
    OpInfo("special_gammainc", lambda T, x: T.special.gammainc(T.tensor([1.0, 2.0, 3.0], dtype=T.float64), x),
           [S(3, **POS)], grad_fn="IgammaBackward0"),
    OpInfo("special_multigammaln", lambda T, x: T.special.multigammaln(x, 2), [S(3, low=1.5, high=3)],
           grad_fn="MvlgammaBackward0"),
    OpInfo("special_polygamma", lambda T, x: T.special.polygamma(1, x), [S(3, **POS)], grad_fn="PolygammaBackward0"),
    OpInfo("special_logsumexp", lambda T, x: T.special.logsumexp(x, 1), [S(2, 3)], grad_fn="LogsumexpBackward0"),
    OpInfo("special_softmax", lambda T, x: T.special.softmax(x, 0), [S(2, 3)], grad_fn="SoftmaxBackward0"),
    OpInfo("special_log_softmax", lambda T, x: T.special.log_softmax(x, 1), [S(2, 3)],
           grad_fn="LogSoftmaxBackward0"),
    OpInfo("special_round", lambda T, x: T.special.round(x * 10), [S(3)], grad_fn="RoundBackward1"),
    OpInfo("special_ndtr", lambda T, x: T.special.ndtr(x), [S(2, 3, low=-2, high=2)], torch_parity=False),
]

# Bessel functions and orthogonal polynomials have no derivative in torch: values only
BESSEL = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
NO_GRAD = [OpInfo(f"special_{n}", lambda T, x, n=n: getattr(T.special, n)(x), [S(2, 3, low=0.1, high=4)],
                  check_grad=False) for n in BESSEL] + [
    OpInfo(f"special_{n}", lambda T, x, k, n=n: getattr(T.special, n)(x, k),
           [S(2, 4, low=-1.5, high=1.5), I(4, values=[0, 1, 5, -1])],
           check_grad=False, rtol=1e-6) for n in POLYNOMIALS] + [
    OpInfo("special_chebyshev_polynomial_t_scalar_degree", lambda T, x: T.special.chebyshev_polynomial_t(x, 3),
           [S(3, dtype="float32")], check_grad=False, atol=1e-6, rtol=1e-5),
]

NORMS = [
    OpInfo("dist", lambda T, x, y: T.dist(x, y), [S(2, 3), S(2, 3)], grad_fn="DistBackward0"),
    OpInfo("dist_broadcast_p3", lambda T, x, y: T.dist(x, y, 3), [S(2, 3), S(3)], grad_fn="DistBackward0"),
    OpInfo("dist_p1_method", lambda T, x, y: x.dist(y, 1), [S(4), S(4)], grad_fn="DistBackward0"),
    OpInfo("dist_inf", lambda T, x, y: T.dist(x, y, float("inf")), [S(4), S(4)], grad_fn="DistBackward0"),
    OpInfo("dist_p1_5", lambda T, x, y: T.dist(x, y, 1.5), [S(2, 2), S(2, 2)], grad_fn="DistBackward0"),
    OpInfo("renorm", lambda T, x: T.renorm(x, 2, 0, 0.8), [S(3, 4)], grad_fn="RenormBackward0"),
    OpInfo("renorm_dim1_p1", lambda T, x: x.renorm(1, 1, 1.0), [S(2, 3, 2)], grad_fn="RenormBackward0"),
    OpInfo("renorm_inplace", lambda T, x: x.clone().renorm_(3, -1, 0.5), [S(2, 3)], grad_fn="RenormBackward0"),
    OpInfo("renorm_call", lambda T, x: T.renorm(x.view(3, 1), 2, 0, 0.4), [S(3)], grad_fn="RenormBackward0"),
]


def _segment(reduce, **kw):
    """Segments of lengths 2, 3, 1; with `initial`, also an empty one (whose value is initial)."""
    lengths = [2, 0, 3, 1] if "initial" in kw else [2, 3, 1]
    return lambda T, x: T.segment_reduce(x, reduce, lengths=T.tensor(lengths), **kw)


# torch has no double backward for segment_reduce (gradgrad=False); max / min data have no ties
SEGMENTS = [OpInfo(f"segment_reduce_{r}", _segment(r), [S(6)], grad_fn="SegmentReduceBackward0", gradgrad=False)
            for r in ("sum", "mean", "prod", "max", "amin")] + [
    OpInfo(f"segment_reduce_{r}_initial", _segment(r, initial=0.5), [S(6, 2)], grad_fn="SegmentReduceBackward0",
           gradgrad=False) for r in ("sum", "mean", "prod", "amax", "min")] + [
    OpInfo("segment_reduce_offsets_axis1",
           lambda T, x: T.segment_reduce(x, "mean", offsets=T.tensor([[0, 1, 4], [0, 3, 4]]), axis=1),
           [S(2, 4, 2)], grad_fn="SegmentReduceBackward0", gradgrad=False),
    OpInfo("segment_reduce_prod_zeros", lambda T, x: T.segment_reduce(x * T.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0],
                                                                                    dtype=T.float64),
                                                                       "prod", lengths=T.tensor([3, 2, 1])),
           [S(6)], grad_fn="SegmentReduceBackward0", gradgrad=False),
    OpInfo("segment_reduce_max_ties", lambda T, x: T.segment_reduce(x.repeat(2), "max", lengths=T.tensor([4, 2])),
           [S(3)], grad_fn="SegmentReduceBackward0", gradgrad=False, check_grad=False),
]


def _seeded(sample):
    """The sampler with the generator reseeded first, so that ndgrad and torch draw the same samples
    (torch's rejection sampler). A sample is not the smooth function of the parameters whose derivative
    the implicit reparameterization gradient is, so no gradcheck (torch fails it too); that gradient is
    checked against torch's (to 1e-4: ndgrad's formula is a central difference of the incomplete gamma)."""
    def call(T, *params):
        T.manual_seed(0)
        return sample(T, *params)
    return call


GAMMA = [
    OpInfo("standard_gamma", _seeded(lambda T, a: T._standard_gamma(a)), [S(2, 3, low=0.3, high=4)],
           grad_fn="StandardGammaBackward0", gradgrad=False, check_grad=False, rtol=1e-4),
    OpInfo("gamma_rsample", _seeded(lambda T, a, r: T.distributions.Gamma(a, r).rsample((2,))),
           [S(3, low=0.5, high=3), S(3, low=0.5, high=2)], grad_fn="DivBackward0", gradgrad=False,
           check_grad=False, rtol=1e-4),
]


# Fake quantization's gradients are straight-through estimates, not derivatives of the (piecewise
# constant) forward: no gradcheck; values and gradients are compared with torch (float32, whose
# rounding the forwards reproduce). Random inputs land on rounding ties with probability ~0.
F32 = dict(dtype="float32")
QUANT = dict(check_grad=False, atol=1e-5, rtol=1e-5)


def _fused(observer_on, symmetric=False, running=(float("inf"), float("-inf"))):
    def call(T, x):
        state = [T.tensor([running[0]]), T.tensor([running[1]]), T.tensor([1.0]), T.tensor([0], dtype=T.int32)]
        out = T.fused_moving_avg_obs_fake_quant(x, T.tensor([observer_on]), T.tensor([1]), *state, 0.01, -128, 127, 0,
                                                False, symmetric)
        return (out,) + tuple(state)    # the observer's state is compared with torch's too
    return call


def _fused_per_row(T, x):
    """Observer state and quantization per row (dim 0), updated twice."""
    state = [T.full((3,), float("inf")), T.full((3,), float("-inf")), T.ones(3), T.zeros(3, dtype=T.int32)]
    on = T.tensor([1])
    T.fused_moving_avg_obs_fake_quant(x.detach() * 2, on, on, *state, 0.1, 0, 255, 0, True, False)
    return (T.fused_moving_avg_obs_fake_quant(x, on, on, *state, 0.1, 0, 255, 0, True, False),) + tuple(state)


FAKE_QUANT = [
    OpInfo("fake_quantize_per_tensor_affine", lambda T, x: T.fake_quantize_per_tensor_affine(x, 0.1, 3, -10, 20),
           [S(2, 5, low=-2, high=3, **F32)], grad_fn="FakeQuantizePerTensorAffineCachemaskBackward0", **QUANT),
    OpInfo("fake_quantize_per_tensor_affine_float64",
           lambda T, x: T.fake_quantize_per_tensor_affine(x, 0.05, -2, -128, 127), [S(6, low=-9, high=9)],
           grad_fn="FakeQuantizePerTensorAffineCachemaskBackward0", **QUANT),
    OpInfo("fake_quantize_per_tensor_affine_tensor_qparams",
           lambda T, x: T.fake_quantize_per_tensor_affine(x, T.tensor(0.2), T.tensor(1, dtype=T.int32), 0, 15),
           [S(2, 4, low=-1, high=4, **F32)], grad_fn="FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0",
           **QUANT),
    OpInfo("fake_quantize_per_channel_affine",
           lambda T, x: T.fake_quantize_per_channel_affine(x, T.tensor([0.1, 0.3, 0.05]),
                                                           T.tensor([0, 2, -1], dtype=T.int32), 1, -8, 8),
           [S(2, 3, 2, low=-2, high=2, **F32)], grad_fn="FakeQuantizePerChannelAffineCachemaskBackward0", **QUANT),
    OpInfo("fake_quantize_per_channel_affine_float_zero_point",
           lambda T, x: T.fake_quantize_per_channel_affine(x, T.tensor([0.1, 0.2]), T.tensor([0.5, -1.5]), 0, -8, 8),
           [S(2, 3, low=-2, high=2, **F32)], grad_fn="FakeQuantizePerChannelAffineCachemaskBackward0", **QUANT),
    OpInfo("fake_quantize_learnable_per_tensor",
           lambda T, x, s, z: T._fake_quantize_learnable_per_tensor_affine(x, s, z, -10, 20),
           [S(7, low=-2, high=3, **F32), S(1, fill=[0.1], **F32), S(1, fill=[2.7], **F32)],
           grad_fn="FakeQuantizeLearnablePerTensorAffineBackward0", **QUANT),
    OpInfo("fake_quantize_learnable_per_tensor_grad_factor",
           lambda T, x, s, z: T._fake_quantize_learnable_per_tensor_affine(x, s, z, 0, 255, 0.5),
           [S(2, 3, low=-1, high=20, **F32), S(1, fill=[0.07], **F32), S(1, fill=[-1.6], **F32)],
           grad_fn="FakeQuantizeLearnablePerTensorAffineBackward0", **QUANT),
    OpInfo("fake_quantize_learnable_per_channel",
           lambda T, x, s, z: T._fake_quantize_learnable_per_channel_affine(x, s, z, 0, -8, 8),
           [S(2, 5, low=-2, high=2, **F32), S(2, fill=[0.1, 0.2], **F32), S(2, fill=[0.4, -1.6], **F32)],
           grad_fn="FakeQuantizeLearnablePerChannelAffineBackward0", **QUANT),
    OpInfo("fake_quantize_learnable_per_channel_axis1",
           lambda T, x, s, z: T._fake_quantize_learnable_per_channel_affine(x, s, z, 1, 0, 20, 0.3),
           [S(2, 3, low=-1, high=3, **F32), S(3, fill=[0.1, 0.2, 0.15], **F32), S(3, fill=[2.5, 3.0, 0.2], **F32)],
           grad_fn="FakeQuantizeLearnablePerChannelAffineBackward0", **QUANT),
    OpInfo("fused_moving_avg_obs_fake_quant_first_call", _fused(1), [S(6, low=-1, high=2, **F32)],
           grad_fn="FusedMovingAvgObsFqHelperBackward0", **QUANT),
    OpInfo("fused_moving_avg_obs_fake_quant_moving", _fused(1, running=(-1.0, 1.0)), [S(6, **F32)],
           grad_fn="FusedMovingAvgObsFqHelperBackward0", **QUANT),
    OpInfo("fused_moving_avg_obs_fake_quant_symmetric_observer_off", _fused(0, True, running=(-0.5, 0.8)),
           [S(6, low=-1, high=1, **F32)], grad_fn="FusedMovingAvgObsFqHelperBackward0", **QUANT),
    OpInfo("fused_moving_avg_obs_fake_quant_per_row", _fused_per_row, [S(3, 4, low=-1, high=2, **F32)],
           grad_fn="FusedMovingAvgObsFqHelperBackward0", **QUANT),
]

# the short-time Fourier transform (ops/fft.py): frames of the reflect-padded signal, windowed
# (a shorter window centred in the frame) and transformed; compared as real and imaginary parts
SPECTRAL = [
    OpInfo("stft_centered_onesided", lambda T, x: T.view_as_real(T.stft(x, 8, return_complex=True)), [S(20)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("stft_batched_short_window_twosided",
           lambda T, x, w: T.view_as_real(x.stft(8, hop_length=3, win_length=6, window=w, center=False,
                                                 normalized=True, onesided=False, return_complex=True)),
           [S(2, 17), S(6)], grad_fn="ViewAsRealBackward0"),
]

OPS = SPECIAL + NO_GRAD + NORMS + SEGMENTS + GAMMA + FAKE_QUANT + SPECTRAL
