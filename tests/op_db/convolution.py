"""Registry entries for convolution and fold/unfold (ndgrad/ops/convolution.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


def aten(T):
    return T.ops.aten


CONV = [
    OpInfo("conv1d", lambda T, x, w: F(T).conv1d(x, w), [S(2, 2, 5), S(3, 2, 2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv1d_bias_stride_pad", lambda T, x, w, b: T.conv1d(x, w, b, stride=2, padding=1),
           [S(1, 2, 6), S(2, 2, 3), S(2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv1d_dilation_groups", lambda T, x, w: F(T).conv1d(x, w, dilation=2, groups=2),
           [S(1, 4, 7), S(4, 2, 2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv1d_unbatched", lambda T, x, w: F(T).conv1d(x, w), [S(2, 5), S(1, 2, 3)],
           grad_fn="SqueezeBackward1"),
    OpInfo("conv1d_same", lambda T, x, w: F(T).conv1d(x, w, padding="same"), [S(1, 2, 5), S(2, 2, 3)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv1d_valid", lambda T, x, w: F(T).conv1d(x, w, padding="valid"), [S(1, 1, 4), S(1, 1, 2)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d", lambda T, x, w: F(T).conv2d(x, w), [S(1, 1, 3, 3), S(1, 1, 2, 2)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d_bias", lambda T, x, w, b: T.conv2d(x, w, b), [S(2, 2, 3, 3), S(3, 2, 2, 2), S(3)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d_stride_pad_dilation", lambda T, x, w: F(T).conv2d(x, w, stride=(2, 1), padding=(1, 2),
                                                                      dilation=(1, 2)),
           [S(1, 2, 4, 3), S(2, 2, 2, 2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d_groups", lambda T, x, w, b: F(T).conv2d(x, w, b, groups=2, padding=1),
           [S(1, 4, 3, 3), S(2, 2, 2, 2), S(2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d_depthwise", lambda T, x, w: F(T).conv2d(x, w, groups=2), [S(1, 2, 3, 3), S(4, 1, 2, 2)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d_unbatched", lambda T, x, w: F(T).conv2d(x, w), [S(1, 3, 3), S(2, 1, 2, 2)],
           grad_fn="SqueezeBackward1"),
    OpInfo("conv2d_same", lambda T, x, w: F(T).conv2d(x, w, padding="same", dilation=2), [S(1, 1, 4, 4),
                                                                                          S(1, 1, 3, 2)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv2d_float32", lambda T, x, w, b: F(T).conv2d(x, w, b, padding=1),
           [S(2, 3, 5, 5, dtype="float32"), S(4, 3, 3, 3, dtype="float32"), S(4, dtype="float32")],
           grad_fn="ConvolutionBackward0", check_grad=False, atol=1e-5, rtol=1e-5),
    OpInfo("conv3d", lambda T, x, w, b: F(T).conv3d(x, w, b, stride=(1, 2, 1)),
           [S(1, 1, 3, 3, 2), S(2, 1, 2, 2, 2), S(2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv3d_groups_pad", lambda T, x, w: T.conv3d(x, w, padding=1, groups=2),
           [S(1, 2, 2, 2, 2), S(2, 1, 2, 1, 2)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv_transpose1d", lambda T, x, w, b: F(T).conv_transpose1d(x, w, b, stride=2, padding=1,
                                                                         output_padding=1),
           [S(1, 2, 3), S(2, 3, 3), S(3)], grad_fn="ConvolutionBackward0"),
    OpInfo("conv_transpose2d", lambda T, x, w: F(T).conv_transpose2d(x, w), [S(1, 2, 2, 2), S(2, 1, 2, 2)],
           grad_fn="ConvolutionBackward0"),
    OpInfo("conv_transpose2d_groups_dilation", lambda T, x, w: T.conv_transpose2d(x, w, stride=2, groups=2,
                                                                                   dilation=2, output_padding=1),
           [S(1, 4, 2, 2), S(4, 1, 2, 2)], grad_fn="ConvolutionBackward0"),
    # output_padding wider than the input's last window: the input gradient is cropped to the input
    OpInfo("conv_transpose2d_output_padding_dilation", lambda T, x, w: F(T).conv_transpose2d(
        x, w, stride=(3, 2), padding=(1, 2), output_padding=(2, 3), dilation=(4, 4)),
        [S(1, 1, 2, 2), S(1, 1, 2, 3)], grad_fn="ConvolutionBackward0"),
    # complex: the input gradient reads conj(weight), the weight gradient conj(input); through abs(),
    # since torch records complex convolutions as three real ones (its last node is AddBackward0)
    OpInfo("conv2d_complex", lambda T, x, w, b: F(T).conv2d(x, w, b, padding=1).abs(),
           [S(1, 2, 3, 3, dtype="complex128"), S(2, 2, 2, 2, dtype="complex128"), S(2, dtype="complex128")],
           grad_fn="AbsBackward0"),
    OpInfo("conv_transpose1d_complex", lambda T, x, w: F(T).conv_transpose1d(x, w, stride=2, output_padding=1).abs(),
           [S(1, 2, 3, dtype="complex128"), S(2, 1, 2, dtype="complex128")], grad_fn="AbsBackward0"),
    OpInfo("conv_transpose2d_unbatched", lambda T, x, w: F(T).conv_transpose2d(x, w, padding=1),
           [S(2, 3, 2), S(2, 2, 2, 2)], grad_fn="SqueezeBackward1"),
    OpInfo("conv_transpose3d", lambda T, x, w, b: F(T).conv_transpose3d(x, w, b, stride=(1, 2, 1)),
           [S(1, 2, 2, 2, 1), S(2, 1, 2, 2, 2), S(1)], grad_fn="ConvolutionBackward0"),
    OpInfo("convolution", lambda T, x, w, b: T.convolution(x, w, b, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
           [S(1, 2, 3, 4), S(3, 2, 2, 2), S(3)], grad_fn="ConvolutionBackward0"),
    OpInfo("convolution_transposed", lambda T, x, w: T.convolution(x, w, None, [2], [0], [1], True, [1], 1),
           [S(1, 2, 3), S(2, 2, 2)], grad_fn="ConvolutionBackward0"),
    # (gradgradcheck of the entries above checks these values; gradcheck cannot run autograd.grad inside)
    OpInfo("conv2d_double_backward", lambda T, x, w: T.autograd.grad(F(T).conv2d(x, w, stride=2).pow(2).sum(), x,
                                                                      create_graph=True)[0],
           [S(1, 1, 4, 3), S(2, 1, 2, 2)], grad_fn="ConvolutionBackwardBackward0", check_grad=False),
    OpInfo("conv_tbc", lambda T, x, w, b: T.conv_tbc(x, w, b, 1), [S(4, 2, 2), S(2, 2, 3), S(3)],
           grad_fn="ConvTbcBackward0"),
    OpInfo("thnn_conv2d", lambda T, x, w, b: aten(T).thnn_conv2d(x, w, [2, 2], b, [2, 1], [1, 0]),
           [S(1, 2, 3, 3), S(2, 2, 2, 2), S(2)], grad_fn="SlowConv2DBackward0"),
    OpInfo("thnn_conv2d_double_backward",
           lambda T, x, w: T.autograd.grad(aten(T).thnn_conv2d(x, w, [2, 2]).pow(2).sum(), w, create_graph=True)[0],
           [S(1, 1, 3, 3), S(1, 1, 2, 2)], grad_fn="SlowConv2DBackwardBackward0", check_grad=False),
    OpInfo("slow_conv3d", lambda T, x, w: aten(T).slow_conv3d(x, w, [2, 2, 2]), [S(1, 1, 3, 2, 2), S(2, 1, 2, 2, 2)],
           grad_fn="SlowConv3DBackward0"),
    OpInfo("slow_conv_dilated2d",
           lambda T, x, w: aten(T).slow_conv_dilated2d(x, w, [2, 2], None, [1, 1], [0, 1], [2, 1]),
           [S(1, 1, 3, 3), S(1, 1, 2, 2)], grad_fn="SlowConvDilated2DBackward0"),
    OpInfo("slow_conv_dilated3d",
           lambda T, x, w, b: aten(T).slow_conv_dilated3d(x, w, [2, 2, 2], b, [1, 1, 1], [0, 0, 0], [2, 1, 1]),
           [S(1, 1, 3, 2, 2), S(1, 1, 2, 2, 2), S(1)], grad_fn="SlowConvDilated3DBackward0"),
    OpInfo("slow_conv_transpose2d", lambda T, x, w, b: aten(T).slow_conv_transpose2d(x, w, [2, 2], b, [2, 2]),
           [S(1, 1, 2, 2), S(1, 2, 2, 2), S(2)], grad_fn="SlowConvTranspose2DBackward0"),
    OpInfo("slow_conv_transpose3d", lambda T, x, w: aten(T).slow_conv_transpose3d(x, w, [2, 2, 2], None, [1, 2, 1]),
           [S(1, 1, 2, 2, 1), S(1, 1, 2, 2, 2)], grad_fn="SlowConvTranspose3DBackward0"),
    OpInfo("mkldnn_convolution", lambda T, x, w: T.mkldnn_convolution(x, w, None, [1, 0], [1, 1], [1, 1], 1),
           [S(1, 2, 3, 3, dtype="float32"), S(2, 2, 2, 2, dtype="float32")], grad_fn="MkldnnConvolutionBackward0",
           check_grad=False, atol=1e-5, rtol=1e-5),
]

FOLD = [
    OpInfo("im2col_unfold", lambda T, x: F(T).unfold(x, 2), [S(1, 1, 3, 3)], grad_fn="Im2ColBackward0"),
    OpInfo("unfold_options", lambda T, x: F(T).unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
           [S(2, 2, 3, 4)], grad_fn="Im2ColBackward0"),
    OpInfo("unfold_unbatched", lambda T, x: F(T).unfold(x, 2, stride=2), [S(2, 4, 4)], grad_fn="Im2ColBackward0"),
    OpInfo("fold", lambda T, x: F(T).fold(x, (3, 3), 2), [S(1, 4, 4)], grad_fn="Col2ImBackward0"),
    OpInfo("fold_options", lambda T, x: F(T).fold(x, (4, 5), (2, 3), dilation=(1, 2), padding=1, stride=2),
           [S(2, 12, 6)], grad_fn="Col2ImBackward0"),
    OpInfo("fold_unbatched", lambda T, x: F(T).fold(x, 3, 2), [S(8, 4)], grad_fn="Col2ImBackward0"),
]

OPS = CONV + FOLD
