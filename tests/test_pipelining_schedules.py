"""Pipeline schedules with all stages in one process: every schedule gives the gradients, losses
and (after an SGD step) weights of one single-process step of the same model on the same data."""
import numpy as np
import pytest

import ndgrad as T
import ndgrad.distributed  # noqa: F401
from ndgrad.distributed import pipelining as P

A = P._Action

CASES = [  # schedule, stages, ranks
    (P.ScheduleGPipe, 4, 4), (P.Schedule1F1B, 4, 4), (P.Schedule1F1B, 2, 2),
    (P.ScheduleInterleaved1F1B, 8, 4), (P.ScheduleInterleaved1F1B, 4, 2),
    (P.ScheduleInterleavedZeroBubble, 4, 4), (P.ScheduleInterleavedZeroBubble, 8, 4),
    (P.ScheduleZBVZeroBubble, 8, 4), (P.ScheduleZBVZeroBubble, 4, 2),
]


def make_model(n_layers=8, width=5, seed=0):
    T.manual_seed(seed)
    layers = []
    for _ in range(n_layers):
        layers += [T.nn.Linear(width, width), T.nn.Tanh()]
    return T.nn.Sequential(*layers).double()


def data(batch=8, width=5):
    rng = np.random.default_rng(1)
    return T.tensor(rng.standard_normal((batch, width))), T.tensor(rng.standard_normal((batch, width)))


def mse(out, target):
    return ((out - target) ** 2).mean()


def reference_step(model, x, y, lr=0.1):
    loss = mse(model(x), y)
    loss.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    T.optim.SGD(model.parameters(), lr=lr).step()
    return loss, grads


@pytest.mark.parametrize("schedule,num_stages,ranks", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_schedule_matches_single_process_step(schedule, num_stages, ranks):
    model, reference = make_model(), make_model()
    x, y = data()
    pipe = P.pipeline(model, num_stages=num_stages)
    stages = [pipe.build_stage(i) for i in range(num_stages)]
    sched = schedule(stages, n_microbatches=4, loss_fn=mse, num_ranks=ranks)
    losses = []
    out = sched.step(x, target=y, losses=losses)
    ref_loss, ref_grads = reference_step(reference, x, y)
    np.testing.assert_allclose(out.detach().numpy(), make_model()(x).detach().numpy(), rtol=1e-13)
    assert len(losses) == 4
    np.testing.assert_allclose(np.mean([l.item() for l in losses]), ref_loss.item(), rtol=1e-12)
    for p, g in zip(model.parameters(), ref_grads):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-10, atol=1e-13)
    T.optim.SGD(model.parameters(), lr=0.1).step()
    for p, q in zip(model.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_output_is_the_models_output_and_forward_only_without_loss():
    model = make_model(4)
    x, _ = data()
    stages = [P.PipelineStage(m, i, 2) for i, m in enumerate(P.pipeline(model, num_stages=2).stage_modules)]
    out = P.Schedule1F1B(stages, 4).step(x)
    np.testing.assert_allclose(out.detach().numpy(), model(x).detach().numpy(), rtol=1e-13)
    assert all(p.grad is None for p in model.parameters())


def test_action_strings():
    assert str(A(0, "F", 0)) == "0F0" and A.from_str("12W3") == A(12, "W", 3)
    with pytest.raises(ValueError, match="invalid action"):
        A.from_str("0X0")


def test_orders_are_printable():
    stages = [P.PipelineStage(T.nn.Identity(), i, 4) for i in range(4)]
    gpipe = P.ScheduleGPipe(stages, 8, loss_fn=mse)
    assert gpipe.format_pipeline_order(idle=False).splitlines()[0] == \
        "rank 0: " + " ".join([f"0F{m}" for m in range(8)] + [f"0B{m}" for m in range(8)])
    zb = P.ScheduleInterleavedZeroBubble(stages, 8, loss_fn=mse, num_ranks=4)
    line = zb.format_pipeline_order().splitlines()[0]
    assert line.startswith("rank 0: 0F0 0F1 0F2 0F3 ... ... ... 0I0 0F4") and line.endswith("0W7")
    assert "1I0" in str(zb)


def test_zero_bubble_schedules_have_smaller_bubbles():
    def bubble(cls, S, R):
        return cls([P.PipelineStage(T.nn.Identity(), i, S) for i in range(S)], 8, loss_fn=mse,
                   num_ranks=R).simulated_bubble_fraction()
    one_f_one_b = bubble(P.Schedule1F1B, 4, 4)
    assert one_f_one_b == pytest.approx(9 / 33)            # (p - 1) / (m + p - 1) with B = 2 F
    assert bubble(P.ScheduleGPipe, 4, 4) == pytest.approx(9 / 33)
    assert bubble(P.ScheduleInterleavedZeroBubble, 4, 4) < 0.5 * one_f_one_b
    assert bubble(P.ScheduleZBVZeroBubble, 4, 2) < bubble(P.ScheduleInterleavedZeroBubble, 4, 4)


def _order(text):
    return {r: [A.from_str(a) for a in line.split()] for r, line in enumerate(text)}


def test_validation_accepts_a_hand_written_order():
    merged = P.validate_pipeline_order(_order(["0F0 0F1 0B0 0B1", "1F0 1B0 1F1 1B1"]), 2, 2, [0, 1])
    assert [str(a) for a in merged][:3] == ["0F0", "0F1", "1F0"]


@pytest.mark.parametrize("lines,message", [
    (["0F0 0B0", "1F0 1B0"], "microbatch 1 has actions none"),
    (["0F0 0F1 0B0 0B1", "1F0 1I0 1F1 1I1"], "stage 1 microbatch 0 has actions FI"),
    (["0F0 0F1 0B0 0B1", "1B0 1F0 1F1 1B1"], "deadlocks: rank 0 at 0B0 .* rank 1 at 1B0 \\(needs 1F0\\)"),
    (["0F0 0F1 0B0 0B1 1F0", "1B0 1F1 1B1"], "belongs to stage 1, which is placed on rank 1"),
    (["0F0 0F1 0B0 0B1 0F0", "1F0 1B0 1F1 1B1"], "appears twice"),
])
def test_validation_rejects_bad_orders(lines, message):
    with pytest.raises(ValueError, match=message):
        P.validate_pipeline_order(_order(lines), 2, 2, [0, 1])


def test_schedule_errors():
    stages = [P.PipelineStage(T.nn.Identity(), i, 4) for i in range(4)]
    with pytest.raises(ValueError, match=r"stages \[3\] are missing"):
        P.Schedule1F1B(stages[:3], 4)
    with pytest.raises(ValueError, match="needs 2 stages per rank"):
        P.ScheduleZBVZeroBubble(stages, 4, num_ranks=4)
    with pytest.raises(RuntimeError, match="needs target="):
        P.Schedule1F1B(stages, 2, loss_fn=mse).step(T.ones(4, 2))
    with pytest.raises(ValueError, match="into 4 microbatches"):
        P.Schedule1F1B(stages, 4, loss_fn=mse).step(T.ones(2, 2), target=T.ones(2, 2))
    with pytest.raises(ValueError, match="unknown pipeline schedule"):
        P.get_schedule_class("2F2B")
    assert P.get_schedule_class("zbv") is P.ScheduleZBVZeroBubble


def test_pipeline_split_points():
    model = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Sequential(T.nn.ReLU(), T.nn.Linear(2, 2)), T.nn.Tanh())
    pipe = P.pipeline(model, split_spec={"1.1": P.SplitPoint.BEGINNING})
    assert [len(m) for m in pipe.stage_modules] == [2, 2]
    assert pipe.get_stage_module(1)[0] is model[1][1]
    assert [len(m) for m in P.pipeline(model, split_spec={"0": P.SplitPoint.END}).stage_modules] == [1, 3]
    with pytest.raises(ValueError, match="no module named 'x'"):
        P.pipeline(model, split_spec={"x": P.SplitPoint.END})
    with pytest.raises(ValueError, match="only nn.Sequential"):
        P.pipeline(T.nn.Linear(2, 2), num_stages=2)


