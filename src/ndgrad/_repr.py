"""torch's tensor printing: `tensor([ 1.2214,  0.7358, 24.4985], requires_grad=True)`.

The layout rules are torch's (its printed form is part of the interface users compare):
- one number format for the whole tensor, chosen from its finite non-zero values: integer-valued
  floats as `1.`, otherwise 4 decimals, and scientific notation when the magnitudes span more
  than 1000x or leave [1e-4, 1e8);
- every element right-aligned to the widest, lines wrapped at 80 columns;
- more than 1000 elements: only the first and last 3 along each dimension, with `...`;
- suffixes: `dtype=` unless the dtype is inferred by default, `size=` for empty non-vectors,
  `grad_fn=<...>` or `requires_grad=True`.
"""
import math

import numpy as np

from . import _dtype
from ._nested_array import jagged

PRECISION = 4
LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3
SCI_MODE = None   # None: chosen from the values; True / False: forced (set_printoptions)
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets how tensors are printed. A `profile` is applied first, then the other options given.

    Args:
        precision (int, optional): the digits after the point for floats. Default: ``4``.
        threshold (int, optional): the number of elements above which a tensor is summarised. Default: ``1000``.
        edgeitems (int, optional): the elements shown at each end of a summarised dimension. Default: ``3``.
        linewidth (int, optional): the characters per line. Default: ``80``.
        profile (str, optional): ``'default'``, ``'short'`` (precision 2, threshold 1000, edgeitems 2) or ``'full'``
            (nothing summarised).
        sci_mode (bool, optional): always (``True``) or never (``False``) scientific notation; ``None`` chooses.

    Example::

        >>> torch.set_printoptions(precision=2)
        >>> torch.tensor([1.23456, 2.5])
        tensor([1.23, 2.50])
        >>> torch.set_printoptions(profile="default")
        >>> torch.tensor([1.23456, 2.5])
        tensor([1.2346, 2.5000])
    """
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile in _PROFILES:
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    PRECISION = PRECISION if precision is None else precision
    THRESHOLD = THRESHOLD if threshold is None else threshold
    EDGEITEMS = EDGEITEMS if edgeitems is None else edgeitems
    LINEWIDTH = LINEWIDTH if linewidth is None else linewidth
    SCI_MODE = sci_mode


class _Format:
    """The format of every element of one real array: a style picked from its values, and a width."""

    def __init__(self, values):
        self.width = 1
        if values.dtype.kind != "f":
            self.style = "str"
            if values.size:
                self.width = max(len(str(values.min().item())), len(str(values.max().item())), 1)
            return
        shown = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        self.style = "int"
        if not shown.size:
            return
        magnitude = np.abs(shown)
        low, high = magnitude.min(), magnitude.max()
        scientific = (high > 1000.0 * low or high > 1.0e8 or low < 1.0e-4) if SCI_MODE is None else SCI_MODE
        integral = bool(np.all(shown == np.ceil(shown)))
        self.style = "sci" if scientific else "int" if integral else "fixed"
        self.width = max(len(self.format(v)) for v in shown.tolist())

    def format(self, value):
        if self.style == "str":
            text = str(value)
        elif self.style == "int":
            text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
        elif self.style == "sci":
            text = f"{value:.{PRECISION}e}"
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.width)


class _ComplexFormat:
    """Real and imaginary parts formatted separately, as torch does: `1.0000+2.5000j`."""

    def __init__(self, values):
        self.real = _Format(values.real)
        self.imag = _Format(values.imag)
        self.width = self.real.width + self.imag.width + 1

    def format(self, value):
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return self.real.format(value.real) + ("" if imag[0] in "+-" else "+") + imag


def _summarized(arr):
    """The elements a summarised print shows: the first and last EDGEITEMS along each dimension."""
    for axis, n in enumerate(arr.shape):
        if n > 2 * EDGEITEMS:
            arr = np.take(arr, np.r_[0:EDGEITEMS, n - EDGEITEMS:n], axis=axis)
    return arr


def _body(arr, indent, fmt, summarize):
    if arr.ndim == 0:
        return fmt.format(arr.item())
    n = arr.shape[0]
    cut = summarize and n > 2 * EDGEITEMS
    if arr.ndim == 1:
        items = [fmt.format(v) for v in (arr[:EDGEITEMS] if cut else arr).tolist()]
        if cut:
            items += [" ..."] + [fmt.format(v) for v in arr[n - EDGEITEMS:].tolist()]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(EDGEITEMS) if cut else range(n)
    parts = [_body(arr[i], indent + 1, fmt, summarize) for i in rows]
    if cut:
        parts += ["..."] + [_body(arr[i], indent + 1, fmt, summarize) for i in range(n - EDGEITEMS, n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _with_suffixes(text, suffixes, indent, line=None):
    # a suffix that would overflow the line starts a new one (torch counts the line this way)
    line = len(text) - text.rfind("\n") + 1 if line is None else line
    for s in suffixes:
        if line + len(s) + 2 > LINEWIDTH:
            text += ",\n" + " " * indent + s
            line = indent + len(s)
        else:
            text += ", " + s
            line += len(s) + 2
    return text + ")"


def _array_body(arr, indent):
    """The bracketed elements of a non-empty array, as printed at column `indent`."""
    summarize = arr.size > THRESHOLD
    if _dtype.is_bfloat16(arr.dtype):   # printed from its exact float32 values, as torch does
        arr = arr.astype(np.float32)
    shown = _summarized(arr) if summarize else arr
    fmt = _ComplexFormat(shown) if arr.dtype.kind == "c" else _Format(shown)
    return _body(arr, indent, fmt, summarize)


def _shows_dtype(d):
    """torch prints dtype= unless it is the default float or complex dtype, int64 or bool."""
    default_float = _dtype.defaults.float
    default_complex = _dtype.complex128 if default_float is _dtype.float64 else _dtype.complex64
    return d not in (default_float, default_complex, _dtype.int64, _dtype.bool_)


def _suffixes_of(t):
    try:
        fn = t.grad_fn
    except RuntimeError:   # a view torch forbids in-place ops on, whose base was modified: as torch prints it
        return ["grad_fn=<Invalid>"]
    out = [f"grad_fn=<{type(fn).__name__}>"] if fn is not None else ["requires_grad=True"] if t.requires_grad else []
    fw = t._fw   # forward AD: (level, tangent); a tangent is shown while its level is alive
    if fw is not None and fw[0].alive:
        out.append(f"tangent={fw[1]!r}")
    return out


def sparse_repr(t):
    """torch's print of a sparse tensor: its index and value tensors, then size, nnz, dtype, layout."""
    data = t._array
    indent = len("tensor(")
    if data.layout.name == "sparse_coo":
        parts = [("indices", data.indices), ("values", data.values)]
    else:
        major, minor = ("crow", "col") if data.layout.name in ("sparse_csr", "sparse_bsr") else ("ccol", "row")
        parts = [(f"{major}_indices", data.compressed), (f"{minor}_indices", data.plain), ("values", data.values)]
    shown = []
    for name, arr in parts:
        prefix = f"{name}=tensor("
        body = _array_body(arr, indent + len(prefix)) if arr.size else "[]"
        if arr.size == 0:
            body += f", size={tuple(arr.shape)}"
        shown.append(prefix + body + ")")
    d = _dtype.from_numpy_dtype(data.dtype)
    suffixes = [f"size={tuple(data.shape)}", f"nnz={data.nnz}"] + ([f"dtype={d!r}"] if _shows_dtype(d) else []) + \
        [f"layout={data.layout!r}"] + _suffixes_of(t)
    text = "tensor(" + (",\n" + " " * indent).join(shown)
    if data.layout.name == "sparse_coo":   # torch starts the suffixes of a COO tensor on a new line
        text += ",\n" + " " * indent + suffixes[0]
        return _with_suffixes(text, suffixes[1:], indent, indent + len(suffixes[0]))
    return _with_suffixes(text, suffixes, indent)


