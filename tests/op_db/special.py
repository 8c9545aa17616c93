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

OPS = SPECIAL + NORMS + SEGMENTS
