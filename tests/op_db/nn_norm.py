"""Registry entries for normalization, losses, activations, dropout, embedding, padding,
interpolation, grid sampling, attention and distances (see op_db/__init__.py for the format)."""
from . import I, OpInfo, S


def F(T):
    return T.nn.functional


def _bn(training, rm=True, affine=True):
    def call(T, x, w, b):
        stats = (T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64) * 1.5) if rm else (None, None)
        return F(T).batch_norm(x, *stats, w if affine else None, b if affine else None, training=training)
    return call


X = S(4, 3)                # a (N, C) input
X3 = S(2, 3, 2)            # (N, C, L)
WB = [S(3, low=0.5, high=1.5), S(3)]
PROB = S(5, low=0.05, high=0.95)
TARGET01 = S(5, low=0.0, high=1.0, requires_grad=False)

NORMS = [
    OpInfo("batch_norm_train", _bn(True), [X3] + WB, grad_fn="NativeBatchNormBackward0"),
    OpInfo("batch_norm_train_2d", _bn(True), [X] + WB, grad_fn="NativeBatchNormBackward0"),
    OpInfo("batch_norm_train_no_stats", _bn(True, rm=False), [S(3, 3, 2, 2)] + WB, grad_fn="NativeBatchNormBackward0"),
    OpInfo("batch_norm_eval", _bn(False), [X3] + WB, grad_fn="NativeBatchNormBackward0"),
    OpInfo("batch_norm_no_affine", _bn(True, affine=False), [X3] + WB, grad_fn="NativeBatchNormBackward0"),
    OpInfo("native_batch_norm", lambda T, x, w, b: T.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0],
           [X] + WB, grad_fn="NativeBatchNormBackward0"),
    OpInfo("native_batch_norm_legit", lambda T, x, w, b: T._native_batch_norm_legit(
        x, w, b, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), True, 0.1, 1e-5)[0], [X3] + WB,
        grad_fn="NativeBatchNormLegitBackward0"),
    OpInfo("native_batch_norm_legit_no_stats", lambda T, x, w, b: T._native_batch_norm_legit(
        x, w, b, True, 0.1, 1e-5)[0], [X3] + WB, grad_fn="NativeBatchNormLegitBackward1"),
    OpInfo("native_batch_norm_legit_no_training", lambda T, x, w, b: T._native_batch_norm_legit_no_training(
        x, w, b, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), 0.1, 1e-5)[0], [X3] + WB,
        grad_fn="NativeBatchNormLegitNoTrainingBackward0"),
    OpInfo("batch_norm_with_update", lambda T, x, w, b: T.ops.aten._batch_norm_with_update(
        x, w, b, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), 0.1, 1e-5)[0], [X3] + WB,
        grad_fn="BatchNormWithUpdateBackward0"),
    OpInfo("batch_norm_no_update", lambda T, x, w, b: T.ops.aten._batch_norm_no_update(
        x, w, b, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), 0.1, 1e-5)[0], [X3] + WB,
        grad_fn="BatchNormNoUpdateBackward0"),
    OpInfo("layer_norm", lambda T, x, w, b: F(T).layer_norm(x, (3,), w, b), [S(2, 3)] + WB,
           grad_fn="NativeLayerNormBackward0"),
    OpInfo("layer_norm_2dims", lambda T, x, w, b: F(T).layer_norm(x, (2, 2), w, b, eps=1e-3),
           [S(3, 2, 2), S(2, 2, low=0.5), S(2, 2)], grad_fn="NativeLayerNormBackward0"),
    OpInfo("layer_norm_no_affine", lambda T, x: F(T).layer_norm(x, [4]), [S(2, 4)], grad_fn="NativeLayerNormBackward0"),
    OpInfo("group_norm", lambda T, x, w, b: F(T).group_norm(x, 1, w, b), [X3] + WB, grad_fn="NativeGroupNormBackward0"),
    OpInfo("group_norm_groups", lambda T, x, w, b: F(T).group_norm(x, 2, w, b, eps=1e-3),
           [S(2, 4, 3), S(4, low=0.5), S(4)], grad_fn="NativeGroupNormBackward0"),
    OpInfo("group_norm_no_affine", lambda T, x: F(T).group_norm(x, 3), [S(2, 3, 2, 2)], grad_fn="NativeGroupNormBackward0"),
    OpInfo("instance_norm", lambda T, x, w, b: F(T).instance_norm(x, weight=w, bias=b), [S(2, 3, 3)] + WB,
           grad_fn="ViewBackward0"),
    OpInfo("instance_norm_running", lambda T, x: F(T).instance_norm(
        x, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)), [S(2, 3, 3)], grad_fn="ViewBackward0"),
]

