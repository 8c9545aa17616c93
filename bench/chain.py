"""Per-op overhead: forward + backward through a chain of `tanh(x * 1.0001)` on a few elements.

With 16 float64 elements the arithmetic is negligible, so the time is what each library spends
per op: building the graph node in forward, running it in backward. Prints µs per graph node
(2 nodes per link: MulBackward0, TanhBackward0) for ndgrad and, where installed, torch (CPU,
threads = cores), best of --repeat runs, and the ratio ndgrad / torch.

    python bench/chain.py [--length 2000] [--size 16] [--repeat 7]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ndgrad  # noqa: E402


def chain_once(T, length, size):
    x = T.linspace(-1, 1, size, dtype=T.float64, requires_grad=True)
    start = time.perf_counter()
    y = x
    for _ in range(length):
        y = T.tanh(y * 1.0001)
    y.sum().backward()
    elapsed = time.perf_counter() - start
    assert x.grad is not None and x.grad.shape == x.shape
    return elapsed


def best(T, length, size, repeat):
    chain_once(T, min(length, 100), size)   # warm up caches and lazy imports
    return min(chain_once(T, length, size) for _ in range(repeat))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=int, default=2000, help="links in the chain (2 ops each)")
    parser.add_argument("--size", type=int, default=16, help="float64 elements per tensor")
    parser.add_argument("--repeat", type=int, default=7, help="runs; the best is reported")
    args = parser.parse_args(argv)
    nodes = 2 * args.length
    print(f"chain of {args.length} x tanh(x * 1.0001) on {args.size} float64 elements: forward + backward, "
          f"{nodes} nodes, best of {args.repeat}")
    ours = best(ndgrad, args.length, args.size, args.repeat)
    print(f"ndgrad {ndgrad.__version__:>10}: {ours * 1e6 / nodes:8.2f} µs/node  ({ours * 1e3:.1f} ms)")
    try:
        import torch
    except ImportError:
        print("torch: not installed, skipped (pip install torch==2.13.0 to compare)")
        return 0
    torch.set_num_threads(os.cpu_count() or 1)
    theirs = best(torch, args.length, args.size, args.repeat)
    print(f"torch  {torch.__version__:>10}: {theirs * 1e6 / nodes:8.2f} µs/node  ({theirs * 1e3:.1f} ms, "
          f"{torch.get_num_threads()} threads)")
    print(f"ratio ndgrad/torch: {ours / theirs:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
