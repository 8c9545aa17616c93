"""Elementwise fusion of ndgrad.compile's tapes, with numba where it is installed (the `fast` extra).

A run of consecutive tape steps that are each an arithmetic elementwise op (add, sub, mul, div, neg,
ReLU and the backward formulas of ReLU, tanh and sigmoid) on arrays of one shape and one float dtype
(and vectors along its last dim: a bias) becomes one compiled loop: each element is read once, the intermediates stay in registers, and one
call replaces the run's NumPy calls (a long chain's backward: two calls per link become one call per
eight links). The bits are eager mode's: per element the loop makes the same IEEE operations in the
same order on the same dtype (constants in that dtype, as NumPy's weak scalars are; no fast-math, no
contraction into fused multiply-adds; division by zero gives inf or nan as NumPy's does), and the
selections (ReLU's, its backward's) keep NaN and -0.0 where NumPy's do. Transcendental functions
(tanh, exp) stay NumPy's: numba's would round otherwise.

At a replay the fused step checks its inputs (arrays of the traced shape and dtype) and runs the
original steps where they are not; an input laid out otherwise than C-contiguous (a broadcast gradient,
a transposed input) is copied first.
Without numba (or with NDGRAD_NUMBA=0) tapes are not fused.
"""
import threading

import numpy as np

from .ops import _fused, activation, pointwise

enabled = True   # (tests of the unfused tapes turn it off)
MIN_RUN = 2    # steps: a single step gains nothing
MAX_RUN = 16   # steps per loop: a long chain becomes several loops of one shape, compiled once


def _forms():
    """callee -> (number of operands, the expression over {0}, {1}... and the constants one, zero)."""
    arithmetic = {np.add: "({0} + {1})", np.subtract: "({0} - {1})", np.multiply: "({0} * {1})",
                  np.true_divide: "({0} / {1})", pointwise._true_divide.__wrapped__: "({0} / {1})"}
    forms = {f: (2, e) for f, e in arithmetic.items()}
    forms.update({
        np.negative: (1, "(-{0})"),
        pointwise.neg.__wrapped__: (1, "(-{0})"),
        # clip(x, 0, inf): x where it is not below 0 (NaN and -0.0 stay), else +0.0
        activation._relu_replay: (1, "({0} if not ({0} < zero) else zero)"),
        # zero where the input is at most the threshold (a NaN input passes the gradient)
        activation._threshold_backward.__wrapped__: (3, "({0} if not ({1} <= {2}) else zero)"),
        pointwise._tanh_backward.__wrapped__: (2, "({0} * (one - {1} * {1}))"),
        pointwise._sigmoid_backward.__wrapped__: (2, "({0} * ({1} * (one - {1})))"),
    })
    return forms


_FORMS = None
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_kernels = {}   # generated source -> numba dispatcher
_lock = threading.Lock()


def available():
    return enabled and _fused.enabled and _fused.kernels(np.empty(_fused.MIN_SIZE, np.float64)) is not None


def fuse(steps, arrays, keep, callee, ref, reads):
    """`steps` with each fusable run replaced by a _FusedStep. `arrays`: the traced value of each slot;
    `keep`: slots that must exist after the tape; callee(step) -> (function, positional arguments,
    keyword arguments) as the tape would call it; `ref`: the tape's argument class for a slot (compiler._Ref),
    reads(step): the slots a step reads."""
    global _FORMS
    if not (enabled and _fused.enabled):
        return steps
    if _FORMS is None:
        _FORMS = _forms()
    last_read = {}   # slot -> the last step that reads it
    for i, step in enumerate(steps):
        for s in reads(step):
            last_read[s] = i
    out, run = [], []
    for i, step in enumerate(steps):
        form = _fusable(step, arrays, callee, ref)
        if run and (form is None or len(run) == MAX_RUN or form[2] != run[0][1][2]):
            _close(run, i, out, keep, last_read, ref, arrays)   # (the run ends before step i)
            run = []
        if form is None:
            out.append(step)
        else:
            run.append((step, form))
    _close(run, len(steps), out, keep, last_read, ref, arrays)
    return out


def _fusable(step, arrays, callee, ref):
    """(expression, operands, (shape, dtype)) of a step that can join a run, else None."""
    if not step.plain() or len(step.outs) != 1:
        return None
    shape, dtype = step.shapes[0], step.dtypes[0]
    if dtype not in _FLOATS:
        return None
    fn, args, keywords = callee(step)
    form = _FORMS.get(fn) if not keywords else None
    if form is None or len(args) != form[0]:
        return None
    operands = []
    for a in args:
        if type(a) is ref:
            v = arrays[a.slot]   # (of the result's shape, or a vector along its last dim: a bias)
            if type(v) is not np.ndarray or v.dtype != dtype or v.shape != shape and (
                    len(shape) < 2 or v.shape != shape[-1:]):
                return None
            operands.append(a)
        elif type(a) in (int, float) or isinstance(a, np.generic) and a.dtype == dtype:
            operands.append(dtype.type(a))   # (NumPy's weak scalars compute in the array's dtype)
        else:
            return None
    return form[1], operands, (shape, dtype)


