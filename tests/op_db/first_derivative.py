"""Registry entries whose output is a first derivative (see op_db/__init__.py for the format).

An op's backward formula calls its `*_backward` op (`elu_backward`, `select_backward`, ...), which
records a node of its own when the gradient is taken with create_graph. Each sample here is another
sample of the registry differentiated once, `autograd.grad(outputs, inputs, c * pattern,
create_graph=True)`, with the scalar `c` an input too, so that the gradient depends on a tensor that
requires grad even where the op is linear: gradcheck then checks the second derivative (the
backward op's own backward formulas), forward AD the backward op's `result:` formula
(forward-over-reverse), and torch parity its values and node names.
"""
import importlib

from . import FAMILIES, OpInfo, S

# the samples differentiated, by name (each reaches its op's backward op: elu -> elu_backward, select ->
# select_backward, interp_bicubic -> upsample_bicubic2d_backward, ...)
BASES = [
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool2d",
    "avg_pool3d", "max_pool2d", "max_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "log_softmax", "softmax", "prelu", "thnn_conv2d", "convolution", "conv2d", "conv_transpose2d",
    "interp_nearest_1d", "interp_nearest_2d", "interp_nearest_3d", "interp_nearest_exact_1d", "interp_nearest_exact_2d",
    "interp_nearest_exact_3d", "interp_linear", "interp_bilinear", "interp_bicubic", "interp_trilinear",
    "interp_bilinear_aa_up", "interp_bicubic_aa_up",
    "batch_norm_train", "batch_norm_with_update", "batch_norm_no_update", "native_batch_norm", "group_norm",
    "layer_norm", "native_dropout_train",
    "binary_cross_entropy", "huber_loss", "mse_loss", "nll_loss", "nll_loss_4d", "smooth_l1_loss", "soft_margin_loss",
    "elu", "gelu", "glu", "hardshrink", "hardswish", "hardtanh", "leaky_relu", "logsigmoid", "rrelu_train",
    "sigmoid", "softplus", "softshrink", "tanh", "threshold",
    "select", "getitem_slice_step", "diagonal", "unfold", "masked_scatter", "embedding", "as_strided_overlap",
    "pad_reflect_1d", "pad_reflect_2d", "pad_reflect_3d", "pad_replicate_1d", "pad_replicate_2d", "pad_replicate_3d",
]

# known differences from torch, where parity is not checked (gradcheck and forward AD still are)
PARITY_DIFFERS = {
    "group_norm": "under create_graph torch runs a composite group-norm backward (its gradients' nodes are "
                  "ViewBackward0); ndgrad records AddBackward0 / NativeGroupNormBackwardBackward0 (same values)",
    "as_strided_overlap": "ndgrad's as_strided backward of overlapping windows is its own op _strided_sum "
                          "(StridedSumBackward0 under create_graph) where torch records AsStridedBackward0",
}


def _tensors(out):
    return [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if hasattr(o, "requires_grad")]


def first_derivative(info):
    wants = [getattr(spec, "requires_grad", False) for spec in info.inputs] + [True]

    def call(T, *xs):
        with T.enable_grad():   # the finite differences of the forward-AD test run it under no_grad
            xs = [x.detach().requires_grad_() if w and not x.requires_grad else x for x, w in zip(xs, wants)]
            *xs, c = xs
            outs = [o for o in _tensors(info.call(T, *xs)) if o.requires_grad]
            cotangents = [c * T.linspace(-1, 1, o.numel(), dtype=o.dtype).reshape(o.shape) for o in outs]
            return T.autograd.grad(outs, [x for x, w in zip(xs, wants) if w], cotangents, create_graph=True)
    return OpInfo(f"{info.name}_first_derivative", call, list(info.inputs) + [S()], gradgrad=False,
                  torch_parity=info.torch_parity and info.name not in PARITY_DIFFERS, atol=info.atol, rtol=info.rtol,
                  seed=info.seed)


_BY_NAME = {o.name: o for fam in FAMILIES if fam != "first_derivative"
            for o in importlib.import_module(f"{__package__}.{fam}").OPS}
OPS = [first_derivative(_BY_NAME[n]) for n in BASES]
