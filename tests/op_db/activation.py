"""Registry entries for activations, softmax / log_softmax and _masked_softmax (ndgrad/ops/activation.py; see op_db/__init__.py for the format)."""
from . import B, OpInfo, S


def F(T):
    return T.nn.functional


ACTIVATIONS = [
    OpInfo("relu", lambda T, x: T.relu(x), [S(3, 4)], grad_fn="ReluBackward0"),
    OpInfo("relu_method", lambda T, x: x.relu(), [S(5)], grad_fn="ReluBackward0"),
    OpInfo("relu_functional", lambda T, x: F(T).relu(x), [S(2, 3)], grad_fn="ReluBackward0"),
    OpInfo("relu_inplace", lambda T, x: F(T).relu(x * 1, inplace=True), [S(2, 3)], grad_fn="ReluBackward0"),
    OpInfo("relu_inplace_method", lambda T, x: (x * 1).relu_(), [S(4)], grad_fn="ReluBackward0"),
    OpInfo("relu_inplace_torch", lambda T, x: T.relu_(x * 1), [S(4)], grad_fn="ReluBackward0"),
    OpInfo("threshold", lambda T, x: T.threshold(x, 0.1, -2.0), [S(3, 4)], grad_fn="ThresholdBackward0"),
    OpInfo("threshold_functional", lambda T, x: F(T).threshold(x, -0.2, 0.5), [S(6)], grad_fn="ThresholdBackward0"),
    OpInfo("threshold_inplace", lambda T, x: F(T).threshold(x * 1, 0.1, 2.0, inplace=True), [S(6)],
           grad_fn="ThresholdBackward1"),
    OpInfo("leaky_relu", lambda T, x: F(T).leaky_relu(x), [S(3, 4)], grad_fn="LeakyReluBackward0"),
    OpInfo("leaky_relu_slope", lambda T, x: F(T).leaky_relu(x, 0.2), [S(6)], grad_fn="LeakyReluBackward0"),
    OpInfo("leaky_relu_inplace", lambda T, x: F(T).leaky_relu(x * 1, 0.3, inplace=True), [S(6)],
           grad_fn="LeakyReluBackward1"),
    OpInfo("elu", lambda T, x: F(T).elu(x), [S(3, 4)], grad_fn="EluBackward0"),
    OpInfo("elu_alpha", lambda T, x: F(T).elu(x, alpha=0.5), [S(6)], grad_fn="EluBackward0"),
    OpInfo("elu_inplace", lambda T, x: F(T).elu(x * 1, 1.5, inplace=True), [S(6)], grad_fn="EluBackward1"),
    OpInfo("selu", lambda T, x: T.selu(x), [S(3, 4)], grad_fn="EluBackward0"),
    OpInfo("selu_inplace", lambda T, x: F(T).selu(x * 1, inplace=True), [S(6)], grad_fn="EluBackward1"),
    OpInfo("celu", lambda T, x: T.celu(x, 0.5), [S(3, 4)], grad_fn="CeluBackward0"),
    OpInfo("celu_functional", lambda T, x: F(T).celu(x, alpha=2.0), [S(6)], grad_fn="CeluBackward0"),
    OpInfo("celu_inplace", lambda T, x: T.celu_(x * 1, 1.5), [S(6)], grad_fn="CeluBackward1"),
    OpInfo("gelu", lambda T, x: F(T).gelu(x), [S(3, 4, low=-3, high=3)], grad_fn="GeluBackward0"),
    OpInfo("gelu_tanh", lambda T, x: F(T).gelu(x, approximate="tanh"), [S(6, low=-3, high=3)],
           grad_fn="GeluBackward0"),
    OpInfo("silu", lambda T, x: F(T).silu(x), [S(3, 4, low=-3, high=3)], grad_fn="SiluBackward0"),
    OpInfo("silu_inplace", lambda T, x: F(T).silu(x * 1, inplace=True), [S(6)], grad_fn="SiluBackward0"),
    OpInfo("softplus", lambda T, x: F(T).softplus(x), [S(3, 4, low=-3, high=3)], grad_fn="SoftplusBackward0"),
    OpInfo("softplus_beta_threshold", lambda T, x: F(T).softplus(x, beta=2, threshold=1), [S(8, low=-2, high=2)],
           grad_fn="SoftplusBackward0"),
    OpInfo("hardtanh", lambda T, x: F(T).hardtanh(x, -0.5, 0.5), [S(3, 4)], grad_fn="HardtanhBackward0"),
    OpInfo("hardtanh_inplace", lambda T, x: F(T).hardtanh(x * 1, inplace=True), [S(6, low=-2, high=2)],
           grad_fn="HardtanhBackward0"),
    OpInfo("relu6", lambda T, x: F(T).relu6(x), [S(6, low=-2, high=8)], grad_fn="HardtanhBackward0"),
]

