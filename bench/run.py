"""ndgrad's benchmark suite: ndgrad against torch, HIPS autograd, MyGrad and hand-written NumPy.

    python bench/run.py            the full suite (about 5 minutes on 2 cores); prints the report
    python bench/run.py --quick    a smaller, about 1-minute version (fewer rounds, shorter long chains)
    python bench/run.py --only chain,mlp
    python bench/run.py --output bench/RESULTS.md    also writes the report there

Method: every library runs in its own process (bench/worker.py), started once; each workload is
built and warmed up (one untimed step) in every process, then timed in rounds that visit the
libraries in turn (rotating the order), so a burst of load from elsewhere hits them all alike;
the best step over all rounds is reported. Each round times steady state, as a training loop runs:
garbage is collected before the round (not before each step), a short step is preceded by one
untimed step (the first step after a process's idle wait runs on cold caches and sleeping threads),
and the process then idles 0.15 s before the next library's turn (OpenBLAS's threads spin ~0.1 s
after a product, and would compete with the next library's step). Every library starts from the
same NumPy arrays, and the first step's loss (or checksum) is checked against torch's. Peak memory and import time are
measured in fresh processes. Peers that are not installed are skipped with a note.
"""
import argparse
import datetime
import importlib.util
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

from tqdm import tqdm
from workloads import FUNC_WORKLOADS   # bench/ is the script's folder

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "worker.py")
LIBS = ("ndgrad", "torch", "autograd", "mygrad", "numpy")
PEERS = LIBS[1:]
SECTIONS = ("chain", "mlp", "cnn", "transformer", "rnn", "memory", "long_chain", "import", "functional", "compiled")

# (rounds, steps per round, seconds one library may spend on one workload)
DEFAULT = {"rounds": 5, "budget": 15.0, "compiled": 10, "chain": 3, "mlp": 3, "cnn": 2, "transformer": 2, "functional": 10,
           "rnn": 2,
           "long_nodes": (10**5, 10**6), "long_rounds": 2, "long_budget": 120.0, "imports": 5,
           "memory_libs": LIBS}
QUICK = {"rounds": 3, "budget": 4.0, "compiled": 5, "chain": 2, "mlp": 2, "cnn": 1, "transformer": 1, "functional": 5,
         "rnn": 1,
         "long_nodes": (10**4, 10**5), "long_rounds": 1, "long_budget": 30.0, "imports": 3,
         "memory_libs": ("ndgrad", "torch")}

COMPILED_WORKLOADS = ("chain_compiled", "mlp_small_compiled", "mlp_compiled", "transformer_compiled")

# the targets of issue 5, item 2, and of issue 15: (row, section measuring it, what is compared, limit)
TARGETS = [("chain", "chain", "per-node overhead, ndgrad / torch (issue 5)", 0.8),
           ("chain", "chain", "per-node overhead, ndgrad / torch (issue 15)", 1.0),
           ("long_forward", "long_chain", "forward of the longer (f) chain, ndgrad / torch (issue 15)", 2.0),
           ("mlp", "mlp", "MLP step, ndgrad / hand-written NumPy", 1.05),
           ("transformer", "transformer", "transformer block step, ndgrad / torch", 1.3),
           ("cnn", "cnn", "CNN step, ndgrad / torch (issue 5)", 2.0),
           ("cnn", "cnn", "CNN step, ndgrad / torch (issue 15)", 1.2),
           ("cnn_small", "rnn", "MNIST-style CNN step, ndgrad / torch (issue 15: 1.2)", 1.2),
           ("lstm", "rnn", "bidirectional LSTM step, ndgrad / torch (issue 15: 1.5)", 1.5),
           ("import", "import", "`import ndgrad`, seconds", 0.4),
           ("mem_mlp", "memory", "peak backward memory (RSS), MLP, ndgrad / torch", 1.1),
           ("mem_transformer", "memory", "peak backward memory (RSS), transformer, ndgrad / torch", 1.1),
           ("linearity", "long_chain", "long chain, time(10x nodes) / time(nodes)", 11.0),
           ("chain_compiled", "compiled", "compiled chain, ndgrad.compile / torch eager", 0.33),
           ("mlp_small_compiled", "compiled", "compiled small-MLP step, ndgrad.compile / torch eager", 0.33),
           ("mlp_compiled", "compiled", "compiled (b) MLP step, ndgrad.compile / torch eager", 0.9),
           ("transformer_compiled", "compiled", "compiled (d) transformer block step, ndgrad.compile / torch eager",
            0.9),
           # issue 15, item 4: torch.func transforms batched by vmap
           ("jacfwd_jacfwd", "functional", "jacfwd(jacfwd) of a 16-wide layer, ndgrad / torch.func", 1.5),
           ("jacrev_jacrev", "functional", "jacrev(jacrev) of a 16-wide layer, ndgrad / torch.func", 1.5),
           ("func_hessian", "functional", "hessian of a 16-wide layer, ndgrad / torch.func", 1.5),
           ("per_sample_grads", "functional", "per-sample gradients (vmap of grad, 64 samples), ndgrad / torch.func",
            1.5)]


