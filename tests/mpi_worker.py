"""Programs the MPI tests run on several ranks: `mpiexec -n N python -m mpi_worker SCENARIO...`.

Every rank builds the same model from the same seed, runs its part, and checks it against a
single-process run of the whole model computed locally; it prints "OK ..." lines, or "ERROR: ..."
and exits with status 3. tests/test_pipelining_mpi.py launches it and reads the output.
"""
import os
import signal
import sys
import time

import numpy as np

import ndgrad as T
import ndgrad.distributed as dist
from ndgrad.distributed import pipelining as P
from test_pipelining_schedules import data, make_model, mse, reference_step


def close(a, b, what):
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13, err_msg=what)


def build_stages(model, cls, num_stages, group, wrap=lambda m: m):
    placement = cls.stage_placement(num_stages, group.size())
    pipe = P.pipeline(model, num_stages=num_stages)
    return [P.PipelineStage(wrap(pipe.get_stage_module(s)), s, num_stages, group=group)
            for s in range(num_stages) if placement[s] == group.rank()]


def check_pipeline(cls, num_stages, pp_group, dp_group=None, steps=2):
    """Pipelined steps (times data-parallel replicas) == the single-process step on the whole batch."""
    model, reference = make_model(), make_model()
    x, y = data(batch=16)
    shard = slice(None)
    wrap = lambda m: m  # noqa: E731
    if dp_group is not None:
        n = 16 // dp_group.size()
        shard = slice(dp_group.rank() * n, (dp_group.rank() + 1) * n)
        wrap = lambda m: dist.DistributedDataParallel(m, process_group=dp_group, bucket_cap_mb=1e-4)  # noqa: E731
    stages = build_stages(model, cls, num_stages, pp_group, wrap)
    mine = {id(p) for st in stages for p in st.submod.parameters()}
    sched = cls(stages, n_microbatches=4, loss_fn=mse)
    for step in range(steps):   # step 1 negotiates shapes; step 2 posts its receives up front
        model.zero_grad(), reference.zero_grad()
        losses = []
        sched.step(x[shard], target=y[shard], losses=losses)
        ref_loss, ref_grads = reference_step(reference, x, y)
        owned = [(p, g, q) for p, g, q in zip(model.parameters(), ref_grads, reference.parameters()) if id(p) in mine]
        for p, g, _ in owned:
            close(p.grad.numpy(), g.numpy(), f"{cls.__name__} gradient, step {step}")
        T.optim.SGD([p for p, _, _ in owned], lr=0.1).step()
        for p, _, q in owned:
            close(p.detach().numpy(), q.detach().numpy(), f"{cls.__name__} updated weight, step {step}")
        if losses and dp_group is None:
            close(np.mean([v.item() for v in losses]), ref_loss.item(), "loss")
    return sched


def scenario_schedules(world):
    R = world.size()
    for cls, S in [(P.ScheduleGPipe, R), (P.Schedule1F1B, R), (P.ScheduleInterleaved1F1B, 2 * R),
                   (P.ScheduleInterleavedZeroBubble, R), (P.ScheduleInterleavedZeroBubble, 2 * R),
                   (P.ScheduleZBVZeroBubble, 2 * R)]:
        sched = check_pipeline(cls, S, world)
        print(f"OK rank {world.rank()} {cls.__name__} {S} stages", flush=True)
    timelines = sched.timelines()         # gathered on rank 0
    if world.rank() == 0:
        for r, timeline in enumerate(timelines):
            assert [e[0] for e in timeline.events if e[1] == "compute"] == [str(a) for a in sched.pipeline_order[r]]
        assert 0 <= P.bubble_fraction(timelines) < 1
        print("OK rank 0 timelines", flush=True)


class Emit(T.nn.Module):     # stage 0: a float32 activation, an int64 and a bool tensor
    def __init__(self):
        super().__init__()
        self.lin = T.nn.Linear(3, 3)

    def forward(self, x):
        h = self.lin(x)
        return h, (h.detach() > 0).long(), h.detach() < 0.5


