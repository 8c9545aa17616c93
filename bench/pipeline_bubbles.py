"""Bubble fractions of the pipeline schedules with 4 stages and 8 microbatches.

    python bench/pipeline_bubbles.py                 simulated and replayed bubbles (one process)
    python bench/pipeline_bubbles.py --mpi           ... and measured on 4 MPI ranks (needs mpiexec)
    python bench/pipeline_bubbles.py --trace DIR     also write a Chrome trace per schedule

The bubble fraction is the share of rank time spent idle between the first and the last
computation of a step. Three numbers per schedule:
- unit costs: the action lists replayed with F = I = W = 1 and B = 2;
- replayed: the lists replayed with the durations each action really took (its shortest over the
  steps; all stages run in this process, one after the other, so the ranks do not compete for cores);
- MPI: measured wall-clock timelines with one process per rank (meaningful with >= 4 free cores).
The model is a chain of Linear + tanh layers, one per stage, so F, I and W cost about the same.
ZB-H1 is ScheduleInterleavedZeroBubble with one stage per rank; ZBV puts two stages on each rank
(a V), so with 4 stages it runs on 2 ranks, and on 4 ranks it uses 8 stages of half the size.
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

import ndgrad as T
from ndgrad.distributed import pipelining as P

MICROBATCHES = 8
CASES = [  # label, schedule, stages, ranks (in one process)
    ("GPipe", P.ScheduleGPipe, 4, 4),
    ("1F1B", P.Schedule1F1B, 4, 4),
    ("Interleaved1F1B", P.ScheduleInterleaved1F1B, 4, 2),
    ("ZB-H1", P.ScheduleInterleavedZeroBubble, 4, 4),
    ("ZBV", P.ScheduleZBVZeroBubble, 4, 2),
]
MPI_CASES = [("GPipe", P.ScheduleGPipe, 4), ("1F1B", P.Schedule1F1B, 4), ("ZB-H1", P.ScheduleInterleavedZeroBubble, 4),
             ("ZBV (8 stages)", P.ScheduleZBVZeroBubble, 8)]


def mse(out, target):
    return ((out - target) ** 2).mean()


def build(num_stages, width, seed=0):
    T.manual_seed(seed)
    layers = []
    for _ in range(num_stages):
        layers += [T.nn.Linear(width, width), T.nn.Tanh()]
    return P.pipeline(T.nn.Sequential(*layers), num_stages=num_stages)


def batch(args):
    rng = np.random.default_rng(0)
    shape = (args.batch * MICROBATCHES, args.width)
    return tuple(T.tensor(rng.standard_normal(shape, dtype=np.float32)) for _ in range(2))


def local(args):
    x, y = batch(args)
    print(f"4 stages x {MICROBATCHES} microbatches, Linear({args.width}, {args.width}) + tanh per "
          f"stage, microbatch {args.batch}\n")
    print(f"{'schedule':<16} {'stages/ranks':>12} {'unit costs':>11} {'replayed':>9}")
    for label, cls, stages, ranks in CASES:
        pipe = build(stages, args.width)
        sched = cls([pipe.build_stage(s) for s in range(stages)], MICROBATCHES, loss_fn=mse, num_ranks=ranks)
        measured = []
        for step in range(args.steps + 1):      # the first step warms up
            sched.step(x, target=y)
            if step:
                measured.append(sched.measured_durations())
        # each action's shortest duration over the steps: a pause caused elsewhere does not count
        durations = {a: min(m[a] for m in measured) for a in measured[0]}
        print(f"{label:<16} {f'{stages}/{ranks}':>12} {sched.simulated_bubble_fraction():>11.3f} "
              f"{sched.simulated_bubble_fraction(durations):>9.3f}")
        if args.trace:
            os.makedirs(args.trace, exist_ok=True)
            P.export_chrome_trace(os.path.join(args.trace, f"{label}-replayed.json"), sched.replay(durations))


def measure_mpi(args):
    """Run under `mpiexec -n 4`: every rank runs its stages; rank 0 prints the measured bubbles."""
    import ndgrad.distributed as dist
    world = dist.init_process_group("mpi")
    x, y = batch(args)
    if world.rank() == 0:
        print(f"\nmeasured on {world.size()} MPI ranks (wall clock, median of {args.steps} steps):")
    for label, cls, stages in MPI_CASES:
        pipe = build(stages, args.width)
        placement = cls.stage_placement(stages, world.size())
        mine = [pipe.build_stage(s, group=world) for s in range(stages) if placement[s] == world.rank()]
        sched = cls(mine, MICROBATCHES, loss_fn=mse)
        bubbles = []
        for _ in range(args.steps + 1):
            world.barrier()
            sched.step(x, target=y)
            bubbles.append(sched.bubble_fraction())
        if args.trace:
            sched.export_chrome_trace(os.path.join(args.trace, f"{label.split()[0]}-mpi.json"))
        if world.rank() == 0:
            print(f"{label:<16} {np.median(bubbles[1:]):.3f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--batch", type=int, default=128, help="rows per microbatch")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--trace", help="directory for Chrome traces")
    parser.add_argument("--mpi", action="store_true", help="also measure on 4 MPI ranks")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)   # set under mpiexec
    args = parser.parse_args()
    if args.measure:
        return measure_mpi(args)
    local(args)
    if args.mpi:
        mpiexec = shutil.which("mpiexec")
        if mpiexec is None:
            sys.exit("mpiexec not found: pip install 'ndgrad[distributed]'")
        forwarded = [f"--width={args.width}", f"--batch={args.batch}", f"--steps={args.steps}"] + \
            ([f"--trace={args.trace}"] if args.trace else [])
        subprocess.run([mpiexec, "-n", "4", sys.executable, os.path.abspath(__file__), "--measure", *forwarded],
                       check=True, env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"))


if __name__ == "__main__":
    main()
