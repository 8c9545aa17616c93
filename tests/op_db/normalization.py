"""Registry entries for normalization (batch, instance, layer, group, rms norm, normalize) and weight norm (ndgrad/ops/normalization.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


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
    # an empty batch: a copy scaled by the first weight and bias (no statistics)
    OpInfo("batch_norm_empty", lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True),
           [S(0, 3)] + WB, grad_fn="AddBackward0"),
    # all three outputs: mean and rstd are differentiable too
    OpInfo("native_group_norm", lambda T, x, w, b: T.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5),
           [S(2, 4, 3), S(4, low=0.5), S(4)], grad_fn="NativeGroupNormBackward0"),
    OpInfo("group_norm_no_affine", lambda T, x: F(T).group_norm(x, 3), [S(2, 3, 2, 2)], grad_fn="NativeGroupNormBackward0"),
    OpInfo("instance_norm", lambda T, x, w, b: F(T).instance_norm(x, weight=w, bias=b), [S(2, 3, 3)] + WB,
           grad_fn="ViewBackward0"),
    OpInfo("instance_norm_running", lambda T, x: F(T).instance_norm(
        x, T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)), [S(2, 3, 3)], grad_fn="ViewBackward0"),
]

WEIGHT_NORM = [
    OpInfo("weight_norm_dim0", lambda T, v, g: T._weight_norm(v, g, 0), [S(3, 2), S(3, 1, low=0.5)],
           grad_fn="WeightNormInterfaceBackward0"),
    OpInfo("weight_norm_dim_last", lambda T, v, g: T._weight_norm(v, g, 1), [S(3, 2), S(1, 2, low=0.5)],
           grad_fn="WeightNormInterfaceBackward0"),
    OpInfo("weight_norm_dim_middle", lambda T, v, g: T._weight_norm(v, g, 1), [S(2, 3, 2), S(1, 3, 1, low=0.5)],
           grad_fn="MulBackward0"),
    OpInfo("weight_norm_whole", lambda T, v, g: T._weight_norm(v, g, -1), [S(3, 2), S(1, 1, low=0.5)],
           grad_fn="MulBackward0"),
]

OPS = NORMS + WEIGHT_NORM

# eps=None: the dtype's machine epsilon (read from the array: the input requires grad)
OPS += [OpInfo("rms_norm_default_eps", lambda T, x: F(T).rms_norm(x, (3,)), [S(2, 3)], grad_fn="MulBackward0")]

# ---- api: torch's top-level (aten) forms (cudnn_enabled flags: ignored)
OPS += [
    OpInfo("aten_batch_norm", lambda T, x: T.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
           [S(2, 3, 4)], grad_fn="NativeBatchNormBackward0"),
    OpInfo("aten_layer_norm", lambda T, x, w, b: T.layer_norm(x, [4], w, b), [S(2, 3, 4), S(4), S(4)],
           grad_fn="NativeLayerNormBackward0"),
    OpInfo("aten_group_norm", lambda T, x: T.group_norm(x, 3), [S(2, 3, 4)], grad_fn="NativeGroupNormBackward0"),
    OpInfo("aten_instance_norm", lambda T, x: T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
           [S(2, 3, 4)], grad_fn="ViewBackward0"),
    OpInfo("aten_rms_norm", lambda T, x: T.rms_norm(x, [4], None, 1e-6), [S(2, 3, 4)], grad_fn="MulBackward0"),
]
