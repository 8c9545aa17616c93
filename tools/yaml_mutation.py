"""Mutation testing of derivatives.yaml: is every formula's mistake caught by the op registry's checks?

    python tools/yaml_mutation.py [--jobs N] [--only OP_NAME_FRAGMENT] [--samples SAMPLE_NAME_FRAGMENT] [--json FILE]

Mutants, one at a time: each backward formula (`self: ...`) negated and zeroed; each explicit forward-AD
formula (`result: <expression>`) negated and zeroed; each `result:` line (shortcuts included) deleted.
A mutant is the entry's formula text rewritten and compiled by the loader as the yaml's own text is
(loader._compile_formula / _compile_forward), then swapped into the entry's Node class or forward rule
in a worker process: the real file and its marshal cache are never touched.

The checks are tests/test_ops.py's own, run on the op_db samples that reached the mutated formula
(found by a traced clean run): gradcheck, forward AD against finite differences (support as torch
states it), gradgradcheck, and torch parity when torch is installed. A mutant is killed when one of
them fails on one sample. Survivors are listed with the reason: "uncovered" (no sample reaches the
formula: add one to tests/op_db), "zero formula" (the formula is a zero gradient by definition, so
zeroing or negating it changes nothing: equivalent), "raising formula" (the formula only raises torch's
not-implemented error: equivalent), "unreachable" (listed with its reason in
tools/yaml_mutation_unreachable.txt: no sample can reach it on CPU; not killed), or plainly survived (a
test is missing).
"""
import argparse
import json
import multiprocessing
import os
import re
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests")]   # the op registry and tests/test_ops.py live under tests/

import numpy as np  # noqa: E402
import yaml  # noqa: E402

import ndgrad  # noqa: E402
from ndgrad import derivatives  # noqa: E402
from ndgrad.derivatives import forward, loader  # noqa: E402
import test_ops  # noqa: E402