def test_split_backward_stage_keeps_weights_for_later():
    stage = P.PipelineStage(T.nn.Linear(3, 3).double(), 1, 2)
    (out,) = stage.forward_one_chunk(0, (T.ones(2, 3, dtype=T.float64),))
    (dx,) = stage.backward_one_chunk(0, loss=out.sum(), full_backward=False)
    assert stage.submod.weight.grad is None and dx.shape == (2, 3)
    stage.backward_weight_one_chunk(0)
    np.testing.assert_allclose(stage.submod.weight.grad.numpy(), np.full((3, 3), 2.0))
    with pytest.raises(RuntimeError, match="weight backward of microbatch 0 before its input backward"):
        stage.backward_weight_one_chunk(0)


def test_timeline_exports_a_chrome_trace_per_rank(tmp_path):
    import json
    model = make_model(4)
    x, y = data()
    stages = [P.PipelineStage(m, i, 4) for i, m in enumerate(P.pipeline(model, num_stages=4).stage_modules)]
    sched = P.ScheduleZBVZeroBubble(stages, 4, loss_fn=mse, num_ranks=2)
    sched.step(x, target=y)
    timelines = sched.export_chrome_trace(tmp_path / "trace.json")
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    for rank in range(2):
        names = [e["name"] for e in events if e["ph"] == "X" and e["pid"] == rank]
        assert names == [str(a) for a in sched.pipeline_order[rank]]
        assert all(e["dur"] >= 0 for e in events if e["ph"] == "X")
    assert [t.rank for t in timelines] == [0, 1] and 0 <= sched.bubble_fraction() < 1


def test_example_trains_a_transformer_like_one_process(capsys, monkeypatch):
    import runpy
    import sys
    example = __file__.replace("tests/test_pipelining_schedules.py", "examples/pipeline_train.py")
    monkeypatch.setattr(T.distributed, "is_available", lambda: False)   # all stages here, no MPI
    monkeypatch.setattr(sys, "argv", [example, "--schedule", "zbv", "--steps", "2", "--batch", "8",
                                      "--microbatches", "4", "--ranks", "2"])
    runpy.run_path(example, run_name="__main__")
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == 2 and all(float(r[3]) < 1e-12 for r in rows)