ACTIVATIONS = [
    OpInfo("hardsigmoid", lambda T, x: F(T).hardsigmoid(x), [S(6, low=-4, high=4)], grad_fn="HardsigmoidBackward0",
           gradgrad=False),
    OpInfo("hardswish", lambda T, x: F(T).hardswish(x), [S(2, 4, low=-4, high=4)], grad_fn="HardswishBackward0"),
    OpInfo("hardswish_inplace", lambda T, x: F(T).hardswish(x * 1, inplace=True), [S(6, low=-4, high=4)],
           grad_fn="HardswishBackward0"),
    OpInfo("mish", lambda T, x: F(T).mish(x), [S(2, 3, low=-3, high=3)], grad_fn="MishBackward0"),
    OpInfo("hardshrink", lambda T, x: F(T).hardshrink(x), [S(6)], grad_fn="HardshrinkBackward0"),
    OpInfo("hardshrink_method", lambda T, x: x.hardshrink(0.3), [S(2, 3)], grad_fn="HardshrinkBackward0"),
    OpInfo("softshrink", lambda T, x: F(T).softshrink(x, 0.3), [S(2, 3)], grad_fn="SoftshrinkBackward0"),
    OpInfo("logsigmoid", lambda T, x: F(T).logsigmoid(x), [S(2, 3, low=-3, high=3)], grad_fn="LogSigmoidBackward0"),
    OpInfo("glu", lambda T, x: F(T).glu(x), [S(2, 4)], grad_fn="GluBackward0"),
    OpInfo("glu_dim0", lambda T, x: F(T).glu(x, 0), [S(4, 3)], grad_fn="GluBackward0"),
    OpInfo("prelu", lambda T, x, w: F(T).prelu(x, w), [S(2, 3, 2), S(3, low=0.1, high=0.5)],
           grad_fn="PreluKernelBackward0"),
    OpInfo("prelu_scalar_weight", lambda T, x, w: F(T).prelu(x, w), [S(2, 3), S(1, low=0.1, high=0.5)],
           grad_fn="PreluKernelBackward0"),
    OpInfo("prelu_1d", lambda T, x, w: T.prelu(x, w), [S(5), S(1, low=0.1, high=0.5)], grad_fn="PreluKernelBackward0"),
    OpInfo("rrelu_eval", lambda T, x: F(T).rrelu(x), [S(2, 3)], grad_fn="RreluWithNoiseBackward0"),
    OpInfo("rrelu_train", lambda T, x: (T.manual_seed(0), F(T).rrelu(x, training=True))[1], [S(2, 3)], grad_fn="RreluWithNoiseBackward0",
           torch_parity=False),
    OpInfo("tanhshrink", lambda T, x: F(T).tanhshrink(x), [S(4)], grad_fn="SubBackward0"),
    OpInfo("softsign", lambda T, x: F(T).softsign(x), [S(4)], grad_fn="DivBackward0"),
]

