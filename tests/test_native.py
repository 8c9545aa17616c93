"""ndgrad's settings of glibc's malloc and OpenBLAS's threads (ndgrad/_native.py): a step's freed arrays
are reused without page faults, OpenBLAS's threads spin briefly, and the user's own settings (their
environment variables, or NDGRAD_NATIVE_TUNING=0) leave both alone."""
import os
import subprocess
import sys

import pytest

from ndgrad import _native

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not os.confstr("CS_GNU_LIBC_VERSION"),
                                reason="glibc only")

# rounds of four 8 MiB arrays made, written and freed (as a step's activations): the page faults of
# the last 10 rounds (glibc's own adjustment alone returns the freed heap at the end of each round)
_PROBE = """
import sys, resource
if sys.argv[1] == "numpy-first":
    import numpy
import numpy as np, ndgrad, ndgrad._native as native
def rounds(n):
    for _ in range(n):
        xs = [np.empty(1 << 21, np.float32) for _ in range(4)]
        for x in xs: x.fill(1.0)
        del xs, x
rounds(2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(10)
blas = native._openblas()
print(native.tuned["malloc"], resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before,
      native.tuned["openblas"], blas.openblas_thread_timeout() if blas is not None else None)
"""


def _probe(order="ndgrad-first", **env):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("MALLOC_") and k not in ("NDGRAD_NATIVE_TUNING", "OPENBLAS_THREAD_TIMEOUT")}
    out = subprocess.run([sys.executable, "-c", _PROBE, order], env={**base, **env}, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0] == "True", int(out[1]), out[2] == "True", out[3]


@pytest.mark.parametrize("order", ["ndgrad-first", "numpy-first"])
def test_freed_arrays_come_back_without_page_faults_and_blas_threads_spin_briefly(order):
    malloc, faults, openblas, timeout = _probe(order)
    assert malloc and faults < 500
    if timeout != "None":   # NumPy on OpenBLAS: its threads restarted with the setting if they were running
        assert openblas and timeout == _native.BLAS_SPIN


@pytest.mark.parametrize("env", [{"NDGRAD_NATIVE_TUNING": "0"}, {"MALLOC_ARENA_MAX": "2", "OPENBLAS_THREAD_TIMEOUT": "25"}])
def test_settings_are_left_alone_when_asked(env):
    malloc, faults, openblas, timeout = _probe(**env)
    assert not malloc and faults > 10_000   # (about 2,000 pages a round are faulted in again)
    assert not openblas and timeout in ("None", env.get("OPENBLAS_THREAD_TIMEOUT", "0"))
