"""Activation modules (ReLU ... Softmax, PReLU, RReLU): each calls its ndgrad.nn.functional
counterpart, with torch's arguments and repr."""
from ...ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from .utils import _factory


def _inplace_repr(inplace, prefix=""):
    return prefix + (", " if prefix and inplace else "") + ("inplace=True" if inplace else "")


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class ReLU6(ReLU):
    def forward(self, input):
        return F.relu6(input, inplace=self.inplace)


class SELU(ReLU):
    def forward(self, input):
        return F.selu(input, inplace=self.inplace)


class SiLU(ReLU):
    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"threshold={self.threshold}, value={self.value}")


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"negative_slope={self.negative_slope}")


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"alpha={self.alpha}")


class CELU(ELU):
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"min_val={self.min_val}, max_val={self.max_val}")


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    _fn = staticmethod(F.softmax)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(Softmax):
    _fn = staticmethod(F.softmin)


class LogSoftmax(Softmax):
    _fn = staticmethod(F.log_softmax)


class Hardsigmoid(ReLU):
    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(ReLU):
    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Mish(ReLU):
    def forward(self, input):
        return F.mish(input, self.inplace)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    def forward(self, input):
        return F.tanhshrink(input)


class Hardshrink(Module):
    _fn = staticmethod(F.hardshrink)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    _fn = staticmethod(F.softshrink)


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, dtype=_factory(dtype)))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"lower={self.lower}, upper={self.upper}")


__all__ = ["ReLU", "ReLU6", "SELU", "SiLU", "Threshold", "LeakyReLU", "ELU", "CELU", "GELU", "Softplus", "Hardtanh",
           "Sigmoid", "Tanh", "Softmax", "Softmin", "LogSoftmax", "Hardsigmoid", "Hardswish", "Mish", "LogSigmoid",
           "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "GLU", "Softmax2d", "PReLU", "RReLU"]