SOFTMAX = [
    OpInfo("softmax", lambda T, x: T.softmax(x, 1), [S(3, 4)], grad_fn="SoftmaxBackward0"),
    OpInfo("softmax_dim0", lambda T, x: T.softmax(x, 0), [S(3, 4, 2)], grad_fn="SoftmaxBackward0"),
    OpInfo("softmax_neg_dim", lambda T, x: x.softmax(-1), [S(2, 5)], grad_fn="SoftmaxBackward0"),
    OpInfo("softmax_1d", lambda T, x: F(T).softmax(x, dim=0), [S(5)], grad_fn="SoftmaxBackward0"),
    OpInfo("softmax_0d", lambda T, x: T.softmax(x, 0), [S()], grad_fn="SoftmaxBackward0"),
    OpInfo("softmax_large_values", lambda T, x: T.softmax(x, 1), [S(2, 3, low=500, high=510)],
           grad_fn="SoftmaxBackward0"),
    OpInfo("softmax_float32", lambda T, x: T.softmax(x, 1), [S(3, 4, dtype="float32")],
           grad_fn="SoftmaxBackward0", check_grad=False, atol=1e-6, rtol=1e-5),
    OpInfo("softmax_dtype", lambda T, x: F(T).softmax(x, 1, dtype=T.float64), [S(3, 4, dtype="float32")],
           grad_fn="SoftmaxBackward0", check_grad=False, atol=1e-6, rtol=1e-5),
    OpInfo("softmax_implicit_dim", lambda T, x: F(T).softmax(x), [S(2, 3, 4)], grad_fn="SoftmaxBackward0"),
    OpInfo("softmin", lambda T, x: F(T).softmin(x, 1), [S(3, 4)], grad_fn="SoftmaxBackward0"),
    OpInfo("log_softmax", lambda T, x: T.log_softmax(x, 1), [S(3, 4)], grad_fn="LogSoftmaxBackward0"),
    OpInfo("log_softmax_dim0", lambda T, x: x.log_softmax(0), [S(3, 4, 2)], grad_fn="LogSoftmaxBackward0"),
    OpInfo("log_softmax_functional", lambda T, x: F(T).log_softmax(x, -1), [S(5)], grad_fn="LogSoftmaxBackward0"),
    OpInfo("log_softmax_0d", lambda T, x: T.log_softmax(x, -1), [S()], grad_fn="LogSoftmaxBackward0"),
    OpInfo("log_softmax_large_values", lambda T, x: T.log_softmax(x, 1), [S(2, 3, low=-800, high=-790)],
           grad_fn="LogSoftmaxBackward0"),
    OpInfo("log_softmax_float32", lambda T, x: F(T).log_softmax(x, 0), [S(3, 4, dtype="float32")],
           grad_fn="LogSoftmaxBackward0", check_grad=False, atol=1e-6, rtol=1e-5),
    OpInfo("log_softmax_dtype", lambda T, x: F(T).log_softmax(x, 1, dtype=T.float32), [S(3, 4)],
           grad_fn="LogSoftmaxBackward0", check_grad=False, atol=1e-6, rtol=1e-5),
]

MORE_ACTIVATIONS = [
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

OPS = ACTIVATIONS + SOFTMAX + MORE_ACTIVATIONS


# masks with at least one kept entry per softmax row (a fully masked row is NaN, as in torch)
_MASK = B(2, 3, values=[[False, True, False], [True, False, False]])

MASKED_SOFTMAX = [
    # masked softmax (torch has no double backward for it)
    OpInfo("_masked_softmax", lambda T, x, m: T._masked_softmax(x, m), [S(2, 3), _MASK],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False),
    OpInfo("_masked_softmax_dim0", lambda T, x, m: T._masked_softmax(x, m, 0), [S(2, 3), _MASK],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False),
    # torch's backward refuses the broadcast masks of mask_type 0 and 1 ("Mask shape should match grad
    # shape"): ndgrad differentiates them (gradcheck); tests/test_misc.py compares the values with torch
    OpInfo("_masked_softmax_key_padding", lambda T, x, m: T._masked_softmax(x, m, 3, 1),
           [S(2, 1, 3, 3), B(2, 3, values=[[False, True, False], [False, False, True]])],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False, torch_parity=False),
    OpInfo("_masked_softmax_src_mask", lambda T, x, m: T._masked_softmax(x, m, 3, 0),
           [S(1, 2, 3, 3), B(3, 3, values=[[False, True, True], [False, False, True], [False, False, False]])],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False, torch_parity=False),
]

OPS += MASKED_SOFTMAX

OPS += [
    OpInfo("softmax_empty_dim", lambda T, x: T.softmax(x, 1), [S(2, 0)], grad_fn="SoftmaxBackward0"),
    OpInfo("log_softmax_empty_dim", lambda T, x: T.log_softmax(x, 0), [S(0, 3)], grad_fn="LogSoftmaxBackward0"),
]

_NEG_INF_ROW = [[0.5, -1.0, 2.0], [float("-inf")] * 3]
OPS += [OpInfo("_safe_softmax", lambda T, x: T.ops.aten._safe_softmax(x, 1), [S(2, 3, fill=_NEG_INF_ROW)],
               grad_fn="SafeSoftmaxBackward0")]
OPS += [OpInfo("prelu_0d_input", lambda T, x, w: T.prelu(x, w), [S(), S(1, low=0.1, high=0.5)],
               grad_fn="PreluKernelBackward0")]
