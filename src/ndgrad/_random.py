"""Random number generation: Generator, the default generator and seeding.

A Generator is torch's CPU generator: a 32-bit Mersenne Twister (NumPy's MT19937 engine) seeded
with the low 32 bits of the seed, as torch's `manual_seed` does, so the same seed gives the raw
32-bit words torch's generator gives. Its state bytes are torch's (`get_state` of one generator
loads in the other), including the second value of the last Box-Muller pair, which torch keeps
for its next normal draw. The distributions (rand, randn, ...) that turn the words into torch's
numbers are in `ops/random.py`.
"""
import struct

import numpy as np

from ._tensor import CPU, Tensor

_DEFAULT_SEED = 67280421310721   # torch's default initial seed
_N = 624                         # words of the Mersenne Twister's state
# torch's CPUGeneratorImplState: seed, left, seeded, next, the state words (each in 8 bytes), the
# legacy normal_x/normal_y (the cached double normal)/normal_rho/normal_is_valid, then the cached
# float normal and its flag; 5056 bytes with the padding.
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
_STATE_SIZE = _HEAD.size + 8 * _N + _TAIL.size


def _init_words(seed32):
    """The first two words of init_genrand(seed32): a state that no draw has touched starts so."""
    return seed32, (1812433253 * (seed32 ^ (seed32 >> 30)) + 1) & 0xFFFFFFFF


class Generator:
    """A source of pseudo-random numbers, with its own seed and state; random functions take one as ``generator=``.

    Only CPU generators exist in ndgrad; they draw torch's CPU numbers (a Mersenne Twister).

    Args:
        device (torch.device, optional): the device of the generator; only ``"cpu"``. Default: ``"cpu"``.

    Example::

        >>> g = torch.Generator().manual_seed(42)
        >>> g.initial_seed()
        42
        >>> state = g.get_state()
        >>> a = torch.rand(3, generator=g)
        >>> _ = g.set_state(state)
        >>> torch.equal(a, torch.rand(3, generator=g))
        True
    """

    def __init__(self, device="cpu"):
        if str(device).split(":")[0] != "cpu":
            raise NotImplementedError(f"Generator(device={str(device)!r}): ndgrad only has the CPU backend "
                                      "wired to ops so far")
        self.device = CPU
        self._mt = np.random.MT19937()
        self._np = np.random.Generator(self._mt)   # NumPy's samplers on the same words (see `rng`)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError(f"manual_seed: seed {seed} does not fit in 64 bits")
        self._seed = seed % (1 << 64)   # negative seeds wrap to unsigned, as in torch
        self._mt._legacy_seeding(self._seed & 0xFFFFFFFF)   # init_genrand: torch keeps the low 32 bits
        self._normal64 = None   # the sine half of the last Box-Muller pair, for the next normal draw
        self._normal32 = None   # its float counterpart (torch's next_float_normal_sample)
        return self

    def seed(self):
        """Seed from OS entropy and return the seed used."""
        s = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    # ---- raw draws: torch's random() and random64()
    def _random32(self, n):
        """n 32-bit words (in a uint64 array)."""
        return self._mt.random_raw(n)

    def _random64(self, n):
        """n 64-bit words, each two 32-bit words, the first the high half (as torch's random64)."""
        words = self._mt.random_raw(2 * n).reshape(n, 2)
        return (words[:, 0] << np.uint64(32)) | words[:, 1]

    def get_state(self):
        """The generator's state as torch lays it out: a uint8 tensor of 5056 bytes, for `set_state`."""
        mt = self._mt.state["state"]
        key, pos = mt["key"], int(mt["pos"])
        # torch counts the words left (+1) and the next index; after a seed, before any draw, next is 0
        fresh = pos == _N and tuple(int(k) for k in key[:2]) == _init_words(self._seed & 0xFFFFFFFF)
        d, f = self._normal64, self._normal32
        raw = (_HEAD.pack(self._seed, _N + 1 - pos, 1, 0 if fresh else pos) + key.astype("<u8").tobytes()
               + _TAIL.pack(0.0, d or 0.0, 0.0, d is not None, f or 0.0, f is not None))
        return Tensor._make(np.frombuffer(raw, np.uint8).copy(), False, None, 0)

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor) or new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._array).tobytes()
        if len(raw) != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG "
                               f"state size to be {len(raw)}")
        seed, left, _, _ = _HEAD.unpack_from(raw)
        key = np.frombuffer(raw, "<u8", _N, _HEAD.size).astype(np.uint32)
        _, d, _, d_valid, f, f_valid = _TAIL.unpack_from(raw, _HEAD.size + 8 * _N)
        self._seed = seed
        self._mt.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N + 1 - left}}
        self._normal64 = d if d_valid else None
        self._normal32 = f if f_valid else None
        return self

    def __repr__(self):
        return f"<ndgrad.Generator object at {id(self):#x}>"


default_generator = Generator()


def manual_seed(seed: int) -> "Generator":
    """Seeds the default random generator, which every random function without ``generator=`` draws from.

    The numbers drawn after a given seed are torch's (its CPU Mersenne Twister streams).

    Args:
        seed (int): the seed.

    Returns:
        torch.Generator: the default generator.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> a = torch.rand(2)
        >>> _ = torch.manual_seed(0)
        >>> torch.equal(a, torch.rand(2))
        True
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seeds the default generator with a non-deterministic random number and returns it.

    Returns:
        int: the seed used.

    Example::

        >>> s = torch.seed()
        >>> torch.initial_seed() == s
        True
    """
    return default_generator.seed()


def initial_seed():
    """The seed of the default generator: the last one given to :func:`ndgrad.manual_seed`
    or drawn by :func:`ndgrad.seed`.

    Returns:
        int: the seed.

    Example::

        >>> _ = torch.manual_seed(7)
        >>> torch.initial_seed()
        7
    """
    return default_generator.initial_seed()


def get_rng_state():
    """The state of the default generator, to restore later with :func:`ndgrad.set_rng_state`.
    The bytes are torch's layout of its CPU generator's state (5056 bytes), so a state saved by
    torch loads here and the reverse.

    Returns:
        Tensor: a uint8 tensor.

    Example::

        >>> state = torch.get_rng_state()
        >>> a = torch.rand(2)
        >>> torch.set_rng_state(state)
        >>> torch.equal(torch.rand(2), a)
        True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator to a state from :func:`ndgrad.get_rng_state`.

    Args:
        new_state (Tensor): a uint8 tensor from :func:`ndgrad.get_rng_state`.

    Example::

        >>> state = torch.get_rng_state()
        >>> a = torch.randn(3)
        >>> torch.set_rng_state(state)
        >>> torch.equal(torch.randn(3), a)
        True
    """
    default_generator.set_state(new_state)


draw_check = None   # set while ndgrad.func.vmap runs: refuses draws in its randomness='error' mode


def generator(gen=None):
    """The Generator to draw from: `gen`, or the default one."""
    if draw_check is not None:
        draw_check()
    return gen or default_generator


def rng(gen=None):
    """A NumPy Generator drawing from the words of `gen`'s Mersenne Twister, for the samplers whose
    torch algorithm ndgrad does not reproduce (their numbers are not torch's; the stream stays ndgrad's
    own and deterministic)."""
    return generator(gen)._np
