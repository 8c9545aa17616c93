import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# parity.py's helpers assert on the test's behalf: rewrite its asserts too, so that they reach the
# assertion-pass hook below and count as the test's checks (must run before parity is imported).
pytest.register_assert_rewrite("parity")

import numpy as np  # noqa: E402 - after the registration above, as pytest requires

import ndgrad.testing  # noqa: E402

# --- no test passes having checked nothing --------------------------------------------------------
# Counted per test: passing `assert` statements (pytest_assertion_pass, enabled by
# enable_assertion_pass_hook in pyproject.toml), in the test and in rewritten helpers (parity.py),
# plus calls of the checking helpers wrapped below. A passing test that counted none fails.
# ZERO_CHECKS_REPORT_ONLY: list such tests (warning summary + ZERO_CHECKS_FILE) instead of failing.
ZERO_CHECKS_REPORT_ONLY = False
ZERO_CHECKS_FILE = "zero-check-tests.txt"
_checks = {"current": None, "count": 0}


def _count_check():
    if _checks["current"] is not None:
        _checks["count"] += 1


def _counting(fn):
    def wrapper(*args, **kwargs):
        _count_check()
        return fn(*args, **kwargs)
    wrapper.__wrapped__ = fn
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


# Wrapped at conftest import, before the test modules import them (`from pytest import raises` too).
# A call counts when made: each of these fails the test itself when its check does not hold.
for _mod, _names in [(pytest, ["raises", "warns", "approx", "deprecated_call"]),
                     (np.testing, [n for n in dir(np.testing) if n.startswith("assert_")]),
                     (ndgrad.testing, ["assert_close"])]:
    for _name in _names:
        if callable(getattr(_mod, _name, None)):
            setattr(_mod, _name, _counting(getattr(_mod, _name)))


def pytest_assertion_pass(item, lineno, orig, expl):
    _count_check()


def _uses_pass_hook(module):
    """False when the module's asserts were rewritten without the pass hook: a cached rewritten .pyc
    from before enable_assertion_pass_hook (its asserts would silently count nothing)."""
    objs = list(vars(module).values())
    objs += [m for c in objs if isinstance(c, type) for m in vars(c).values()]   # test classes' methods
    codes, names = [f.__code__ for f in objs if hasattr(f, "__code__")], set()
    while codes:
        co = codes.pop()
        names.update(co.co_names)
        codes.extend(c for c in co.co_consts if hasattr(c, "co_names"))
    return "_format_explanation" not in names or "_check_if_assertion_pass_impl" in names


def pytest_collection_modifyitems(config, items):
    stale = sorted({item.module.__file__ for item in items
                    if isinstance(item, pytest.Function) and not _uses_pass_hook(item.module)})
    if stale:
        raise pytest.UsageError(
            "rewritten .pyc files from before the assertion-pass hook was enabled (their asserts would not "
            f"be counted): delete the __pycache__ folders under tests/ and rerun. Stale: {stale[:5]}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _checks["current"], _checks["count"] = item.nodeid, 0
    try:
        yield
    finally:
        _checks["current"] = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call" or not report.passed or hasattr(report, "wasxfail"):
        return
    if not isinstance(item, pytest.Function) or _checks["count"]:
        return
    message = (f"{item.nodeid} passed without checking anything: no passing assert, pytest.raises/warns/"
               "approx, np.testing.assert_* or parity helper ran. State what the behaviour must be.")
    report.user_properties.append(("zero_checks", item.nodeid))
    if not ZERO_CHECKS_REPORT_ONLY:
        report.outcome, report.longrepr = "failed", message


_zero_check_tests = []


def pytest_runtest_logreport(report):
    # runs on the xdist controller too, where the workers' reports arrive with their user_properties
    _zero_check_tests.extend(v for k, v in report.user_properties if k == "zero_checks")


def pytest_terminal_summary(terminalreporter, config):
    if not _zero_check_tests or hasattr(config, "workerinput"):
        return
    path = os.path.join(str(config.rootpath), ZERO_CHECKS_FILE)
    with open(path, "w") as f:
        f.write("".join(f"{n}\n" for n in sorted(set(_zero_check_tests))))
    terminalreporter.write_sep("=", "tests that passed without checking anything", yellow=True)
    terminalreporter.write_line(f"{len(set(_zero_check_tests))} tests counted no check; listed in {path}")
