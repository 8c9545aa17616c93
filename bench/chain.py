"""Per-op overhead: forward + backward through a chain of `tanh(x * 1.0001)` on a few elements.

With 16 float64 elements the arithmetic is negligible, so the time is what each library spends
per op: building the graph node in forward, running it in backward. This is workload (a) of the
suite; this script runs it alone (every installed library, each in its own process, interleaved
rounds, best of them) and prints µs per graph node and the ratios, without writing RESULTS.md.

    python bench/chain.py [--length 2000] [--size 16] [--repeat 5]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=int, default=2000, help="links in the chain (2 ops each)")
    parser.add_argument("--size", type=int, default=16, help="float64 elements per tensor")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds; the best is reported")
    args = parser.parse_args(argv)
    return run.main(["--only", "chain", "--no-write", "--chain-length", str(args.length),
                     "--chain-size", str(args.size), "--rounds", str(args.repeat)])


if __name__ == "__main__":
    sys.exit(main())
