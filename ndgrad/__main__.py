"""`python -m ndgrad demo`: train a small MLP with raw tensors and autograd.

No nn modules or optimizers: the weights are leaf tensors with requires_grad=True, the loss is
`cross_entropy`, `loss.backward()` fills `.grad`, and SGD with momentum updates the weights in
place under `no_grad()` — the loop torch users write by hand, run on ndgrad.
"""
import argparse
import math
import sys
import time

import numpy as np

import ndgrad as torch
import ndgrad.nn.functional as F


def spirals(points, classes, seed, noise=0.2):
    """`classes` interleaved spiral arms in the plane, `points` per arm; (x: [N, 2] float32, y: [N] int64)."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.random(points * classes)) * 3 * math.pi            # radius grows with the angle
    label = np.repeat(np.arange(classes), points)
    angle = t + label * (2 * math.pi / classes)
    xy = np.stack([t * np.cos(angle), t * np.sin(angle)], axis=1) / (3 * math.pi)
    xy += rng.normal(scale=noise / (3 * math.pi), size=xy.shape)
    return torch.from_numpy(xy.astype(np.float32)), torch.from_numpy(label)


def init_mlp(sizes):
    """Weights and biases of an MLP with the given layer sizes, He-initialised, as leaf tensors."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        w = (torch.randn(fan_in, fan_out) * math.sqrt(2.0 / fan_in)).requires_grad_()
        b = torch.zeros(fan_out, requires_grad=True)
        params += [w, b]
    return params


def forward(params, x):
    for i in range(0, len(params) - 2, 2):
        x = torch.relu(x @ params[i] + params[i + 1])
    return x @ params[-2] + params[-1]


def accuracy(logits, labels):
    return (logits.argmax(1) == labels).float().mean().item()


def progress(epoch, epochs, done, total, loss, width=24):
    filled = width * done // total
    bar = "#" * filled + "-" * (width - filled)
    return f"\repoch {epoch:>{len(str(epochs))}}/{epochs} [{bar}] {done}/{total} loss {loss:.4f}"


def demo(args):
    torch.manual_seed(args.seed)
    x, y = spirals(args.points, args.classes, args.seed)
    x_test, y_test = spirals(args.points, args.classes, args.seed + 1)   # held out: fresh points
    n = x.shape[0]
    params = init_mlp([2] + [args.hidden] * args.layers + [args.classes])
    velocity = [torch.zeros_like(p) for p in params]
    batches = math.ceil(n / args.batch_size)
    show_bar = sys.stdout.isatty()
    print(f"ndgrad demo: {args.classes} spirals, {n} points; MLP 2-{'-'.join([str(args.hidden)] * args.layers)}-"
          f"{args.classes} ({sum(p.numel() for p in params)} weights); {args.epochs} epoch"
          f"{'s' if args.epochs > 1 else ''} of SGD")
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        order = torch.randperm(n)
        total = 0.0
        for b in range(batches):
            idx = order[b * args.batch_size:(b + 1) * args.batch_size]
            loss = F.cross_entropy(forward(params, x[idx]), y[idx])
            for p in params:
                p.grad = None
            loss.backward()
            with torch.no_grad():
                for p, v in zip(params, velocity):
                    v.mul_(args.momentum).add_(p.grad)
                    p.sub_(args.lr * v)
            total += loss.item() * idx.shape[0]
            if show_bar:
                print(progress(epoch, args.epochs, b + 1, batches, loss.item()), end="", flush=True)
        if show_bar:
            print("\r" + " " * 80 + "\r", end="")
        print(f"epoch {epoch:>{len(str(args.epochs))}}/{args.epochs}  loss {total / n:.4f}", flush=True)
    with torch.no_grad():
        train, test = (accuracy(forward(params, a), b) for a, b in ((x, y), (x_test, y_test)))
    print(f"final accuracy: {test:.1%} on {n} held-out points ({train:.1%} on the training points); "
          f"{time.perf_counter() - start:.1f} s")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m ndgrad",
                                     description="ndgrad: PyTorch's autograd on NumPy (`import ndgrad as torch`).")
    sub = parser.add_subparsers(dest="command", metavar="command")
    p = sub.add_parser("demo", help="train a small MLP on generated spirals with raw tensors and autograd",
                       description="Train an MLP on interleaved spirals with raw ndgrad tensors: weights with "
                                   "requires_grad, cross_entropy, loss.backward() and SGD under no_grad(). "
                                   "Prints the loss per epoch (with a progress bar on a terminal) and the final "
                                   "accuracy on held-out points.",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--epochs", type=int, default=40, help="passes over the data")
    p.add_argument("--seed", type=int, default=0, help="seed for the data and the initial weights")
    p.add_argument("--hidden", type=int, default=64, help="units per hidden layer")
    p.add_argument("--layers", type=int, default=2, help="hidden layers")
    p.add_argument("--classes", type=int, default=2, help="spiral arms (classes)")
    p.add_argument("--points", type=int, default=500, help="points per class")
    p.add_argument("--batch-size", type=int, default=50, help="points per SGD step")
    p.add_argument("--lr", type=float, default=0.1, help="learning rate")
    p.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    for name in ("epochs", "hidden", "layers", "classes", "points", "batch_size"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    return demo(args)


if __name__ == "__main__":
    sys.exit(main())