class Absorb(T.nn.Module):   # stage 1: uses all three
    def __init__(self):
        super().__init__()
        self.lin = T.nn.Linear(3, 2)

    def forward(self, h, k, flag):
        return self.lin(h * (k + 1).float() * flag.float())


def scenario_dtypes(world):
    rank = world.rank()
    T.manual_seed(3)
    emit, absorb = Emit(), Absorb()
    x = T.tensor(np.random.default_rng(2).standard_normal((8, 3)).astype(np.float32))
    y = T.zeros(8, 2)
    ref = mse(absorb(*emit(x)), y)
    ref.backward()
    mine = emit if rank == 0 else absorb
    expected = [p.grad.clone() for p in mine.parameters()]
    mine.zero_grad()
    stage = P.PipelineStage(mine, rank, 2, group=world)
    P.ScheduleInterleavedZeroBubble([stage], 2, loss_fn=mse).step(x, target=y)
    for p, g in zip(mine.parameters(), expected):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-5, atol=1e-6)
    print(f"OK rank {rank} dtypes", flush=True)


class Fail(T.nn.Module):
    def forward(self, x):
        raise ValueError("this stage is broken")


def failure(world):
    stage = P.PipelineStage(T.nn.Identity() if world.rank() == 0 else Fail(), world.rank(), 2, group=world)
    P.Schedule1F1B([stage], 2, loss_fn=mse, timeout=20).step(T.ones(4, 2), target=T.ones(4, 2))


def mismatch(world):
    stage = P.PipelineStage(T.nn.Identity(), world.rank(), 2, group=world)
    P.ScheduleGPipe([stage], 2, loss_fn=mse, timeout=20).step(T.ones(7, 2), target=T.ones(7, 2))  # 4 and 3 rows


def timeout(world):
    stage = P.PipelineStage(T.nn.Identity(), world.rank(), 2, group=world)
    schedule = P.Schedule1F1B([stage], 2, loss_fn=mse, timeout=0.5)
    if world.rank() == 1:
        time.sleep(1.5)     # hangs instead of running its part of the step
        raise TimeoutError("rank 1 stayed away on purpose")
    schedule.step(T.ones(4, 2), target=T.ones(4, 2))


def scenario_errors(world):
    """Each failure must raise on every rank, with a message naming the rank and stage at fault."""
    for case in (failure, mismatch, timeout):
        try:
            case(world)
        except Exception as e:
            print(f"RAISED rank {world.rank()} {case.__name__}: {type(e).__name__}: {e}", flush=True)
        else:
            print(f"ERROR: rank {world.rank()} {case.__name__} did not raise", flush=True)
            sys.exit(3)
        world.barrier()


