"""The structure of the package (ARCHITECTURE.md), stated as tests: no import cycles, real source
for every public callable, no generated code. The layer order itself is checked by `lint-imports`
(contracts in pyproject.toml, run by .ci/run)."""
import inspect
import os
import re
import types

import pytest

import ndgrad
import ndgrad.nn.functional

grimp = pytest.importorskip("grimp")

SRC = os.path.dirname(ndgrad.__file__)


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles_among_ndgrad_modules():
    graph = grimp.build_graph("ndgrad")
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    class Graph:
        modules = {"a", "b", "c"}

        @staticmethod
        def find_modules_directly_imported_by(m):
            return {"a": {"b"}, "b": {"a"}, "c": {"a"}}[m]
    assert _cycles(Graph) == [["a", "b"]]


def _public_callables():
    """(qualified name, object) of every public function of the namespaces users call, and every
    Tensor method."""
    spaces = {"ndgrad": ndgrad, "ndgrad.nn.functional": ndgrad.nn.functional, "ndgrad.linalg": ndgrad.linalg,
              "ndgrad.fft": ndgrad.fft, "ndgrad.special": ndgrad.special}
    for prefix, space in spaces.items():
        for name in sorted(dir(space)):
            obj = getattr(space, name)
            if not name.startswith("_") and isinstance(obj, types.FunctionType):
                yield f"{prefix}.{name}", obj
    for name, obj in sorted(vars(ndgrad.Tensor).items()):
        if isinstance(obj, (property, staticmethod, classmethod)):
            obj = obj.fget if isinstance(obj, property) else obj.__func__
        if isinstance(obj, types.FunctionType):
            yield f"Tensor.{name}", obj


def test_every_public_callable_has_source_in_the_package():
    missing = []
    for name, fn in _public_callables():
        try:
            file = inspect.getsourcefile(fn)
            inspect.getsource(fn)
        except (OSError, TypeError):
            missing.append(name)
            continue
        if not file.startswith(SRC):
            missing.append(f"{name} ({file})")
    assert missing == []


def test_public_callables_are_many():
    # the enumeration above must not silently find nothing
    assert sum(1 for _ in _public_callables()) > 1000


def test_public_functions_show_their_signature():
    assert list(inspect.signature(ndgrad.add).parameters) == ["input", "other", "alpha"]
    # an op with several overloads shows its first schema
    assert list(inspect.signature(ndgrad.sum).parameters) == ["input", "dtype"]


def test_only_the_derivative_table_compiled_tapes_and_op_recorders_are_compiled_to_code():
    # (ndgrad.compile's tapes, their fused loops and record's per-op recorders are generated source of
    # names, slot numbers and fixed operator templates, never of user text)
    users = []
    for root, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                with open(path) as fh:
                    if re.search(r"(?<![\w.])(?<!def )(exec|eval|compile)\(", fh.read()):
                        users.append(os.path.relpath(path, SRC))
    assert sorted(users) == ["_fusion.py", os.path.join("autograd", "record.py"), "compiler.py",
                             os.path.join("derivatives", "loader.py")]


def test_the_compiled_table_is_cached_per_yaml_content(tmp_path):
    from ndgrad.derivatives import SCOPE, loader
    yaml_path = tmp_path / "derivatives.yaml"
    yaml_path.write_text("- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * other\n")
    first = loader.load(dict(SCOPE), str(yaml_path))
    cache, = (tmp_path / "__pycache__").iterdir()
    assert first["mul.Tensor"].saved_names == ("other",)
    cache.write_bytes(cache.read_bytes())            # reused as long as the yaml's bytes are the same
    assert loader._table(str(yaml_path)) == loader._analyse(yaml_path.read_text())
    yaml_path.write_text(yaml_path.read_text() + "  other: grad * self +\n")   # changed: analysed again
    with pytest.raises(SyntaxError, match="derivatives.yaml line 3 .mul.Tensor."):
        loader.load(dict(SCOPE), str(yaml_path))
