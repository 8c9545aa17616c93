"""PyTorch's OpInfo database against ndgrad (tests/opinfo_runner.py does the work).

Skipped where torch (or its testing helpers, which need `expecttest`) is absent. By default a
fixed subset of OpInfos with at most a few samples each, to stay short on CI; the whole database
with NDGRAD_OPINFO=full.
"""
import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")   # torch.testing._internal imports it

import opinfo_runner  # noqa: E402

FULL = os.environ.get("NDGRAD_OPINFO") == "full"
# A spread over the families (pointwise, reductions, views, indexing, linalg, fft, nn), fixed so
# that a CI failure names a change, not a new sample.
SUBSET = [
    "add", "mul", "div.no_rounding_mode", "pow", "exp", "sin", "sigmoid", "clamp", "where", "lerp",
    "sum", "mean", "prod", "amax", "logsumexp", "cumsum", "var", "norm",
    "reshape", "permute", "transpose", "cat", "stack", "expand", "squeeze", "flip", "roll",
    "index_select", "scatter", "scatter_add", "take_along_dim", "masked_fill",
    "matmul", "mm", "bmm", "linalg.det", "linalg.inv", "linalg.svd", "cholesky", "fft.fft",
    "nn.functional.relu", "softmax", "nn.functional.conv1d", "nn.functional.layer_norm",
    "nn.functional.mse_loss", "nn.functional.embedding", "nn.functional.max_pool2d", "nn.functional.pad.constant",
    "meshgrid.list_of_tensors", "diag", "diff", "broadcast_to", "repeat_interleave", "cov", "quantile",
    "searchsorted", "trapezoid", "cumulative_trapezoid", "__rdiv__", "bernoulli", "nn.functional.dropout2d",
]
MAX_SAMPLES = None if FULL else 4


def _selected():
    ops = opinfo_runner.load_op_db()
    chosen = [op for op in ops if opinfo_runner.in_scope(op, torch)]
    if not FULL:
        chosen = [op for op in chosen if opinfo_runner.op_id(op) in SUBSET or op.name in SUBSET]
    return chosen


_OPS = _selected()


def test_subset_names_exist():
    ids = {opinfo_runner.op_id(op) for op in opinfo_runner.load_op_db()}
    names = {op.name for op in opinfo_runner.load_op_db()}
    assert not [n for n in SUBSET if n not in ids and n not in names]


def test_known_entries_have_reasons():
    assert all(isinstance(r, str) and r for r in opinfo_runner.KNOWN.values())
    assert all(isinstance(r, str) and r for r in opinfo_runner.KNOWN_F32.values())


@pytest.mark.parametrize("op", _OPS, ids=opinfo_runner.op_id)
def test_opinfo_float64(op):
    status, detail, n = opinfo_runner.run_op(op, torch, MAX_SAMPLES)
    if status == "excluded":
        pytest.skip(detail)
    assert status == "pass", detail
    assert n > 0


def test_cli_table_and_percentage(capsys):
    opinfo_runner.main(["--ops", "add,sub", "--samples", "2"])
    out = capsys.readouterr().out
    assert "| `add` | pass | 2 |" in out and "| `sub` | pass | 2 |" in out
    assert "2/2 in-scope OpInfos pass every float64 sample incl. gradients: 100.0%" in out


def test_known_is_reported_not_skipped():
    op = next(o for o in opinfo_runner.load_op_db() if o.name == "empty")
    assert opinfo_runner.run_op(op, torch) == ("excluded", opinfo_runner.UNINIT, 0)


def test_random_ops_compared_with_both_generators_seeded(monkeypatch):
    # bernoulli's OpInfo seeds torch inside its own wrapper: the runner converts the wrapper so that it
    # seeds ndgrad's generator; without that seed, ndgrad's draws differ
    assert opinfo_runner.run_op(_op("bernoulli"), torch) == ("pass", "", 4)
    import ndgrad
    monkeypatch.setattr(ndgrad, "manual_seed", lambda seed: ndgrad.default_generator)
    assert opinfo_runner.run_op(_op("bernoulli"), torch)[0] == "value"


def _op(name):
    return next(o for o in opinfo_runner.load_op_db() if opinfo_runner.op_id(o) == name)


@pytest.mark.parametrize("mode,name", [(m, n) for m in ("complex128", "forward_ad") for n in ("add", "mul", "sin", "sum", "matmul")]
                         + [("inplace", n) for n in ("add", "mul", "clamp", "index_add", "conj_physical", "acosh", "fill")]
                         + [("complex128", "conj"), ("forward_ad", "nn.functional.group_norm")]
                         + [("float32", n) for n in ("add", "mul", "sum", "softmax", "var",
                                                     "matmul", "nn.functional.cross_entropy")])
def test_modes(mode, name):
    op = _op(name)
    assert opinfo_runner.mode_applies(op, torch, mode)
    status, detail, _ = opinfo_runner.run_op(op, torch, 3, mode=mode)
    assert status == "pass", detail


def test_inplace_version_counter_checked(monkeypatch):
    import ndgrad
    add_ = ndgrad.Tensor.add_

    def add_twice(self, *args, **kwargs):   # right values, one version bump too many
        add_(self, *args, **kwargs)
        return self.mul_(1)
    monkeypatch.setattr(ndgrad.Tensor, "add_", add_twice)
    status, detail, _ = opinfo_runner.run_op(_op("add"), torch, 2, mode="inplace")
    assert (status, detail) == ("value", "version counter +2, torch +1")


def test_undetermined_samples_and_torch_gradient_known_wrong():
    status, detail, n = opinfo_runner.run_op(_op("nn.functional.scaled_dot_product_attention"), torch, 6)
    assert (status, detail, n) == ("pass", "", 6)   # its dropout_p > 0 samples too, seeded alike
    status, detail, n = opinfo_runner.run_op(_op("nn.functional.max_unpool2d"), torch, 12)
    assert status == "pass" and "samples not compared (torch's result undetermined)" in detail
    status, detail, n = opinfo_runner.run_op(_op("as_strided_scatter"), torch)
    assert status == "pass" and detail.startswith("gradients by ndgrad's gradcheck")
    status, detail, n = opinfo_runner.run_op(_op("cholesky_inverse"), torch, 4, mode="forward_ad")
    assert status == "pass" and detail.startswith("tangents by ndgrad's gradcheck")


def test_float32_dtype_compared_exactly(monkeypatch):
    # a float64 result of a float32 op is a dtype bug, never rounding (not hidden by KNOWN_F32 either)
    import ndgrad
    exp = ndgrad.exp
    monkeypatch.setattr(ndgrad, "exp", lambda x, *a, **k: exp(x.double(), *a, **k))
    status, detail, _ = opinfo_runner.run_op(_op("exp"), torch, 2, mode="float32")
    assert (status, detail) == ("dtype", "sample 0: Mismatch: value 0: dtype torch.float64, torch gives torch.float32")


def test_float32_rounding_listed_is_excluded_with_reason():
    # torch's float32 polygamma is 1e-2 off a float64 reference where ndgrad's (SciPy's) is 5e-5
    status, detail, _ = opinfo_runner.run_op(_op("polygamma.polygamma_n_0"), torch, 1, mode="float32")
    assert status == "excluded" and detail.startswith("float32 rounding only: ndgrad's float32 result is closer")
