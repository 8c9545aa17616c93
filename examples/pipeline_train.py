"""Train a small transformer split over pipeline stages, and check it against one process.

    mpiexec -n 4 python examples/pipeline_train.py --schedule zbv
    python examples/pipeline_train.py --schedule 1f1b          (all stages in this one process)

Every rank builds the same model from the same seed and keeps the stages the schedule places on
it (ZBV: rank r holds stages r and 7-r of 8). The task is next-token prediction on sequences
that count up modulo the vocabulary from a random start. The rank holding the last stage also
trains an unsplit copy of the model on the same batches and prints both losses side by side:
they agree to rounding (float64), since a pipelined step computes the same gradients.
Schedules: gpipe, 1f1b, interleaved1f1b, zbh1 (InterleavedZeroBubble), zbv.

Unlike the other examples, this one runs on ndgrad only: it splits the model with ndgrad's
`pipelining.pipeline(model, num_stages=...)` and `get_schedule_class`, and simulates the ranks in
one process without mpiexec, none of which torch.distributed.pipelining offers in that form.
"""
import argparse
import math

import numpy as np

import ndgrad as torch
import ndgrad.distributed as dist
import ndgrad.nn.functional as F
from ndgrad import nn
from ndgrad.distributed import pipelining

VOCAB, SEQ, DIM, HEADS, BLOCKS = 16, 12, 32, 4, 6


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, DIM)
        self.positions = nn.Parameter(torch.randn(SEQ, DIM) * 0.1)

    def forward(self, ids):
        return self.tokens(ids) + self.positions


class Block(nn.Module):
    """Pre-norm transformer block: causal multi-head self-attention, then an MLP, with residuals."""

    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.qkv, self.proj = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
        self.up, self.down = nn.Linear(DIM, 4 * DIM), nn.Linear(4 * DIM, DIM)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(b, n, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-2, -1) / math.sqrt(DIM // HEADS)
        causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        attention = F.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
        x = x + self.proj((attention @ v).transpose(1, 2).reshape(b, n, DIM))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm, self.out = nn.LayerNorm(DIM), nn.Linear(DIM, VOCAB)

    def forward(self, x):
        return self.out(self.norm(x))


def build_model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(Embed(), *[Block() for _ in range(BLOCKS)], Head()).double()


def loss_fn(logits, targets):
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))


def batches(steps, batch, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        seq = (rng.integers(0, VOCAB, (batch, 1)) + np.arange(SEQ + 1)) % VOCAB
        yield torch.tensor(seq[:, :-1]), torch.tensor(seq[:, 1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedule", default="zbv", type=str.lower,
                        choices=["gpipe", "1f1b", "interleaved1f1b", "interleavedzerobubble", "zbh1", "zbv"])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--microbatches", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--ranks", type=int, default=4, help="ranks to simulate when run without mpiexec")
    parser.add_argument("--trace", help="write the last step's per-rank timeline here (Chrome trace JSON)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    schedule_class = pipelining.get_schedule_class(args.schedule)
    world = None
    if dist.is_available():
        world = dist.get_default_group() if dist.is_initialized() else dist.init_process_group("mpi")
    distributed = world is not None and world.size() > 1
    ranks = world.size() if distributed else args.ranks
    num_stages = ranks * (1 if schedule_class._stages_per_rank == 1 else 2)
    placement = schedule_class.stage_placement(num_stages, ranks)
    rank = world.rank() if distributed else None

    model = build_model(args.seed)
    pipe = pipelining.pipeline(model, num_stages=num_stages)
    stages = [pipe.build_stage(s, group=world if distributed else None)
              for s in range(num_stages) if not distributed or placement[s] == rank]
    schedule = schedule_class(stages, args.microbatches, loss_fn=loss_fn, num_ranks=ranks)
    params = [p for st in stages for p in st.submod.parameters()]
    optimizer = torch.optim.Adam(params, lr=args.lr)
    prints = num_stages - 1 in schedule._stages   # the rank holding the last stage reports
    if prints:
        reference = build_model(args.seed)
        reference_optimizer = torch.optim.Adam(reference.parameters(), lr=args.lr)
        print(f"{type(schedule).__name__}: {num_stages} stages on {ranks} ranks, {args.microbatches} microbatches")
        if not distributed:
            print(schedule.format_pipeline_order())
        print(f"{'step':>4}  {'pipeline loss':>18}  {'single-process loss':>20}  {'difference':>10}", flush=True)

    for step, (ids, targets) in enumerate(batches(args.steps, args.batch, args.seed + 1)):
        optimizer.zero_grad()
        losses = []
        schedule.step(ids, target=targets, losses=losses)
        optimizer.step()
        if prints:
            loss = torch.stack(losses).mean().item()
            reference_optimizer.zero_grad()
            expected = loss_fn(reference(ids), targets)
            expected.backward()
            reference_optimizer.step()
            print(f"{step:>4}  {loss:>18.12f}  {expected.item():>20.12f}  {abs(loss - expected.item()):>10.1e}",
                  flush=True)
    if args.trace:
        schedule.export_chrome_trace(args.trace)
    bubble = schedule.bubble_fraction()
    if bubble is not None and distributed:
        print(f"measured bubble fraction of the last step: {bubble:.3f} "
              f"(unit-cost simulation: {schedule.simulated_bubble_fraction():.3f})")


if __name__ == "__main__":
    main()
