"""torch.random: seeding and the state of the default generator (ndgrad/_random.py), and fork_rng."""
import contextlib

from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state", "thread_safe_generator"]

# utils.data's get_worker_info, set by that (upper) layer when it loads
worker_info = None


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


def thread_safe_generator():
    """The generator a DataLoader thread worker keeps for itself, to draw random numbers without sharing the
    default generator between threads; ``None`` in the main process and in process workers (the random
    functions then use the default generator).

    ndgrad's DataLoader workers are processes, so only a `WorkerInfo` that says ``worker_method="thread"``
    and carries an ``rng`` (its ``torch_generator``) gives a generator, as in torch.

    Returns:
        Generator or None

    Example::

        >>> torch.randint(0, 10, (3,), generator=torch.thread_safe_generator()).shape
        torch.Size([3])
    """
    info = worker_info() if worker_info is not None else None
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None) is not None:
        return info.rng.torch_generator
    return None
