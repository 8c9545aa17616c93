"""Docstrings of the math ops of the `ndgrad` namespace: the objects defined in ndgrad/ops/pointwise.py,
reduction.py and special.py.
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
    "abs": r"""The absolute value of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: ``|input|``, of the same shape and dtype.

Example::

    >>> torch.abs(torch.tensor([-1.5, 0.0, 2.0]))
    tensor([1.5000, 0.0000, 2.0000])
""",
    "acos": r"""The inverse cosine of each element of `input`, in radians (NaN outside [-1, 1]).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the angles, in [0, pi].

Example::

    >>> torch.acos(torch.tensor([1.0, 0.0, -1.0]))
    tensor([0.0000, 1.5708, 3.1416])
""",
    "acosh": r"""The inverse hyperbolic cosine of each element of `input` (NaN below 1).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, non-negative.

Example::

    >>> torch.acosh(torch.tensor([1.0, 2.0]))
    tensor([0.0000, 1.3170])
""",
    "add": r"""Adds `other`, scaled by `alpha`, to `input`: ``input + alpha * other``.

The operands broadcast together and their dtypes are promoted as in torch.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the operand to add.
    alpha (Number, optional): the factor applied to `other` (default 1).

Returns:
    Tensor: the sum.

Example::

    >>> torch.add(torch.tensor([1.0, 2.0]), 1)
    tensor([2., 3.])
    >>> torch.add(torch.tensor([1, 2]), torch.tensor([10, 20]), alpha=2)
    tensor([21, 42])
""",
    "addcdiv": r"""Adds the quotient ``tensor1 / tensor2``, scaled by `value`, to `input`.

Args:
    input (Tensor): the tensor to add to.
    tensor1 (Tensor): the numerator.
    tensor2 (Tensor): the denominator.
    value (Number, optional): the factor applied to the quotient (default 1).

Returns:
    Tensor: ``input + value * tensor1 / tensor2``, broadcast over the three.

Example::

    >>> torch.addcdiv(torch.tensor([1.0, 1.0]), torch.tensor([1.0, 3.0]), torch.tensor([2.0, 4.0]), value=2)
    tensor([2.0000, 2.5000])
""",
    "addcmul": r"""Adds the product ``tensor1 * tensor2``, scaled by `value`, to `input`.

Args:
    input (Tensor): the tensor to add to.
    tensor1 (Tensor): the first factor.
    tensor2 (Tensor): the second factor.
    value (Number, optional): the factor applied to the product (default 1).

Returns:
    Tensor: ``input + value * tensor1 * tensor2``, broadcast over the three.

Example::

    >>> torch.addcmul(torch.tensor([1.0, 1.0]), torch.tensor([1.0, 3.0]), torch.tensor([2.0, 4.0]), value=0.5)
    tensor([2., 7.])
""",
    "all": r"""Whether every element of `input` is true (non-zero), over all elements or along `dim`.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: a bool tensor.

Example::

    >>> b = torch.tensor([[True, False], [True, True]])
    >>> torch.all(b)
    tensor(False)
    >>> torch.all(b, dim=1)
    tensor([False,  True])
""",
    "allclose": r"""Whether `input` and `other` are close everywhere: ``|input - other| <= atol + rtol * |other|``
for every element.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor (broadcast with `input`).
    rtol (float, optional): the relative tolerance.
    atol (float, optional): the absolute tolerance.
    equal_nan (bool, optional): whether two NaNs count as equal.

Returns:
    bool: a Python bool.

Example::

    >>> torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.000001]))
    True
    >>> torch.allclose(torch.tensor([1.0]), torch.tensor([1.1]))
    False
""",
    "amax": r"""The largest values of `input` along `dim` (all dimensions by default).

Unlike ``max(input, dim)``, it returns no indices, takes several dimensions, and shares the
gradient evenly between equal maximal elements.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when empty.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: the maxima.

Example::

    >>> m = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
    >>> torch.amax(m, dim=1)
    tensor([5., 6.])
    >>> torch.amax(m)
    tensor(6.)
""",
    "amin": r"""The smallest values of `input` along `dim` (all dimensions by default).

Unlike ``min(input, dim)``, it returns no indices, takes several dimensions, and shares the
gradient evenly between equal minimal elements.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when empty.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: the minima.

Example::

    >>> m = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
    >>> torch.amin(m, dim=0)
    tensor([1., 3., 2.])
""",
    "aminmax": r"""The minimum and the maximum of `input` in one call, over all elements or along `dim`.

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimension is kept with size 1.

Returns:
    (Tensor, Tensor): the named tuple ``(min, max)``.

Example::

    >>> m = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
    >>> torch.aminmax(m).max
    tensor(6.)
    >>> torch.aminmax(m, dim=1).min
    tensor([1., 3.])
""",
    "angle": r"""The angle (argument) of each element of `input`, in radians.

For real input it is 0 where the element is non-negative and pi where it is negative.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the angles, in (-pi, pi].

Example::

    >>> torch.angle(torch.tensor([-2.0, 0.0, 3.0]))
    tensor([3.1416, 0.0000, 0.0000])
""",
    "any": r"""Whether some element of `input` is true (non-zero), over all elements or along `dim`.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: a bool tensor.

Example::

    >>> b = torch.tensor([[False, False], [True, False]])
    >>> torch.any(b)
    tensor(True)
    >>> torch.any(b, dim=0)
    tensor([ True, False])
""",
    "argmax": r"""The index of the largest element of `input` (the first one on ties), over the flattened
tensor or along `dim`.

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to reduce; when omitted, the index is into the flattened input.
    keepdim (bool, optional): whether the reduced dimension is kept with size 1.

Returns:
    Tensor: int64 indices.

Example::

    >>> m = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
    >>> torch.argmax(m)
    tensor(5)
    >>> torch.argmax(m, dim=1)
    tensor([1, 2])
""",
    "argmin": r"""The index of the smallest element of `input` (the first one on ties), over the flattened
tensor or along `dim`.

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to reduce; when omitted, the index is into the flattened input.
    keepdim (bool, optional): whether the reduced dimension is kept with size 1.

