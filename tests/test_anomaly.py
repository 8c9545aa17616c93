"""Anomaly mode: the flags, the forward traceback kept on each node while enabled, the warning
that shows it when a node fails in backward, parents in double backward, and the NaN check.

Scenarios run on ndgrad and (where installed) torch and must agree.
"""
import warnings

import pytest

from parity import LIBS, both

import ndgrad

pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")


def caught(fn):
    """(result or exception, [UserWarning messages, without torch's C++ location suffix]) of fn()."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 - compared across libraries
            result = [type(e).__name__, str(e)]
    return result, [str(w.message).split(" (Triggered internally at ")[0] for w in ws
                    if issubclass(w.category, UserWarning)]


def flags(T):
    where = T.autograd if T is ndgrad else T    # torch has them at the top level only
    return [where.is_anomaly_enabled(), where.is_anomaly_check_nan_enabled()]


@pytest.fixture(autouse=True)
def anomaly_off_afterwards():
    yield
    for T in LIBS:
        T.autograd.set_detect_anomaly(False)


def test_flags_in_every_form():
    def s(T):
        out = [flags(T)]
        with T.autograd.detect_anomaly():
            out.append(flags(T))
            with T.autograd.detect_anomaly(check_nan=False):
                out.append(flags(T))
            out.append(flags(T))
        out.append(flags(T))
        T.autograd.set_detect_anomaly(True, check_nan=False)
        out.append(flags(T))
        T.autograd.set_detect_anomaly(False)
        out.append(flags(T))
        with T.autograd.set_detect_anomaly(True):
            out.append(flags(T))
        out.append(flags(T))
        try:
            with T.autograd.detect_anomaly():
                raise KeyError
        except KeyError:
            out.append(flags(T))
        return out
    assert both(s) == [[False, True], [True, True], [True, False], [True, True], [False, True], [True, False],
                       [False, True], [True, True], [False, True], [False, True]]


def test_enabling_warns_that_it_is_slow():
    def s(T):
        return caught(lambda: T.autograd.detect_anomaly())[1]
    assert both(s) == ["Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                       "enabled for debugging."]


def test_nodes_keep_the_forward_stack_only_when_enabled():
    def s(T):
        x = T.ones(2, requires_grad=True)
        plain = x.sqrt()
        with T.autograd.detect_anomaly():
            y = x.sqrt()  # the recorded line
        stack = y.grad_fn.metadata["traceback_"]
        return [plain.grad_fn.metadata, sorted(y.grad_fn.metadata), __file__ in stack[-1],
                stack[-1].strip().endswith("y = x.sqrt()  # the recorded line")]
    assert both(s) == [{}, ["traceback_"], True, True]


def test_nan_in_backward_raises_naming_the_node():
    def s(T):
        x = T.tensor([0.0, 1.0], requires_grad=True)
        with T.autograd.detect_anomaly():
            z = x.sqrt() * 0.0
            result, warns = caught(lambda: z.sum().backward())
        with T.autograd.detect_anomaly(check_nan=False):
            w = x.sqrt() * 0.0
            w.sum().backward()
        header = "Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n"
        return [result, warns[0].startswith(header), "z = x.sqrt() * 0.0" in warns[0], x.grad]
    r = both(s)
    assert r[0] == ["RuntimeError", "Function 'SqrtBackward0' returned nan values in its 0th output."]
    assert r[1:3] == [True, True]


def test_nan_in_the_given_gradient_is_reported_at_the_first_node():
    def s(T):
        x = T.ones(2, requires_grad=True)
        with T.autograd.detect_anomaly():
            y = x * 2
            return caught(lambda: y.backward(T.tensor([float("nan"), 1.0])))[0]
    assert both(s) == ["RuntimeError", "Function 'MulBackward0' returned nan values in its 0th output."]


def test_failing_node_shows_its_forward_traceback_and_the_error_propagates():
    def s(T):
        class Boom(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")
        x = T.ones(2, requires_grad=True)
        before = Boom.apply(x)
        with T.autograd.detect_anomaly():
            after = Boom.apply(x)  # forward of the failing node
            r1 = caught(lambda: before.sum().backward())
            r2 = caught(lambda: after.sum().backward())
        return [r1[0], r1[1][0], r2[0], r2[1][0].startswith("Error detected in BoomBackward. Traceback of forward call "
                                                            "that caused the error:\n"),
                "after = Boom.apply(x)  # forward of the failing node" in r2[1][0]]
    r = both(s)
    assert r[0] == r[2] == ["ValueError", "boom"]
    assert r[1].startswith("Error detected in BoomBackward. No forward pass information available. Enable detect "
                           "anomaly during forward pass for more information.")
    assert r[3:] == [True, True]


def test_double_backward_nodes_know_their_parent():
    def s(T):
        x = T.tensor([0.0, 1.0], requires_grad=True)
        with T.autograd.detect_anomaly():
            y = x.sqrt()
            g, = T.autograd.grad(y.sum(), x, create_graph=True)  # creates the nodes of the second pass
            meta = g.grad_fn.metadata
            h = g * 0.0
            result, warns = caught(lambda: h.sum().backward())
        return [meta["parent_"] is y.grad_fn, "g, = T.autograd.grad(" in meta["traceback_"][-1 if T is ndgrad else -3],
                result,
                len(warns), warns[1].startswith("\n\nPrevious calculation was induced by SqrtBackward0. Traceback of "
                                                "forward call that induced the previous calculation:\n")]
    r = both(s)
    assert r[:2] == [True, True] and r[3:] == [2, True]
    assert r[2] == ["RuntimeError", "Function 'DivBackward0' returned nan values in its 1th output."]


def test_no_check_and_no_record_when_disabled():
    x = ndgrad.tensor([0.0, 1.0], requires_grad=True)
    z = x.sqrt() * 0.0
    z.sum().backward()
    assert z.grad_fn._extra is None and x.sqrt().grad_fn._extra is None


def test_detect_anomaly_as_decorator():
    # an ndgrad extra: torch 2.13's detect_anomaly is only a context manager
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        @ndgrad.autograd.detect_anomaly(check_nan=False)
        def f():
            return flags(ndgrad)
    assert f() == [True, False]
    assert flags(ndgrad) == [False, True]
