"""Real PyTorch programs written by others, run unchanged with `torch` aliased to ndgrad and compared
with what torch itself prints: the shared external oracle (`../shared/oracles/external/`, next to the
checkout; its README says how programs are chosen, changed for offline use, and compared).

The programs are not copied into the project: this test runs the shared runner on this checkout
(`NDGRAD_PATH`), one program per test, and needs torch (the other side of each comparison) and the
oracle folder; without either it skips. A short fixed list runs by default (CI); `NDGRAD_EXTERNAL=full`
runs all thirty. A program that does not match yet is an expected failure that names its cause, and
fails the test as soon as it matches (strict), so the list stays true."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.environ.get("NDGRAD_EXTERNAL_ORACLE",
                        os.path.join(ROOT, "..", "shared", "oracles", "external", "run.py"))

QUICK = ["tut_polynomial_custom_function", "tut_blitz_autograd", "tut_blitz_neural_networks", "tut_autogradqs",
         "tut_buildmodel", "tut_custom_function_double_backward", "tut_saved_tensors_hooks", "micrograd_test_engine",
         "ex_vae", "makemore_mlp"]   # (these two draw their batches through torch.randint/randperm: see test_data)
ALL = ["tut_polynomial_tensor", "tut_polynomial_autograd", "tut_polynomial_custom_function", "tut_polynomial_nn",
       "tut_polynomial_module", "tut_dynamic_net", "tut_blitz_autograd", "tut_blitz_neural_networks",
       "tut_autogradqs", "tut_buildmodel", "tut_forward_ad_usage", "tut_jacobians_hessians", "tut_per_sample_grads",
       "tut_ensembling", "tut_neural_tangent_kernels", "tut_custom_function_double_backward",
       "tut_saved_tensors_hooks", "tut_nn_tutorial", "tut_custom_function_conv_bn", "ex_regression",
       "ex_time_sequence_prediction", "ex_word_language_model", "ex_gcn", "ex_vae", "micrograd_test_engine",
       "nanogpt_tiny_train", "mingpt_adder", "makemore_mlp", "docs_extending_autograd",
       "docs_extending_torch_function"]
# program -> why it does not match torch yet
KNOWN = {}   # (all thirty match as of 2026-11-25)

PROGRAMS = ALL if os.environ.get("NDGRAD_EXTERNAL") == "full" else QUICK


def _param(name):
    marks = [pytest.mark.xfail(reason=KNOWN[name], strict=True)] if name in KNOWN else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_program_prints_what_torch_prints(program):
    pytest.importorskip("torch")
    if not os.path.exists(RUNNER):
        pytest.skip(f"the shared external oracle is not next to this checkout ({RUNNER})")
    env = {**os.environ, "NDGRAD_PATH": os.path.join(ROOT, "src")}
    done = subprocess.run([sys.executable, RUNNER, "--only", program, "--timeout", "150", "-v"], env=env,
                          capture_output=True, text=True, timeout=400)
    row = re.search(rf"^{re.escape(program)}\s+(\S+)\s+(\S+)", done.stdout, flags=re.M)
    assert row is not None, done.stdout + done.stderr
    runs, match = row.groups()
    assert (runs, match) == ("yes", "yes"), done.stdout[-3000:]
