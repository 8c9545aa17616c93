"""Mutation testing of ndgrad's core, on demand (never part of CI: it takes minutes per module).

    python tools/mutation.py [--module engine|record|node|tensor|optim ...] [--jobs N] [--sample K]
    python tools/mutation.py --yaml [--jobs N]          # the derivative-table mutator (tools/yaml_mutation.py)

Each module runs `mutmut` (pip install -e .[mutation]) in a scratch copy of src/ and tests/ under
$TMPDIR, against a few test files chosen for that module (mutmut runs, for each mutant, only the
tests that reached the mutated function), so a mutant costs seconds. `--sample K` keeps one mutant
in K (deterministically: every K-th name in sorted order) for modules too large to run in full.

The score is killed / (all - equivalent): survivors listed in tools/mutation_equivalent.txt (one
mutant name and a one-line reason per line) are behaviour-preserving and not counted. The other
survivors are printed with their diff: each needs a test that kills it.
"""
import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mutmut.stats import status_by_exit_code

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = ROOT / "tools" / "mutation_equivalent.txt"

# module -> (files mutated, test files run against them, mutant-name patterns kept or None for all,
#            default sampling: one mutant in K)
MODULES = {
    "engine": (["autograd/engine.py", "autograd/hooks.py", "autograd/capture.py", "autograd/graph_walk.py"],
               ["test_engine.py", "test_engine_api.py", "test_engine_contract.py", "test_hooks.py", "test_graph.py",
                "test_function.py", "test_pipelining_backward.py", "test_engine_rules.py"],
               None, 1),
    "record": (["autograd/record.py", "autograd/copy_slices.py"],
               ["test_views.py", "test_inplace.py", "test_engine.py", "test_saved_tensors.py", "test_function.py",
                "test_record_rules.py", "test_eager_overhead.py"],
               None, 1),
    "node": (["autograd/node.py", "_hooks.py"],
             ["test_hooks.py", "test_saved_tensors.py", "test_engine.py", "test_engine_api.py", "test_function.py",
              "test_node_rules.py"],
             None, 1),
    # _tensor.py: only its view / version / autograd bookkeeping, not dtype casts or repr
    "tensor": (["_tensor.py"],
               ["test_views.py", "test_inplace.py", "test_tensor.py", "test_engine.py", "test_tensor_rules.py"],
               ["*xǁTensorǁ" + m + "__mutmut_*" for m in (
                   "_make", "__init__", "_set_requires_grad", "requires_grad_", "grad_fn", "is_leaf", "_is_view",
                   "_version", "output_nr", "retains_grad", "detach", "detach_", "data", "grad")],
               1),
    "optim": (["optim/optimizer.py", "optim/sgd.py", "optim/adam.py", "optim/adagrad.py", "optim/rmsprop.py",
               "optim/extra.py", "optim/lbfgs.py", "optim/lr_scheduler.py"],
              ["test_optim.py", "test_optim_schedulers.py", "test_optim_rules.py", "test_optim_more.py"],
              None, 3),
}


def mutant_names(work):
    """Every mutant mutmut generated in the scratch copy (names as `mutmut run` takes them)."""
    names = []
    for meta in (work / "mutants").rglob("*.py.meta"):
        names += json.loads(meta.read_text())["exit_code_by_key"]
    return sorted(names)


def run_module(name, jobs, sample, only=None):
    files, tests, keep, default_sample = MODULES[name]
    sample = sample or default_sample
    work = Path(tempfile.gettempdir()) / f"ndgrad-mutation-{name}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(ROOT / "tests", work / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "README.md", work / "README.md")   # test_tensor runs the README's tour
    pyproject = (ROOT / "pyproject.toml").read_text()
    config = {
        "source_paths": ["src/ndgrad"],
        "only_mutate": [f"src/ndgrad/{f}" for f in files],
        "pytest_add_cli_args_test_selection": [f"tests/{t}" for t in tests] + ["-p", "no:cacheprovider"],
        "pytest_add_cli_args": ["-x", "-q"],
        "use_git_change_detection": False,
        "also_copy": ["README.md"],
    }
    # JSON lists, strings and false are valid TOML
    (work / "pyproject.toml").write_text(pyproject + "\n[tool.mutmut]\n" + "".join(
        f"{k} = {json.dumps(v)}\n" for k, v in config.items()))
    env = dict(os.environ, PYTHONPATH=str(work / "src"))
    mutmut = [sys.executable, "-m", "mutmut"]
    # first pass generates the mutants and the test map, running none (the pattern matches nothing)
    subprocess.run(mutmut + ["run", "--max-children", str(jobs), "no-such-mutant"], cwd=work, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    names = mutant_names(work)
    if keep:
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in keep)]
    names = names[::sample]
    if only is not None:
        names = [n for n in names if n in only]
    if not names:
        sys.exit(f"{name}: no mutants generated (see {work})")
    subprocess.run(mutmut + ["run", "--max-children", str(jobs)] + names, cwd=work, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    status = {}
    for meta in (work / "mutants").rglob("*.py.meta"):
        for key, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if key in names:
                status[key] = code
    return work, names, status


def equivalents():
    out = {}
    if EQUIVALENT.exists():
        for line in EQUIVALENT.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                key, _, reason = line.partition(" ")
                out[key] = reason.strip()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", action="append", choices=sorted(MODULES), help="default: all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=0, help="keep one mutant in K (default: per module)")
    parser.add_argument("--yaml", action="store_true", help="run the derivatives.yaml mutator instead")
    parser.add_argument("--json", help="write the per-mutant results here")
    parser.add_argument("--names", help="run only the mutants named in this file (one per line; e.g. the "
                                        "survivors of an earlier run, after adding tests)")
    args = parser.parse_args()
    if args.yaml:
        sys.exit(subprocess.call([sys.executable, str(ROOT / "tools" / "yaml_mutation.py"), "--jobs", str(args.jobs)]))
    equivalent = equivalents()
    total = {"killed": 0, "counted": 0}
    report = {}
    only = set(Path(args.names).read_text().split()) if args.names else None
    for name in args.module or sorted(MODULES):
        work, names, status = run_module(name, args.jobs, args.sample, only)
        # a timeout or crash counts as killed; "no tests" (no selected test reached it) as survived
        killed = [n for n in names if status_by_exit_code[status.get(n)] not in ("survived", "no tests", "not checked")]
        survived = [n for n in names if n not in killed]
        eq = [n for n in survived if n in equivalent]
        live = [n for n in survived if n not in equivalent]
        counted = len(names) - len(eq)
        total["killed"] += len(killed)
        total["counted"] += counted
        report[name] = {"mutants": len(names), "killed": len(killed), "equivalent": len(eq), "survived": live}
        print(f"{name}: {len(names)} mutants, {len(killed)} killed, {len(eq)} equivalent, {len(live)} survived"
              f" -> {100 * len(killed) / max(counted, 1):.1f}%", flush=True)
        for n in live:
            diff = subprocess.run([sys.executable, "-m", "mutmut", "show", n], cwd=work, capture_output=True,
                                  text=True).stdout
            print(diff if diff.strip() else f"# {n}: status {status.get(n)}")
    score = 100 * total["killed"] / max(total["counted"], 1)
    print(f"score: {total['killed']}/{total['counted']} non-equivalent mutants killed = {score:.1f}%")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0 if score >= 90 else 1


if __name__ == "__main__":
    sys.exit(main())