def tensor_repr(t, arr=None):
    """arr: t's values when they are not its array as stored (a lazy conjugate/negative view)."""
    arr = t._array if arr is None else arr
    cls = type(t)
    # as torch: a user's subclass prints its name (`MySub([1., 2.])`); ndgrad's own classes print tensor(
    prefix = "tensor(" if cls.__module__.partition(".")[0] == "ndgrad" else cls.__name__ + "("
    indent = len(prefix)
    d = _dtype.from_numpy_dtype(arr.dtype)
    if t.is_meta:   # no values to show
        return _with_suffixes(prefix + "...", ["device='meta'", f"size={tuple(arr.shape)}"] +
                              ([f"dtype={d!r}"] if d is not _dtype.defaults.float else []) + _suffixes_of(t), indent)
    default_float = _dtype.defaults.float
    suffixes = []
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if d is not default_float:
            suffixes.append(f"dtype={d!r}")
        body = "[]"
    else:
        if _shows_dtype(d):
            suffixes.append(f"dtype={d!r}")
        body = _array_body(arr, indent)
    return _with_suffixes(prefix + body, suffixes + _suffixes_of(t), indent)


def nested_repr(t):
    """torch's print: a strided nested tensor lists its components, a jagged one its size and offsets."""
    make = type(t)._make
    data = t._array
    fn = t.grad_fn
    if data.layout is jagged:
        offsets = tensor_repr(make(data.offsets, False, None, 0))
        parts = [f"size=({', '.join(map(str, data.shape))})", f"offsets={offsets}"]
        if fn is not None:
            parts.append(f"grad_fn=<{fn.name()} object at {hex(id(fn))}>")
        elif t.requires_grad:
            parts.append("requires_grad=True")
        parts.append(f"contiguous={data.is_contiguous()}")
        return f"NestedTensor({', '.join(parts)})"
    lines = []
    for c in data.components():
        text = tensor_repr(make(c, t.requires_grad, None, 0))
        lines.append("  " + text.replace("\n", "\n  "))
    suffix = f", grad_fn=<{fn.name()}>" if fn is not None else ", requires_grad=True" if t.requires_grad else ""
    return "nested_tensor([\n" + ",\n".join(lines) + "\n]" + suffix + ")"
