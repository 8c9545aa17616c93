"""Registry entries for losses (nll, cross entropy, mse, bce, margin, CTC ...) (ndgrad/ops/loss.py; see op_db/__init__.py for the format)."""
from . import I, OpInfo, S


def F(T):
    return T.nn.functional


W = S(5, low=0.2, high=1.0, requires_grad=False)             # class weights


IGNORED = I(values=[1, -100, 4, 0])                           # a target with one ignored entry


PROBS = S(4, 5, low=0.0, high=1.0, requires_grad=False)       # class-probability targets


def _ctc(reduction="mean", zero_infinity=False, targets=((1, 2, 2), (1, 0, 0)), il=(5, 4), tl=(3, 1),
         tensor_lengths=False):
    def call(T, x):
        lengths = (T.tensor(il), T.tensor(tl)) if tensor_lengths else (list(il), list(tl))
        return F(T).ctc_loss(x.log_softmax(-1), T.tensor(targets), *lengths, reduction=reduction,
                             zero_infinity=zero_infinity)
    return call


PROB = S(5, low=0.05, high=0.95)


TARGET01 = S(5, low=0.0, high=1.0, requires_grad=False)


LOSSES = [
    OpInfo("nll_loss", lambda T, x, t: F(T).nll_loss(x, t), [S(4, 5), I(4, high=5)], grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_sum", lambda T, x, t: F(T).nll_loss(x, t, reduction="sum"), [S(4, 5), I(4, high=5)],
           grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_none", lambda T, x, t: F(T).nll_loss(x, t, reduction="none"), [S(4, 5), I(4, high=5)],
           grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_weight", lambda T, x, t, w: F(T).nll_loss(x, t, weight=w), [S(4, 5), I(4, high=5), W],
           grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_weight_none", lambda T, x, t, w: F(T).nll_loss(x, t, w, reduction="none"),
           [S(4, 5), I(4, high=5), W], grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_ignore_index", lambda T, x, t: F(T).nll_loss(x, t), [S(4, 5), IGNORED],
           grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_ignore_index_weight_none", lambda T, x, t, w: F(T).nll_loss(x, t, w, reduction="none"),
           [S(4, 5), IGNORED, W], grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_custom_ignore_index", lambda T, x, t: F(T).nll_loss(x, t, ignore_index=4, reduction="sum"),
           [S(4, 5), I(values=[1, 4, 4, 0])], grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_1d_input", lambda T, x, t: F(T).nll_loss(x, t), [S(5), I(values=3)], grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_legacy_size_average", lambda T, x, t: F(T).nll_loss(x, t, size_average=False),
           [S(4, 5), I(4, high=5)], grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_uint8_target", lambda T, x, t: F(T).nll_loss(x, t), [S(3, 5), I(3, high=5, dtype="uint8")],
           grad_fn="NllLossBackward0"),
    OpInfo("nll_loss_4d", lambda T, x, t: F(T).nll_loss(x, t), [S(2, 3, 2, 2), I(2, 2, 2, high=3)],
           grad_fn="NllLoss2DBackward0"),
    OpInfo("nll_loss_4d_weight_none", lambda T, x, t, w: F(T).nll_loss(x, t, w, reduction="none"),
           [S(2, 3, 2, 2), I(2, 2, 2, high=3), S(3, low=0.2, requires_grad=False)], grad_fn="NllLoss2DBackward0"),
    OpInfo("nll_loss_3d", lambda T, x, t: F(T).nll_loss(x, t), [S(2, 5, 3), I(2, 3, high=5)],
           grad_fn="NllLoss2DBackward0"),
    OpInfo("nll_loss_3d_none", lambda T, x, t: F(T).nll_loss(x, t, reduction="none"), [S(2, 5, 3), I(2, 3, high=5)],
           grad_fn="ViewBackward0"),
    OpInfo("nll_loss_5d_sum", lambda T, x, t: F(T).nll_loss(x, t, reduction="sum"),
           [S(2, 3, 2, 1, 2), I(2, 2, 1, 2, high=3)], grad_fn="NllLoss2DBackward0"),
    OpInfo("cross_entropy", lambda T, x, t: F(T).cross_entropy(x, t), [S(4, 5), I(4, high=5)],
           grad_fn="NllLossBackward0"),
    OpInfo("cross_entropy_none", lambda T, x, t: F(T).cross_entropy(x, t, reduction="none"), [S(4, 5), I(4, high=5)],
           grad_fn="NllLossBackward0"),
    OpInfo("cross_entropy_weight_ignore", lambda T, x, t, w: F(T).cross_entropy(x, t, w), [S(4, 5), IGNORED, W],
           grad_fn="NllLossBackward0"),
    OpInfo("linear_cross_entropy_bias", lambda T, x, w, b, t: F(T).linear_cross_entropy(x, w, t, linear_bias=b),
           [S(4, 3), S(5, 3), S(5), I(4, values=[0, 4, 2, -100])], grad_fn="NllLossBackward0"),
    # a weight (C, out, in_features): K-dimensional logits (N, C, out)
    OpInfo("linear_cross_entropy_k_dim_sum",
           lambda T, x, w, t: F(T).linear_cross_entropy(x, w, t, reduction="sum", label_smoothing=0.2),
           [S(4, 3), S(2, 3, 3), I(4, 3, high=2)], grad_fn="AddBackward0"),
    OpInfo("cross_entropy_1d", lambda T, x, t: F(T).cross_entropy(x, t), [S(5), I(values=2)],
           grad_fn="NllLossBackward0"),
    OpInfo("cross_entropy_4d", lambda T, x, t: F(T).cross_entropy(x, t), [S(2, 3, 2, 2), I(2, 2, 2, high=3)],
           grad_fn="NllLoss2DBackward0"),
    OpInfo("cross_entropy_3d_sum", lambda T, x, t: F(T).cross_entropy(x, t, reduction="sum"),
           [S(2, 5, 3), I(2, 3, high=5)], grad_fn="NllLoss2DBackward0"),
    OpInfo("cross_entropy_label_smoothing", lambda T, x, t: F(T).cross_entropy(x, t, label_smoothing=0.1),
           [S(4, 5), IGNORED], grad_fn="AddBackward0"),
    OpInfo("cross_entropy_label_smoothing_weight_sum",
           lambda T, x, t, w: F(T).cross_entropy(x, t, w, reduction="sum", label_smoothing=0.3),
           [S(4, 5), IGNORED, W], grad_fn="AddBackward0"),
    OpInfo("cross_entropy_label_smoothing_weight_mean",
           lambda T, x, t, w: F(T).cross_entropy(x, t, w, label_smoothing=0.2), [S(4, 5), IGNORED, W],
           grad_fn="AddBackward0"),
    OpInfo("cross_entropy_label_smoothing_none",
           lambda T, x, t: F(T).cross_entropy(x, t, reduction="none", label_smoothing=0.2),
           [S(2, 5, 3), I(2, 3, high=5)], grad_fn="AddBackward0"),
    OpInfo("cross_entropy_probs", lambda T, x, p: F(T).cross_entropy(x, p), [S(4, 5), PROBS],
           grad_fn="DivBackward1"),
    OpInfo("cross_entropy_probs_none", lambda T, x, p: F(T).cross_entropy(x, p, reduction="none"), [S(4, 5), PROBS],
           grad_fn="NegBackward0"),
    OpInfo("cross_entropy_probs_weight_smoothing_sum",
           lambda T, x, p, w: F(T).cross_entropy(x, p, w, reduction="sum", label_smoothing=0.1), [S(4, 5), PROBS, W],
           grad_fn="NegBackward0"),
    OpInfo("cross_entropy_probs_weight", lambda T, x, p, w: F(T).cross_entropy(x, p, w), [S(4, 5), PROBS, W],
           grad_fn="DivBackward1"),
    OpInfo("cross_entropy_probs_3d", lambda T, x, p: F(T).cross_entropy(x, p), [S(2, 3, 4), S(2, 3, 4, low=0.0)],
           grad_fn="DivBackward1"),
    OpInfo("cross_entropy_probs_target_grad", lambda T, x, p: F(T).cross_entropy(x, p, reduction="sum"),
           [S(3, 4), S(3, 4, low=0.0)], grad_fn="NegBackward0"),
    OpInfo("mse_loss", lambda T, x, y: F(T).mse_loss(x, y), [S(3, 4), S(3, 4, requires_grad=False)],
           grad_fn="MseLossBackward0"),
    OpInfo("mse_loss_target_grad", lambda T, x, y: F(T).mse_loss(x, y), [S(3, 4), S(3, 4)], grad_fn="MseLossBackward0"),
    OpInfo("mse_loss_sum", lambda T, x, y: F(T).mse_loss(x, y, reduction="sum"), [S(5), S(5)],
           grad_fn="MseLossBackward0"),
    OpInfo("mse_loss_none", lambda T, x, y: F(T).mse_loss(x, y, reduction="none"), [S(2, 3), S(2, 3)],
           grad_fn="MseLossBackward0"),
    OpInfo("mse_loss_broadcast_target", lambda T, x, y: F(T).mse_loss(x, y), [S(3, 4), S(4)],
           grad_fn="MseLossBackward0"),
    OpInfo("mse_loss_weight", lambda T, x, y, w: F(T).mse_loss(x, y, weight=w),
           [S(3, 4), S(3, 4), S(3, 4, low=0.1, requires_grad=False)], grad_fn="DivBackward0"),
    OpInfo("mse_loss_weight_none", lambda T, x, y, w: F(T).mse_loss(x, y, reduction="none", weight=w),
           [S(5), S(5), S(5)], grad_fn="MulBackward0"),
    OpInfo("mse_loss_legacy_reduce", lambda T, x, y: F(T).mse_loss(x, y, reduce=False), [S(2, 3), S(2, 3)],
           grad_fn="MseLossBackward0"),
    OpInfo("mse_loss_float32", lambda T, x, y: F(T).mse_loss(x, y),
           [S(2, 3, dtype="float32"), S(2, 3, dtype="float32")],
           grad_fn="MseLossBackward0", check_grad=False, atol=1e-6, rtol=1e-5),
]

