"""The torch namespace around autograd that programs touch first: the device preamble
(torch.cuda, torch.backends, torch.accelerator, torch.device), process-wide settings, testing
helpers, dtype info, print options, the benchmark Timer and the legacy tensor types; compared with
torch where it is installed."""
import math
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, err, same_error


# ---- devices ---------------------------------------------------------------------------------
def test_device_preamble_matches_a_cpu_only_torch():
    def scenario(T):
        device = "cuda" if T.cuda.is_available() else "cpu"
        T.cuda.manual_seed(1)
        T.cuda.manual_seed_all(1)
        T.cuda.empty_cache()
        return [device, T.cuda.device_count(), T.cuda.is_initialized(), T.cuda.memory_allocated(),
                T.backends.cudnn.enabled, T.backends.cudnn.benchmark, T.backends.cudnn.deterministic,
                T.backends.cudnn.is_available(), T.backends.mps.is_available(), T.backends.mps.is_built(),
                T.backends.cuda.matmul.allow_tf32, T.accelerator.is_available(),
                T.accelerator.current_accelerator(), T.accelerator.device_count(), repr(T.get_default_device()),
                err(T.cuda.synchronize), err(T.cuda.current_device), err(T.cuda.get_device_name)]
    out = both(scenario)
    assert out[0] == "cpu" and out[-1] == ["AssertionError", "Torch not compiled with CUDA enabled"]


def test_cuda_seeding_leaves_the_cpu_generator_alone():
    ndgrad.manual_seed(3)
    expected = ndgrad.rand(3)
    ndgrad.manual_seed(3)
    ndgrad.cuda.manual_seed_all(99)
    assert ndgrad.equal(ndgrad.rand(3), expected)


def test_cudnn_flags_are_settings():
    old = ndgrad.backends.cudnn.benchmark
    try:
        ndgrad.backends.cudnn.benchmark = True
        assert ndgrad.backends.cudnn.benchmark is True
    finally:
        ndgrad.backends.cudnn.benchmark = old


def test_default_device():
    def scenario(T):
        T.set_default_device("cpu")
        T.set_default_device(None)
        return repr(T.get_default_device())
    assert both(scenario) == "device(type='cpu')"
    with pytest.raises(NotImplementedError, match="CPU backend"):
        ndgrad.set_default_device("cuda")


@pytest.mark.parametrize("spec", [("cuda",), ("cuda", 1), ("cuda:1",), ("mps",), ("meta",), ("cpu", 0),
                                  ("cpu:0",)])
def test_device_objects_match_torch(spec):
    def scenario(T):
        d = T.device(*spec)
        return [repr(d), str(d), d.type, d.index, d == T.device(str(d)), d == str(d), hash(d) == hash(T.device(str(d)))]
    both(scenario)


@pytest.mark.parametrize("spec", [("foo",), ("cuda:x",), ("cuda:-1",), ("cpu:0:1",), ("cuda:01",), ("CPU",),
                                  ("cpu", -1), ("cpu:1", 1), (0,)])
def test_device_errors_match_torch(spec):
    same_error(lambda T: T.device(*spec), RuntimeError)


# ---- process-wide settings -------------------------------------------------------------------
def test_threads_and_determinism_settings():
    def scenario(T):
        threads = T.get_num_threads()
        T.set_num_threads(3)
        got = T.get_num_threads()
        T.set_num_threads(threads)
        modes = []
        for mode, warn_only in [(True, False), (True, True), (False, False)]:
            T.use_deterministic_algorithms(mode, warn_only=warn_only)
            modes.append([T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled(),
                          T.get_deterministic_debug_mode()])
        T.set_deterministic_debug_mode("error")
        modes.append(T.get_deterministic_debug_mode())
        T.set_deterministic_debug_mode(0)
        return [got, modes, err(lambda: T.set_num_threads(0)), err(lambda: T.set_num_threads("a")),
                err(lambda: T.use_deterministic_algorithms(1)), err(lambda: T.set_deterministic_debug_mode("x")),
                err(lambda: T.set_deterministic_debug_mode(5)), T.are_deterministic_algorithms_enabled()]
    out = both(scenario)
    assert out[0] == 3 and out[1] == [[True, False, 2], [True, True, 1], [False, False, 0], 2]
