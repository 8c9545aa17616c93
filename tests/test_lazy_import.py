"""`import ndgrad` loads only what most programs use; the rest is imported on first access."""
import subprocess
import sys

import ndgrad

LAZY = ("ndgrad.distributions", "ndgrad.serialization", "ndgrad.compiler", "ndgrad.testing", "ndgrad.amp",
        "ndgrad.utils.data", "ndgrad.utils.checkpoint", "yaml", "numba")


def test_import_leaves_rarely_used_modules_unloaded():
    code = f"import sys, ndgrad; print([m for m in {LAZY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_names_resolve_to_the_real_objects():
    from ndgrad import GradScaler, load, save
    from ndgrad.amp.grad_scaler import GradScaler as scaler_cls
    assert ndgrad.compile is ndgrad.compiler.compile and save is ndgrad.serialization.save
    assert load is ndgrad.serialization.load and GradScaler is scaler_cls
    assert ndgrad.autocast is ndgrad.amp.autocast and ndgrad.is_autocast_enabled() is False
    assert ndgrad.distributions.Normal(0.0, 1.0).mean.item() == 0.0
    assert ndgrad.utils.data.DataLoader is not None and ndgrad.cuda.amp.GradScaler is not None
    assert {"distributions", "compile", "amp", "GradScaler"} <= set(dir(ndgrad))
    assert "data" in dir(ndgrad.utils)


def test_unknown_attributes_still_raise_attribute_error():
    for mod in (ndgrad, ndgrad.utils, ndgrad.cuda):
        try:
            getattr(mod, "no_such_name")
        except AttributeError as e:
            assert str(e) == f"module '{mod.__name__}' has no attribute 'no_such_name'"
        else:
            raise AssertionError(f"{mod.__name__}.no_such_name exists")


def test_import_time_objects_are_frozen_out_of_the_collector():
    # full collections during a long forward pass must not rewalk ndgrad's import-time objects (asked
    # of a fresh interpreter: mypy's API, run in-process by test_typing, unfreezes them)
    out = subprocess.run([sys.executable, "-c", "import gc, ndgrad; print(gc.get_freeze_count())"],
                         capture_output=True, text=True, check=True).stdout
    assert int(out) > 10000
