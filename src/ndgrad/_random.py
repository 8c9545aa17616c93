"""Random number generation: Generator, the default generator and seeding.

A Generator wraps a NumPy PCG64 bit generator. The same seed gives the same numbers in ndgrad on
every machine, but not the numbers torch draws (its Mersenne-Twister streams are not reproduced).
The random factories and in-place fills that draw from a Generator are in `ops/random.py`.
"""
import json

import numpy as np

from ._tensor import CPU, Tensor

_DEFAULT_SEED = 67280421310721   # torch's default initial seed


class Generator:
    """A source of pseudo-random numbers, with its own seed and state; random functions take one as ``generator=``.

    Only CPU generators exist in ndgrad, and their numbers are not torch's.

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
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError(f"manual_seed: seed {seed} does not fit in 64 bits")
        self._seed = seed % (1 << 64)   # negative seeds wrap to unsigned, as in torch
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Seed from OS entropy and return the seed used."""
        s = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The generator's state (seed and bit-generator state as JSON) in a uint8 tensor, for `set_state`."""
        state = np.frombuffer(json.dumps([self._seed, self._rng.bit_generator.state]).encode(), np.uint8).copy()
        return Tensor._make(state, False, None, 0)

    def set_state(self, new_state):
        self._seed, state = json.loads(new_state.numpy().tobytes())
        self._rng.bit_generator.state = state
        return self

    def __repr__(self):
        return f"<ndgrad.Generator object at {id(self):#x}>"


default_generator = Generator()


def manual_seed(seed: int) -> "Generator":
    """Seeds the default random generator, which every random function without ``generator=`` draws from.

    The numbers ndgrad draws after a given seed are its own (NumPy's), not torch's.

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
    The bytes are ndgrad's own (NumPy's generator), not torch's Mersenne Twister state.

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


def rng(generator=None):
    """The NumPy generator to draw from."""
    if draw_check is not None:
        draw_check()
    return (generator or default_generator)._rng
