"""`python -m ndgrad demo`: train a small CNN (or MLP) on real handwritten digits (ndgrad/_demo.py);
`python -m ndgrad ops [--check]`: the op catalog (ndgrad/_catalog.py);
`python -m ndgrad api [--check] [--module M]`: coverage of torch's public names (ndgrad/_api.py)."""
import argparse
import sys

from . import __version__, _demo


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m ndgrad",
                                     description="ndgrad: PyTorch's autograd on NumPy (`import ndgrad as torch`).")
    parser.add_argument("--version", action="version", version=f"ndgrad {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command")
    p = sub.add_parser("demo", help="train a small CNN on handwritten digits shipped with ndgrad",
                       description="Train a small convolutional network (or an MLP) on the 1,797 8x8 handwritten "
                                   "digits that ship with ndgrad, with nn modules, CrossEntropyLoss, Adam and a "
                                   "one-cycle learning-rate schedule. Prints the loss and test accuracy per epoch "
                                   "(with a progress bar on a terminal), then writes the loss curve (loss.png "
                                   "with matplotlib, loss.csv), the weights (model.pt, ndgrad.save) and the "
                                   "backward graph of one step (DOT and SVG) to the output folder.",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    _demo.add_arguments(p)
    p = sub.add_parser("ops", help="the op catalog: how each backward node PyTorch has is produced",
                       description="For every backward-node name PyTorch can produce, the call that produces it "
                                   "(or why no CPU program can, or that ndgrad does not build it yet). --check runs "
                                   "each call on ndgrad and verifies the node it records.")
    p.add_argument("names", nargs="*", help="only the nodes whose name contains one of these (case-insensitive)")
    p.add_argument("--check", action="store_true", help="run the programs on ndgrad; print failures and a count")
    p.add_argument("--full", action="store_true", help="print each node's whole program")
    p = sub.add_parser("api", help="coverage of torch's public namespace, module by module",
                       description="For torch and its main modules, how many of torch's public names ndgrad has "
                                   "(names ndgrad leaves out on purpose, listed with the reason in ndgrad/_api.py, "
                                   "do not count). --check also prints the missing names and exits 1 when a "
                                   "module is below 95%%.")
    p.add_argument("--check", action="store_true", help="print the missing names; exit 1 below 95%% in a module")
    p.add_argument("--module", help="only this module (torch.nn or nn, ...)")
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "ops":
        from . import _catalog   # its data (486 programs) is loaded only for this subcommand
        return _catalog.main(args)
    if args.command == "api":
        from . import _api   # torch's names (1,760) are loaded only for this subcommand
        return _api.main(args)
    _demo.check_arguments(parser, args)
    return _demo.run(args)


if __name__ == "__main__":
    sys.exit(main())
