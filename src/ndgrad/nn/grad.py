"""torch.nn.grad: the gradients of a convolution with respect to its input or its weight, given the
gradient of its output (what a hand-written backward of a conv layer needs). Each runs the
convolution's own backward, so the result is differentiable as torch's is."""
from ..autograd.differentiate import grad as _grad
from ..autograd.grad_mode import is_grad_enabled
from ..ops.convolution import conv1d, conv2d, conv3d
from ..ops.creation import zeros

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _backward(conv, input, weight, grad_output, wrt, stride, padding, dilation, groups):
    """d(conv(input, weight)) / d(wrt) contracted with grad_output."""
    out = conv(input, weight, None, stride, padding, dilation, groups)
    graph = is_grad_enabled() and any(t.requires_grad for t in (input, weight, grad_output))
    return _grad(out, wrt, grad_output, create_graph=graph)[0]


def _input_grad(conv):
    def input_grad(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        x = zeros(tuple(input_size), dtype=weight.dtype, requires_grad=True)
        return _backward(conv, x, weight, grad_output, x, stride, padding, dilation, groups)
    input_grad.__name__ = input_grad.__qualname__ = conv.__name__ + "_input"
    input_grad.__doc__ = f"The gradient of {conv.__name__} with respect to an input of size input_size."
    return input_grad


def _weight_grad(conv):
    def weight_grad(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        w = zeros(tuple(weight_size), dtype=input.dtype, requires_grad=True)
        return _backward(conv, input, w, grad_output, w, stride, padding, dilation, groups)
    weight_grad.__name__ = weight_grad.__qualname__ = conv.__name__ + "_weight"
    weight_grad.__doc__ = f"The gradient of {conv.__name__} with respect to a weight of size weight_size."
    return weight_grad


conv1d_input, conv1d_weight = _input_grad(conv1d), _weight_grad(conv1d)
conv2d_input, conv2d_weight = _input_grad(conv2d), _weight_grad(conv2d)
conv3d_input, conv3d_weight = _input_grad(conv3d), _weight_grad(conv3d)
