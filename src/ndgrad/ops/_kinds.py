"""Which ops' CPU kernels torch compiles for no integer, bool or complex dtype.

torch's activation, loss, normalization, pooling and resampling kernels are floating-point only (some
also take integers): given another dtype they raise a NotImplementedError naming the kernel, `"elu_cpu"
not implemented for 'Long'`, where NumPy would compute (an integer GELU in float64, a complex mean
squared error). `op()` (_registry.py) passes the forward of each op named here through `checked`, which
refuses an input of those dtype kinds first; the other ops' forwards are left as they are.
"""
import functools

import numpy as np

from .._dtype import type_word

_INTS = "biu"   # bool, signed and unsigned integers
_ALL = "biuc"   # ... and complex

# op -> (the dtype kinds its kernel refuses, the kernel torch's error names)
REFUSED = {
    "gelu": (_ALL, "GeluKernelImpl"), "silu": (_INTS, "silu_cpu"), "mish": (_ALL, "mish_cpu"),
    "elu": (_ALL, "elu_cpu"), "celu": (_ALL, "elu_cpu"), "leaky_relu": (_ALL, "leaky_relu_cpu"),
    "rrelu_with_noise": (_ALL, "leaky_relu_cpu"), "softplus": (_ALL, "softplus_cpu"),
    "hardswish": (_ALL, "hardswish_cpu"), "hardsigmoid": (_ALL, "hardsigmoid_cpu"),
    "log_sigmoid": (_ALL, "log_sigmoid_cpu"), "glu": (_ALL, "glu_cpu"), "threshold": ("bc", "threshold_cpu"),
    "hardshrink": (_ALL, "hardshrink_cpu"), "softshrink": (_ALL, "softshrink_check"),
    "_prelu_kernel": (_INTS, "prelu_cpu"),
    "mse_loss": ("c", "mse_cpu"), "smooth_l1_loss": (_ALL, "smooth_l1_cpu"), "huber_loss": (_ALL, "huber_cpu"),
    "binary_cross_entropy": ("c", "binary_cross_entropy"),
    "binary_cross_entropy_with_logits": (_ALL, "log_sigmoid_cpu"),
    "native_layer_norm": ("c", "LayerNormKernelImpl"), "native_group_norm": ("c", "GroupNormKernelImpl"),
    "native_batch_norm": ("c", "batch_norm"),
    "avg_pool2d": ("bc", "avg_pool2d"), "max_pool2d_with_indices": ("bc", "max_pool2d"),
    "upsample_nearest1d": (_ALL, "compute_indices_weights_nearest"),
    "upsample_nearest2d": (_ALL, "upsample_nearest2d_channels_last"),
    "upsample_bilinear2d": (_ALL, "upsample_bilinear2d_channels_last"),
    "addcmul": ("b", "addcmul_cpu_out"), "searchsorted": ("b", "searchsorted_out_cpu"),
    "bucketize": ("b", "searchsorted_out_cpu"),
}


def checked(name, forward):
    """`forward`, refusing an input (first argument) of the kinds REFUSED lists for op `name` (itself if
    none). Its `replay` (what ndgrad.compile's tapes call: their guard fixes the dtypes the trace
    checked) is the forward's own."""
    if name not in REFUSED:
        return forward
    kinds, kernel = REFUSED[name]

    @functools.wraps(forward)
    def refusing(input, *args, **kwargs):
        if type(input) is np.ndarray and input.dtype.kind in kinds:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_word(input.dtype)}'")
        return forward(input, *args, **kwargs)
    refusing.__dict__.pop("kernel", None)   # (a kernel there would be called without the check)
    refusing.replay = getattr(forward, "replay", forward)
    return refusing
