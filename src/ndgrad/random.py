"""torch.random: seeding and the state of the default generator (ndgrad/_random.py), and fork_rng."""
import contextlib

from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, device_type="cuda"):
    """Run the block with the default generator's state saved, and restore it after: random draws
    inside do not change the sequence outside. ndgrad has only the CPU generator, so `devices`
    (accelerator devices whose generators torch forks too) has nothing to fork."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
