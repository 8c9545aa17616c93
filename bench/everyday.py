"""The everyday calls of real programs on small tensors, ndgrad against torch: the per-call cost that
bench/run.py's workloads (plain leaf tensors, few op kinds) do not show.

    python bench/everyday.py              both libraries, each in its own process; prints a table
    python bench/everyday.py --lib ndgrad one library's timings as JSON (what the table is made of)

Each call is timed with timeit (the best of 7 repeats); lower is better.
"""
import argparse
import json
import os
import subprocess
import sys
import timeit

import numpy as np


def cases(T):
    """name -> zero-argument call, on the same small tensors in both libraries."""
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)
    x, img, y = T.randn(16, 32), T.randn(4, 3, 16, 16), T.randint(0, 10, (16,))
    xg = T.randn(16, 32, requires_grad=True)
    lin, conv = nn.Linear(32, 64), nn.Conv2d(3, 8, 3, padding=1)
    mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    sgd = T.optim.SGD(mlp.parameters(), lr=1e-3, momentum=0.9)
    adam = T.optim.Adam(mlp.parameters(), lr=1e-3)
    deep = nn.Sequential(*[m for _ in range(12) for m in (nn.Linear(64, 64), nn.LayerNorm(64))])   # 48 tensors
    deep(T.randn(8, 64)).sum().backward()
    deep_adam = T.optim.Adam(deep.parameters(), lr=1e-3)
    data = T.utils.data.DataLoader(T.utils.data.TensorDataset(T.randn(1024, 32), T.randint(0, 10, (1024,))),
                                   batch_size=32, shuffle=True)

    def train(opt):
        def step():
            opt.zero_grad()
            F.cross_entropy(mlp(x), y).backward()
            opt.step()
        return step
    return {
        "nn.Linear": lambda: lin(x), "nn.Conv2d": lambda: conv(img), "MLP forward": lambda: mlp(x),
        "MLP SGD step": train(sgd), "MLP Adam step": train(adam), "Adam.step, 48 tensors": deep_adam.step, "cross_entropy": lambda: F.cross_entropy(x, y),
        "view": lambda: x.view(-1), "reshape": lambda: x.reshape(32, 16), "flatten": lambda: img.flatten(1),
        "permute": lambda: img.permute(0, 2, 3, 1), "transpose": lambda: x.transpose(0, 1),
        "cat": lambda: T.cat([x, x]), "stack": lambda: T.stack([x, x]), "x[0, 0]": lambda: x[0, 0],
        "x[:, 1]": lambda: x[:, 1], "x[index]": lambda: x[y], "x.sum()": lambda: x.sum(),
        "x.mean(1)": lambda: x.mean(1), "x.argmax(1)": lambda: x.argmax(1), "x.max(1)": lambda: x.max(1),
        "softmax": lambda: F.softmax(x, 1), "layer_norm": lambda: F.layer_norm(x, (32,)),
        "x.float()": lambda: y.float(), "x.to(float64)": lambda: x.to(T.float64),
        "x * 2 (grad)": lambda: xg * 2, "accuracy": lambda: (x.argmax(1) == y).sum().item(),
        "DataLoader epoch": lambda: [b for b in data],
    }


def timings(lib):
    T = __import__(lib)
    if lib == "torch":
        T.set_num_threads(os.cpu_count() or 1)
    out = {}
    for name, call in cases(T).items():
        call()
        number = 5 if name == "DataLoader epoch" else 300
        out[name] = min(timeit.repeat(call, number=number, repeat=7)) / number * 1e6
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="time one library (ndgrad or torch) and print JSON")
    args = parser.parse_args()
    if args.lib:
        print(json.dumps(timings(args.lib)))
        return
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(os.path.dirname(here), "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    runs = {}
    for lib in ("ndgrad", "torch"):
        p = subprocess.run([sys.executable, __file__, "--lib", lib], capture_output=True, text=True, env=env)
        runs[lib] = json.loads(p.stdout) if p.returncode == 0 else None
    if runs["ndgrad"] is None:
        raise SystemExit("ndgrad's run failed")
    print("| call | ndgrad µs | torch µs | ndgrad/torch |\n|---|---|---|---|")
    for name, ours in runs["ndgrad"].items():
        theirs = runs["torch"][name] if runs["torch"] else np.nan
        print(f"| {name} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f} |")


if __name__ == "__main__":
    main()