MORE_LOSSES = [
    OpInfo("binary_cross_entropy", lambda T, x, t: F(T).binary_cross_entropy(x, t), [PROB, TARGET01],
           grad_fn="BinaryCrossEntropyBackward0"),
    OpInfo("binary_cross_entropy_weight_sum", lambda T, x, t, w: F(T).binary_cross_entropy(x, t, w, reduction="sum"),
           [PROB, TARGET01, S(5, low=0.5, requires_grad=False)], grad_fn="BinaryCrossEntropyBackward0"),
    OpInfo("binary_cross_entropy_none_target_grad", lambda T, x, t: F(T).binary_cross_entropy(x, t, reduction="none"),
           [PROB, S(5, low=0.0, high=1.0)], grad_fn="BinaryCrossEntropyBackward0"),
    OpInfo("bce_with_logits", lambda T, x, t: F(T).binary_cross_entropy_with_logits(x, t), [S(2, 3), S(2, 3, low=0.0)],
           grad_fn="BinaryCrossEntropyWithLogitsBackward0"),
    OpInfo("bce_with_logits_pos_weight", lambda T, x, t, pw, w: F(T).binary_cross_entropy_with_logits(
        x, t, w, pos_weight=pw, reduction="sum"), [S(2, 3), S(2, 3, low=0.0), S(3, low=0.5, high=2, requires_grad=False),
                                                   S(2, 3, low=0.5, requires_grad=False)],
        grad_fn="BinaryCrossEntropyWithLogitsBackward0"),
    OpInfo("smooth_l1_loss", lambda T, x, t: F(T).smooth_l1_loss(x, t), [S(6, low=-2, high=2), S(6)],
           grad_fn="SmoothL1LossBackward0"),
    OpInfo("smooth_l1_loss_beta_none", lambda T, x, t: F(T).smooth_l1_loss(x, t, reduction="none", beta=0.5),
           [S(2, 3, low=-2, high=2), S(2, 3)], grad_fn="SmoothL1LossBackward0"),
    OpInfo("smooth_l1_loss_beta0", lambda T, x, t: F(T).smooth_l1_loss(x, t, beta=0.0), [S(4), S(4)],
           grad_fn="MeanBackward0"),
    OpInfo("huber_loss", lambda T, x, t: F(T).huber_loss(x, t, delta=0.5), [S(6, low=-2, high=2), S(6)],
           grad_fn="HuberLossBackward0"),
    OpInfo("huber_loss_sum", lambda T, x, t: F(T).huber_loss(x, t, reduction="sum"), [S(2, 3, low=-2, high=2), S(3)],
           grad_fn="HuberLossBackward0"),
    OpInfo("l1_loss", lambda T, x, t: F(T).l1_loss(x, t), [S(2, 3), S(2, 3)], grad_fn="MeanBackward0"),
    OpInfo("soft_margin_loss", lambda T, x, t: F(T).soft_margin_loss(x, t), [S(4), I(values=[1., -1., -1., 1.],
           dtype="float64")], grad_fn="SoftMarginLossBackward0"),
    OpInfo("multi_margin_loss", lambda T, x, t: F(T).multi_margin_loss(x, t), [S(3, 4), I(3, high=4)],
           grad_fn="MultiMarginLossBackward0", gradgrad=False),
    OpInfo("multi_margin_loss_p2_weight_none", lambda T, x, t, w: F(T).multi_margin_loss(
        x, t, p=2, margin=0.5, weight=w, reduction="none"), [S(3, 4), I(3, high=4), S(4, low=0.5, requires_grad=False)],
        grad_fn="MultiMarginLossBackward0", gradgrad=False),
    OpInfo("multi_margin_loss_1d", lambda T, x, t: F(T).multi_margin_loss(x, t, reduction="sum"),
           [S(4), I(values=[2])], grad_fn="MultiMarginLossBackward0", gradgrad=False),
    OpInfo("multilabel_margin_loss", lambda T, x, t: F(T).multilabel_margin_loss(x, t),
           [S(2, 4), I(values=[[3, 0, -1, 1], [1, 2, 3, -1]])], grad_fn="MultilabelMarginLossBackward0",
           gradgrad=False),
    OpInfo("multilabel_margin_loss_none", lambda T, x, t: F(T).multilabel_margin_loss(x, t, reduction="none"),
           [S(2, 3), I(values=[[0, -1, 2], [2, 1, 0]])], grad_fn="MultilabelMarginLossBackward0", gradgrad=False),
    OpInfo("kl_div", lambda T, x, t: F(T).kl_div(x, t, reduction="batchmean"), [S(2, 3), S(2, 3, low=0.1)],
           grad_fn="DivBackward0"),
    OpInfo("kl_div_log_target", lambda T, x, t: F(T).kl_div(x, t, reduction="sum", log_target=True),
           [S(2, 3), S(2, 3)], grad_fn="SumBackward0"),
    OpInfo("poisson_nll_loss", lambda T, x, t: F(T).poisson_nll_loss(x, t), [S(5), S(5, low=0.0, high=3.0)],
           grad_fn="MeanBackward0"),
    OpInfo("poisson_nll_loss_full", lambda T, x, t: F(T).poisson_nll_loss(x, t, log_input=False, full=True),
           [S(5, low=0.5, high=2), S(5, low=0.0, high=3.0, requires_grad=False)], grad_fn="MeanBackward0"),
    OpInfo("gaussian_nll_loss", lambda T, x, t, v: F(T).gaussian_nll_loss(x, t, v), [S(2, 3), S(2, 3),
           S(2, 3, low=0.5, high=2)], grad_fn="MeanBackward0"),
    OpInfo("hinge_embedding_loss", lambda T, x, t: F(T).hinge_embedding_loss(x, t),
           [S(4), I(values=[1., -1., -1., 1.], dtype="float64")], grad_fn="MeanBackward0"),
    OpInfo("margin_ranking_loss", lambda T, a, b, t: F(T).margin_ranking_loss(a, b, t, margin=0.1),
           [S(4), S(4), I(values=[1., -1., -1., 1.], dtype="float64")], grad_fn="MeanBackward0"),
    OpInfo("cosine_embedding_loss", lambda T, a, b, t: F(T).cosine_embedding_loss(a, b, t),
           [S(2, 3), S(2, 3), I(values=[1., -1.], dtype="float64")], grad_fn="MeanBackward0"),
    OpInfo("multilabel_soft_margin_loss", lambda T, x, t: F(T).multilabel_soft_margin_loss(x, t),
           [S(2, 3), S(2, 3, low=0.0)], grad_fn="MeanBackward0"),
]