def _close(run, end, out, keep, last_read, ref, arrays):
    """Append the run (the steps before step `end`) to `out`: one _FusedStep where it is long enough, else
    its steps. The loop writes out the values kept after the tape or read by a later step."""
    if len(run) < MIN_RUN or not available():   # (numba is imported for the first run long enough)
        out.extend(step for step, _ in run)
        return
    needed = [step.outs[0] for step, _ in run if step.outs[0] in keep or last_read.get(step.outs[0], -1) >= end]
    fused = _FusedStep(run, needed, ref, arrays)
    try:   # compiled now, on the traced arrays (the types of every replay): a loop numba refuses is not used
        fused.kernel(*(np.ascontiguousarray(arrays[a.slot]) for a in fused.args), *fused.consts,
                     *(np.empty(fused.shape, fused.dtype) for _ in fused.outs))
    except Exception:   # noqa: BLE001 - the steps run as they are
        out.extend(step for step, _ in run)
        return
    out.append(fused)


class _FusedStep:
    """Several elementwise steps as one compiled loop (see the module docstring); `steps`: the original
    steps, run instead where the inputs are not as traced."""

    def __init__(self, run, out_slots, ref, arrays):
        self.steps = [step for step, _ in run]
        self.shape, self.dtype = run[0][1][2]
        self.outs = tuple(out_slots)
        self.inplace = None
        ins, consts, lines = [], [], []
        name = {}   # slot -> the local holding its value in the loop
        for k, (step, (expression, operands, _)) in enumerate(run):
            terms = []
            for o in operands:
                if type(o) is ref:
                    if o.slot not in name:
                        name[o.slot] = f"x{len(ins)}"
                        ins.append(o.slot)
                    terms.append(name[o.slot])
                else:
                    terms.append(f"c{len(consts)}")
                    consts.append(o)
            lines.append(f"t{k} = {expression.format(*terms)}")
            name[step.outs[0]] = f"t{k}"
        self.args = tuple(ref(s, None) for s in ins)   # (what the tape's reads() sees)
        self.in_shapes = tuple(arrays[s].shape for s in ins)
        self.consts = tuple(consts) + (self.dtype.type(1), self.dtype.type(0))
        params = [f"a{j}" for j in range(len(ins))] + [f"c{j}" for j in range(len(consts))] + ["one", "zero"] + \
            [f"o{j}" for j in range(len(self.outs))]
        vector = [shape != self.shape for shape in self.in_shapes]
        src = [f"def fused({', '.join(params)}):",
               "    n = o0.size",
               *(f"    f{j} = a{j}.reshape({'a%d.size' % j if v else 'n'})" for j, v in enumerate(vector)),
               *(f"    p{j} = o{j}.reshape(n)" for j in range(len(self.outs)))]
        if any(vector):   # rows of the last dim: a vector operand read at the column
            src += ["    cols = o0.shape[-1]",
                    "    for r in range(n // cols if cols else 0):",
                    "        for c in range(cols):",
                    "            i = r * cols + c"]
            indent = " " * 12
        else:
            src += ["    for i in range(n):"]
            indent = " " * 8
        src += [indent + line for line in (*(f"x{j} = f{j}[{'c' if v else 'i'}]" for j, v in enumerate(vector)),
                                           *lines, *(f"p{j}[i] = {name[s]}" for j, s in enumerate(self.outs)))]
        self.source = "\n".join(src)
        self.kernel = _kernel(self.source)

    def plain(self):
        return False

    def run(self, vals, tensors):
        shape, dtype = self.shape, self.dtype
        ins = [vals[a.slot] for a in self.args]
        for j, a in enumerate(ins):
            if type(a) is not np.ndarray or a.shape != self.in_shapes[j] or a.dtype != dtype:
                for step in self.steps:
                    step.run(vals, tensors)
                return
            if not a.flags.c_contiguous:   # (a broadcast gradient, a transposed input: read once, copied once)
                ins[j] = np.ascontiguousarray(a)
        outs = [np.empty(shape, dtype) for _ in self.outs]
        self.kernel(*ins, *self.consts, *outs)
        for s, o in zip(self.outs, outs):
            vals[s] = o


def _kernel(source):
    with _lock:
        fn = _kernels.get(source)
        if fn is None:
            import numba
            scope = {}
            # (the source holds generated names, slot numbers and the fixed templates above only)
            exec(compile(source, "<ndgrad fused elementwise loop>", "exec"), scope)   # noqa: S102
            fn = _kernels[source] = numba.njit(nogil=True, error_model="numpy")(scope["fused"])
        return fn
