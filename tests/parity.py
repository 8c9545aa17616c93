"""Running one scenario on ndgrad and on torch: the shared harness of the parity tests.

A scenario is a function of the library `T` (ndgrad or torch), written once against the torch
API. `both()` returns ndgrad's result, which the test checks against its own expectations, and
compares it with torch's where torch is installed. A test whose only check is that agreement calls
`parity()` instead: without torch it is skipped, never passed without checking anything.
"""
import warnings

import numpy as np
import pytest

import ndgrad

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

LIBS = [ndgrad] + ([torch] if torch is not None else [])


def plain(x):
    """Tensors to NumPy arrays (lists and tuples to lists), anything else as it is."""
    if hasattr(x, "detach"):
        return np.asarray(x.detach().numpy())
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def lists(x):
    """both()'s plain results as Python values (arrays, also inside lists, to nested lists), so that a
    whole result compares with == against literals."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, list):
        return [lists(v) for v in x]
    return x


def assert_same(a, b, rtol=1e-7, atol=1e-12):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y, rtol, atol)
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    else:
        assert a == b


def both(scenario, rtol=1e-7, atol=1e-12):
    """Run scenario(T) on ndgrad (and torch): the results must agree; returns ndgrad's, plain."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = plain(scenario(ndgrad))
        if torch is not None:
            assert_same(ours, plain(scenario(torch)), rtol, atol)
    return ours


def parity(scenario, rtol=1e-7, atol=1e-12):
    """both() for a test whose only check is agreement with torch: skipped where torch is absent."""
    if torch is None:
        pytest.skip("torch is not installed: this test only compares ndgrad with torch")
    return both(scenario, rtol, atol)


def same_error(call, exc=RuntimeError):
    """call(T) raises the same exception type and message in ndgrad and torch; returns the message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as ours:
            call(ndgrad)
        if torch is not None:
            with pytest.raises(exc) as theirs:
                call(torch)
            assert str(ours.value) == str(theirs.value)
    return str(ours.value)


def leaf(T, values=(0.5, -1.0, 2.0)):
    """A float64 leaf tensor that requires grad, in library T."""
    return T.tensor(list(values), dtype=T.float64, requires_grad=True)


def err(fn):
    """[exception type, message] raised by fn() (None if it returns): scenarios compare exceptions."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the scenario compares exceptions across libraries
        return [type(e).__name__, str(e)]
    return None
