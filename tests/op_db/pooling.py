"""Registry entries for pooling (ndgrad/ops/pooling.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


def _unpool(d):
    def call(T, x):
        pool, unpool = getattr(F(T), f"max_pool{d}d"), getattr(F(T), f"max_unpool{d}d")
        y, idx = pool(x, 2, return_indices=True)
        return unpool(y * 2, idx, 2)
    return call


SAMPLES = S(1, 2, 2, low=0.0, high=1.0, requires_grad=False)     # fractional_max_pool's random samples


POOL = [
    OpInfo("avg_pool1d", lambda T, x: F(T).avg_pool1d(x, 2), [S(1, 2, 5)], grad_fn="SqueezeBackward1"),
    OpInfo("avg_pool1d_pad_ceil", lambda T, x: T.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
           [S(2, 6)], grad_fn="SqueezeBackward1"),
    OpInfo("avg_pool2d", lambda T, x: F(T).avg_pool2d(x, 2), [S(1, 1, 3, 3)], grad_fn="AvgPool2DBackward0"),
    OpInfo("avg_pool2d_stride_pad", lambda T, x: F(T).avg_pool2d(x, (3, 2), stride=(2, 1), padding=1),
           [S(1, 2, 4, 3)], grad_fn="AvgPool2DBackward0"),
    OpInfo("avg_pool2d_ceil_exclude_pad", lambda T, x: F(T).avg_pool2d(x, 2, 2, 1, ceil_mode=True,
                                                                        count_include_pad=False),
           [S(2, 4, 5)], grad_fn="AvgPool2DBackward0"),
    OpInfo("avg_pool2d_ceil_include_pad", lambda T, x: F(T).avg_pool2d(x, 3, 2, 1, ceil_mode=True),
           [S(1, 1, 4, 4)], grad_fn="AvgPool2DBackward0"),
    OpInfo("avg_pool2d_divisor", lambda T, x: F(T).avg_pool2d(x, 2, 1, divisor_override=3), [S(1, 1, 3, 3)],
           grad_fn="AvgPool2DBackward0"),
    OpInfo("avg_pool3d", lambda T, x: F(T).avg_pool3d(x, 2), [S(1, 1, 3, 3, 3)], grad_fn="AvgPool3DBackward0"),
    OpInfo("avg_pool3d_options", lambda T, x: F(T).avg_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), True, False),
           [S(1, 3, 3, 4)], grad_fn="AvgPool3DBackward0"),
    OpInfo("avg_pool2d_float32", lambda T, x: F(T).avg_pool2d(x, 2), [S(2, 3, 4, 4, dtype="float32")],
           grad_fn="AvgPool2DBackward0", check_grad=False, atol=1e-6, rtol=1e-5),
    OpInfo("max_pool1d", lambda T, x: F(T).max_pool1d(x, 2), [S(1, 2, 5)], grad_fn="SqueezeBackward1"),
    OpInfo("max_pool1d_indices", lambda T, x: T.max_pool1d_with_indices(x, 3, 2, 1, 2, True), [S(2, 7)],
           grad_fn="SqueezeBackward1"),
    OpInfo("max_pool2d", lambda T, x: F(T).max_pool2d(x, 2), [S(1, 1, 3, 3)],
           grad_fn="MaxPool2DWithIndicesBackward0"),
    OpInfo("max_pool2d_indices", lambda T, x: F(T).max_pool2d(x, (2, 3), (1, 2), (1, 1), return_indices=True),
           [S(1, 2, 4, 5)], grad_fn="MaxPool2DWithIndicesBackward0"),
    OpInfo("max_pool2d_dilation_ceil", lambda T, x: T.max_pool2d(x, 2, 2, 1, 2, ceil_mode=True), [S(2, 5, 6)],
           grad_fn="MaxPool2DWithIndicesBackward0"),
    OpInfo("max_pool2d_float32", lambda T, x: F(T).max_pool2d(x, 2), [S(2, 3, 4, 4, dtype="float32")],
           grad_fn="MaxPool2DWithIndicesBackward0", check_grad=False),
    OpInfo("max_pool3d", lambda T, x: F(T).max_pool3d(x, 2), [S(1, 1, 3, 3, 3)],
           grad_fn="MaxPool3DWithIndicesBackward0"),
    OpInfo("max_pool3d_options", lambda T, x: F(T).max_pool3d(x, (2, 2, 3), 2, (1, 0, 1), (1, 2, 1), True, True),
           [S(2, 3, 5, 4)], grad_fn="MaxPool3DWithIndicesBackward0"),
    OpInfo("adaptive_avg_pool1d", lambda T, x: T.adaptive_avg_pool1d(x, 3), [S(1, 2, 5)],
           grad_fn="SqueezeBackward1"),
    OpInfo("adaptive_avg_pool2d", lambda T, x: F(T).adaptive_avg_pool2d(x, 2), [S(1, 1, 3, 3)],
           grad_fn="AdaptiveAvgPool2DBackward0"),
    OpInfo("adaptive_avg_pool2d_uneven", lambda T, x: F(T).adaptive_avg_pool2d(x, (3, None)), [S(2, 5, 4)],
           grad_fn="AdaptiveAvgPool2DBackward0"),
    OpInfo("adaptive_avg_pool2d_global", lambda T, x: F(T).adaptive_avg_pool2d(x, 1), [S(1, 2, 3, 3)],
           grad_fn="MeanBackward1"),
    OpInfo("adaptive_avg_pool2d_private", lambda T, x: T._adaptive_avg_pool2d(x, [2, 3]), [S(1, 2, 3, 5)],
           grad_fn="AdaptiveAvgPool2DBackward0"),
    OpInfo("adaptive_avg_pool3d", lambda T, x: F(T).adaptive_avg_pool3d(x, (2, 3, 2)), [S(1, 1, 3, 4, 3)],
           grad_fn="AdaptiveAvgPool3DBackward0"),
    OpInfo("adaptive_max_pool1d", lambda T, x: F(T).adaptive_max_pool1d(x, 3, return_indices=True), [S(1, 2, 7)],
           grad_fn="SqueezeBackward1"),
    OpInfo("adaptive_max_pool2d", lambda T, x: F(T).adaptive_max_pool2d(x, 2), [S(1, 1, 3, 3)],
           grad_fn="AdaptiveMaxPool2DBackward0"),
    OpInfo("adaptive_max_pool2d_indices", lambda T, x: F(T).adaptive_max_pool2d(x, (3, 2), return_indices=True),
           [S(2, 5, 7)], grad_fn="AdaptiveMaxPool2DBackward0"),
    OpInfo("adaptive_max_pool3d", lambda T, x: F(T).adaptive_max_pool3d(x, (2, 1, 3), True), [S(1, 2, 3, 3, 4)],
           grad_fn="AdaptiveMaxPool3DBackward0"),
    OpInfo("fractional_max_pool2d", lambda T, x, r: F(T).fractional_max_pool2d(x, 2, output_size=(3, 2),
                                                                                return_indices=True,
                                                                                _random_samples=r),
           [S(1, 2, 5, 4), SAMPLES], grad_fn="FractionalMaxPool2DBackward0"),
    OpInfo("fractional_max_pool2d_ratio", lambda T, x, r: F(T).fractional_max_pool2d(x, (2, 3), output_ratio=(0.5, 0.5),
                                                                                      _random_samples=r),
           [S(2, 6, 7), S(1, 2, 2, low=0.0, high=1.0, requires_grad=False)], grad_fn="FractionalMaxPool2DBackward0"),
    OpInfo("fractional_max_pool3d", lambda T, x, r: F(T).fractional_max_pool3d(x, 2, output_size=(2, 3, 2),
                                                                                _random_samples=r),
           [S(1, 2, 4, 5, 4), S(1, 2, 3, low=0.0, high=1.0, requires_grad=False)],
           grad_fn="FractionalMaxPool3DBackward0"),
    OpInfo("max_unpool1d", _unpool(1), [S(1, 2, 4)], grad_fn="SqueezeBackward1"),
    OpInfo("max_unpool2d", _unpool(2), [S(1, 1, 2, 4)], grad_fn="MaxUnpool2DBackward0"),
    OpInfo("max_unpool2d_output_size",
           lambda T, x: F(T).max_unpool2d(*F(T).max_pool2d(x, 2, return_indices=True), 2, output_size=(5, 5)),
           [S(1, 1, 5, 5)], grad_fn="MaxUnpool2DBackward0"),
    OpInfo("max_unpool3d", _unpool(3), [S(1, 1, 2, 2, 4)], grad_fn="MaxUnpool3DBackward0"),
    OpInfo("lp_pool1d", lambda T, x: F(T).lp_pool1d(x, 2, 2), [S(1, 2, 4, low=0.5, high=1.0)],
           grad_fn="PowBackward0"),
    OpInfo("lp_pool2d", lambda T, x: F(T).lp_pool2d(x, 3.0, (2, 1), stride=1), [S(1, 1, 3, 2, low=0.5, high=1.0)],
           grad_fn="PowBackward0"),
]

OPS = POOL
