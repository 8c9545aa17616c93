"""`python -m ndgrad ops`: the op catalog and its --check (ndgrad/_catalog.py, tools/gen_catalog.py)."""
import inspect
import os

import pytest

import ndgrad
from ndgrad import _catalog
from ndgrad.__main__ import main

SPEC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared", "spec")


def test_check_runs_the_selected_programs_on_ndgrad(capsys):
    assert main(["ops", "--check", "TrilBackward0", "Unique2Backward0", "SliceInverseBackward0"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "3/3 produced; 0 not built (documented: `python -m ndgrad ops`); 0 failed"


def test_check_reports_a_program_whose_graph_lacks_the_node():
    ok, detail = _catalog.check("TrilBackward0", lambda T: T.ones(2, requires_grad=True) * 2, ndgrad)
    assert not ok and "MulBackward0" in detail


def test_check_reports_a_program_that_raises():
    ok, detail = _catalog.check("TrilBackward0", lambda T: T.no_such_op(), ndgrad)
    assert not ok and detail.startswith("AttributeError")


def test_listing_gives_calls_reasons_and_a_summary(capsys):
    assert main(["ops", "unique2", "CudnnConvolutionBackward0"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split() == ["Unique2Backward0", "T.unique(x)"]
    assert lines[1].startswith("CudnnConvolutionBackward0") and "UNREACHABLE: cuDNN-only" in lines[1]
    assert lines[2].startswith("2 backward nodes: 1 with an ndgrad node, 0 not built (with the reason), 0 not implemented yet, 1 unreachable")


def test_nodes_without_an_ndgrad_node_are_marked_not_implemented(capsys, monkeypatch):
    monkeypatch.setattr(_catalog, "node_names", lambda: set())
    main(["ops", "TrilBackward0"])
    assert "not implemented yet (torch: T.tril(A))" in capsys.readouterr().out


def test_catalog_covers_every_node_name_once():
    names = [r[0] for r in _catalog.ROWS]
    assert len(names) == len(set(names)) == 528
    assert all((program is None) != (reason is None) for _, _, program, reason in _catalog.ROWS)


@pytest.mark.skipif(not os.path.isdir(SPEC), reason="the spec directory is not beside this checkout")
def test_catalog_data_is_generated_from_the_current_spec():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_catalog", os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "gen_catalog.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    table = gen.rows(*gen.load_spec(SPEC))
    assert [(n, c, r) for n, c, _, r in table] == [(n, c, r) for n, c, _, r in _catalog.ROWS]
    for (name, _, program, _), (_, _, fn, _) in zip(table, _catalog.ROWS):
        if program is not None:   # the function's source is the spec's program, under the node's name
            assert inspect.getsource(fn) == program.replace("def f(T):", f"def _{name}(T):", 1).rstrip() + "\n"


def test_nodes_not_built_are_documented_and_do_not_fail_the_check(capsys):
    assert set(_catalog.NOT_BUILT) <= {r[0] for r in _catalog.ROWS}
    assert main(["ops", "--check", "MkldnnReshapeBackward0", "TrilBackward0"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("not built MkldnnReshapeBackward0: ")
    assert out[-1] == "1/2 produced; 1 not built (documented: `python -m ndgrad ops`); 0 failed"
    main(["ops", "ToMkldnnBackward0"])
    assert "NOT BUILT: Intel MKL-DNN" in capsys.readouterr().out
