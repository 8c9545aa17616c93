"""`python -m ndgrad api`: coverage of torch's public names (ndgrad/_api.py, tools/gen_api_names.py)."""
import importlib.util
import os

import pytest

from ndgrad import _api
from ndgrad.__main__ import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_coverage_counts_present_over_torch_names_less_the_deliberately_absent():
    names = _api.NAMES["torch.linalg"]
    assert "common_notes" in names and "common_notes" in _api.absent("torch.linalg")
    present, wanted, missing = _api.coverage("torch.linalg", have=lambda n: n in {"det", "inv", "common_notes"})
    assert wanted == len(names) - 1   # common_notes is left out, so neither wanted nor missing
    assert present == 2 and len(missing) == wanted - 2 and "det" not in missing and "cholesky" in missing
    assert missing == sorted(missing)


def test_absent_lists_only_names_torch_has():
    assert "qint8" in _api.absent("torch") and "no_such_name" not in _api.absent("torch")
    assert all(_api.absent(m) <= set(_api.NAMES[m]) for m in _api.NAMES)


@pytest.mark.parametrize("module", list(_api.DELIBERATELY_ABSENT))
def test_no_exclusion_hides_a_name_ndgrad_has(module):
    mod = _api.ndgrad_module(module)
    hidden = sorted(n for n in _api.absent(module) if hasattr(mod, n) and _api.hides(getattr(mod, n)))
    assert hidden == []


def test_python_modules_ndgrad_imports_are_not_hidden_names():
    import math
    import ndgrad
    assert not _api.hides(math) and _api.hides(ndgrad.nn) and _api.hides(ndgrad.add)


def test_every_module_has_an_exclusion_entry_and_data():
    assert list(_api.DELIBERATELY_ABSENT) == list(_api.NAMES)
    assert all(names == sorted(names) and not any(n.startswith("_") for n in names) for names in _api.NAMES.values())


def test_table_and_check_output(capsys):
    assert main(["api", "--module", "fft"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith(f"torch {_api.TORCH_VERSION} public names")
    present, wanted, _ = _api.coverage("torch.fft")
    assert lines[1].split()[:4] == ["torch.fft", str(present), "/", str(wanted)]
    main(["api", "--check", "--module", "torch.distributions"])
    out = capsys.readouterr().out
    _, _, missing = _api.coverage("torch.distributions")
    assert (("    missing: " + " ".join(missing)) in out) == bool(missing)
    assert main(["api", "--module", "nope"]) == 1


def test_data_is_torchs_current_names():
    torch = pytest.importorskip("torch")
    if torch.__version__ != _api.TORCH_VERSION:
        pytest.skip(f"the data is from torch {_api.TORCH_VERSION}, torch {torch.__version__} is installed")
    spec = importlib.util.spec_from_file_location("gen_api_names", os.path.join(ROOT, "tools", "gen_api_names.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.names() == _api.NAMES
