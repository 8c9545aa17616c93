"""Pointwise ops: arithmetic with broadcasting and Python scalars, math functions."""
import numpy as np

from .._dispatch import op


# ---- arithmetic ---------------------------------------------------------------------------
@op("add.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def add(input, other, *, alpha=1):
    return np.add(input, other if alpha == 1 else np.multiply(other, alpha))


@op("mul.Tensor", method=True, inplace=True, promote="same", operands=(0, 1))
def mul(input, other):
    return np.multiply(input, other)


@op("neg", method=True, inplace=True)
def neg(input):
    return np.negative(input)


# ---- math ---------------------------------------------------------------------------------
@op("exp", method=True, inplace=True, promote="float")
def exp(input):
    return np.exp(input)