# torch's CTC gradient assumes log_probs come from log_softmax, so the samples differentiate the
# logits; torch has no double backward for it
CTC = [OpInfo(f"ctc_loss_{r}", _ctc(r), [S(5, 2, 3)], grad_fn={"mean": "MeanBackward0", "sum": "SumBackward0",
                                                                "none": "CtcLossBackward0"}[r], gradgrad=False,
              forward_ad=False)
       for r in ("mean", "sum", "none")] + [
    OpInfo("ctc_loss_tensor_lengths", _ctc(tensor_lengths=True), [S(5, 2, 3)], grad_fn="MeanBackward0", gradgrad=False,
           forward_ad=False),
    OpInfo("ctc_loss_concatenated_targets", _ctc("sum", targets=(1, 2, 2, 1)), [S(5, 2, 3)], grad_fn="SumBackward0",
           gradgrad=False, forward_ad=False),
    OpInfo("ctc_loss_blank_and_empty_target", _ctc("none", targets=((0, 0), (1, 1)), tl=(0, 2)), [S(5, 2, 3)],
           grad_fn="CtcLossBackward0", gradgrad=False),
    OpInfo("ctc_loss_zero_infinity", _ctc("none", zero_infinity=True, targets=((1, 1, 1), (2, 0, 0)), il=(3, 4)),
           [S(5, 2, 3)], grad_fn="WhereBackward0", gradgrad=False, forward_ad=False),
    OpInfo("ctc_loss_unbatched", lambda T, x: F(T).ctc_loss(x.log_softmax(-1), T.tensor([1, 2]), [4], [2],
                                                            reduction="none"),
           [S(4, 3)], grad_fn="SqueezeBackward1", gradgrad=False, forward_ad=False),
]

