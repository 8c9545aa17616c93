"""ndgrad's glibc malloc settings: a step's freed arrays are reused without page faults, and the user's
own MALLOC_* settings (or NDGRAD_MALLOC_TUNING=0) leave malloc alone."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not os.confstr("CS_GNU_LIBC_VERSION"),
                                reason="glibc only")

# rounds of four 8 MiB arrays made, written and freed (as a step's activations): the page faults of
# the last 10 rounds (glibc's own adjustment alone returns the freed heap at the end of each round)
_PROBE = """
import resource, numpy as np, ndgrad, ndgrad._allocator as a
def rounds(n):
    for _ in range(n):
        xs = [np.empty(1 << 21, np.float32) for _ in range(4)]
        for x in xs: x.fill(1.0)
        del xs, x
rounds(2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(10)
print(a.tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _probe(**env):
    base = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "NDGRAD_MALLOC_TUNING"}
    out = subprocess.run([sys.executable, "-c", _PROBE], env={**base, **env}, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0] == "True", int(out[1])


def test_freed_arrays_come_back_without_page_faults():
    tuned, faults = _probe()
    assert tuned and faults < 500


@pytest.mark.parametrize("env", [{"NDGRAD_MALLOC_TUNING": "0"}, {"MALLOC_ARENA_MAX": "2"}])
def test_settings_are_left_alone_when_asked(env):
    tuned, faults = _probe(**env)
    assert not tuned and faults > 10_000   # (about 2,000 pages a round are faulted in again)