ENTRIES = derivatives.ENTRIES
# a formula whose value is a zero gradient whatever its inputs (the derivative of floor, sign, ...)
ZERO_FORMULA = re.compile(r"^\s*(zeros_like\(\w+\)|None|0|0\.0)\s*$")
# a formula that only raises torch's "not implemented" error (formulas.not_differentiable, not_implemented,
# no_derivative: a backward op, or an op, without a derivative):
# its negated or zeroed text raises the same error before any value exists
RAISING_FORMULA = re.compile(r"^\s*(not_differentiable|not_implemented|no_derivative)\([^()]*\)\s*$")
TIMEOUT_S = 60
# mutants no sample can reach on CPU, each with its reason (reported, never counted as killed)
UNREACHABLE = {line.split(" ", 1)[0]: line.split(" ", 1)[1].strip()
               for line in (ROOT / "tools" / "yaml_mutation_unreachable.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}


def _negate(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_negate(v) for v in x)
    return None if x is None else -x


def _zero(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_zero(v) for v in x)
    return None if x is None else x * 0


# the mutated expressions call these by name: formulas run with derivatives.SCOPE as their globals
derivatives.SCOPE["_mutant_neg"] = _negate
derivatives.SCOPE["_mutant_zero"] = _zero


# `_foreach_<f>`'s formulas run f's own derivative (formulas.foreach_vjp / foreach_jvp)
DELEGATE = re.compile(r'^\s*foreach_(?:vjp|jvp)\("(\w+)"')


def is_zero_formula(text, formulas):
    """A zero gradient by definition: a zero expression, or a foreach formula whose element op's
    backward formulas (in `formulas`, yaml_formulas()'s list) are all zero expressions (and its
    tangent the element-wise rule built from them, or zero)."""
    if ZERO_FORMULA.match(text):
        return True
    m = DELEGATE.match(text)
    element = [(key, t) for op, key, t, _ in formulas if m and op == m.group(1)]
    return bool(element) and all(ZERO_FORMULA.match(t) or (key == "result" and t == "auto_element_wise")
                                 for key, t in element)


def yaml_formulas():
    """(op name, key, formula text, yaml line) of every formula, in table order."""
    doc = yaml.compose(Path(loader.YAML_PATH).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    out = []
    # (an entry's formulas per dispatch key: the Default's under the op's name, the others' under
    # "op@key", as loader.load names their entries)
    for fields, dispatch_key in loader._dispatch_variants(doc.value):
        op = loader.Entry(fields["name"].value, 0).op_name + ("" if dispatch_key is None else f"@{dispatch_key}")
        for key, node in fields.items():
            if key not in ("name", "output_differentiability", "node_name", "save_whole"):
                # "self, other" as the trace spells it ("self,other"): a formula for several inputs
                key = ",".join(k.strip() for k in key.split(","))
                out.append((op, key, node.value, node.start_mark.line + 1))
    return out


def mutants():
    """[(id, op, key, kind, text, line)]: kinds neg / zero (expressions) and delete (`result:` lines)."""
    out = []
    for op, key, text, line in yaml_formulas():
        kinds = ["neg", "zero"]
        if key == "result":
            kinds = ["delete"] if text in loader.FORWARD_SHORTCUTS else ["neg", "zero", "delete"]
        for kind in kinds:
            out.append((f"{op}:{key}:{kind}", op, key, kind, text, line))
    return out


# --- applying one mutant in this process ----------------------------------------------------------
def _formula_index(entry, key):
    targets = tuple(entry.arg_names.index(t.strip()) for t in key.split(","))
    return next(k for k, (idxs, _) in enumerate(entry.formulas) if tuple(idxs) == targets)


def apply(op, key, kind, text, line):
    """Install the mutant; returns the function that undoes it."""
    entry = ENTRIES[op]
    wrapped = f"_mutant_{kind}({text})"
    if key == "result":
        saved = (entry.forward_formula, entry.forward_fn, entry.forward_rule)
        if kind == "delete":
            entry.forward_formula = entry.forward_fn = None
        else:
            entry.forward_fn = loader.types.FunctionType(loader._compile_forward(entry, wrapped, line),
                                                         derivatives.SCOPE)
        entry.forward_rule = None

        def undo():
            entry.forward_formula, entry.forward_fn, entry.forward_rule = saved
        return undo
    cls = entry.node_cls
    k = _formula_index(entry, key)
    code = loader._compile_formula(wrapped, entry.saved_names, line, op)
    fn = loader.types.FunctionType(code, derivatives.SCOPE)
    old = cls._formulas
    cls._formulas = old[:k] + ((old[k][0], fn),) + old[k + 1:]
    # the element-wise and transpose forward rules are cached from the backward formulas
    old_rule, entry.forward_rule = entry.forward_rule, None

    def undo():
        cls._formulas = old
        entry.forward_rule = old_rule
    return undo


# --- the checks -----------------------------------------------------------------------------------
def _checks(info):
    """tests/test_ops.py's checks for one sample, cheapest first (as test_ops selects them)."""
    out = []
    if info.check_grad:
        out += [("gradcheck", test_ops.test_gradcheck), ("forward_ad", test_ops.test_forward_ad)]
        if info.gradgrad:
            out.append(("gradgradcheck", test_ops.test_gradgradcheck))
    if test_ops.torch is not None and info.torch_parity:
        out.append(("torch_parity", test_ops.test_torch_parity))
    return out


def _run(check, info):
    np.seterr(all="ignore")
    try:
        check(info)
        return None
    except BaseException as e:   # any failure (assertion, gradcheck's error, a crash) kills
        if isinstance(e, KeyboardInterrupt):
            raise
        return f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"


def trace(indices):
    """Clean run of the samples `indices`: for each (op, key) formula, the samples that reached it;
    for each sample, the checks that pass."""
    samples = _STATE["samples"]
    hits, passing = {}, {}
    current = [None]

    def tracer(op, key, fn):
        def traced(*a, **kw):
            hits.setdefault((op, key), set()).add(current[0])
            return fn(*a, **kw)
        return traced

    undo = []
    for op, entry in ENTRIES.items():
        cls = entry.node_cls
        old = cls._formulas
        keys = [",".join(entry.arg_names[i] for i in idxs) for idxs, _ in entry.formulas]
        cls._formulas = tuple((t, tracer(op, keys[k], fn)) for k, (t, fn) in enumerate(old))
        undo.append((cls, old))
        if entry.forward_formula is not None:
            old_fw = (entry.forward_fn, entry.forward_rule)
            if entry.forward_fn is not None:
                entry.forward_fn = tracer(op, "result", entry.forward_fn)
            elif entry.forward_formula in loader.FORWARD_SHORTCUTS:
                # the shortcuts have no function of their own: count the sample at the rule
                entry.forward_rule = tracer(op, "result", _shortcut_rule(entry))
            undo.append((entry, old_fw))
        entry_rule_reset(entry)
    for n in indices:
        current[0] = n
        passing[n] = [name for name, check in _checks(samples[n]) if _run(check, samples[n]) is None]
    for obj, old in undo:
        if isinstance(obj, type):
            obj._formulas = old
        else:
            obj.forward_fn, obj.forward_rule = old
    for entry in ENTRIES.values():
        entry_rule_reset(entry)
    return hits, passing


def _shortcut_rule(entry):
    return forward._SHORTCUTS[entry.forward_formula]


def entry_rule_reset(entry):
    if entry.forward_formula is not None and entry.forward_fn is not None:
        entry.forward_rule = None


# --- workers --------------------------------------------------------------------------------------
_STATE = {}


def _alarm(signum, frame):
    raise TimeoutError("mutant ran past the time limit")


def _test_mutant(m):
    mid, op, key, kind, text, line = m
    samples, hits, passing = _STATE["samples"], _STATE["hits"], _STATE["passing"]
    if kind != "delete" and is_zero_formula(text, _STATE["formulas"]):
        # negating or zeroing a zero gradient leaves it as it is, reached by a sample or not
        return mid, "equivalent", "zero formula"
    if kind != "delete" and RAISING_FORMULA.match(text):
        return mid, "equivalent", "raising formula"
    reached = sorted(hits.get((op, key), ()))
    if not reached:
        return (mid, "unreachable", UNREACHABLE[mid]) if mid in UNREACHABLE else (mid, "uncovered", None)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        undo = apply(op, key, kind, text, line)
    except Exception as e:   # the mutated text does not compile: not a meaningful mutant
        signal.alarm(0)
        return mid, "invalid", str(e)
    try:
        for n in reached:
            info = samples[n]
            for name, check in _checks(info):
                if name in passing[n]:
                    why = _run(check, info)
                    if why is not None:
                        return mid, "killed", f"{name}[{info.name}] {why}"
    except TimeoutError as e:
        return mid, "killed", f"timeout: {e}"
    finally:
        signal.alarm(0)
        undo()
    return mid, "survived", f"{len(reached)} samples reached it"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="mutants whose op name contains this")
    parser.add_argument("--samples", help="trace only the op_db samples whose name contains this (a quick check "
                                          "of new samples: mutants no such sample reaches count as uncovered)")
    parser.add_argument("--json", help="write each mutant's result here")
    parser.add_argument("--trace", help="reuse the clean run's trace from this file (written when absent; "
                                        "delete it after changing the yaml or tests/op_db)")
    args = parser.parse_args()
    if test_ops.torch is not None:
        test_ops.torch.set_num_threads(1)
    samples = [o for o in test_ops.OPS if args.samples is None or args.samples in o.name]
    todo = [m for m in mutants() if args.only is None or args.only in m[1]]
    start = time.time()
    _STATE["samples"], _STATE["formulas"] = samples, yaml_formulas()
    hits, passing = {}, {}
    if args.trace and os.path.exists(args.trace):
        saved = json.loads(Path(args.trace).read_text())
        hits = {tuple(k.split("\t")): set(v) for k, v in saved["hits"].items()}
        passing = {int(k): v for k, v in saved["passing"].items()}
    else:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for h, p in pool.imap_unordered(trace, [range(k, len(samples), 16) for k in range(16)]):
                for key, ns in h.items():
                    hits.setdefault(key, set()).update(ns)
                passing.update(p)
        if args.trace:
            Path(args.trace).write_text(json.dumps({"hits": {"\t".join(k): sorted(v) for k, v in hits.items()},
                                                    "passing": passing}))
    print(f"traced {len(samples)} samples in {time.time() - start:.0f}s; {len(todo)} mutants", flush=True)
    _STATE.update(hits=hits, passing=passing)
    results = {}
    # a fresh pool: its workers fork from this process, which now holds the trace
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for mid, status, detail in pool.imap_unordered(_test_mutant, todo, chunksize=4):
            results[mid] = (status, detail)
    counts = {}
    for status, _ in results.values():
        counts[status] = counts.get(status, 0) + 1
    for mid, (status, detail) in sorted(results.items()):
        if status not in ("killed",):
            print(f"{status:11} {mid}  {detail or ''}")
    killed = counts.get("killed", 0)
    counted = len(results) - counts.get("equivalent", 0) - counts.get("invalid", 0)
    unreachable = counts.get("unreachable", 0)
    print(f"yaml mutants: {len(results)} ({counts}); killed {killed}/{counted} = "
          f"{100 * killed / max(counted, 1):.1f}% of non-equivalent mutants ({unreachable} listed unreachable); "
          f"{killed}/{counted - unreachable} = {100 * killed / max(counted - unreachable, 1):.1f}% of reachable "
          f"in {time.time() - start:.0f}s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=0, sort_keys=True))
    return 0 if killed == counted - unreachable else 1


if __name__ == "__main__":
    sys.exit(main())