LOSSES = [
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

DROPOUT = [
    OpInfo("native_dropout_eval", lambda T, x: T.native_dropout(x, 0.5, False), [S(5)],
           grad_fn="NativeDropoutBackward0"),
    OpInfo("native_dropout_train", lambda T, x: (T.manual_seed(0), T.native_dropout(x, 0.4, True)[0])[1], [S(5)],
           grad_fn="NativeDropoutBackward0", torch_parity=False),
    OpInfo("dropout_train", lambda T, x: (T.manual_seed(0), F(T).dropout(x, 0.5))[1], [S(6)], grad_fn="MulBackward0", torch_parity=False),
    OpInfo("dropout_p1", lambda T, x: F(T).dropout(x, 1.0), [S(6)], grad_fn="MulBackward0"),
    OpInfo("dropout_eval", lambda T, x: F(T).dropout(x, 0.5, training=False) * 1, [S(6)], grad_fn="MulBackward0"),
    OpInfo("dropout2d_train", lambda T, x: (T.manual_seed(0), F(T).dropout2d(x, 0.5))[1], [S(2, 3, 2)], grad_fn="MulBackward0",
           torch_parity=False),
    OpInfo("alpha_dropout_train", lambda T, x: (T.manual_seed(0), F(T).alpha_dropout(x, 0.5, training=True))[1], [S(6)],
           grad_fn="AddBackward0", torch_parity=False),
    OpInfo("feature_alpha_dropout_train", lambda T, x: (T.manual_seed(0), F(T).feature_alpha_dropout(x, 0.5, training=True))[1],
           [S(2, 3, 2)], grad_fn="AddBackward0", torch_parity=False),
]

EMB_W = S(4, 3)
EMBEDDING = [
    OpInfo("embedding", lambda T, i, w: F(T).embedding(i, w), [I(values=[[0, 2], [3, 0]]), EMB_W],
           grad_fn="EmbeddingBackward0"),
    OpInfo("embedding_padding_idx", lambda T, i, w: F(T).embedding(i, w, padding_idx=-1),
           [I(values=[0, 3, 1, 3]), EMB_W], grad_fn="EmbeddingBackward0", check_grad=False),
    OpInfo("embedding_scale_grad_by_freq", lambda T, i, w: F(T).embedding(i, w, scale_grad_by_freq=True),
           [I(values=[0, 2, 0, 1, 0]), EMB_W], grad_fn="EmbeddingBackward0", check_grad=False),
    OpInfo("embedding_max_norm", lambda T, i, w: F(T).embedding(i, w * 3, max_norm=1.0),
           [I(values=[0, 2, 0]), EMB_W], grad_fn="EmbeddingBackward0", check_grad=False),
    OpInfo("embedding_torch", lambda T, w, i: T.embedding(w, i), [EMB_W, I(values=[1, 1, 2])],
           grad_fn="EmbeddingBackward0"),
]


def _interp(**kw):
    return lambda T, x: F(T).interpolate(x, **kw)


PADDING = [
    OpInfo("pad_constant", lambda T, x: F(T).pad(x, (1, 2)), [S(2, 3)], grad_fn="ConstantPadNdBackward0"),
    OpInfo("pad_constant_value_2d", lambda T, x: F(T).pad(x, (1, 0, 0, 2), value=0.5), [S(2, 2, 3)],
           grad_fn="ConstantPadNdBackward0"),
    OpInfo("pad_constant_negative", lambda T, x: F(T).pad(x, (-1, 1)), [S(2, 4)], grad_fn="ConstantPadNdBackward0"),
    OpInfo("constant_pad_nd", lambda T, x: T.constant_pad_nd(x, (0, 1, 1, 1)), [S(2, 3)],
           grad_fn="ConstantPadNdBackward0"),
    OpInfo("pad_reflect_1d", lambda T, x: F(T).pad(x, (2, 1), mode="reflect"), [S(1, 2, 4)],
           grad_fn="ReflectionPad1DBackward0"),
    OpInfo("pad_reflect_2d", lambda T, x: F(T).pad(x, (1, 1, 2, 0), mode="reflect"), [S(1, 3, 3)],
           grad_fn="ReflectionPad2DBackward0"),
    OpInfo("pad_reflect_3d", lambda T, x: F(T).pad(x, (1, 0, 0, 1, 1, 1), mode="reflect"), [S(1, 1, 2, 2, 2)],
           grad_fn="ReflectionPad3DBackward0"),
    OpInfo("pad_replicate_1d", lambda T, x: F(T).pad(x, (2, 1), mode="replicate"), [S(2, 3)],
           grad_fn="ReplicationPad1DBackward0"),
    OpInfo("pad_replicate_2d", lambda T, x: F(T).pad(x, (1, 2, 0, 1), mode="replicate"), [S(1, 1, 2, 3)],
           grad_fn="ReplicationPad2DBackward0"),
    OpInfo("pad_replicate_3d", lambda T, x: F(T).pad(x, (1, 0, 1, 0, 0, 1), mode="replicate"), [S(1, 2, 2, 2)],
           grad_fn="ReplicationPad3DBackward0"),
    OpInfo("pad_circular", lambda T, x: F(T).pad(x, (1, 2), mode="circular"), [S(1, 2, 3)],
           grad_fn="torch::autograd::CopySlices"),
    OpInfo("pad_circular_2d", lambda T, x: F(T).pad(x, (1, 1, 1, 0), mode="circular"), [S(1, 1, 2, 3)],
           grad_fn="torch::autograd::CopySlices"),
]

X1, X2, X3D = S(1, 2, 3), S(1, 1, 3, 2), S(1, 1, 2, 2, 2)
INTERPOLATION = [
    OpInfo("interp_nearest_1d", _interp(scale_factor=2), [X1], grad_fn="UpsampleNearest1DBackward0"),
    OpInfo("interp_nearest_1d_size", _interp(size=5), [X1], grad_fn="UpsampleNearest1DBackward0"),
    OpInfo("interp_nearest_2d", _interp(size=(4, 3)), [X2], grad_fn="UpsampleNearest2DBackward0"),
    OpInfo("interp_nearest_2d_down", _interp(scale_factor=0.6), [S(1, 1, 5, 4)], grad_fn="UpsampleNearest2DBackward0"),
    OpInfo("interp_nearest_3d", _interp(scale_factor=(2, 1, 1.5)), [X3D], grad_fn="UpsampleNearest3DBackward0"),
    OpInfo("interp_nearest_exact_1d", _interp(size=5, mode="nearest-exact"), [X1],
           grad_fn="UpsampleNearestExact1DBackward0"),
    OpInfo("interp_nearest_exact_2d", _interp(scale_factor=1.5, mode="nearest-exact"), [X2],
           grad_fn="UpsampleNearestExact2DBackward0"),
    OpInfo("interp_nearest_exact_3d", _interp(size=(3, 2, 3), mode="nearest-exact"), [X3D],
           grad_fn="UpsampleNearestExact3DBackward0"),
    OpInfo("interp_linear", _interp(scale_factor=2, mode="linear"), [X1], grad_fn="UpsampleLinear1DBackward0"),
    OpInfo("interp_linear_align", _interp(size=5, mode="linear", align_corners=True), [X1],
           grad_fn="UpsampleLinear1DBackward0"),
    OpInfo("interp_bilinear", _interp(size=(4, 5), mode="bilinear"), [X2], grad_fn="UpsampleBilinear2DBackward0"),
    OpInfo("interp_bilinear_scale_align", _interp(scale_factor=1.7, mode="bilinear", align_corners=True), [X2],
           grad_fn="UpsampleBilinear2DBackward0"),
    OpInfo("interp_bilinear_down", _interp(scale_factor=0.5, mode="bilinear"), [S(1, 1, 4, 5)],
           grad_fn="UpsampleBilinear2DBackward0"),
    OpInfo("interp_bicubic", _interp(scale_factor=2, mode="bicubic"), [X2], grad_fn="UpsampleBicubic2DBackward0"),
    OpInfo("interp_bicubic_align", _interp(size=(4, 3), mode="bicubic", align_corners=True), [X2],
           grad_fn="UpsampleBicubic2DBackward0"),
    OpInfo("interp_trilinear", _interp(scale_factor=1.5, mode="trilinear"), [X3D],
           grad_fn="UpsampleTrilinear3DBackward0"),
    OpInfo("interp_trilinear_align", _interp(size=(3, 3, 2), mode="trilinear", align_corners=True), [X3D],
           grad_fn="UpsampleTrilinear3DBackward0"),
    OpInfo("interp_bilinear_aa_up", _interp(scale_factor=2, mode="bilinear", antialias=True), [X2],
           grad_fn="UpsampleBilinear2DAaBackward0"),
    OpInfo("interp_bilinear_aa_down", _interp(size=(2, 3), mode="bilinear", antialias=True), [S(1, 1, 5, 6)],
           grad_fn="UpsampleBilinear2DAaBackward0"),
    OpInfo("interp_bicubic_aa_down", _interp(scale_factor=0.5, mode="bicubic", antialias=True), [S(1, 1, 6, 5)],
           grad_fn="UpsampleBicubic2DAaBackward0"),
    OpInfo("interp_bicubic_aa_up", _interp(size=(4, 4), mode="bicubic", antialias=True), [X2],
           grad_fn="UpsampleBicubic2DAaBackward0"),
    OpInfo("pixel_shuffle", lambda T, x: F(T).pixel_shuffle(x, 2), [S(1, 8, 2, 1)], grad_fn="PixelShuffleBackward0"),
    OpInfo("pixel_shuffle_3d_input", lambda T, x: T.pixel_shuffle(x, 2), [S(4, 1, 2)], grad_fn="PixelShuffleBackward0"),
    OpInfo("pixel_unshuffle", lambda T, x: F(T).pixel_unshuffle(x, 2), [S(2, 1, 2, 4)],
           grad_fn="PixelUnshuffleBackward0"),
]

OPS = NORMS + ACTIVATIONS + LOSSES + DROPOUT + EMBEDDING + PADDING + INTERPOLATION
