"""bench/worker.py's timing protocol: a round measures steady state (one collection before it, an untimed
step first where steps are short, none before each step), and the best step of the round is reported."""
import importlib
import io
import json
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")


@pytest.fixture
def worker(monkeypatch):
    monkeypatch.syspath_prepend(BENCH)
    module = importlib.import_module("worker")
    monkeypatch.setattr(module, "SETTLE", 0.0)
    return module


def _serve(worker, monkeypatch, requests, step_seconds):
    """Runs the worker's request loop over `requests` with a fake workload whose steps take the given
    (fake) times; returns the replies, the steps' calls and where the collections fell among them."""
    events = []
    durations = iter(step_seconds)

    def factory(lib, module, **args):
        def step(mark=None):
            events.append("step")
            return {"check": 1.0, "time": next(durations)}
        return step

    monkeypatch.setitem(worker.workloads.FACTORIES, "fake", factory)
    monkeypatch.setattr(worker.gc, "collect", lambda *a: events.append("collect"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(r) + "\n" for r in requests)))
    out = io.StringIO()
    worker.serve("numpy", None, out)
    return [json.loads(line) for line in out.getvalue().splitlines()], events


def test_a_round_collects_once_then_warms_a_short_step_and_times_the_rest(worker, monkeypatch):
    replies, events = _serve(worker, monkeypatch, [
        {"op": "setup", "key": "k", "workload": "fake"},
        {"op": "time", "key": "k", "reps": 3},
    ], [0.5, 9.0, 0.4, 0.2, 0.3])
    assert [r["status"] for r in replies] == ["ok", "ok"]
    # setup: a collection and the warm-up step; the round: one collection, the untimed step, three timed
    assert events == ["collect", "step", "collect", "step", "step", "step", "step"]
    assert replies[1]["best"] == 0.2   # (the untimed step's 9.0 is not among them)


def test_a_long_step_is_not_repeated_untimed(worker, monkeypatch):
    replies, events = _serve(worker, monkeypatch, [
        {"op": "setup", "key": "k", "workload": "fake"},
        {"op": "time", "key": "k", "reps": 2},
    ], [worker.WARM_BELOW * 2, 7.0, 6.0])
    assert events == ["collect", "step", "collect", "step", "step"]
    assert replies[1]["best"] == 6.0
