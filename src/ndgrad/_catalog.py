"""`python -m ndgrad ops`: the op catalog, one row per backward node PyTorch can produce.

Each row says how torch produces the node (the key call of a small program written against the
torch API: a function of the library, in `_catalog_data.py`), or why no CPU program can. A node
ndgrad has no Node class for is marked "not implemented yet". `--check` runs the programs on ndgrad
and verifies that the node appears in the graph of what they return.
"""
import inspect
import logging
import os
import sys
import warnings


from ._catalog_data import ROWS
from ._progress import progress, write
from .autograd.node import Node
from .derivatives import ENTRIES

_MKLDNN = ("Intel MKL-DNN (oneDNN) opaque tensors (`to_mkldnn`): a CPU-library-specific layout with no "
           "meaning on NumPy arrays")
# Nodes torch produces on CPU that ndgrad deliberately does not build, and why.
NOT_BUILT = {
    "ToMkldnnBackward0": _MKLDNN,
    "MkldnnLinearBackward0": _MKLDNN,
    "MkldnnMaxPool2DBackward0": _MKLDNN,
    "MkldnnMaxPool3DBackward0": _MKLDNN,
    "MkldnnAdaptiveAvgPool2DBackward0": _MKLDNN,
    "MkldnnReshapeBackward0": _MKLDNN,
    "NnpackSpatialConvolutionBackward0": "NNPACK's convolution kernel (torch._nnpack_spatial_convolution): a "
                                         "backend-specific node; ndgrad's convolutions record ConvolutionBackward0",
}


def node_names():
    """The names of the backward nodes ndgrad can build: one per derivatives.yaml entry, plus the
    hand-written Node classes (AccumulateGrad, CopySlices, custom Function nodes, ...)."""
    names = {e.node_name or e.node_cls.__name__ for e in ENTRIES.values()}
    todo = [Node]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        names.add(cls.__name__)
        try:
            names.add(cls.name(cls.__new__(cls)))
        except Exception:   # a name() that needs a built node: the class name stands for it
            pass
    return names


def graph_names(out):
    """The names of every node reachable from the grad_fn of `out` (a tensor or a sequence of them)."""
    stack = [getattr(o, "grad_fn", None) for o in (out if isinstance(out, (list, tuple)) else [out])]
    seen, names = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(node.name())
        stack.extend(fn for fn, _ in node.next_functions)
    return names


def run_program(program, lib):
    """Run one catalog program (a function of the library T) with `lib` as T; returns what it returns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return program(lib)


def check(name, program, lib):
    """(produced, detail): whether the program's graph holds node `name` on `lib`, and why not."""
    try:
        names = graph_names(run_program(program, lib))
    except Exception as e:   # one failing program must not stop the run
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return False, f"{type(e).__name__}: {first[:200]}"
    if name in names:
        return True, ""
    return False, f"not in the graph (nodes: {', '.join(sorted(names)[:8])})"


def selected(patterns):
    """The rows whose name contains one of `patterns` (case-insensitive); all rows without any."""
    if not patterns:
        return list(ROWS)
    pats = [p.lower() for p in patterns]
    return [r for r in ROWS if any(p in r[0].lower() for p in pats)]


def main(args):
    """The `ops` subcommand: print the catalog (or the rows matching args.names); --check runs them."""
    rows = selected(args.names)
    if not rows:
        print(f"no backward node name contains {' or '.join(map(repr, args.names))}")
        return 1
    try:
        return _check_rows(rows) if args.check else _print_rows(rows, args.full)
    except BrokenPipeError:   # the reader went away (`... ops | head`): stop quietly
        sys.stdout = open(os.devnull, "w")
        return 0


def _print_rows(rows, full):
    have = node_names()
    width = max(len(r[0]) for r in rows) + 2
    counts = {"ndgrad": 0, "not built": 0, "not implemented yet": 0, "unreachable": 0}
    for name, call, program, reason in rows:
        if program is None:
            counts["unreachable"] += 1
            line = f"UNREACHABLE: {reason}"
        elif name in NOT_BUILT:
            counts["not built"] += 1
            line = f"NOT BUILT: {NOT_BUILT[name]} (torch: {call})"
        elif name in have:
            counts["ndgrad"] += 1
            line = call
        else:
            counts["not implemented yet"] += 1
            line = f"not implemented yet (torch: {call})"
        print(f"{name:<{width}}{line}")
        if full and program is not None:
            print("\n".join("    " + ln for ln in inspect.getsource(program).rstrip().splitlines()))
    print(f"{len(rows)} backward nodes: {counts['ndgrad']} with an ndgrad node, {counts['not built']} not built "
          f"(with the reason), {counts['not implemented yet']} not implemented yet, {counts['unreachable']} "
          "unreachable on CPU torch. `--check` runs the programs on ndgrad.")
    return 0


def _check_rows(rows):
    # the programs are torch code, run against the public namespace (as `torch`); imported here, when
    # they run, since importing the package from a module inside it at load time would be a cycle
    import ndgrad
    logging.disable(logging.WARNING)
    try:
        runnable = [r for r in rows if r[2] is not None]
        produced, failed = 0, 0
        # a progress bar on stderr, only on a terminal; tqdm.write keeps the failure lines above it
        for name, _, program, _ in progress(runnable, desc="running the catalog", unit="program"):
            ok, detail = check(name, program, ndgrad)
            produced += ok
            if not ok:
                write(f"{'not built' if name in NOT_BUILT else 'FAIL'} {name}: {detail}")
                failed += name not in NOT_BUILT
    finally:
        logging.disable(logging.NOTSET)
    print(f"{produced}/{len(runnable)} produced; {len(runnable) - produced - failed} not built (documented: "
          f"`python -m ndgrad ops`); {failed} failed")
    return 1 if failed else 0
