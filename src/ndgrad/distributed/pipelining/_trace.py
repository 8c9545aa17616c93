"""Per-rank timelines of a pipeline step (F/I/W/B, send, recv), Chrome traces, bubble fractions."""
import contextlib
import json
import time

__all__ = ["Timeline", "bubble_fraction", "export_chrome_trace"]

_THREADS = {"compute": 0, "send": 1, "recv": 2}


class Timeline:
    """Events of one rank: (name, category, start, end, args), times in seconds."""

    def __init__(self, rank):
        self.rank = rank
        self.events = []

    def clear(self):
        self.events = []

    def add(self, name, category, start, end, **args):
        self.events.append((name, category, start, end, args))

    @contextlib.contextmanager
    def record(self, name, category, **args):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.events.append((name, category, start, time.perf_counter(), args))

    def busy(self, category="compute"):
        return sum(end - start for _, cat, start, end, _ in self.events if cat == category)

    def span(self):
        compute = [(s, e) for _, cat, s, e, _ in self.events if cat == "compute"]
        return (min(s for s, _ in compute), max(e for _, e in compute)) if compute else (0.0, 0.0)

    def chrome_events(self, origin=0.0, scale=1e6):
        return [{"name": name, "cat": cat, "ph": "X", "pid": self.rank, "tid": _THREADS.get(cat, 3),
                 "ts": (start - origin) * scale, "dur": (end - start) * scale, "args": args}
                for name, cat, start, end, args in self.events]


def bubble_fraction(timelines):
    """The share of rank time spent idle between the first and the last computation of the step."""
    spans = [t.span() for t in timelines if t.events]
    if not spans:
        return 0.0
    total = (max(e for _, e in spans) - min(s for s, _ in spans)) * len(timelines)
    return 1.0 - sum(t.busy() for t in timelines) / total if total > 0 else 0.0


def export_chrome_trace(path, timelines, scale=1e6):
    """Write the timelines as a Chrome trace (open in chrome://tracing or ui.perfetto.dev).

    scale converts the times to microseconds (1e6 for seconds; simulated unit times may use 1e3)."""
    starts = [t.span()[0] for t in timelines if t.events]
    origin = min(starts) if starts else 0.0
    events = [e for t in timelines for e in t.chrome_events(origin, scale)]
    events += [{"name": "process_name", "ph": "M", "pid": t.rank, "args": {"name": f"rank {t.rank}"}}
               for t in timelines]
    with open(path, "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)
