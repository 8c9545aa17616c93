"""`python -m ndgrad demo`: train a small network on real handwritten digits, the way a torch
user would — nn modules, CrossEntropyLoss, Adam, a learning-rate schedule, ndgrad.save.

The data are the 1,797 8x8 digits of the UCI optical-recognition set shipped in ndgrad/data
(see its README); 20% are held out for the test accuracy. Outputs go to --out: the loss curve
(loss.png with matplotlib, loss.csv always), the trained weights (model.pt, ndgrad.save) and the
backward graph of one training step (backward_graph.dot and .svg).

A top-layer module: it takes what a torch script takes from `torch` (nn, optim, save, no_grad...)
from the modules that define it, since nothing inside ndgrad may import the `ndgrad` package.
"""
import math
import os
import time


from . import nn, optim
from ._random import manual_seed
from .autograd.grad_mode import no_grad
from .autograd.graph_viz import render, to_dot
from .data import load_digits
from ._progress import progress
from .ops.random import randperm
from .serialization import save


def build(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(                                    # 1x8x8 -> 16x4x4 -> 32x2x2 -> 10
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def accuracy(model, x, y):
    model.eval()
    with no_grad():
        correct = (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct / len(y)


def write_outputs(out, model, losses, graph_loss, params):
    """loss.csv (+ loss.png with matplotlib), model.pt, backward_graph.dot and .svg."""
    os.makedirs(out, exist_ok=True)
    written = []
    with open(os.path.join(out, "loss.csv"), "w") as f:
        f.write("step,loss\n" + "".join(f"{i},{v:.6f}\n" for i, v in enumerate(losses)))
    written.append("loss.csv")
    try:   # matplotlib is optional (the plot extra): without it the curve is the CSV alone
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(losses, lw=1)
        ax.set(xlabel="step", ylabel="cross-entropy loss", yscale="log", title="ndgrad demo: training loss")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "loss.png"), dpi=120)
        plt.close(fig)
        written.append("loss.png")
    except ImportError:
        print("(loss.png skipped: matplotlib is not installed; pip install 'ndgrad[plot]' to get the plot)")
    save(model.state_dict(), os.path.join(out, "model.pt"))
    written.append("model.pt")
    if graph_loss is not None:
        with open(os.path.join(out, "backward_graph.dot"), "w") as f:
            f.write(to_dot(graph_loss, params))
        written.append("backward_graph.dot")
        render(graph_loss, os.path.join(out, "backward_graph.svg"), params)   # laid out by ndgrad without Graphviz
        written.append("backward_graph.svg")
    return written


def run(args):
    manual_seed(args.seed)
    x, y, x_test, y_test = load_digits(args.seed)
    model = build(args.model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    batches = math.ceil(len(y) / args.batch_size)
    scheduler = optim.lr_scheduler.OneCycleLR(optimizer, args.lr, total_steps=args.epochs * batches)
    print(f"ndgrad demo: {args.model.upper()} on {len(y)} handwritten 8x8 digits ({len(y_test)} held out), "
          f"{sum(p.numel() for p in model.parameters())} weights, {args.epochs} epochs of Adam")
    losses, graph_loss, start = [], None, time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        order, total = randperm(len(y)), 0.0
        # a progress bar on stderr while the epoch runs, only on a terminal (disable=None), then cleared
        bar = progress(range(batches), desc=f"epoch {epoch}/{args.epochs}", unit="batch")
        for b in bar:
            idx = order[b * args.batch_size:(b + 1) * args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            if graph_loss is None:
                graph_loss = loss   # kept (with its graph) for the picture of one step
                loss.backward(retain_graph=True)
            else:
                loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            total += losses[-1] * len(idx)
            bar.set_postfix(loss=f"{losses[-1]:.4f}", refresh=False)
        print(f"epoch {epoch:>{len(str(args.epochs))}}/{args.epochs}  loss {total / len(y):.4f}  "
              f"test accuracy {accuracy(model, x_test, y_test):.1%}", flush=True)
    test = accuracy(model, x_test, y_test)
    print(f"test accuracy: {test:.1%} on {len(y_test)} held-out digits "
          f"(train {accuracy(model, x, y):.1%}); {time.perf_counter() - start:.1f} s")
    written = write_outputs(args.out, model, losses, graph_loss, dict(model.named_parameters()))
    print(f"wrote {', '.join(written)} to {args.out}")
    return 0


def add_arguments(parser):
    parser.add_argument("--epochs", type=int, default=12, help="passes over the training digits")
    parser.add_argument("--batch-size", type=int, default=32, help="digits per optimizer step")
    parser.add_argument("--model", choices=("cnn", "mlp"), default="cnn", help="the network to train")
    parser.add_argument("--lr", type=float, default=1e-2, help="peak learning rate of the one-cycle schedule")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data split, initial weights and batches")
    parser.add_argument("--out", default=os.path.join("out", "demo"),
                        help="folder for loss.png/loss.csv, model.pt and the backward-graph picture")


def check_arguments(parser, args):
    for name in ("epochs", "batch_size"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
