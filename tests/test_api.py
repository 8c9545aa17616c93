"""`python -m ndgrad api`: coverage of torch's public names (ndgrad/_api.py, tools/gen_api_names.py)."""
import json
import os
import subprocess
import sys

import numpy as np
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
    # in a fresh interpreter, as the tool runs: importing torch's submodules adds names to dir(torch)
    code = ("import importlib.util, json, sys; spec = importlib.util.spec_from_file_location('g', sys.argv[1]); "
            "g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g); print(json.dumps(g.names()))")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "tools", "gen_api_names.py")],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == _api.NAMES


# ---- the names added to raise the coverage, each compared with torch (tests/parity.py)
from parity import both, parity, same_error  # noqa: E402

import ndgrad  # noqa: E402


def _x(T):
    return T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=T.float64)


def test_aten_loss_forms_take_the_reduction_enum_and_default_to_none():
    out = both(lambda T: [T.kl_div(_x(T), _x(T).exp()), T.kl_div(_x(T), _x(T), 2, log_target=True),
                          T.binary_cross_entropy_with_logits(_x(T), _x(T).sigmoid()),
                          T.margin_ranking_loss(_x(T), _x(T) * 2, _x(T).sign(), 0.1, 1),
                          T.hinge_embedding_loss(_x(T), _x(T).sign(), 1.0, 2),
                          T.poisson_nll_loss(_x(T), _x(T).abs(), True, False, 1e-8, 1),
                          T.cosine_embedding_loss(_x(T), _x(T) + 1, T.tensor([1.0, -1.0], dtype=T.float64), 0.0, 1),
                          T.triplet_margin_loss(_x(T), _x(T) + 1, _x(T) - 1),
                          T.cosine_similarity(_x(T), _x(T) + 1), T.pairwise_distance(_x(T), _x(T) + 1)])
    assert out[0].shape == (2, 3) and out[1].shape == ()   # an omitted reduction is none
    same_error(lambda T: T.kl_div(_x(T), _x(T), reduction="mean"), TypeError)


def test_aten_normalization_and_dropout_forms():
    parity(lambda T: [T.batch_norm(_x(T), None, None, None, None, True, 0.1, 1e-5, False),
                    T.instance_norm(_x(T)[None], None, None, None, None, True, 0.1, 1e-5, False),
                    T.layer_norm(_x(T), [3]), T.group_norm(_x(T)[..., None], 1), T.rms_norm(_x(T), [3]),
                    T.dropout(_x(T), 0.5, False), T.alpha_dropout(_x(T), 0.3, False),
                    T.feature_dropout(_x(T), 1.0, True), T.feature_alpha_dropout(_x(T), 0.5, False)])
    x = ndgrad.ones(4, 6)
    assert ndgrad.dropout_(x, 0.0, True) is x
    same_error(lambda T: T.dropout(_x(T), 1.5, True), RuntimeError)