Returns:
    Tensor: int64 indices.

Example::

    >>> m = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
    >>> torch.argmin(m, dim=0, keepdim=True)
    tensor([[0, 1, 0]])
""",
    "argsort": r"""The indices that sort `input` along `dim`.

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to sort along (default: the last).
    descending (bool, optional): whether to sort from largest to smallest.
    stable (bool, optional): whether equal elements keep their order.

Returns:
    Tensor: int64 indices, of the shape of `input`.

Example::

    >>> torch.argsort(torch.tensor([3.0, 1.0, 2.0]))
    tensor([1, 2, 0])
    >>> torch.argsort(torch.tensor([3.0, 1.0, 2.0]), descending=True)
    tensor([0, 2, 1])
""",
    "asin": r"""The inverse sine of each element of `input`, in radians (NaN outside [-1, 1]).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the angles, in [-pi/2, pi/2].

Example::

    >>> torch.asin(torch.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  1.5708, -1.5708])
""",
    "asinh": r"""The inverse hyperbolic sine of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.asinh(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8814])
""",
    "atan": r"""The inverse tangent of each element of `input`, in radians.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the angles, in (-pi/2, pi/2).

Example::

    >>> torch.atan(torch.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  0.7854, -0.7854])
""",
    "atan2": r"""The angle of the point (`other`, `input`), that is the inverse tangent of ``input / other``
in the right quadrant, in radians.

Args:
    input (Tensor): the y coordinates.
    other (Tensor): the x coordinates (broadcast with `input`).

Returns:
    Tensor: the angles, in [-pi, pi].

Example::

    >>> torch.atan2(torch.tensor([1.0, 1.0, -1.0]), torch.tensor([1.0, -1.0, -1.0]))
    tensor([ 0.7854,  2.3562, -2.3562])
""",
    "atanh": r"""The inverse hyperbolic tangent of each element of `input` (infinite at -1 and 1, NaN
outside).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.atanh(torch.tensor([0.0, 0.5]))
    tensor([0.0000, 0.5493])
""",
    "bincount": r"""Counts how often each value occurs in a 1-D tensor of non-negative integers.

Args:
    input (Tensor): the values, a 1-D integer tensor.
    weights (Tensor, optional): a weight per element of `input`, summed instead of counting 1.
    minlength (int, optional): the least length of the result.

Returns:
    Tensor: a tensor of length ``max(input.max() + 1, minlength)``, whose element ``i`` is the count
    (or the summed weight) of the value ``i``.

Example::

    >>> torch.bincount(torch.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    >>> torch.bincount(torch.tensor([0, 1, 1]), weights=torch.tensor([0.5, 1.0, 2.0]), minlength=4)
    tensor([0.5000, 3.0000, 0.0000, 0.0000])
""",
    "bitwise_and": r"""The bitwise AND of integer or bool tensors (logical AND for bools).

Args:
    input (Tensor): the first operand.
    other (Tensor or int): the second operand, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.bitwise_and(torch.tensor([12, 10]), torch.tensor([10, 6]))
    tensor([8, 2])
""",
    "bitwise_left_shift": r"""Shifts the bits of each element of `input` left by `other` places.

Args:
    input (Tensor): an integer tensor.
    other (Tensor or int): the shift, broadcast with `input`.

Returns:
    Tensor: the result, ``input * 2 ** other`` within the dtype.

Example::

    >>> torch.bitwise_left_shift(torch.tensor([1, 3]), 2)
    tensor([ 4, 12])
""",
    "bitwise_not": r"""The bitwise NOT of an integer or bool tensor (logical NOT for bools).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result; for signed integers ``-input - 1``.

Example::

    >>> torch.bitwise_not(torch.tensor([0, 5]))
    tensor([-1, -6])
""",
    "bitwise_or": r"""The bitwise OR of integer or bool tensors (logical OR for bools).

Args:
    input (Tensor): the first operand.
    other (Tensor or int): the second operand, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.bitwise_or(torch.tensor([12, 10]), torch.tensor([10, 6]))
    tensor([14, 14])
""",
    "bitwise_right_shift": r"""Shifts the bits of each element of `input` right by `other` places (arithmetic shift
for signed integers).

Args:
    input (Tensor): an integer tensor.
    other (Tensor or int): the shift, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.bitwise_right_shift(torch.tensor([8, 7]), 1)
    tensor([4, 3])
""",
    "bitwise_xor": r"""The bitwise exclusive OR of integer or bool tensors.

Args:
    input (Tensor): the first operand.
    other (Tensor or int): the second operand, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.bitwise_xor(torch.tensor([12, 10]), torch.tensor([10, 6]))
    tensor([ 6, 12])
""",
    "ceil": r"""Rounds each element of `input` up to the nearest integer (the result keeps the dtype).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the smallest integers not less than the elements.

Example::

    >>> torch.ceil(torch.tensor([-1.5, 0.2, 2.0]))
    tensor([-1.,  1.,  2.])
""",
    "clamp_max": r"""Limits each element of `input` from above: ``min(input, max)``.

Args:
    input (Tensor): the input.
    max (Tensor or Number): the upper bound.

Returns:
    Tensor: the clamped tensor.

Example::

    >>> torch.clamp_max(torch.tensor([1.0, 5.0, 3.0]), 2)
    tensor([1., 2., 2.])
""",
    "clamp_min": r"""Limits each element of `input` from below: ``max(input, min)``.

Args:
    input (Tensor): the input.
    min (Tensor or Number): the lower bound.

Returns:
    Tensor: the clamped tensor.

Example::

    >>> torch.clamp_min(torch.tensor([1.0, 5.0, 3.0]), 2)
    tensor([2., 5., 3.])
""",
    "conj_physical": r"""The complex conjugate of each element of `input`, computed now (not a lazy conjugate
view as :func:`ndgrad.conj` may give); for real input, a copy of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the conjugate.

Example::

    >>> torch.conj_physical(torch.tensor([1.0, -2.0]))
    tensor([ 1., -2.])
""",
    "cos": r"""The cosine of each element of `input` (in radians).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the cosines.

Example::

    >>> torch.cos(torch.tensor([0.0, 3.1415927 / 3]))
    tensor([1.0000, 0.5000])
""",
    "cosh": r"""The hyperbolic cosine of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, at least 1.

Example::

    >>> torch.cosh(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 1.5431])
