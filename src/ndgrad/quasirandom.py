"""ndgrad.quasirandom (torch.quasirandom): Sobol' low-discrepancy sequences.

The points are torch's to the bit: the direction numbers are Joe and Kuo's (taken from SciPy, which
ships the same table), the sequence runs in Gray-code order from a shift, and scrambling draws its
shift and lower-triangular matrices from a generator seeded as torch seeds it (a linear matrix scramble
of each direction number, with the bits read most significant first, then a digital shift).
"""
import numpy as np

from . import _dtype
from ._random import Generator
from ._tensor import Tensor
from .ops.creation import tensor as _tensor
from .ops.random import randint

__all__ = ["SobolEngine"]


def _direction_numbers(dimension, bits):
    from scipy.stats import qmc   # lazy: SciPy's qmc is a second to import and few programs use Sobol'
    return qmc.Sobol(dimension, scramble=False, bits=bits)._sv.astype(np.int64)


def _lowest_zero_bit(m):
    """For each m >= 0, the index of its lowest zero bit (the Gray-code step from point m to m + 1)."""
    m = np.asarray(m, dtype=np.int64)
    return np.log2((m + 1) & ~m).astype(np.int64)


class SobolEngine:
    """Draws points of a (scrambled) Sobol' sequence in ``[0, 1)^dimension``.

    Args:
        dimension (int): the dimension of the points (1 to 21201).
        scramble (bool): scramble the sequence (randomized QMC). Default: ``False``.
        seed (int, optional): the seed of the scrambling's generator.

    Example::

        >>> engine = torch.quasirandom.SobolEngine(2)
        >>> engine.draw(4)
        tensor([[0.0000, 0.0000],
                [0.5000, 0.5000],
                [0.7500, 0.2500],
                [0.2500, 0.7500]])
    """
    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]")
        self.seed, self.scramble, self.dimension = seed, scramble, dimension
        state = _direction_numbers(dimension, self.MAXBIT)
        shift = np.zeros(dimension, dtype=np.int64)
        if scramble:
            state, shift = self._scrambled(state)
        self.sobolstate = _tensor(state)
        self.shift = _tensor(shift)
        self.quasi = self.shift.clone()
        # as torch: the first point is divided out once, here, in the default dtype of this moment (so a
        # float64 draw repeats it at that precision)
        self._first_point = (shift * (1.0 / (1 << self.MAXBIT))).astype(_dtype.get_default_dtype().np)[None]
        self.num_generated = 0

    def _scrambled(self, state):
        g = Generator()
        if self.seed is not None:
            g.manual_seed(self.seed)
        else:
            g.seed()
        bits = self.MAXBIT
        shift_bits = randint(2, (self.dimension, bits), generator=g).numpy()
        shift = shift_bits @ (np.int64(1) << np.arange(bits, dtype=np.int64))
        ltm = np.tril(randint(2, (self.dimension, bits, bits), generator=g).numpy())
        ltm[:, np.arange(bits), np.arange(bits)] = 1
        # each direction number's bits, most significant first, times its dimension's matrix (mod 2)
        order = np.arange(bits - 1, -1, -1, dtype=np.int64)
        state_bits = (state[:, :, None] >> order) & 1                     # (dim, number, bit)
        scrambled = np.einsum("dij,dkj->dki", ltm, state_bits) & 1
        return (scrambled << order).sum(-1), shift

    def _points(self, n):
        """The next n points as integers (advancing the engine)."""
        state, quasi = self.sobolstate._array, self.quasi._array
        if self.num_generated == 0:   # the first point is the shift itself; the Gray-code steps follow
            if n <= 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n - 1}: "
                                   f"[{n - 1}, {self.dimension}]")
            steps = _lowest_zero_bit(np.arange(0, n - 1))
            points = np.concatenate([quasi[None], quasi ^ np.bitwise_xor.accumulate(state[:, steps].T, axis=0)])
        else:
            steps = _lowest_zero_bit(np.arange(self.num_generated - 1, self.num_generated - 1 + n))
            points = quasi ^ np.bitwise_xor.accumulate(state[:, steps].T, axis=0).reshape(n, self.dimension)
        if n:
            self.quasi = _tensor(points[-1].copy())
        self.num_generated += n
        return points

    def draw(self, n=1, out=None, dtype=None):
        """The next `n` points, an (n, dimension) tensor of `dtype` (default: the default dtype), or written
        into `out`."""
        first = self.num_generated == 0
        points = self._points(n)
        np_dtype = (dtype or _dtype.get_default_dtype()).np
        values = (points * (1.0 / (1 << self.MAXBIT))).astype(np_dtype)
        if first:
            values[0] = self._first_point[0]
        result = _tensor(values)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next ``2 ** m`` points; the total drawn must stay a power of 2 (the sequence's balance)."""
        n = 2 ** m
        total = self.num_generated + n
        if total & (total - 1):
            raise ValueError("The balance properties of Sobol' points require n to be a power of 2. "
                             f"{self.num_generated} points have been previously generated, then: "
                             f"n={self.num_generated}+2**{m}={total}. If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n, out=out, dtype=dtype)

    def reset(self):
        """Back to the first point."""
        self.quasi = self.shift.clone()
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip the next `n` points."""
        if n > 0:
            start = self.num_generated - 1 if self.num_generated else 0
            count = n if self.num_generated else n - 1
            steps = _lowest_zero_bit(np.arange(start, start + count))
            if count:
                self.quasi = _tensor(self.quasi._array ^ np.bitwise_xor.reduce(self.sobolstate._array[:, steps], axis=1))
            self.num_generated += n
        return self

    def __repr__(self):
        parts = [f"dimension={self.dimension}"] + (["scramble=True"] if self.scramble else []) + \
            ([f"seed={self.seed}"] if self.seed is not None else [])
        return f"{type(self).__name__}({', '.join(parts)})"