def test_windows_and_index_factories():
    out = both(lambda T: [T.hann_window(5), T.hann_window(4, False, dtype=T.float64), T.hamming_window(6),
                          T.hamming_window(5, False, 0.5, 0.5), T.blackman_window(5), T.bartlett_window(6),
                          T.kaiser_window(5), T.kaiser_window(4, False, 5.0), T.hann_window(1), T.hann_window(0),
                          T.tril_indices(3, 4, 1), T.triu_indices(3, 4, -1), T.scalar_tensor(3),
                          T.vander(T.tensor([1, 2, 3])), T.vander(T.tensor([1.0, 2.0]), N=3, increasing=True),
                          list(T.unravel_index(T.tensor([5, 7, 12, -1]), (3, 4))),
                          T.nonzero_static(T.tensor([[0, 1], [1, 1]]), size=4, fill_value=-5),
                          list(T.histogram(T.tensor([1.0, 2.0, 1.0, 5.0]), bins=4, range=(0.0, 4.0))),
                          list(T.histogram(T.tensor([1.0, 2.0, 1.0]), T.tensor([0.0, 1.0, 2.0, 3.0]), density=True)),
                          T.frombuffer(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00"), dtype=T.int32)], rtol=1e-6,
               atol=1e-7)
    assert out[-1].tolist() == [1, 2]
    same_error(lambda T: T.hann_window(-1), RuntimeError)
    same_error(lambda T: T.vander(T.ones(2, 2)), RuntimeError)
    same_error(lambda T: T.unravel_index(T.tensor([1.0]), (3, 4)), TypeError)
    assert ndgrad.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)


def test_vander_records_torchs_graph():
    x = ndgrad.tensor([1.0, 2.0, 3.0], dtype=ndgrad.float64, requires_grad=True)
    assert type(ndgrad.vander(x).grad_fn).__name__ == "FlipBackward0"
    # d/dx (1 + x + x^2) (torch 2.13's own backward of vander fails: its cumprod input is modified in place)
    assert ndgrad.autograd.grad(ndgrad.vander(x).sum(), x)[0].tolist() == [3.0, 5.0, 7.0]


def test_integer_and_predicate_functions():
    parity(lambda T: [T.gcd(T.tensor([4, 6, 0]), T.tensor([6, 9, 5])), T.lcm(T.tensor([4, -6]), T.tensor([6, 9])),
                    T.isreal(T.tensor([1, 1j])), T.isreal(T.tensor([1.0])), T.broadcast_shapes((2, 1), (3,), 1),
                    T.is_nonzero(T.tensor([[3]])), T.is_same_size(T.ones(2), T.ones(1)),
                    T.is_signed(T.ones(1, dtype=T.uint8)), T.can_cast(T.float32, T.int32),
                    T.can_cast(T.bool, T.int64), T.can_cast(T.int8, T.complex64), T.typename(T.ones(2, dtype=T.int64)),
                    T.typename(3), T.get_device(T.ones(1)), T.is_storage(T.ones(1).untyped_storage())])
    x = ndgrad.tensor([4, 6])
    ndgrad.gcd_(x, ndgrad.tensor([6, 9]))
    assert x.tolist() == [2, 3]
    same_error(lambda T: T.gcd(T.tensor([4.0]), T.tensor([6.0])), NotImplementedError)
    same_error(lambda T: T.is_nonzero(T.ones(2)), RuntimeError)
    same_error(lambda T: T.is_nonzero(T.ones(0)), RuntimeError)
    same_error(lambda T: T.broadcast_shapes((2,), (3,)), RuntimeError)


def test_removed_linalg_functions_raise_torchs_error():
    for name in ("eig", "symeig", "matrix_rank"):
        same_error(lambda T: getattr(T, name)(T.eye(2)), RuntimeError)
    for name in ("lstsq", "solve"):
        same_error(lambda T: getattr(T, name)(T.eye(2), T.eye(2)), RuntimeError)
    with pytest.raises(RuntimeError, match="torch.linalg.eigvals"):
        ndgrad.eig(ndgrad.eye(2))


def test_legacy_storage_types():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = ndgrad.DoubleStorage(3)
        assert s.dtype is ndgrad.float64 and s.tolist() == [0.0, 0.0, 0.0]
        assert ndgrad.HalfStorage([1, 2]).tolist() == [1.0, 2.0]
        assert isinstance(ndgrad.ones(2).storage(), ndgrad.FloatStorage)
        assert not isinstance(ndgrad.ones(2).storage(), ndgrad.DoubleStorage)
    assert ndgrad.Storage is ndgrad.FloatStorage and ndgrad.FloatStorage.dtype is ndgrad.float32


def test_settings_and_deprecated_factories():
    import warnings
    ndgrad.set_float32_matmul_precision("high")
    assert ndgrad.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="not one of"):
        ndgrad.set_float32_matmul_precision("bad")
    assert ndgrad.get_float32_matmul_precision() == "high"
    ndgrad.set_float32_matmul_precision("highest")
    ndgrad.set_warn_always(True)
    assert ndgrad.is_warn_always_enabled()
    ndgrad.set_warn_always(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity(lambda T: [T.range(1, 4), T.range(0, 1, 0.5, dtype=T.float64), T.range(1, 4, dtype=T.int64),
                        T.frobenius_norm(_x(T), (0, 1)), T.nuclear_norm(_x(T)), T.nuclear_norm(_x(T)[None], (1, 2))])
        ndgrad.set_default_tensor_type("torch.DoubleTensor")
        assert ndgrad.get_default_dtype() is ndgrad.float64
        ndgrad.set_default_tensor_type(ndgrad.FloatTensor)
    assert ndgrad.get_default_dtype() is ndgrad.float32
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        ndgrad.range(0, 2)


def test_rnn_cells():
    def cells(T):
        g = np.random.RandomState(0)
        t = [T.tensor(g.randn(*s)) for s in [(2, 4), (2, 3), (2, 3), (12, 4), (12, 3), (12,), (9, 4), (9, 3), (3, 4),
                                              (3, 3)]]
        inp, h, c, w_ih, w_hh, b, g_ih, g_hh, r_ih, r_hh = t
        return [*T.lstm_cell(inp, (h, c), w_ih, w_hh, b, b), T.gru_cell(inp, h, g_ih, g_hh),
                T.rnn_tanh_cell(inp, h, r_ih, r_hh), T.rnn_relu_cell(inp, h, r_ih, r_hh)]
    parity(cells)


def test_binomial_draws_counts():
    ndgrad.manual_seed(0)
    out = ndgrad.binomial(ndgrad.tensor([10.0, 0.0, 5.0]), ndgrad.tensor([0.5, 0.5, 1.0]))
    assert out.dtype is ndgrad.float32 and 0 <= out[0] <= 10 and out[1] == 0 and out[2] == 5


def test_random_and_version_modules():
    ndgrad.manual_seed(1)
    with ndgrad.random.fork_rng():
        ndgrad.rand(3)
    after_fork = ndgrad.rand(2)
    ndgrad.manual_seed(1)
    assert ndgrad.equal(after_fork, ndgrad.rand(2))
    assert ndgrad.version.__version__ == ndgrad.__version__ and ndgrad.version.cuda is None


def test_nn_buffer_container_factory_kwargs_and_grad():
    def scenario(T):
        m = T.nn.Module()
        m.b = T.nn.Buffer(T.ones(2), persistent=False)
        m.c = T.nn.Buffer(T.zeros(1))
        g = np.random.RandomState(0)
        x, w, go = T.tensor(g.randn(1, 2, 5, 5)), T.tensor(g.randn(3, 2, 3, 3)), T.tensor(g.randn(1, 3, 3, 3))
        return [list(m.state_dict()), sorted(dict(m.named_buffers())), isinstance(m.b, T.nn.Buffer),
                isinstance(T.ones(1), T.nn.Buffer), str(T.nn.factory_kwargs({"dtype": T.float64})),
                T.nn.grad.conv2d_input(x.shape, w, go), T.nn.grad.conv2d_weight(x, w.shape, go),
                T.nn.functional.grad.conv1d_input((1, 2, 5), w[..., 0], go[..., 0])]
    out = both(scenario)
    assert out[:3] == [["c"], ["b", "c"], True]
    same_error(lambda T: T.nn.factory_kwargs({"bad": 1}), TypeError)
    with pytest.warns(FutureWarning):
        c = ndgrad.nn.Container(a=ndgrad.nn.Linear(1, 1))
    assert list(dict(c.named_children())) == ["a"]


def test_gumbel_softmax_is_a_distribution_and_hard_is_one_hot():
    ndgrad.manual_seed(0)
    x = ndgrad.randn(3, 5, requires_grad=True)
    soft = ndgrad.nn.functional.gumbel_softmax(x, tau=0.5)
    assert ndgrad.allclose(soft.sum(-1), ndgrad.ones(3))
    hard = ndgrad.nn.functional.gumbel_softmax(x, hard=True)
    assert hard.sum(-1).tolist() == [1.0, 1.0, 1.0] and set(hard.flatten().tolist()) == {0.0, 1.0}
    hard.sum().backward()
    assert x.grad is not None
    same_error(lambda T: T.nn.functional.assert_int_or_pair([1, 2, 3], "kernel_size", "{} must be int or pair"),
               AssertionError)


def test_cyclic_lr_follows_torchs_schedule():
    def run(T, mode, optim="SGD"):
        p = [T.nn.Parameter(T.ones(2))]
        opt = T.optim.SGD(p, lr=0.1, momentum=0.9) if optim == "SGD" else T.optim.Adam(p, lr=0.1)
        s = T.optim.lr_scheduler.CyclicLR(opt, 0.01, [0.1], step_size_up=3, step_size_down=2, mode=mode, gamma=0.9)
        out = []
        for _ in range(12):
            opt.step()
            s.step()
            g = opt.param_groups[0]
            out.append([g["lr"], g["momentum"] if optim == "SGD" else g["betas"][0]])
        return out + [s.get_last_lr()]
    for mode in ("triangular", "triangular2", "exp_range"):
        parity(lambda T: run(T, mode), rtol=1e-12)
    parity(lambda T: run(T, "triangular", "Adam"), rtol=1e-12)
    same_error(lambda T: run(T, "nope"), ValueError)


def test_distributed_sampler_splits_and_pads():
    def scenario(T):
        DS = T.utils.data.DistributedSampler
        return [[list(DS(range(7), 3, r, shuffle=False)) for r in range(3)],
                [list(DS(range(7), 3, r, shuffle=False, drop_last=True)) for r in range(3)], len(DS(range(7), 3, 0))]
    assert both(scenario)[0] == [[0, 3, 6], [1, 4, 0], [2, 5, 1]]
    s = ndgrad.utils.data.DistributedSampler(range(10), 2, 1, seed=3)
    first = list(s)
    s.set_epoch(1)
    assert sorted(first + list(ndgrad.utils.data.DistributedSampler(range(10), 2, 0, seed=3))) == list(range(10))
    assert list(s) != first
    same_error(lambda T: T.utils.data.DistributedSampler(range(5), num_replicas=2, rank=2), ValueError)


def test_func_module_state_helpers():
    def scenario(T):
        T.manual_seed(0)
        models = [T.nn.Linear(2, 3) for _ in range(2)]
        params, buffers = T.func.stack_module_state(models)
        out, jvp_fn = T.func.linearize(T.sin, T.tensor([0.0, 1.0], dtype=T.float64))
        bn = T.func.replace_all_batch_norm_modules_(T.nn.Sequential(T.nn.BatchNorm1d(3)))
        return [{k: (list(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()}, buffers,
                bool((params["weight"][1] == models[1].weight).all()), out,
                jvp_fn(T.tensor([1.0, 2.0], dtype=T.float64)), bn[0].running_mean, bn[0].track_running_stats,
                T.func.functionalize(lambda x: x.add_(1))(T.zeros(2)), T.func.debug_unwrap(T.ones(1))]
    parity(scenario)
    same_error(lambda T: T.func.stack_module_state([]), RuntimeError)
    same_error(lambda T: T.func.functionalize(T.sin, remove="x"), RuntimeError)
