"""ndgrad is typed for its users: `mypy --strict` on a small training script (tests/typing/user_script.py)
reports nothing, and the namespaces' exports for type checkers (tools/gen_type_exports.py) are current."""
import ast
import importlib
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

import ndgrad

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "typing" / "user_script.py"


def test_package_is_marked_typed():
    assert (pathlib.Path(ndgrad.__file__).parent / "py.typed").is_file()


def _type_checker_blocks():
    """(package, the `if _typing.TYPE_CHECKING:` block's statements) for each generated block."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_type_exports
    finally:
        sys.path.pop(0)
    for name in gen_type_exports.PACKAGES:
        package = importlib.import_module(name)
        tree = ast.parse(pathlib.Path(package.__file__).read_text())
        blocks = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "_typing.TYPE_CHECKING"]
        assert len(blocks) == 1, f"{name}: no type-checker block; run python tools/gen_type_exports.py"
        yield package, blocks[0].body


def test_type_checker_exports_are_right():
    # every name the blocks export exists, and is the object the block says it is: a stale entry would
    # mislead a type checker. (A name added since the last run of the tool only lacks its entry, which
    # `python tools/gen_type_exports.py` adds; `--check` tells whether one is missing.)
    checked = 0
    for package, body in _type_checker_blocks():
        for node in body:
            if isinstance(node, ast.ImportFrom) and node.module != "typing":
                source = importlib.import_module(node.module)
                for alias in node.names:
                    assert getattr(package, alias.asname) is getattr(source, alias.name), (package.__name__, alias.asname)
                    checked += 1
            elif isinstance(node, ast.Assign) and node.targets[0].id == "__all__":
                missing = [n for n in ast.literal_eval(node.value) if not hasattr(package, n)]
                assert missing == [], f"{package.__name__}.__all__ for type checkers names missing {missing}"
    assert checked > 300


def test_user_script_runs():
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) > 0


def test_mypy_strict_on_a_user_script():
    api = pytest.importorskip("mypy.api")
    # mypy reads ndgrad where this interpreter imports it from (the checkout, by PYTHONPATH or an
    # editable install), as a user's installed package: only the user script's own lines are reported
    cache = os.path.join(tempfile.gettempdir(), f"ndgrad-mypy-cache-{os.getuid()}")
    out, err, status = api.run(["--strict", "--cache-dir", cache, "--python-executable", sys.executable, str(SCRIPT)])
    assert status == 0, out + err
    assert "Success: no issues found" in out
