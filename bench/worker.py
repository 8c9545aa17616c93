"""One library's benchmark process, driven by run.py.

    python bench/worker.py LIB                         serve timing requests (JSON lines on stdin)
    python bench/worker.py LIB --memory W --method M   one peak-memory probe of workload W, then exit

Requests: {"op": "setup", "key", "workload", "args"} builds an instance of a workload under `key`
and runs one untimed warm-up step; {"op": "time", "key", "reps"} times `reps` steps and answers
the best; {"op": "drop", "key"} frees it. Replies are JSON lines on the original stdout; anything
a library prints goes to stderr.
"""
import gc
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))   # benchmark this checkout's ndgrad
sys.path.insert(1, HERE)

import workloads  # noqa: E402

LIBS = {"ndgrad": "ndgrad", "torch": "torch", "autograd": "autograd", "mygrad": "mygrad", "numpy": "numpy"}


def load(lib):
    module = __import__(LIBS[lib])
    if lib == "torch":
        module.set_num_threads(os.cpu_count() or 1)
    return module


def describe(lib, module):
    if lib == "autograd":
        from importlib.metadata import version
        ver = version("autograd")
    else:
        ver = module.__version__
    info = {"lib": lib, "version": ver}
    if lib == "torch":
        info["threads"] = module.get_num_threads()
    return info


def failure(lib, exc):
    """How a failed setup reads in the table."""
    if isinstance(exc, workloads.NotApplicable):
        return {"status": "n/a", "note": str(exc)}
    line = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if lib == "ndgrad" and isinstance(exc, (AttributeError, NotImplementedError)):
        return {"status": "unsupported", "note": line}
    return {"status": "error", "note": line, "traceback": traceback.format_exc()}


def as_check(result):
    """(check value, dtype name, own timing or None, extra timings) from a step's return."""
    if isinstance(result, dict):
        extra = {k: v for k, v in result.items() if k not in ("check", "time")}
        return float(result["check"]), "", result["time"], extra
    dtype = str(getattr(result, "dtype", "")).replace("torch.", "")
    value = result.item() if hasattr(result, "item") else result
    return float(value), dtype, None, {}


def timed(step):
    start = time.perf_counter()
    result = step()
    elapsed = time.perf_counter() - start
    check, dtype, own, extra = as_check(result)
    return (elapsed if own is None else own), check, dtype, extra


WARM_BELOW = 1.0   # seconds: steps shorter than this get an untimed step before each round's timed ones
SETTLE = 0.15      # seconds of idle after a round, while this process's BLAS/OpenMP threads stop spinning


def serve(lib, module, out):
    steps, warmups = {}, {}
    for line in sys.stdin:
        req = json.loads(line)
        key, name = req.get("key"), req.get("workload")
        try:
            if req["op"] == "setup":
                try:
                    step = workloads.FACTORIES[name](lib, module, **req.get("args", {}))
                    warm = req.get("warmup_args")
                    # a cheaper instance warms caches when one full step is expensive (long chains)
                    warm_step = workloads.FACTORIES[name](lib, module, **warm) if warm else step
                    gc.collect()
                    seconds, check, dtype, _ = timed(warm_step)
                except Exception as exc:  # noqa: BLE001 - reported in the table, never fatal
                    reply = failure(lib, exc)
                else:
                    steps[key], warmups[key] = step, (float("inf") if warm else seconds)
                    reply = {"status": "ok", "warmup_s": seconds, "check": check, "dtype": dtype}
            elif req["op"] == "time":
                best, extras = None, {}
                step, last = steps[key], warmups[key]
                # A round measures steady state, as a training loop runs: garbage collected once before it
                # (not before each step: a full collection walks every object of the process and leaves the
                # next step 0.6-0.8 ms slower in every library), then one untimed step where a step is short
                # (after the idle wait for its turn, a process's first step runs on cold caches and sleeping
                # threads, up to twice as slow); collections that fall inside a step are timed
                gc.collect()
                if last < WARM_BELOW:
                    step()
                for _ in range(req["reps"]):
                    seconds, check, _, extra = timed(step)
                    if best is None or seconds < best:
                        best, extras = seconds, extra
                # then quiet before another library's turn: OpenBLAS's threads spin ~0.1 s after a product
                time.sleep(SETTLE)
                reply = {"status": "ok", "best": best, "extra": extras, "check": check}
            elif req["op"] == "drop":
                steps.pop(key, None)
                warmups.pop(key, None)
                gc.collect()
                reply = {"status": "ok"}
            else:
                reply = {"status": "error", "note": f"unknown op {req['op']!r}"}
        except Exception as exc:  # noqa: BLE001
            reply = {"status": "error", "note": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        out.write(json.dumps(reply) + "\n")
        out.flush()


# ---- memory probe ---------------------------------------------------------------------------
def _rss_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_high_water():
    """Linux: writing 5 to clear_refs resets VmHWM (and getrusage's ru_maxrss) to the current RSS."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def memory(lib, module, name, method):
    """Peak memory of backward above what the process held before the step, in bytes.

    A warm-up step runs first (lazy initialisation, caches); then, before the measured step, the
    baseline is taken; the high-water mark is reset once the loss exists (`mark("forward")`) and
    read once the gradients do (`mark("backward")`). Libraries whose single call does forward and
    backward together (HIPS autograd) are measured over the whole call.
    rss: RSS high-water (VmHWM; getrusage's ru_maxrss). tracemalloc: NumPy's traced allocations.
    """
    step = workloads.FACTORIES[name](lib, module)
    step()
    gc.collect()
    marks = {}
    if method == "tracemalloc":
        import tracemalloc
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]

        def mark(phase):
            if phase == "forward":
                tracemalloc.reset_peak()
                marks["forward"] = True
            else:
                marks["peak"] = tracemalloc.get_traced_memory()[1]
    else:
        import resource
        base = _rss_kib("VmRSS") * 1024
        if not _reset_high_water():
            raise RuntimeError("cannot reset the RSS high-water mark (/proc/self/clear_refs)")

        def mark(phase):
            if phase == "forward":
                _reset_high_water()
                marks["forward"] = True
            else:
                marks["peak"] = _rss_kib("VmHWM") * 1024
                marks["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    step(mark)
    return {"status": "ok", "peak": marks["peak"] - base, "base": base,
            "scope": "backward" if marks.get("forward") else "forward+backward"}


def main(argv):
    lib = argv[0]
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)                   # stray prints must not corrupt the replies
    try:
        module = load(lib)
    except ImportError as exc:
        out.write(json.dumps({"status": "missing", "note": str(exc)}) + "\n")
        return 0
    if "--memory" in argv:
        name, method = argv[argv.index("--memory") + 1], argv[argv.index("--method") + 1]
        try:
            reply = memory(lib, module, name, method)
        except Exception as exc:  # noqa: BLE001
            reply = failure(lib, exc)
        out.write(json.dumps(reply) + "\n")
        return 0
    out.write(json.dumps({"status": "ok", **describe(lib, module)}) + "\n")
    out.flush()
    serve(lib, module, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
