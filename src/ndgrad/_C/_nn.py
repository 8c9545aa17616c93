"""ndgrad._C._nn: torch._C._nn, the bindings of torch's nn ATen ops (`torch._C._nn.linear`, `gelu`, `pad`...).

Each name is ndgrad's function of that name where it takes the binding's arguments (those of
nn.functional, some with a trailing `inplace` the binding lacks). Absent: the bindings whose arguments
differ from the functional form (the losses take `reduction` as an enum number, `elu` a scale, the
max pools return the indices always) and the ones ndgrad does not have.
"""
from ..nn.functional import (adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool2d, avg_pool3d, gelu, glu,  # noqa: F401
                             hardsigmoid, hardswish, hardtanh, hardtanh_, leaky_relu, leaky_relu_, linear, mish, one_hot,
                             pad, relu6, scaled_dot_product_attention, silu, softplus, softshrink)
from ..ops.creation import _test_warn_in_autograd  # noqa: F401

__all__ = ["_test_warn_in_autograd", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "avg_pool2d", "avg_pool3d", "gelu",
           "glu", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "linear", "mish",
           "one_hot", "pad", "relu6", "scaled_dot_product_attention", "silu", "softplus", "softshrink"]
