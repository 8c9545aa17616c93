"""Progress bars for the long commands (the demo, `ops --check`): tqdm's, on stderr and only on a
terminal, when tqdm is installed (`pip install 'ndgrad[progress]'`); without it, none."""
try:
    from tqdm import tqdm as _tqdm
except ImportError:   # an optional extra: the core install stays NumPy, SciPy and PyYAML
    _tqdm = None


def progress(iterable, **kwargs):
    """`iterable`, shown as a progress bar (tqdm's keyword arguments) that clears when done."""
    if _tqdm is None:
        return iterable
    return _tqdm(iterable, disable=None, leave=False, **kwargs)


def write(line):
    """Print `line` above a running bar."""
    if _tqdm is None:
        print(line)
    else:
        _tqdm.write(line)