def scenario_ddp(world):
    rank, size = world.rank(), world.size()
    model, reference = make_model(4), make_model(4)
    ddp = dist.DistributedDataParallel(model, bucket_cap_mb=1e-4)   # a bucket per layer
    assert len(ddp._buckets) > 1
    events = []
    launch = world.iallreduce
    world.iallreduce = lambda a: events.append("allreduce") or launch(a)
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(lambda p: events.append("grad"))
    x, y = data(batch=8)
    n = 8 // size
    mine = slice(rank * n, (rank + 1) * n)
    with ddp.no_sync():               # accumulate two microbatches, reduce once
        mse(ddp(x[mine][:n // 2]), y[mine][:n // 2]).backward()
    assert "allreduce" not in events
    mse(ddp(x[mine][n // 2:]), y[mine][n // 2:]).backward()
    assert events.index("allreduce") < len(events) - 1 - events[::-1].index("grad"), events
    for r in range(size):             # the reference sees every rank's data, in the same split
        rows = slice(r * n, (r + 1) * n)
        mse(reference(x[rows][:n // 2]), y[rows][:n // 2]).backward()
        mse(reference(x[rows][n // 2:]), y[rows][n // 2:]).backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        close(p.grad.numpy(), q.grad.numpy() / size, "DDP gradient")
    print(f"OK rank {rank} ddp", flush=True)


def scenario_two_d(world):
    """2 pipeline stages x 2 data-parallel replicas on 4 ranks."""
    rank = world.rank()
    pp = dist.split_group(rank // 2)          # ranks {0, 1} and {2, 3}: one pipeline each
    dp = dist.split_group(rank % 2)           # ranks {0, 2} and {1, 3}: one stage's replicas
    for cls, S in [(P.Schedule1F1B, 2), (P.ScheduleZBVZeroBubble, 4)]:
        check_pipeline(cls, S, pp, dp, steps=1)
        print(f"OK rank {rank} 2-D {cls.__name__}", flush=True)


class Saboteur(T.nn.Module):
    """On the victim rank, once armed: raises, exits, is killed, vanishes or hangs in its forward."""
    armed = False

    def __init__(self, inner, mode):
        super().__init__()
        self.inner, self.mode = inner, mode

    def forward(self, x):
        if Saboteur.armed:
            if self.mode == "raise":
                raise ValueError("this rank is broken")
            if self.mode == "exit":
                sys.exit(4)
            if self.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "vanish":   # ends at once, with status 0: no excepthook, no atexit, no word
                os._exit(0)
            if self.mode == "hang":
                time.sleep(120)
        return self.inner(x)


def run_failing(world, setup):
    """Step 1 runs everywhere; in step 2 the last rank fails. The others print how they stopped
    (RAISED ...) and whether their weights kept their step-1 values (no partial optimizer step),
    then let the error go uncaught, as a user's program would."""
    def report(line):   # to a file first: where a rank is killed, mpiexec may be gone before the others report
        if os.environ.get("NDGRAD_MPI_REPORT"):
            with open(os.path.join(os.environ["NDGRAD_MPI_REPORT"], f"rank{world.rank()}"), "a") as f:
                f.write(line + "\n")
        try:
            print(line, flush=True)
        except BrokenPipeError:
            pass

    report(f"STARTED rank {world.rank()} pid {os.getpid()}")
    params, step = setup()
    step()
    Saboteur.armed = True
    before = [p.detach().numpy().copy() for p in params]
    start = time.monotonic()
    try:
        step()
    except Exception as e:
        kept = all(np.array_equal(a, p.detach().numpy()) for a, p in zip(before, params))
        report(f"RAISED rank {world.rank()} after {time.monotonic() - start:.2f} s, weights "
               f"{'KEPT' if kept else 'CHANGED'}: {type(e).__name__}: {e}")
        raise
    report(f"ERROR: rank {world.rank()} did not raise")


def failing_ddp(world, mode):
    def setup():
        model = make_model(4)
        victim = world.rank() == world.size() - 1
        ddp = dist.DistributedDataParallel(T.nn.Sequential(Saboteur(model, mode if victim else None)),
                                           bucket_cap_mb=1e-4, timeout=1.5)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        x, y = data(batch=8)

        def step():
            opt.zero_grad()
            mse(ddp(x), y).backward()
            opt.step()
        return list(model.parameters()), step
    run_failing(world, setup)


def failing_pipeline(world, schedule, mode):
    cls = getattr(P, schedule)
    num_stages = world.size() * (1 if cls in (P.ScheduleGPipe, P.Schedule1F1B) else 2)

    def setup():
        victim = world.rank() == world.size() - 1
        stages = build_stages(make_model(), cls, num_stages, world,
                              lambda m: Saboteur(m, mode) if victim else m)
        params = [p for st in stages for p in st.submod.parameters()]
        sched = cls(stages, n_microbatches=4, loss_fn=mse, timeout=1.5)
        opt = T.optim.SGD(params, lr=0.1)
        x, y = data(batch=8)

        def step():
            opt.zero_grad()
            sched.step(x, target=y)
            opt.step()
        return params, step
    run_failing(world, setup)


def main():
    if sys.argv[1].startswith("failing_"):   # failing_ddp:MODE or failing_pipeline:SCHEDULE:MODE
        name, *args = sys.argv[1].split(":")
        globals()[name](dist.init_process_group("mpi", timeout=3), *args)
        return
    world = dist.init_process_group("mpi")
    try:
        for name in sys.argv[1:]:
            globals()[f"scenario_{name}"](world)
    except Exception as e:
        print(f"ERROR: {type(e).__name__}: {e}", flush=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