OPS = LOSSES + MORE_LOSSES + CTC

# ---- api: torch's top-level (aten) forms of the losses; reduction is the enum int, an omitted one 0 (none)
SIGNS = S(2, 3, fill=[1.0, -1.0, 1.0, -1.0, -1.0, 1.0], requires_grad=False)
OPS += [
    OpInfo("aten_kl_div", lambda T, x, t: T.kl_div(x, t), [S(2, 3), S(2, 3, low=0.1, requires_grad=False)],
           grad_fn="SubBackward0"),
    OpInfo("aten_kl_div_mean", lambda T, x, t: T.kl_div(x, t, 1), [S(2, 3), S(2, 3, low=0.1, requires_grad=False)],
           grad_fn="MeanBackward0"),
    OpInfo("aten_bce_with_logits", lambda T, x, t: T.binary_cross_entropy_with_logits(x, t),
           [S(2, 3), S(2, 3, low=0.0, requires_grad=False)], grad_fn="BinaryCrossEntropyWithLogitsBackward0"),
    OpInfo("aten_poisson_nll_loss", lambda T, x, t: T.poisson_nll_loss(x, t, True, False, 1e-8, 1),
           [S(2, 3), S(2, 3, low=0.0, high=2.0, requires_grad=False)], grad_fn="MeanBackward0"),
    OpInfo("aten_hinge_embedding_loss", lambda T, x, t: T.hinge_embedding_loss(x, t, 1.0, 1), [S(2, 3), SIGNS],
           grad_fn="MeanBackward0"),
    OpInfo("aten_margin_ranking_loss", lambda T, x, y, t: T.margin_ranking_loss(x, y, t, 0.1, 1),
           [S(2, 3), S(2, 3), SIGNS], grad_fn="MeanBackward0"),
    OpInfo("aten_cosine_embedding_loss", lambda T, x, y: T.cosine_embedding_loss(
        x, y, T.tensor([1.0, -1.0], dtype=T.float64), 0.0, 1), [S(2, 3), S(2, 3)], grad_fn="MeanBackward0"),
    OpInfo("aten_triplet_margin_loss", lambda T, a, p, n: T.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, False, 1),
           [S(2, 3), S(2, 3), S(2, 3)], grad_fn="MeanBackward0"),
]
