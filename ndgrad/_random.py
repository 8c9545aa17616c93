"""Random number generation: Generator, manual_seed and the default generator."""
import numpy as np


class Generator:
    """A seedable source of random numbers (wraps a NumPy Generator)."""

    def __init__(self, device="cpu"):
        self.device = device
        self._seed = 67280421310721
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from .ops.creation import tensor
        import pickle
        return tensor(list(pickle.dumps(self._rng.bit_generator.state)), dtype=None).to(__import__("ndgrad").uint8)

    def set_state(self, state):
        import pickle
        self._rng.bit_generator.state = pickle.loads(bytes(state.tolist()))
        return self


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def rng(generator=None):
    return (generator or default_generator)._rng