""",
    "count_nonzero": r"""The number of non-zero elements of `input`, in total or along `dim`.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to count along; all of them when omitted.

Returns:
    Tensor: int64 counts.

Example::

    >>> x = torch.tensor([[0, 1, 2], [0, 0, 3]])
    >>> torch.count_nonzero(x)
    tensor(3)
    >>> torch.count_nonzero(x, dim=1)
    tensor([2, 1])
""",
    "cummax": r"""The running maximum of `input` along `dim`, with the index where each running maximum
was found.

Args:
    input (Tensor): the input.
    dim (int): the dimension to scan.

Returns:
    (Tensor, Tensor): the named tuple ``(values, indices)``.

Example::

    >>> values, indices = torch.cummax(torch.tensor([1.0, 3.0, 2.0, 5.0]), 0)
    >>> values
    tensor([1., 3., 3., 5.])
    >>> indices
    tensor([0, 1, 1, 3])
""",
    "cummin": r"""The running minimum of `input` along `dim`, with the index where each running minimum
was found.

Args:
    input (Tensor): the input.
    dim (int): the dimension to scan.

Returns:
    (Tensor, Tensor): the named tuple ``(values, indices)``.

Example::

    >>> values, indices = torch.cummin(torch.tensor([4.0, 2.0, 3.0, 1.0]), 0)
    >>> values
    tensor([4., 2., 2., 1.])
    >>> indices
    tensor([0, 1, 1, 3])
""",
    "cumprod": r"""The cumulative product of `input` along `dim`: element ``i`` is the product of elements
``0..i``.

Args:
    input (Tensor): the input.
    dim (int): the dimension to scan.
    dtype (dtype, optional): the dtype `input` is cast to first.

Returns:
    Tensor: the running products, of the shape of `input`.

Example::

    >>> torch.cumprod(torch.tensor([1.0, 3.0, 2.0, 5.0]), 0)
    tensor([ 1.,  3.,  6., 30.])
""",
    "cumsum": r"""The cumulative sum of `input` along `dim`: element ``i`` is the sum of elements ``0..i``.

Args:
    input (Tensor): the input.
    dim (int): the dimension to scan.
    dtype (dtype, optional): the dtype `input` is cast to first (integer input sums as int64 by default).

Returns:
    Tensor: the running sums, of the shape of `input`.

Example::

    >>> torch.cumsum(torch.tensor([1.0, 3.0, 2.0, 5.0]), 0)
    tensor([ 1.,  4.,  6., 11.])
    >>> torch.cumsum(torch.tensor([1, 2, 3]), 0)
    tensor([1, 3, 6])
""",
    "deg2rad": r"""Converts each element of `input` from degrees to radians.

Args:
    input (Tensor): angles in degrees.

Returns:
    Tensor: the angles in radians.

Example::

    >>> torch.deg2rad(torch.tensor([180.0, 90.0]))
    tensor([3.1416, 1.5708])
""",
    "digamma": r"""The digamma function: the derivative of the logarithm of the gamma function, of each
element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.digamma(torch.tensor([1.0, 2.0]))
    tensor([-0.5772,  0.4228])
""",
    "div": r"""div(input, other, *, rounding_mode=None) -> Tensor

Divides `input` by `other` elementwise.

Without a `rounding_mode` the division is true division: integer operands give a float result.

Args:
    input (Tensor): the dividend.
    other (Tensor or Number): the divisor, broadcast with `input`.
    rounding_mode (str, optional): ``None`` for true division, ``"trunc"`` to round the quotient
        towards zero, ``"floor"`` to round it down.

Returns:
    Tensor: the quotient.

Example::

    >>> torch.div(torch.tensor([5, 3]), 2)
    tensor([2.5000, 1.5000])
    >>> torch.div(torch.tensor([5.0, -3.0]), 2, rounding_mode="floor")
    tensor([ 2., -2.])
    >>> torch.div(torch.tensor([5.0, -3.0]), 2, rounding_mode="trunc")
    tensor([ 2., -1.])
""",
    "eq": r"""Whether each element of `input` equals the matching element of `other`.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.eq(torch.tensor([1, 2, 3]), torch.tensor([1, 0, 3]))
    tensor([ True, False,  True])
""",
    "erf": r"""The error function of each element of `input`: ``2 / sqrt(pi)`` times the integral of
``exp(-t**2)`` from 0 to the element.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, in [-1, 1].

Example::

    >>> torch.erf(torch.tensor([0.0, 1.0, -2.0]))
    tensor([ 0.0000,  0.8427, -0.9953])
""",
    "erfc": r"""The complementary error function of each element of `input`: ``1 - erf(input)``,
computed without losing precision for large inputs.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, in [0, 2].

Example::

    >>> torch.erfc(torch.tensor([0.0, 1.0, -2.0]))
    tensor([1.0000, 0.1573, 1.9953])
""",
    "erfinv": r"""The inverse of the error function, for each element of `input` in [-1, 1].

Args:
    input (Tensor): the input.

Returns:
    Tensor: ``y`` such that ``erf(y)`` is the element (infinite at -1 and 1, NaN outside).

Example::

    >>> torch.erfinv(torch.tensor([0.0, 0.5, 1.0]))
    tensor([0.0000, 0.4769,    inf])
""",
    "exp": r"""The exponential ``e ** x`` of each element `x` of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.exp(torch.tensor([0.0, 1.0, -1.0]))
    tensor([1.0000, 2.7183, 0.3679])
""",
    "exp2": r"""The base-2 exponential ``2 ** x`` of each element `x` of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.exp2(torch.tensor([0.0, 3.0, -1.0]))
    tensor([1.0000, 8.0000, 0.5000])