# ---- one library's process ------------------------------------------------------------------
class Worker:
    def __init__(self, lib):
        self.lib = lib
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, WORKER, lib], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT)
        self.info = None

    def hello(self):
        self.info = self._read()
        return self.info

    def request(self, **req):
        if self.proc.poll() is not None:
            return {"status": "error", "note": "worker exited: " + self.stderr_tail()}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            return {"status": "error", "note": "worker exited: " + self.stderr_tail()}
        return json.loads(line)

    def stderr_tail(self):
        self.log.seek(0)
        return " | ".join(self.log.read().strip().splitlines()[-3:])

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def installed(lib):
    return lib in ("ndgrad", "numpy") or importlib.util.find_spec(lib) is not None


def say(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- timed workloads: built once per process, timed in interleaved rounds ---------------------
def measure(workers, instances, rounds, budget, results, notes, desc="timing"):
    """instances: (key, workload, args, warmup_args, steps per round). Fills results[key][lib]."""
    cells = []
    for key, workload, args, warm, reps in instances:
        results[key] = {}
        for lib, worker in workers.items():
            reply = worker.request(op="setup", key=key, workload=workload, args=args, warmup_args=warm)
            if reply["status"] != "ok":
                results[key][lib] = reply
                if reply["status"] == "error":
                    notes.append(f"{lib} {key}: error {reply['note']}")
                    if "traceback" in reply:
                        say(reply["traceback"])
                continue
            # cap the steps of a slow library so that one cell stays within its budget
            total = max(1, min(rounds * reps, int(budget / max(reply["warmup_s"], 1e-9))))
            per_round = max(1, min(reps, total // rounds))
            cell_rounds = max(1, min(rounds, total // per_round))
            if cell_rounds * per_round < rounds * reps:
                notes.append(f"{lib} {key}: best of {cell_rounds * per_round} steps (one takes "
                             f"{reply['warmup_s']:.2f} s)")
            results[key][lib] = {"status": "ok", "check": reply["check"], "dtype": reply["dtype"], "times": [],
                                 "extra": {}, "n": 0}
            cells.append((key, lib, per_round, cell_rounds))
    # a progress bar over the rounds on stderr, only on a terminal (disable=None)
    for r in tqdm(range(rounds), desc=desc, unit="round", leave=False, disable=None):
        order = [c for c in cells if r < c[3]]
        order = order[r % len(order):] + order[:r % len(order)] if order else order
        for key, lib, per_round, _ in order:
            reply = workers[lib].request(op="time", key=key, reps=per_round)
            cell = results[key][lib]
            if reply["status"] != "ok":
                results[key][lib] = reply
                notes.append(f"{lib} {key}: error {reply['note']}")
                cells = [c for c in cells if c[:2] != (key, lib)]
                continue
            if not cell["times"] or reply["best"] < min(cell["times"]):
                cell["extra"] = reply["extra"]
                if "check" in reply and key.startswith("long"):
                    cell["check"] = reply["check"]
            cell["times"].append(reply["best"])
            cell["n"] += per_round
    for key, *_ in instances:
        for cell in results[key].values():
            if cell.get("times"):
                cell["best"] = min(cell["times"])
        for worker in workers.values():
            worker.request(op="drop", key=key)


# ---- fresh processes: import time and peak memory -------------------------------------------
def import_times(mods, n):
    code = "import time; t = time.perf_counter(); import {0}; print(time.perf_counter() - t)"
    # this checkout's ndgrad (src/, not an installed one); .pyc files written (to a cache outside the
    # tree) even where PYTHONDONTWRITEBYTECODE is set, as a user's import would find them
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONPYCACHEPREFIX=os.path.join(tempfile.gettempdir(), "ndgrad-bench-pyc"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    best = {}
    for r in range(n + 1):                 # round 0 warms the file cache and compiles .pyc files
        for mod in mods[r % len(mods):] + mods[:r % len(mods)]:
            if isinstance(best.get(mod), dict):
                continue                   # failed before
            out = subprocess.run([sys.executable, "-c", code.format(mod)], capture_output=True, text=True, env=env,
                                 cwd=tempfile.gettempdir())
            if out.returncode:
                best[mod] = {"status": "error", "note": out.stderr.strip().splitlines()[-1]}
                continue
            if r:
                seconds = float(out.stdout)
                best[mod] = min(best.get(mod, math.inf), seconds)
    return best


def memory_probe(lib, workload, method):
    # a fixed mmap threshold makes glibc hand large freed blocks back at once, so RSS follows the
    # arrays alive (the default, dynamic threshold keeps freed blocks of the warm-up step in RSS)
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, WORKER, lib, "--memory", workload, "--method", method],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    lines = out.stdout.strip().splitlines()
    if out.returncode or not lines:
        return {"status": "error", "note": (out.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


# ---- report -----------------------------------------------------------------------------------
def fmt(value, unit):
    if unit == "µs":
        return f"{value * 1e6:.1f}"
    if unit == "ms":
        return f"{value * 1e3:.1f}"
    if unit == "MiB":
        return f"{value / 2**20:.1f}"
    return f"{value:.3g}" if value < 10 else f"{value:.1f}"


def cell_text(cell, unit, scale=1.0):
    if cell is None:
        return ""
    status = cell.get("status")
    if status == "ok" and "best" in cell:
        return fmt(cell["best"] * scale, unit)
    return {"unsupported": "not supported yet", "n/a": "n/a", "missing": "not installed",
            "error": "error"}.get(status, "")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def ratio(a, b):
    if not a or not b or a.get("status") != "ok" or b.get("status") != "ok" or "best" not in a or "best" not in b:
        return None
    return a["best"] / b["best"]


def build_rows(results, libs, cfg, length, size):
    """(label, unit, {lib: cell}, per-unit scale) for every measured row."""
    rows = []
    if "chain" in results:
        rows.append((f"(a) chain {length} × tanh(x·1.0001), {size} f64, µs/node", "us_node", results["chain"],
                     1.0 / (2 * length)))
    for key, label in (("mlp", "(b) MLP step 784-1024-1024-10, batch 256, f32"),
                       ("cnn", "(c) CNN step 2×(conv-bn-relu-pool)+linear, 64×3×32×32"),
                       ("transformer", "(d) transformer block step 8×128×256, 4 heads"),
                       ("cnn_small", "(k) MNIST-style CNN step 2×(conv-relu-pool)+linear, 64×1×28×28, f32"),
                       ("lstm", "(k) bidirectional LSTM step, 16×32×32, hidden 64, f32"),
                       ("lstm_cell", "(k) two LSTMCells stepped 40 times, batch 97, hidden 51, f64"),
                       ("resnet", "(k) ResNet-20 step (CIFAR-style, batch norm), 64×3×32×32, f32")):
        if key in results:
            rows.append((label + ", ms", "ms", results[key], 1.0))
    for key, label in (("mem_mlp", "(e) MLP backward peak"), ("mem_transformer", "(e) transformer backward peak")):
        for method, name in (("rss", "RSS"), ("tracemalloc", "tracemalloc")):
            if (key, method) in results:
                rows.append((f"{label}, {name}, MiB", "MiB", results[(key, method)], 1.0))
    for nodes in cfg["long_nodes"]:
        key = f"long_{nodes}"
        if key in results:
            rows.append((f"(f) backward of a 10^{round(math.log10(nodes))}-node chain, s", "s", results[key], 1.0))
            fwd = {lib: ({"status": "ok", "best": c["extra"]["forward"]} if c.get("extra", {}).get("forward")
                         else c) for lib, c in results[key].items()}
            rows.append(("(f) forward of that chain (not in the ratio), s", "s", fwd, 1.0))
    if "import" in results:
        rows.append(("(g) import (numpy column: `import numpy`), s", "s", results["import"], 1.0))
    for key in ("jacobian", "hessian"):
        if key in results:
            rows.append((f"(h) {key} of an 8-element function, µs", "µs", results[key], 1.0))
    for key in FUNC_WORKLOADS:
        if key in results:
            rows.append((f"(i) torch.func {key} (tanh(W x + b), W 16 x 16), µs", "µs", results[key], 1.0))
    for key, label in (("chain_compiled", "(j) chain 200 × tanh(x·1.0001) fwd+bwd, ndgrad compiled vs torch eager"),
                       ("mlp_small_compiled", "(j) MLP step 64-128-128-10, batch 64, ndgrad compiled vs torch eager"),
                       ("mlp_compiled", "(j) the (b) MLP step, ndgrad compiled vs torch eager"),
                       ("transformer_compiled", "(j) the (d) transformer block step, ndgrad compiled vs torch eager")):
        if key in results:
            rows.append((label + ", ms", "ms", results[key], 1.0))
    return rows


def render(results, libs, cfg, length, size):
    header = ["workload"] + list(libs) + [f"ndgrad/{p}" for p in libs if p != "ndgrad"]
    out = []
    for label, unit, cells, scale in build_rows(results, libs, cfg, length, size):
        unit_fmt = "µs" if unit == "us_node" else unit
        row = [label] + [cell_text(cells.get(lib), unit_fmt, scale) for lib in libs]
        for peer in libs:
            if peer != "ndgrad":
                r = ratio(cells.get("ndgrad"), cells.get(peer))
                row.append("" if r is None else f"{r:.2f}")
        out.append(row)
    return table(header, out)


def target_rows(results, cfg, sections):
    def best(key, lib):
        cell = results.get(key, {}).get(lib)
        return cell["best"] if cell and cell.get("status") == "ok" and "best" in cell else None

    def why(key):
        cell = results.get(key, {}).get("ndgrad")
        if cell is None:
            return "not measured"
        return {"unsupported": "not supported yet", "error": "error"}.get(cell.get("status"), "not measured")

    rows = []
    small, large = (f"long_{n}" for n in cfg["long_nodes"])
    for key, section, label, limit in TARGETS:
        if section not in sections:
            continue
        if key == "import":
            value, reason = best("import", "ndgrad"), why("import")
        elif key == "long_forward":
            fwd = {lib: results.get(large, {}).get(lib, {}).get("extra", {}).get("forward") for lib in ("ndgrad", "torch")}
            value = fwd["ndgrad"] / fwd["torch"] if fwd["ndgrad"] and fwd["torch"] else None
            reason = why(large) if fwd["ndgrad"] is None else "torch not measured"
        elif key == "linearity":
            a, b = best(large, "ndgrad"), best(small, "ndgrad")
            value, reason = (a / b if a and b else None), why(large)
            t = (best(large, "torch") / best(small, "torch")) if best(large, "torch") and best(small, "torch") else None
            label = (f"{label} (10^{round(math.log10(cfg['long_nodes'][1]))} vs "
                     f"10^{round(math.log10(cfg['long_nodes'][0]))} nodes"
                     + (f"; torch {t:.1f}" if t else "") + ")")
        else:
            peer = "numpy" if key == "mlp" else "torch"
            src = (key, "rss") if key.startswith("mem_") else key
            a, b = best(src, "ndgrad"), best(src, peer)
            value = a / b if a and b else None
            reason = why(src) if a is None else f"{peer} not measured"
        if value is None:
            rows.append([label, f"≤ {limit}", "—", reason])
        else:
            rows.append([label, f"≤ {limit}", f"{value:.2f}", "met" if value <= limit else "NOT met"])
    return table(["target (issues 5 and 15)", "target", "measured", ""], rows)


_F32_STEPS = ("mlp", "cnn", "transformer", "cnn_small", "lstm", "resnet", "mlp_compiled", "transformer_compiled")


def check_agreement(results, notes):
    """The first step of every library starts from the same arrays: its loss must match torch's."""
    bad = []
    steps = ("chain", "mlp", "cnn", "transformer", "cnn_small", "lstm", "lstm_cell", "resnet", "jacobian", "hessian")
    longs = tuple(k for k in results if isinstance(k, str) and k.startswith("long_"))
    for key in steps + COMPILED_WORKLOADS + FUNC_WORKLOADS + longs:
        cells = results.get(key, {})
        ref_lib = "torch" if cells.get("torch", {}).get("status") == "ok" else next(
            (lib for lib, c in cells.items() if c.get("status") == "ok"), None)
        if ref_lib is None:
            continue
        ref = cells[ref_lib]["check"]
        tol = 2e-3 if key in _F32_STEPS else 1e-4 if key in FUNC_WORKLOADS else 1e-7
        for lib, cell in cells.items():
            if cell.get("status") != "ok":
                continue
            if not abs(cell["check"] - ref) <= tol * max(1.0, abs(ref)):
                bad.append(f"{lib} {key}: {cell['check']:.8g} vs {ref_lib} {ref:.8g}")
            if key in _F32_STEPS and cell["dtype"] and cell["dtype"] != "float32":
                bad.append(f"{lib} {key}: loss dtype {cell['dtype']} (float32 expected)")
    if bad:
        notes.extend("CHECK FAILED " + b for b in bad)
        return "Results disagree (see notes)."
    return ("Every library that ran gives the same first-step loss (or checksum) as torch (float32 steps "
            "within 2e-3, torch.func sums of float32 Jacobians within 1e-4, float64 within 1e-7), and every "
            "float32 loss is float32.")


def machine(versions):
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = ""
    libs = ", ".join(f"{lib} {v}" for lib, v in versions.items())
    return (f"- CPU: {cpu}, {os.cpu_count()} cores ({platform.system()} {platform.release()})\n"
            f"- Python {platform.python_version()}; {libs}\n"
            f"- ndgrad checkout: {commit or 'unknown'}")


# ---- main -------------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--quick", action="store_true", help="about 1 minute: fewer rounds, smaller long chains")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma list among {', '.join(SECTIONS)}")
    parser.add_argument("--libs", default=",".join(LIBS), help="comma list of libraries (ndgrad always runs)")
    parser.add_argument("--rounds", type=int, help="timing rounds (default 5, quick 3)")
    parser.add_argument("--chain-length", type=int, default=2000, help="links of the (a) chain (2 nodes each)")
    parser.add_argument("--chain-size", type=int, default=16, help="float64 elements of the (a) chain")
    # a plain run only prints: no tracked file (bench/RESULTS.md) is rewritten unless asked for
    parser.add_argument("--output", help="also write the report to this path (e.g. bench/RESULTS.md)")
    parser.add_argument("--no-write", action="store_true", help="print only (the default; kept for old command lines)")
    args = parser.parse_args(argv)
    cfg = dict(QUICK if args.quick else DEFAULT)
    if args.rounds:
        cfg["rounds"] = args.rounds
    sections = [s for s in args.only.split(",") if s]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose among {', '.join(SECTIONS)}")
    wanted = ["ndgrad"] + [lib for lib in args.libs.split(",") if lib in PEERS]
    start, load_before = time.time(), os.getloadavg()
    notes, results, versions = [], {}, {}
    libs = [lib for lib in wanted if installed(lib)]
    for lib in wanted:
        if lib not in libs:
            notes.append(f"{lib}: not installed, skipped (pip install {lib})")

    timed = [s for s in sections if s not in ("memory", "import")]
    workers = {}
    if timed:
        say(f"starting {len(libs)} library processes: {', '.join(libs)}")
        workers = {lib: Worker(lib) for lib in libs}
        for lib, worker in list(workers.items()):
            info = worker.hello()
            if info.get("status") != "ok":
                notes.append(f"{lib}: {info.get('note', 'failed to start')}, skipped")
                worker.close()
                del workers[lib]
                continue
            versions[lib] = info["version"] + (f" ({info['threads']} threads)" if "threads" in info else "")
    try:
        chain_args = {"length": args.chain_length, "size": args.chain_size}
        plan = [("chain", [("chain", "chain", chain_args, None, cfg["chain"])], cfg["budget"]),
                ("mlp", [("mlp", "mlp", {}, None, cfg["mlp"])], cfg["budget"]),
                ("cnn", [("cnn", "cnn", {}, None, cfg["cnn"])], cfg["budget"]),
                ("transformer", [("transformer", "transformer", {}, None, cfg["transformer"])], cfg["budget"]),
                ("rnn", [(k, k, {}, None, cfg["rnn"]) for k in ("cnn_small", "lstm", "lstm_cell", "resnet")],
                 cfg["budget"]),
                ("functional", [(k, k, {}, None, cfg["functional"]) for k in ("jacobian", "hessian") + FUNC_WORKLOADS],
                 cfg["budget"]),
                ("compiled", [(k, k, {}, None, cfg["compiled"]) for k in COMPILED_WORKLOADS],
                 cfg["budget"]),
                ("long_chain", [(f"long_{n}", "long_chain", {"length": n // 2}, {"length": 1000}, 1)
                                for n in cfg["long_nodes"]], cfg["long_budget"])]
        for section, instances, budget in plan:
            if section in sections:
                say(f"timing {section} ...")
                rounds = cfg["long_rounds"] if section == "long_chain" else cfg["rounds"]
                measure(workers, instances, rounds, budget, results, notes, desc=f"timing {section}")
    finally:
        for worker in workers.values():
            worker.close()

    if "memory" in sections:
        say("peak memory of backward (fresh processes) ...")
        whole_call = set()
        for workload in ("mlp", "transformer"):
            for lib in libs:
                if lib not in cfg["memory_libs"] or (workload == "transformer" and lib == "numpy"):
                    continue
                for method in ("rss", "tracemalloc"):
                    if method == "tracemalloc" and lib == "torch":
                        continue       # torch's CPU allocator is invisible to tracemalloc
                    reply = memory_probe(lib, workload, method)
                    if reply.get("status") == "ok":
                        reply["best"] = reply["peak"]
                        if reply["scope"] != "backward":
                            whole_call.add(lib)
                    elif reply.get("status") == "error":
                        notes.append(f"{lib} {workload} memory ({method}): error {reply['note']}")
                    results.setdefault((f"mem_{workload}", method), {})[lib] = reply
        notes.extend(f"{lib}: one call does forward and backward, so its memory peak covers both"
                     for lib in sorted(whole_call))

    if "import" in sections:
        say("import times (fresh processes) ...")
        mods = ["ndgrad"] + [m for m in ("torch", "numpy") if m in libs]
        times = import_times(mods, cfg["imports"])
        results["import"] = {m: ({"status": "ok", "best": t} if isinstance(t, float) else t)
                             for m, t in times.items()}
        if "numpy" not in versions:
            import numpy
            versions["numpy"] = numpy.__version__

    agreement = check_agreement(results, notes)
    shown = [lib for lib in LIBS if lib in libs]
    main_table = render(results, shown, cfg, args.chain_length, args.chain_size)
    targets = target_rows(results, cfg, sections)
    elapsed, load_after = time.time() - start, os.getloadavg()
    mode = "--quick" if args.quick else "default"
    report = f"""# ndgrad benchmarks

{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} — `python bench/run.py{' --quick' if args.quick else ''}` \
({mode} run, {elapsed:.0f} s; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after)

{machine(versions)}

Times are the best step over {cfg['rounds']} interleaved rounds ({cfg['long_rounds']} for the long chains; each
library in its own process, libraries visited in turn, order rotated each round, after one untimed warm-up
step); lower is better; ratios are ndgrad / peer (below 1: ndgrad is faster).
Memory: peak above what the process held before the step, from the loss to the gradients, measured in a
fresh process after one warm-up step — RSS high-water mark (VmHWM, i.e. getrusage's ru_maxrss, reset with
/proc/self/clear_refs when the loss exists; glibc's mmap threshold fixed at 64 KiB so freed arrays leave RSS)
for every library, and NumPy allocations seen by tracemalloc for the NumPy-based ones (torch's allocator is
not traced). Hand-written NumPy exists for the chain and the MLP only; GELU is its tanh form everywhere.

{main_table}

{targets}

{agreement}
"""
    if notes:
        report += "\nNotes:\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    print(report)
    if args.output and not args.no_write:
        with open(args.output, "w") as f:
            f.write(report)
        say(f"written to {os.path.relpath(args.output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
