"""ndgrad is typed for its users: `mypy --strict` on a small training script (tests/typing/user_script.py)
reports nothing, and the namespaces' exports for type checkers (tools/gen_type_exports.py) are current."""
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


def test_type_checker_exports_are_current():
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_type_exports.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


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