""",
    "expm1": r"""``exp(x) - 1`` for each element `x` of `input`, accurate for `x` near zero.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.expm1(torch.tensor([0.0, 1e-5]))
    tensor([0.0000e+00, 1.0000e-05])
""",
    "floor": r"""Rounds each element of `input` down to the nearest integer (the result keeps the dtype).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the largest integers not greater than the elements.

Example::

    >>> torch.floor(torch.tensor([-1.5, 0.2, 2.0]))
    tensor([-2.,  0.,  2.])
""",
    "floor_divide": r"""Divides `input` by `other` and rounds the quotient down, as Python's ``//``.

Args:
    input (Tensor): the dividend.
    other (Tensor or Number): the divisor, broadcast with `input`.

Returns:
    Tensor: the rounded quotient, in the promoted dtype of the operands.

Example::

    >>> torch.floor_divide(torch.tensor([7, -7]), 2)
    tensor([ 3, -4])
""",
    "fmax": r"""The elementwise maximum of `input` and `other`, where a NaN loses to a number (the result
is NaN only where both are NaN).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the maxima.

Example::

    >>> nan = float("nan")
    >>> torch.fmax(torch.tensor([1.0, nan, 3.0]), torch.tensor([2.0, 0.5, nan]))
    tensor([2.0000, 0.5000, 3.0000])
""",
    "fmin": r"""The elementwise minimum of `input` and `other`, where a NaN loses to a number (the result
is NaN only where both are NaN).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the minima.

Example::

    >>> nan = float("nan")
    >>> torch.fmin(torch.tensor([1.0, nan, 3.0]), torch.tensor([2.0, 0.5, nan]))
    tensor([1.0000, 0.5000, 3.0000])
""",
    "frac": r"""The fractional part of each element of `input`: ``input - trunc(input)``, with the sign of
the element.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the fractional parts.

Example::

    >>> torch.frac(torch.tensor([1.25, -2.5]))
    tensor([ 0.2500, -0.5000])
""",
    "gcd": r"""The greatest common divisor of the matching elements of two integer tensors (non-negative;
``gcd(0, 0)`` is 0).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the divisors.

Example::

    >>> torch.gcd(torch.tensor([12, 0, -9]), torch.tensor([18, 5, 6]))
    tensor([6, 5, 3])
""",
    "ge": r"""Whether each element of `input` is greater than or equal to the matching element of `other`.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.ge(torch.tensor([1, 2, 3]), 2)
    tensor([False,  True,  True])
""",
    "gt": r"""Whether each element of `input` is greater than the matching element of `other`.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.gt(torch.tensor([1, 2, 3]), torch.tensor([2, 2, 2]))
    tensor([False, False,  True])
""",
    "histc": r"""A histogram of `input`: the number of elements in each of `bins` equal-width bins between
`min` and `max`.

Elements outside [`min`, `max`] are not counted; when `min` and `max` are both 0, the smallest and
largest elements are used.

Args:
    input (Tensor): the values (a floating-point tensor).
    bins (int, optional): the number of bins.
    min (Number, optional): the lower end of the range.
    max (Number, optional): the upper end of the range (the last bin includes it).

Returns:
    Tensor: the counts, of the dtype of `input`.

Example::

    >>> torch.histc(torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=4)
    tensor([0., 2., 1., 1.])
""",
    "hypot": r"""The hypotenuse ``sqrt(input**2 + other**2)`` of each pair of elements.

Args:
    input (Tensor): the first side.
    other (Tensor): the second side, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.hypot(torch.tensor([3.0, 5.0]), torch.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
""",
    "i0": r"""The modified Bessel function of the first kind of order zero, of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, at least 1.

Example::

    >>> torch.i0(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 1.2661])
""",
    "igamma": r"""The regularized lower incomplete gamma function ``P(input, other)``: the integral of
``t**(input - 1) * exp(-t)`` from 0 to `other`, divided by ``gamma(input)``.

Args:
    input (Tensor): the shape parameters (positive).
    other (Tensor): the upper limits of integration (non-negative), broadcast with `input`.

Returns:
    Tensor: the result, in [0, 1].

