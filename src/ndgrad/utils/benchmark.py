"""torch.utils.benchmark: `Timer` (timeit / blocked_autorange / adaptive_autorange) and the
`Measurement` it returns (times per run, mean, median, IQR, torch's printed summary)."""
import math
import sys
import textwrap
import timeit as _timeit

import numpy as np

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.5


def select_unit(t):
    """(unit, scale) to print a time of t seconds: ns, us, ms or s."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3) if t > 0 else -3, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


class TaskSpec:
    """What was timed: the statement, its setup and labels."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None, description=None, env=None,
                 num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self):
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        return f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else f"setup: {self.setup}"

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


class Measurement:
    """Block times of `number_per_run` runs each; `times` are per run."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata
        sorted_times = np.sort(np.asarray(self.times, dtype=np.float64))
        self._median, self._mean = float(np.quantile(sorted_times, 0.5)), float(sorted_times.mean())
        self._p25, self._p75 = float(np.quantile(sorted_times, 0.25)), float(np.quantile(sorted_times, 0.75))
        self._n = len(sorted_times)

    def __getattr__(self, name):   # label, stmt, num_threads...: the task spec's
        if name.startswith("_") or name == "task_spec":
            raise AttributeError(name)
        return getattr(self.task_spec, name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return self._median

    @property
    def mean(self):
        return self._mean

    @property
    def iqr(self):
        return self._p75 - self._p25

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def _warnings(self):
        if self._n < 4:
            return []
        message = ("This suggests significant environmental influence."
                   if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
                   else "This could indicate system fluctuation." if not self.meets_confidence() else None)
        if message is None:
            return []
        return [f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the median "
                f"measurement.\n           {message}"]

    @property
    def has_warnings(self):
        return bool(self._warnings)

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self):
        return self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]"

    def __repr__(self):
        n = self._n
        unit, scale = select_unit(self._median)
        threads = self.task_spec.num_threads
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}")
        lines += self._warnings
        return "\n".join(lines).strip()


class Timer:
    """Times `stmt` (Python source) after `setup`, in a namespace holding `globals` and `torch`
    (ndgrad). `num_threads` is recorded (see ndgrad.set_num_threads)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1, language="python"):
        if language not in ("python", "py"):
            raise NotImplementedError("ndgrad's Timer times Python statements only")
        namespace = dict(globals or {})
        # statements see the root package as `torch`, as torch's Timer provides; it is loaded before
        # any submodule, and looking it up (rather than importing it) keeps the layers acyclic
        namespace.setdefault("torch", sys.modules[__name__.split(".")[0]])
        self._task_spec = TaskSpec(textwrap.dedent(stmt).strip(), textwrap.dedent(setup).strip(), global_setup,
                                   label, sub_label, description, env, num_threads)
        self._timer = _timeit.Timer(stmt=self._task_spec.stmt, setup=self._task_spec.setup or "pass", timer=timer,
                                    globals=namespace)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)   # a zero block would break the statistics

    def timeit(self, number=1000000):
        """One block of `number` runs (after a short warmup)."""
        self._timeit(max(number // 100, 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def _estimate_block_size(self, min_run_time):
        # grow the block tenfold until timer overhead is negligible (this also warms up)
        overhead = float(np.median([self._timeit(0) for _ in range(5)]))
        number = 1
        while True:
            taken = self._timeit(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or taken > min_run_time:
                return number
            if number * 10 > 2147483647:
                return number
            number *= 10

    def _loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        total, times, can_stop = 0.0, [], False
        while total < min_run_time or not can_stop:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            can_stop = stop(times)
            if max_run_time and total > max_run_time:
                break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a size whose timer overhead is negligible, until `min_run_time` has been spent."""
        number = self._estimate_block_size(min_run_time)
        times = self._loop(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until the IQR is within `threshold` of the median (or `max_run_time` is spent)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times):
            return len(times) > 3 and Measurement(number, times, self._task_spec).meets_confidence(threshold)
        times = self._loop(number, stop, min_run_time, max_run_time, callback)
        return Measurement(number, times, self._task_spec)