Example::

    >>> torch.igamma(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
    tensor([0.6321, 0.2642])
""",
    "igammac": r"""The regularized upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``
(see :func:`ndgrad.igamma`).

Args:
    input (Tensor): the shape parameters (positive).
    other (Tensor): the lower limits of integration (non-negative), broadcast with `input`.

Returns:
    Tensor: the result, in [0, 1].

Example::

    >>> torch.igammac(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
    tensor([0.3679, 0.7358])
""",
    "imag": r"""The imaginary part of a complex tensor, as a real view that shares its memory.

Args:
    input (Tensor): a complex tensor (a real one raises an error).

Returns:
    Tensor: the imaginary parts.

Example::

    >>> torch.imag(torch.tensor([1 + 2j, -3j]))
    tensor([ 2., -3.])
""",
    "is_conj": r"""Whether `input` is a lazily conjugated view (the conjugate bit is set), as made by
:func:`ndgrad.conj` on a complex tensor.

Args:
    input (Tensor): the input.

Returns:
    bool: a Python bool.

Example::

    >>> z = torch.tensor([1 + 2j])
    >>> torch.is_conj(z), torch.is_conj(z.conj())
    (False, True)
""",
    "is_neg": r"""Whether `input` is a lazily negated view (the negative bit is set).

Args:
    input (Tensor): the input.

Returns:
    bool: a Python bool.

Example::

    >>> torch.is_neg(torch.tensor([1.0]))
    False
""",
    "isfinite": r"""Whether each element of `input` is finite (neither infinite nor NaN).

Args:
    input (Tensor): the input.

Returns:
    Tensor: a bool tensor (all true for integer input).

Example::

    >>> torch.isfinite(torch.tensor([1.0, float("inf"), float("-inf"), float("nan")]))
    tensor([ True, False, False, False])
""",
    "isinf": r"""Whether each element of `input` is positive or negative infinity.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.isinf(torch.tensor([1.0, float("inf"), float("-inf"), float("nan")]))
    tensor([False,  True,  True, False])
""",
    "isnan": r"""Whether each element of `input` is NaN.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.isnan(torch.tensor([1.0, float("inf"), float("nan")]))
    tensor([False, False,  True])
""",
    "isneginf": r"""Whether each element of `input` is negative infinity.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.isneginf(torch.tensor([1.0, float("inf"), float("-inf")]))
    tensor([False, False,  True])
""",
    "isposinf": r"""Whether each element of `input` is positive infinity.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.isposinf(torch.tensor([1.0, float("inf"), float("-inf")]))
    tensor([False,  True, False])
""",
    "lcm": r"""The least common multiple of the matching elements of two integer tensors (non-negative).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the multiples.

Example::

    >>> torch.lcm(torch.tensor([4, 6]), torch.tensor([6, 10]))
    tensor([12, 30])
""",
    "le": r"""Whether each element of `input` is less than or equal to the matching element of `other`.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.le(torch.tensor([1, 2, 3]), 2)
    tensor([ True,  True, False])
""",
    "lgamma": r"""The natural logarithm of the absolute value of the gamma function, of each element of
`input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.lgamma(torch.tensor([0.5, 1.0, 5.0]))
    tensor([0.5724, 0.0000, 3.1781])
""",
    "log": r"""The natural logarithm of each element of `input` (``-inf`` at 0, NaN below).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.log(torch.tensor([1.0, 2.7182817, 0.0]))
    tensor([0., 1., -inf])
""",
    "log10": r"""The base-10 logarithm of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.log10(torch.tensor([1.0, 10.0, 2.0]))
    tensor([0.0000, 1.0000, 0.3010])
""",
    "log1p": r"""``log(1 + x)`` for each element `x` of `input`, accurate for `x` near zero.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.log1p(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.6931])
""",
    "log2": r"""The base-2 logarithm of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.log2(torch.tensor([1.0, 8.0, 0.5]))
    tensor([ 0.,  3., -1.])
""",
    "logaddexp": r"""``log(exp(input) + exp(other))``, computed without overflow for large arguments.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.logaddexp(torch.tensor([0.0, 100.0]), torch.tensor([0.0, 100.0]))
    tensor([  0.6931, 100.6931])
""",
    "logaddexp2": r"""``log2(2**input + 2**other)``, computed without overflow for large arguments.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.logaddexp2(torch.tensor([0.0, 3.0]), torch.tensor([0.0, 3.0]))
    tensor([1., 4.])
""",
    "logcumsumexp": r"""The running ``log(sum(exp(x)))`` of `input` along `dim`, computed stably.

Args:
    input (Tensor): the input.
    dim (int): the dimension to scan.

Returns:
    Tensor: the result, of the shape of `input`.

Example::

    >>> torch.logcumsumexp(torch.tensor([0.0, 0.0, 0.0]), 0)
    tensor([0.0000, 0.6931, 1.0986])
""",
    "logical_and": r"""The logical AND of each pair of elements (non-zero counts as true).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.logical_and(torch.tensor([True, False, True]), torch.tensor([True, True, False]))
    tensor([ True, False, False])
""",
    "logical_not": r"""The logical NOT of each element of `input` (non-zero counts as true).

Args:
    input (Tensor): the input.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.logical_not(torch.tensor([0, 1, 2]))
    tensor([ True, False, False])
""",
    "logical_or": r"""The logical OR of each pair of elements (non-zero counts as true).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.logical_or(torch.tensor([0, 0, 3]), torch.tensor([0, 1, 0]))
    tensor([False,  True,  True])
""",
    "logical_xor": r"""The logical exclusive OR of each pair of elements (non-zero counts as true).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.logical_xor(torch.tensor([True, False, True]), torch.tensor([True, True, False]))
    tensor([False,  True,  True])
""",
    "logsumexp": r"""``log(sum(exp(input)))`` along `dim`, computed without overflow.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints): the dimension(s) to reduce.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: the result.

Example::

    >>> torch.logsumexp(torch.tensor([[0.0, 0.0], [1000.0, 1000.0]]), dim=1)
    tensor([6.9315e-01, 1.0007e+03])
""",
    "lt": r"""Whether each element of `input` is less than the matching element of `other`.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.lt(torch.tensor([1, 2, 3]), torch.tensor([2, 2, 2]))
    tensor([ True, False, False])
""",
    "maximum": r"""The elementwise maximum of `input` and `other` (NaN where either is NaN; see
:func:`ndgrad.fmax` to ignore NaNs).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the maxima.

Example::

    >>> torch.maximum(torch.tensor([1.0, 5.0, 3.0]), torch.tensor([4.0, 2.0, 3.0]))
    tensor([4., 5., 3.])
""",
    "mean": r"""mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

The arithmetic mean of `input`, over all elements or along `dim`.

Args:
    input (Tensor): a floating-point or complex tensor (or give a `dtype`).
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.
    dtype (dtype, optional): the dtype `input` is cast to first.

Returns:
    Tensor: the means.

Example::

    >>> m = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> torch.mean(m)
    tensor(3.)
    >>> torch.mean(m, dim=0)
    tensor([2., 4.])
    >>> torch.mean(m, 1, keepdim=True)
    tensor([[1.5000],
            [4.5000]])
""",
    "minimum": r"""The elementwise minimum of `input` and `other` (NaN where either is NaN; see
:func:`ndgrad.fmin` to ignore NaNs).

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand, broadcast with `input`.

Returns:
    Tensor: the minima.

Example::

    >>> torch.minimum(torch.tensor([1.0, 5.0, 3.0]), torch.tensor([4.0, 2.0, 3.0]))
    tensor([1., 2., 3.])
""",
    "msort": r"""Sorts `input` along its first dimension, in ascending order.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the sorted values (the same as ``torch.sort(input, dim=0).values``).

Example::

    >>> torch.msort(torch.tensor([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]]))
    tensor([[1., 0.],
            [2., 1.],
            [3., 2.]])
""",
    "mul": r"""Multiplies `input` by `other` elementwise.

Args:
    input (Tensor): the first factor.
    other (Tensor or Number): the second factor, broadcast with `input`.

Returns:
    Tensor: the product, in the promoted dtype.

Example::

    >>> torch.mul(torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]))
    tensor([ 4, 10, 18])
    >>> torch.mul(torch.tensor([1.0, 2.0]), 0.5)
    tensor([0.5000, 1.0000])
""",
    "nan_to_num": r"""Replaces the NaN, positive infinite and negative infinite elements of `input` by finite
numbers.

Args:
    input (Tensor): the input.
    nan (Number, optional): the value for NaN (default 0).
    posinf (Number, optional): the value for ``inf`` (default: the dtype's largest number).
    neginf (Number, optional): the value for ``-inf`` (default: the dtype's lowest number).

Returns:
    Tensor: the result.

Example::

    >>> x = torch.tensor([float("nan"), float("inf"), float("-inf"), 1.0])
    >>> torch.nan_to_num(x, posinf=10.0, neginf=-10.0)
    tensor([  0.,  10., -10.,   1.])
""",
    "nanmean": r"""The mean of the elements of `input` that are not NaN, over all elements or along `dim`.

Args:
    input (Tensor): a floating-point tensor.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.
    dtype (dtype, optional): the dtype `input` is cast to first.

Returns:
    Tensor: the means (NaN where every element is NaN).

Example::

    >>> x = torch.tensor([[1.0, float("nan")], [3.0, 4.0]])
    >>> torch.nanmean(x)
    tensor(2.6667)
    >>> torch.nanmean(x, dim=1)
    tensor([1.0000, 3.5000])
""",
    "nanquantile": r"""The `q`-th quantiles of `input`, like :func:`ndgrad.quantile` but ignoring NaNs.

Args:
    input (Tensor): a floating-point tensor.
    q (float or Tensor): the quantile(s), in [0, 1].
    dim (int, optional): the dimension to reduce; the flattened input when omitted.
    keepdim (bool, optional): whether the reduced dimension is kept with size 1.
    interpolation (str, optional): ``"linear"``, ``"lower"``, ``"higher"``, ``"midpoint"`` or ``"nearest"``.

Returns:
    Tensor: the quantiles (NaN where every element is NaN).

Example::

    >>> torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0, 2.0]), 0.5)
    tensor(2.)
""",
    "nansum": r"""The sum of `input`, counting NaN elements as zero.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.
    dtype (dtype, optional): the dtype `input` is cast to first.

Returns:
    Tensor: the sums.

Example::

    >>> x = torch.tensor([[1.0, float("nan")], [3.0, 4.0]])
    >>> torch.nansum(x)
    tensor(8.)
    >>> torch.nansum(x, dim=0)
    tensor([4., 4.])
""",
    "ne": r"""Whether each element of `input` differs from the matching element of `other`.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the second operand, broadcast with `input`.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.ne(torch.tensor([1, 2, 3]), 2)
    tensor([ True, False,  True])
""",
    "neg": r"""The negation ``-input`` of each element.

Args:
    input (Tensor): the input (not bool).

Returns:
    Tensor: the result.

Example::

    >>> torch.neg(torch.tensor([1.0, -2.0]))
    tensor([-1.,  2.])
""",
    "nextafter": r"""The next floating-point number after each element of `input`, in the direction of the
matching element of `other`.

Args:
    input (Tensor): the starting points.
    other (Tensor): the directions, broadcast with `input`.

Returns:
    Tensor: the neighbours.

Example::

    >>> torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0])) == 1 + torch.finfo(torch.float32).eps
    tensor([True])
""",
    "polygamma": r"""The `n`-th derivative of the digamma function, of each element of `input`.

Args:
    n (int): the order of the derivative (0 gives digamma).
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.polygamma(1, torch.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
""",
    "positive": r"""Returns `input` itself (unary plus); bool tensors raise an error.

Args:
    input (Tensor): the input.

Returns:
    Tensor: `input`.

Example::

    >>> torch.positive(torch.tensor([1.0, -2.0]))
    tensor([ 1., -2.])
""",
    "pow": r"""Raises each element of `input` to the power `exponent`.

Either operand may be a Python number (``torch.pow(2, t)``); tensors broadcast together.

Args:
    input (Tensor or Number): the base.
    exponent (Tensor or Number): the exponent.

Returns:
    Tensor: ``input ** exponent``, in the promoted dtype.

Example::

    >>> torch.pow(torch.tensor([1.0, 2.0, 3.0]), 2)
    tensor([1., 4., 9.])
    >>> torch.pow(2, torch.tensor([0.0, 1.0, 3.0]))
    tensor([1., 2., 8.])
    >>> torch.pow(torch.tensor([4.0, 9.0]), torch.tensor([0.5, 2.0]))
    tensor([ 2., 81.])
""",
    "prod": r"""prod(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

The product of the elements of `input`, over all of them or along one dimension.

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimension is kept with size 1.
    dtype (dtype, optional): the dtype `input` is cast to first (integer input multiplies as int64
        by default).

Returns:
    Tensor: the products.

Example::

    >>> m = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> torch.prod(m)
    tensor(36.)
    >>> torch.prod(m, 1)
    tensor([ 2., 18.])
""",
    "quantile": r"""The `q`-th quantiles of `input`, over the flattened input or along `dim`; a quantile that
falls between two elements is interpolated as `interpolation` says.

Args:
    input (Tensor): a floating-point tensor.
    q (float or Tensor): the quantile(s), in [0, 1]; a 1-D tensor of them adds a first dimension to
        the result.
    dim (int, optional): the dimension to reduce; the flattened input when omitted.
    keepdim (bool, optional): whether the reduced dimension is kept with size 1.
    interpolation (str, optional): ``"linear"``, ``"lower"``, ``"higher"``, ``"midpoint"`` or ``"nearest"``.

Returns:
    Tensor: the quantiles (NaN if the input has a NaN).

Example::

    >>> x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    >>> torch.quantile(x, 0.5)
    tensor(2.5000)
    >>> torch.quantile(x, torch.tensor([0.25, 0.75]))
    tensor([1.7500, 3.2500])
    >>> torch.quantile(x, 0.5, interpolation="lower")
    tensor(2.)
""",
    "rad2deg": r"""Converts each element of `input` from radians to degrees.

Args:
    input (Tensor): angles in radians.

Returns:
    Tensor: the angles in degrees.

Example::

    >>> torch.rad2deg(torch.tensor([3.1415927, 1.0]))
    tensor([180.0000,  57.2958])
""",
    "reciprocal": r"""The reciprocal ``1 / input`` of each element (integer input gives a float result).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result (``inf`` at 0).

Example::

    >>> torch.reciprocal(torch.tensor([2.0, -0.5, 0.0]))
    tensor([ 0.5000, -2.0000,     inf])
""",
    "resolve_conj": r"""Applies a pending lazy conjugation: a tensor with the conjugate bit set gives a new
tensor holding the conjugated values, any other tensor is returned as it is.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a tensor whose :func:`ndgrad.is_conj` is False.

Example::

    >>> z = torch.tensor([1 + 2j]).conj()
    >>> torch.is_conj(torch.resolve_conj(z))
    False
""",
    "resolve_neg": r"""Applies a pending lazy negation: a tensor with the negative bit set gives a new tensor
holding the negated values, any other tensor is returned as it is.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a tensor whose :func:`ndgrad.is_neg` is False.

Example::

    >>> torch.resolve_neg(torch.tensor([1.0]))
    tensor([1.])
""",
    "rsqrt": r"""The reciprocal of the square root, ``1 / sqrt(x)``, of each element `x` of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result (``inf`` at 0, NaN below).

Example::

    >>> torch.rsqrt(torch.tensor([4.0, 0.25, 0.0]))
    tensor([0.5000, 2.0000,    inf])
""",
    "sigmoid": r"""The logistic sigmoid ``1 / (1 + exp(-x))`` of each element `x` of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, in (0, 1).

Example::

    >>> torch.sigmoid(torch.tensor([0.0, 2.0, -2.0]))
    tensor([0.5000, 0.8808, 0.1192])
""",
    "sign": r"""The sign of each element of `input`: -1, 0 or 1 (of the input's dtype).

Args:
    input (Tensor): a real tensor.

Returns:
    Tensor: the signs.

Example::

    >>> torch.sign(torch.tensor([-3.0, 0.0, 2.5]))
    tensor([-1.,  0.,  1.])
""",
    "signbit": r"""Whether the sign bit of each element of `input` is set (true for ``-0.0`` too).

Args:
    input (Tensor): a real tensor.

Returns:
    Tensor: a bool tensor.

Example::

    >>> torch.signbit(torch.tensor([-3.0, 0.0, -0.0, 2.5]))
    tensor([ True, False,  True, False])
""",
    "sin": r"""The sine of each element of `input` (in radians).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the sines.

Example::

    >>> torch.sin(torch.tensor([0.0, 3.1415927 / 2]))
    tensor([0., 1.])
""",
    "sinc": r"""The normalized sinc function ``sin(pi * x) / (pi * x)`` of each element `x` of `input`
(1 at 0).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.sinc(torch.tensor([0.0, 0.5]))
    tensor([1.0000, 0.6366])
""",
    "sinh": r"""The hyperbolic sine of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.sinh(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 1.1752])
""",
    "sqrt": r"""The square root of each element of `input` (NaN for negative elements).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.sqrt(torch.tensor([4.0, 2.0, -1.0]))
    tensor([2.0000, 1.4142,    nan])
""",
    "square": r"""The square ``input * input`` of each element.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, of the dtype of `input` (bool input gives int64).

Example::

    >>> torch.square(torch.tensor([-2.0, 3.0]))
    tensor([4., 9.])
""",
    "std": r"""std(input, dim=None, *, correction=1, keepdim=False) -> Tensor

The standard deviation of `input`, over all elements or along `dim`.

The sum of squared deviations is divided by ``N - correction``: 1 gives the unbiased (sample) estimate,
0 the population one. The older spelling ``std(input, dim, unbiased=True, keepdim=False)`` is also
accepted (``unbiased=False`` is ``correction=0``).

Args:
    input (Tensor): a floating-point tensor.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    correction (Number, optional): the difference between the number of elements and the divisor.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: the standard deviations.

Example::

    >>> s = torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
    >>> torch.std(s, dim=1)
    tensor([1.2910, 0.0000])
    >>> torch.std(s, dim=1, correction=0)
    tensor([1.1180, 0.0000])
""",
    "std_mean": r"""std_mean(input, dim=None, *, correction=1, keepdim=False) -> (Tensor, Tensor)

The standard deviation and the mean of `input` in one call; the arguments are those of
:func:`ndgrad.std`.

Args:
    input (Tensor): a floating-point tensor.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    correction (Number, optional): the difference between the number of elements and the divisor.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    (Tensor, Tensor): the standard deviations and the means.

Example::

    >>> torch.std_mean(torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]]), dim=1)
    (tensor([1.2910, 0.0000]), tensor([2.5000, 2.0000]))
""",
    "sub": r"""Subtracts `other`, scaled by `alpha`, from `input`: ``input - alpha * other``.

Args:
    input (Tensor): the first operand.
    other (Tensor or Number): the operand to subtract, broadcast with `input`.
    alpha (Number, optional): the factor applied to `other` (default 1).

Returns:
    Tensor: the difference.

Example::

    >>> torch.sub(torch.tensor([5.0, 3.0]), torch.tensor([1.0, 1.0]), alpha=2)
    tensor([3., 1.])
    >>> torch.sub(torch.tensor([5, 3]), 1)
    tensor([4, 2])
""",
    "sum": r"""sum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

The sum of the elements of `input`, over all of them or along `dim`.

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.
    dtype (dtype, optional): the dtype `input` is cast to first (integer and bool input sum as int64
        by default).

Returns:
    Tensor: the sums.

Example::

    >>> m = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> torch.sum(m)
    tensor(12.)
    >>> torch.sum(m, dim=0)
    tensor([4., 8.])
    >>> torch.sum(m, 1, keepdim=True)
    tensor([[3.],
            [9.]])
""",
    "tan": r"""The tangent of each element of `input` (in radians).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the tangents.

Example::

    >>> torch.tan(torch.tensor([0.0, 3.1415927 / 4]))
    tensor([0., 1.])
""",
    "tanh": r"""The hyperbolic tangent of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, in [-1, 1].

Example::

    >>> torch.tanh(torch.tensor([0.0, 1.0, -100.0]))
    tensor([ 0.0000,  0.7616, -1.0000])
""",
    "trapz": r"""Integrates `y` along `dim` by the trapezoidal rule, the samples being at the points `x`, or `dx`
apart (1 by default). Another name of :func:`ndgrad.trapezoid`.

Args:
    y (Tensor): the values of the function.
    x (Tensor, optional): the sample points; give either `x` or `dx`.
    dx (float, optional): the spacing of evenly spaced samples.
    dim (int, optional): the dimension to integrate along (default: the last).

Returns:
    Tensor: the integrals, with `dim` removed.

Example::

    >>> y = torch.tensor([1.0, 2.0, 3.0])
    >>> torch.trapz(y)
    tensor(4.)
    >>> torch.trapz(y, torch.tensor([0.0, 1.0, 3.0]))
    tensor(6.5000)
    >>> torch.trapz(y, dx=0.5)
    tensor(2.)
""",
    "true_divide": r"""true_divide(input, other) -> Tensor

True division of `input` by `other`, elementwise: :func:`ndgrad.div` without its `rounding_mode`
(which this name does not take). Integer operands give a float result.

Args:
    input (Tensor): the dividend.
    other (Tensor or Number): the divisor, broadcast with `input`.

Returns:
    Tensor: the quotient.

Example::

    >>> torch.true_divide(torch.tensor([5, 3]), 2)
    tensor([2.5000, 1.5000])
""",
    "trunc": r"""Rounds each element of `input` towards zero, to an integer (the result keeps the dtype).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the integer parts.

Example::

    >>> torch.trunc(torch.tensor([-1.7, 0.5, 2.0]))
    tensor([-1.,  0.,  2.])
""",
    "var": r"""var(input, dim=None, *, correction=1, keepdim=False) -> Tensor

The variance of `input`, over all elements or along `dim`.

The sum of squared deviations is divided by ``N - correction``: 1 gives the unbiased (sample) estimate,
0 the population one. The older spelling ``var(input, dim, unbiased=True, keepdim=False)`` is also
accepted (``unbiased=False`` is ``correction=0``).

Args:
    input (Tensor): a floating-point tensor.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    correction (Number, optional): the difference between the number of elements and the divisor.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    Tensor: the variances.

Example::

    >>> s = torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
    >>> torch.var(s, dim=1)
    tensor([1.6667, 0.0000])
    >>> torch.var(s, dim=1, unbiased=False)
    tensor([1.2500, 0.0000])
""",
    "var_mean": r"""var_mean(input, dim=None, *, correction=1, keepdim=False) -> (Tensor, Tensor)

The variance and the mean of `input` in one call; the arguments are those of :func:`ndgrad.var`.

Args:
    input (Tensor): a floating-point tensor.
    dim (int or tuple of ints, optional): the dimension(s) to reduce; all of them when omitted.
    correction (Number, optional): the difference between the number of elements and the divisor.
    keepdim (bool, optional): whether the reduced dimensions are kept with size 1.

Returns:
    (Tensor, Tensor): the variances and the means.

Example::

    >>> torch.var_mean(torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]]), dim=1)
    (tensor([1.6667, 0.0000]), tensor([2.5000, 2.0000]))
""",
    "zero_": r"""zero_(input) -> Tensor

Fills `input` with zeros, in place.

Args:
    input (Tensor): the tensor to overwrite.

Returns:
    Tensor: `input`.

Example::

    >>> x = torch.tensor([1.0, 2.0])
    >>> torch.zero_(x)
    tensor([0., 0.])
""",
    "fill_": r"""fill_(input, value) -> Tensor

Fills `input` with `value`, in place.

Args:
    input (Tensor): the tensor to overwrite.
    value (Number or Tensor): the value (a tensor must be 0-dimensional).

Returns:
    Tensor: `input`.

Example::

    >>> x = torch.zeros(3)
    >>> torch.fill_(x, 2.5)
    tensor([2.5000, 2.5000, 2.5000])
""",
}

# Other names of the functions above: documented by reference.
_ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "divide": "div", "fix": "trunc", "greater": "gt",
    "greater_equal": "ge", "less": "lt", "less_equal": "le", "multiply": "mul", "negative": "neg",
    "not_equal": "ne", "subtract": "sub",
}
for _name, _of in _ALIASES.items():
    DOCS[_name] = f"""Alias for :func:`ndgrad.{_of}`.\n"""

# The in-place forms `f_(input, ...)`. Most have f's Python signature; those taking `*args` get a
# signature line, from the arguments of `f` after `input`.
_INPLACE = ("abs acos acosh asin asinh atan atanh ceil conj_physical cos cosh deg2rad erf erfc exp exp2 expm1 floor "
            "frac log log10 log1p log2 nan_to_num neg rad2deg reciprocal rsqrt sigmoid sin sinc sinh sqrt square tan "
            "tanh trunc").split()
_INPLACE_ARGS = {"clamp": ", min=None, max=None", "clamp_max": ", max", "clamp_min": ", min",
                 "round": ", *, decimals=0", "xlogy": ", other"}
_INPLACE_ALIASES = {"arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh", "arctan": "atan",
                    "arctanh": "atanh", "clip": "clamp", "fix": "trunc", "negative": "neg"}
for _name, _of in [(n, n) for n in _INPLACE + list(_INPLACE_ARGS)] + list(_INPLACE_ALIASES.items()):
    _signature = f"{_name}_(input{_INPLACE_ARGS[_of]}) -> Tensor\n\n" if _of in _INPLACE_ARGS else ""
    DOCS[_name + "_"] = (f"{_signature}In-place version of :func:`ndgrad.{_of}`: writes the result into `input` "
                         "and returns it.\n")
