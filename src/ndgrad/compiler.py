"""`ndgrad.compile`: torch.compile's interface over a tracing compiler of ndgrad's own.

The first call with a new input signature runs the function eagerly while a tracer records every
op it makes through the op glue: a tape of array calls (each op's forward on NumPy arrays, with
the dtype casts the glue made). When outputs require grad, the backward is traced too, by running
the engine once on the traced graph, so the backward is also a tape. Later calls with the same
signature replay the tapes: no argument parsing, type promotion, Tensor wrapping or node per op,
and the outputs hang from one `CompiledFunctionBackward` node whose backward replays the backward
tape (`out.backward()` runs that tape without the engine's pass when nothing could tell the
difference). Numbers are those of eager mode exactly: the same array calls in the same order; a
replay drops each array after its last use, as eager mode frees what no node saved. Where that
last use is a large elementwise step, the step writes its result into that array (when, at the
replay, nothing else holds it), and a forward keeps what its backward would compute again (GELU's
tanh): the same operations on the same values, with fewer buffers and passes.

A trace is refused, and that signature then runs eagerly (`fullgraph=True`: an error), when the
function does something a tape cannot replay: reads tensor data into Python (`.item()`, `bool()`,
`.tolist()`, `.numpy()`), uses a tensor that is neither an input, a parameter or buffer, nor made
by an op of the function, changes a tensor that requires grad in place, registers hooks, runs
forward AD, or returns one of its inputs. `explain(fn)(*args)` says why. A replay whose ops produce
shapes other than the traced ones (data-dependent shapes) runs eagerly instead. The signature (the
guard) is: shapes, dtypes and requires_grad of the tensor arguments, the other arguments' values,
grad mode, and for a module its parameters' and buffers' identities and metadata and each
submodule's training flag. After `recompile_limit` signatures a function runs eagerly, with a warning.
"""
import builtins
import functools
import gc
import math
import sys
import threading
import warnings
import weakref
from sys import getrefcount

import numpy as np

from . import _fusion, nn
from ._tensor import Tensor
from .autograd import engine
from .autograd.grad_mode import state
from .autograd.gradient_checks import fill_missing
from .autograd.node import AccumulateGrad, Node, _next_seq, accumulate_grad, edge
from .autograd import anomaly_mode, forward_ad
from .ops import _registry, activation, normalization, pointwise

__all__ = ["compile", "reset", "is_compiling", "disable", "explain", "Unsupported", "recompile_limit"]

recompile_limit = 8


class Unsupported(RuntimeError):
    """A function ndgrad.compile cannot trace, raised with fullgraph=True (torch's dynamo Unsupported)."""


class _Refused(Exception):
    pass


class _Mismatch(Exception):
    """A replay met a shape other than the traced one."""


_tracing = threading.local()


def is_compiling():
    """True while ndgrad.compile traces a function."""
    return getattr(_tracing, "active", False)


# --- the tape --------------------------------------------------------------------------------------
class _Ref:
    """An argument of a tape step: the array of slot `slot`, cast to `cast` when not None."""
    __slots__ = ("slot", "cast")

    def __init__(self, slot, cast):
        self.slot, self.cast = slot, cast


def _resolve(a, vals):
    if type(a) is _Ref:
        v = vals[a.slot]
        return v if a.cast is None else v.astype(a.cast)
    if type(a) is list:
        return [_resolve(x, vals) for x in a]
    return a


class _Step:
    """One recorded op: its forward, its arguments (_Refs and constants), its output slots with the
    shapes and dtypes seen; `inplace`: the slot it writes into instead (`bump`: that input's position)."""
    __slots__ = ("forward", "args", "outs", "shapes", "dtypes", "inplace", "bump")

    def plain(self):
        """Not in place, arguments that are slots without a cast or constants: the common case, which
        _emit spells out inline."""
        return self.inplace is None and all(
            type(a) is not list and (type(a) is not _Ref or a.cast is None) for a in self.args)

    def run(self, vals, tensors):
        out = self.forward(*[_resolve(a, vals) for a in self.args])
        outs = out if type(out) is tuple else (out,)
        if self.inplace is not None:   # write into the target's memory, as the glue does
            dst = vals[self.inplace]
            res = np.asarray(outs[0])
            if res.shape != self.shapes[0]:
                raise _Mismatch
            np.copyto(dst, res, casting="unsafe")
            if self.bump is not None:
                tensors[self.bump]._vc[0] += 1
            return
        for slot, o, shape, dtype in zip(self.outs, outs, self.shapes, self.dtypes):
            o = np.asarray(o)
            if o.shape != shape:
                raise _Mismatch
            vals[slot] = o if o.dtype == dtype else o.astype(dtype)


def _reads(step):
    """The slots a step reads (its in-place target included)."""
    slots = []
    for a in step.args:
        if type(a) is _Ref:
            slots.append(a.slot)
        elif type(a) is list:
            slots.extend(x.slot for x in a if type(x) is _Ref)
    if step.inplace is not None:
        slots.append(step.inplace)
    return slots


def _is_elementwise(fn):
    return type(fn) is np.ufunc and fn.signature is None


def _probe(forward, args, arrays):
    """The raw result of an elementwise ufunc step on the traced arrays (shapes and dtypes are those of
    every replay: the guard fixes the inputs', ufuncs decide the rest), or None without them."""
    if arrays is None or not _is_elementwise(forward):
        return None
    try:
        with np.errstate(all="ignore"):
            return forward(*[arrays[a.slot] if type(a) is _Ref else a for a in args])
    except Exception:   # noqa: BLE001 - values changed in place since (integer powers...): the checks stay
        return None


def _fold(forward, args, arrays):
    """args with each Python number given to an elementwise ufunc as a NumPy scalar of the dtype NumPy
    converts it to (the loop's): the same computation, without NumPy's weak-scalar promotion on every call
    (half the time of `x * 1.0001` on a small array). Kept as given where the loop would change."""
    if arrays is None or not _is_elementwise(forward) or not any(type(a) in (int, float, complex) for a in args):
        return args
    def dtypes(values):
        return tuple(arrays[a.slot].dtype if type(a) is _Ref else a.dtype if isinstance(a, np.generic) else type(a)
                     for a in values) + (None,) * forward.nout
    try:
        loop = forward.resolve_dtypes(dtypes(args))
        folded = [loop[j].type(a) if type(a) in (int, float, complex) else a for j, a in enumerate(args)]
        if forward.resolve_dtypes(dtypes(folded)) != loop:
            return args
    except (TypeError, ValueError, OverflowError):
        return args
    return folded




def _callee(forward, args):
    """(function, positional arguments, keyword arguments as a dict or None) of a plain step's call: a
    forward that only calls its array function (pointwise._named) is skipped, the call made to that
    function; so is the glue's positional wrapper, where the keyword arguments are constants.

    A forward's `replay` attribute, where an op sets one, is called instead of the forward: the same
    computation without the checks that depend only on the arguments' shapes and dtypes and on the
    constant arguments (mm's dims and dtypes, nll_loss's shapes...). Those cannot fail in a replay: the
    guard fixes the inputs' shapes and dtypes, every step's output is checked against (or, for an
    elementwise ufunc, follows from) the traced shape and dtype, and the constants are the traced ones.
    Checks on values (nll_loss's target bounds) stay in the replay kernel."""
    # the glue's wrapper of a forward with keyword-only parameters (_registry._positional; not a wrapper
    # of it, which copies the attribute): the forward itself, those arguments by keyword
    split = getattr(forward, "keyword_split", None)
    if split is not None and getattr(forward, "__wrapped__", None) is split[0]:
        fn, k, names = split
        if not any(type(a) is _Ref for a in args[k:]):
            return getattr(fn, "replay", fn), args[:k], dict(zip(names, args[k:]))
        return forward, args, None
    kernel = getattr(forward, "replay", None) or getattr(forward, "kernel", None)
    if kernel is not None:
        return kernel, args, None
    return forward, args, None


# elementwise forms of forwards: (the function, its constant keyword arguments) -> (ufunc, extra arguments)
# computing the same values (add and sub with alpha=1 are np.add / np.subtract of their operands): a tape's
# step then gets the ufunc step's fast paths below
_UFUNC_FORMS = {(pointwise.add.__wrapped__, (("alpha", 1),)): (np.add, ()),
                (pointwise.sub.__wrapped__, (("alpha", 1),)): (np.subtract, ())}

# ufuncs whose result does not depend on where it is written (correctly rounded in every loop NumPy has,
# strided or SIMD): a step of one may write into an operand's buffer (see _emit)
_OUT_SAFE = frozenset((np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum, np.negative,
                       np.square, np.sqrt, np.abs))

# the reuse check counts references: exact on CPython with the GIL before 3.14 (3.14 may leave references
# from the evaluation stack uncounted, the free-threaded build defers counts); elsewhere no step reuses
_COUNTS_EXACT = sys.implementation.name == "cpython" and sys.version_info < (3, 14) and \
    getattr(sys, "_is_gil_enabled", lambda: True)()

# arrays at least this large (bytes) are worth the reuse check (the result goes where the operand's bytes
# still are in cache, the allocator is spared; for small ones the check costs more than it saves)
_REUSE_BYTES = 1 << 16


def _own(a, *others):
    """Whether a replay may write a step's result into `a`: nothing else can see its memory (the only
    references to the array are the tape's local and this call, and to its base, if any, the array
    itself), it is all of that memory (a reshaped view at most: the result's storage is its own, as a
    fresh one's), and it and the step's other array operands are C-contiguous (so the result's layout
    is the one NumPy would have allocated)."""
    b = a.base
    return (getrefcount(a) == 3 and (b is None or type(b) is np.ndarray and getrefcount(b) == 3
                                     and b.nbytes == a.nbytes)
            and a.flags.c_contiguous and a.flags.writeable
            and all(type(o) is not np.ndarray or o.flags.c_contiguous for o in others))


def _ufunc_form(forward, positional, keywords):
    form = _UFUNC_FORMS.get((forward, tuple(sorted(keywords.items())) if keywords else ()))
    if form is None:
        return forward, positional, keywords
    return form[0], tuple(positional) + form[1], None


def _emit(steps, arrays=None, keep=()):
    """The tape as one Python function `run(vals, tensors)` of straight-line calls: each plain step's
    call and checks written out with its slots as local variables (a replay's cost is then the array
    calls, not the interpreter walking a list of steps); other steps call their own `run`. The source
    is made only of generated names and slot numbers: the forwards, constants (keyword arguments: a
    dict), shapes and dtypes are looked up in the function's globals, never written as text.

    `vals` holds the slots across tapes: only those in `keep` (the outputs, and what the backward reads)
    stay there at the end; every other array is dropped after its last use, so that a replay's memory
    follows the live values as eager mode's does (holding every intermediate makes large steps slower
    than eager). With `arrays` (the traced values of the slots), an elementwise ufunc step whose result
    is an array of the traced dtype needs no checks (its shape and dtype follow from its inputs'), and its
    Python number arguments are folded into NumPy scalars."""
    if arrays is not None:
        steps = _fusion.fuse(steps, arrays, set(keep), lambda step: _ufunc_form(*_callee(step.forward, step.args)),
                             _Ref, _reads)
    # (its __name__ is this module's, so ndgrad's filter of NumPy's inf/nan warnings covers its calls)
    scope = {"__name__": __name__, "ndarray": np.ndarray, "asarray": np.asarray, "_Mismatch": _Mismatch,
             "_own": _own}
    lines, local, stored = ["def run(vals, tensors):"], set(), set()
    keep = set(keep)
    reads = [_reads(step) for step in steps]
    last = {}
    for i, slots in enumerate(reads):
        for slot in slots:
            last[slot] = i
    produced = {slot for step in steps for slot in step.outs}
    via_vals = {slot for step, slots in zip(steps, reads) if not step.plain() for slot in slots}

    def use(slot):
        if slot not in local:   # produced before this tape (an input, a forward value), or by a step's run
            local.add(slot)
            lines.append(f"    v{slot} = vals[{slot}]")
        return f"v{slot}"

    def drop(slot):
        if slot in local:
            local.discard(slot)
            lines.append(f"    del v{slot}")
        if slot in stored or slot not in produced:
            lines.append(f"    vals[{slot}] = None")

    for i, step in enumerate(steps):
        if step.plain():
            forward, positional, keywords = _ufunc_form(*_callee(step.forward, step.args))
            raw = None if keywords else _probe(forward, positional, arrays)
            args = []
            folded = _fold(forward, positional, arrays)
            for j, a in enumerate(folded):
                if type(a) is _Ref:
                    args.append(use(a.slot))
                else:
                    scope[f"k{i}_{j}"] = a
                    args.append(f"k{i}_{j}")
            target = _reusable(forward, folded, step, i, raw, arrays, last, keep | via_vals, produced)
            if target is not None:   # written into that operand's buffer where, at this replay, no one else sees it
                others = "".join(f", {x}" for x in args if x != f"v{target}")
                lines.append(f"    into = v{target} if _own(v{target}{others}) else None")   # (before the call:
                args.append("out=into")                                          # no argument is held yet)
            if keywords:
                scope[f"kw{i}"] = keywords
                args.append(f"**kw{i}")
            scope[f"f{i}"] = forward
            call = f"f{i}({', '.join(args)})"
            if len(step.outs) > 1:   # (a tuple: each output checked as a single one is)
                lines.append(f"    r = {call}")
            temps = False
            for k, out in enumerate(step.outs):
                local.add(out)
                scope[f"s{i}_{k}"], scope[f"d{i}_{k}"] = step.shapes[k], step.dtypes[k]
                if type(raw) is np.ndarray and raw.dtype == step.dtypes[0] and raw.shape == step.shapes[0]:
                    lines.append(f"    v{out} = {call}")
                else:
                    lines += [f"    o = {call}" if len(step.outs) == 1 else f"    o = r[{k}]",
                              "    if type(o) is not ndarray:",
                              "        o = asarray(o)",
                              f"    if o.shape != s{i}_{k}:",
                              "        raise _Mismatch",
                              f"    v{out} = o if o.dtype == d{i}_{k} else o.astype(d{i}_{k})"]
                    temps = temps or math.prod(step.shapes[k]) * step.dtypes[k].itemsize >= _REUSE_BYTES
                if out in keep or out in via_vals:
                    stored.add(out)
                    lines.append(f"    vals[{out}] = v{out}")
            if temps:   # (a large output is not held by the temporaries: a later step may reuse its buffer)
                lines.append("    del o" if len(step.outs) == 1 else "    del o, r")
            if target is not None:
                lines.append("    del into")
        else:
            scope[f"step{i}"] = step.run
            lines.append(f"    step{i}(vals, tensors)")   # its outputs are read from vals by later steps
            stored.update(step.outs)
        for slot in step.outs:
            if slot not in last and slot not in keep:   # never read: gone at once
                drop(slot)
        for slot in reads[i]:
            if last.get(slot) == i and slot not in keep:
                last[slot] = None   # (a slot read twice by this step is dropped once)
                drop(slot)
    exec(builtins.compile("\n".join(lines) + "\n    return\n", "<ndgrad.compile tape>", "exec"), scope)   # noqa: S102
    run = scope["run"]
    run.steps = steps   # (what it runs, for inspection)
    run.source = "\n".join(lines)
    return run


def _reusable(forward, args, step, i, raw, arrays, last, held, produced):
    """The slot of an operand of step i whose buffer may take its result: an elementwise ufunc of _OUT_SAFE
    (or a replay kernel that takes `out=`, its `out_operand` the one) whose traced result is a large array
    of the operand's shape and dtype, the operand made by this tape (not an input, nor a value another tape
    reads), read for the last time here, by this operand alone. (Whether anything else holds the array is
    known at the replay only: _own checks it.)"""
    operand = getattr(forward, "out_operand", None)
    if forward in _OUT_SAFE and type(raw) is np.ndarray:
        shape, dtype = raw.shape, raw.dtype
    elif operand is not None:
        shape, dtype = step.shapes[0], step.dtypes[0]
    else:
        return None
    if not _COUNTS_EXACT or len(step.outs) != 1 or math.prod(shape) * dtype.itemsize < _REUSE_BYTES:
        return None
    refs = [a.slot for a in args if type(a) is _Ref]
    for j, a in enumerate(args):
        if type(a) is not _Ref or operand is not None and j != operand:
            continue
        traced = arrays[a.slot]
        if (a.slot in produced and a.slot not in held and last.get(a.slot) == i and refs.count(a.slot) == 1
                and traced.shape == shape and traced.dtype == dtype):
            return a.slot
    return None


# forward/backward pairs whose backward recomputes a value the forward had: the tape's forward keeps it in
# a slot of its own for the backward to read (the same bits: the same operations on the same input).
# (forward, its constant keyword arguments) -> (backward, the forward that also returns the value as its
# last result, the backward that reads it as its last argument, the argument positions the forward must
# have a tensor at); the backward reads the forward's input as its second argument.
_KEPT = {(activation._gelu.__wrapped__, (("approximate", "tanh"),)):
         (activation._gelu_backward.__wrapped__, activation._gelu_tanh_keeping, activation._gelu_tanh_backward_kept,
          ()),
         (normalization.native_layer_norm.__wrapped__, ()):   # (with a weight: xhat is then a buffer of its own)
         (normalization.native_layer_norm_backward.__wrapped__, normalization._layer_norm_keeping,
          normalization._layer_norm_backward_kept, (2,))}


def _keep_recomputed(tracer, n_fwd):
    """Rewrite the _KEPT pairs of the forward tape (steps before n_fwd) and the backward tape."""
    def key(step):
        if step.inplace is not None or any(type(a) is _Ref and a.cast is not None for a in step.args):
            return None, None
        forward, args, keywords = _callee(step.forward, step.args)
        return (forward, tuple(sorted(keywords.items())) if keywords else ()), args

    pairs = {}   # (backward, its keywords, the input's slot) -> (the forward step, its arguments, its rule)
    for step in tracer.tape[:n_fwd]:
        k, args = key(step)
        rule = _KEPT.get(k)
        if (rule is not None and type(args[0]) is _Ref and all(type(args[j]) is _Ref for j in rule[3])
                and tracer.arrays[args[0].slot].dtype == step.dtypes[0]):   # (the kept value has the input's)
            pairs[rule[0], k[1], args[0].slot] = (step, args, rule)
    rewritten = set()
    for step in tracer.tape[n_fwd:]:
        k, args = key(step)
        pair = pairs.get((k[0], k[1], args[1].slot)) if k is not None and len(args) > 1 and \
            type(args[1]) is _Ref else None
        if pair is None:
            continue
        fwd, fwd_args, rule = pair
        if id(fwd) not in rewritten:   # (one kept value for every backward of that forward)
            rewritten.add(id(fwd))
            kept = tracer.add(np.empty(fwd.shapes[0], fwd.dtypes[0]))
            fwd.forward, fwd.args = rule[1], tuple(fwd_args)
            fwd.outs, fwd.shapes, fwd.dtypes = (fwd.outs + (kept,), fwd.shapes + fwd.shapes[:1],
                                                fwd.dtypes + fwd.dtypes[:1])
        step.forward, step.args = rule[2], tuple(args) + (_Ref(fwd.outs[-1], None),)


class _Tracer:
    """Records the ops run through the op glue (as its dispatch hook) into a tape of _Steps."""

    def __init__(self):
        self.slot_of = {}      # id(array) -> slot
        self.arrays = []       # slot -> the array seen while tracing (kept alive: ids stay unique)
        self.tape = []
        self.input_slots = {}  # slot -> position among the compiled function's tensors
        self.outer = None
        self.backward = False  # tracing the backward: in-place writes into inputs are refused
        self.tensors = []      # the inputs: arguments, module parameters and buffers, then captured ones
        self.captured = []     # tensors the function reads from outside its arguments
        self.existing = {}     # id -> each Tensor alive when the trace started

    def add(self, array):
        self.slot_of[id(array)] = len(self.arrays)
        self.arrays.append(array)
        return len(self.arrays) - 1

    def slot(self, t):
        s = self.slot_of.get(id(t._array))
        if s is None and id(t) in self.existing:   # a tensor from outside (a global, a closure): an input
            s = self.add(t._array)
            self.input_slots[s] = len(self.tensors)
            self.tensors.append(t)
            self.captured.append(t)
        if s is None:
            raise _Refused("it uses a tensor that is neither an input, a parameter or buffer, nor computed by "
                           f"its ops (shape {tuple(t.shape)})")
        return s

    def __enter__(self):
        self.outer = _registry.dispatch_hook
        _registry.dispatch_hook = self.on_op
        _tracing.active = True
        return self

    def __exit__(self, *exc):
        _registry.dispatch_hook = self.outer
        _tracing.active = False

    def on_op(self, spec, args, inplace=False):
        _registry.dispatch_hook = self.outer   # the op's own glue is not traced again
        try:
            if forward_ad.state.level is not None:
                raise _Refused("forward-mode AD is active")
            step = self.arg_step(spec, args, inplace)
            result = (_registry.call_inplace if inplace else _registry.call)(spec, args)
        finally:
            _registry.dispatch_hook = self.on_op
        outs = result if type(result) is tuple else (result,)
        for o in outs:
            if not isinstance(o, Tensor) or type(o._array) is not np.ndarray:
                raise _Refused(f"'{spec.name}' gives a result that is not a dense array")
        if inplace:
            step.shapes = (outs[0]._array.shape,)
        else:
            step.outs = tuple(self.add(o._array) for o in outs)
            step.shapes = tuple(o._array.shape for o in outs)
            step.dtypes = tuple(o._array.dtype for o in outs)
        self.tape.append(step)
        return result

    def arg_step(self, spec, args, inplace):
        if spec.name.startswith("_nested") or "sparse" in spec.name:
            raise _Refused(f"'{spec.name}' works on sparse or nested tensors")
        raw, _, _ = _registry._unwrap(spec, args)
        step = _Step()
        step.forward, step.inplace, step.bump, step.outs, step.dtypes = spec.forward, None, None, (), ()
        spec_args = []
        for a, r in zip(args, raw):
            if isinstance(a, Tensor):
                spec_args.append(self.ref(a, r))
            elif type(a) in (list, tuple) and any(isinstance(x, Tensor) for x in a):
                spec_args.append([self.ref(x, y) if isinstance(x, Tensor) else y for x, y in zip(a, r)])
            else:
                spec_args.append(r)
        step.args = tuple(spec_args)
        if inplace:
            self_t = args[0]
            if self_t.requires_grad:
                raise _Refused(f"it changes a tensor that requires grad in place ('{spec.name}_')")
            slot = self.slot(self_t)
            if slot in self.input_slots:
                if self.backward:
                    raise _Refused(f"its backward changes an input in place ('{spec.name}_')")
                step.bump = self.input_slots[slot]
            elif any(np.may_share_memory(self_t._array, self.arrays[s]) for s in self.input_slots):
                raise _Refused(f"it changes a view of an input in place ('{spec.name}_')")
            step.inplace = slot
        return step

    def ref(self, t, raw):
        if type(t._array) is not np.ndarray:
            raise _Refused("it uses a sparse, nested, meta or non-NumPy tensor")
        if t._math_bits:   # the glue resolves these lazily; a tape replays plain arrays
            raise _Refused("it uses a lazy conjugate or negative view")
        return _Ref(self.slot(t), None if raw is t._array else raw.dtype)


# --- data reads refuse a trace -------------------------------------------------------------------
_DATA_READS = ("item", "tolist", "numpy", "__bool__", "__float__", "__int__", "__index__", "__array__", "__repr__",
               "__str__", "__format__")


def _refuse_read(name, original):
    @functools.wraps(original)
    def read(self, *args, **kwargs):
        if is_compiling():   # (thread-local: other threads read data as usual)
            raise _Refused(f"it reads tensor data into Python (Tensor.{name})")
        return original(self, *args, **kwargs)
    return read


_patch_lock = threading.Lock()


class _DataReadsRefused:
    """While tracing, Tensor's data-reading methods refuse (Python control flow on tensor values
    would be baked into the tape)."""

    def __enter__(self):
        _patch_lock.acquire()
        self.saved = {n: Tensor.__dict__[n] for n in _DATA_READS if n in Tensor.__dict__}
        for n, fn in self.saved.items():
            setattr(Tensor, n, _refuse_read(n, fn))

    def __exit__(self, *exc):
        for n, fn in self.saved.items():
            setattr(Tensor, n, fn)
        _patch_lock.release()


# --- one traced signature -----------------------------------------------------------------------
class _Program:
    """The tapes of one signature: forward steps, backward steps, where inputs and outputs live."""

    def __init__(self, tracer, n_inputs, out_tree, out_slots, diff_inputs, bwd):
        self.slots = len(tracer.arrays)
        keep = set(out_slots)
        if bwd is not None:   # the forward values the backward reads stay in vals
            keep.update(s for step in bwd[0].steps for s in _reads(step) if s < self.slots)
        self.fwd = _emit(tracer.tape, tracer.arrays, keep)
        self.inputs = list(tracer.input_slots.items())   # (slot, position among the tensors)
        self.n_inputs = n_inputs
        self.out_tree, self.out_slots = out_tree, out_slots
        self.diff_inputs = diff_inputs   # positions of the inputs gradients flow to (each tensor once)
        self.bwd = bwd                   # None, or (steps, slots, grad_output slots, result slot per diff input)
        self.out_requires_grad = None

    def forward_arrays(self, tensors):
        vals = [None] * self.slots
        for s, i in self.inputs:
            vals[s] = tensors[i]._array
        self.fwd(vals, tensors)
        return vals


_DOUBLE_BACKWARD = "torch.compile with aot_autograd does not currently support double backward"


class CompiledFunctionBackward(Node):
    """The one node of a compiled call's outputs: its backward replays the traced backward tape. A node
    of its own (not a custom Function): a replay makes no ctx, and its backward no gradient
    materialising or result checks, the tape's gradients having their inputs' shapes and dtypes
    already (so `_meta` is None: the engine checks nothing). Its edges are those of the input tensors
    (a tensor given twice gets its gradient through the first)."""
    __slots__ = ("program", "vals")

    def _apply(self, grads, mask, create_graph):
        if create_graph:   # the tape computes on arrays, it records no graph
            raise RuntimeError(_DOUBLE_BACKWARD)
        task = engine.current_task()
        return self._replay(grads, task is not None and task.node is self and not task.keep_graph)

    def _replay(self, grads, free):
        """The gradients of the inputs (Tensors, None where none flows) from those of the outputs. free:
        the graph is not retained, so the tape frees the forward values as it goes, as eager backward does."""
        program, vals = self.program, self.vals
        if vals is None:
            self._unpack_saved()   # torch's "backward through the graph a second time" error
        steps, n_slots, grad_slots, result_slots, copies = program.bwd
        if free:
            self.vals = None
        vals = vals + [None] * (n_slots - len(vals))
        for s, g in zip(grad_slots, grads):
            if s is not None and g is not None:
                vals[s] = g._array
        steps(vals, ())
        out = [None] * program.n_inputs   # one per input tensor, in edge order
        for i, s, copy in zip(program.diff_inputs, result_slots, copies):
            if s is not None:
                out[i] = Tensor._make(vals[s].copy() if copy else vals[s], False, None, 0)
        return out

    def _backward_alone(self, out, retain_graph):
        """`out.backward()` when this node's tape is the whole backward: every edge goes to a leaf's
        AccumulateGrad and nothing can observe the engine (no hooks, no running backward, anomaly mode or
        profiler). Runs the tape and accumulates into each `.grad` as the engine would, in edge order;
        False (nothing done) otherwise: the engine's pass then runs."""
        if (self._extra is not None or self.vals is None or type(out) is not Tensor or out._array.size != 1
                or out._array.dtype.kind != "f" or engine.current_task() is not None or anomaly_mode.state.enabled
                or engine.profile_node is not None):
            return False
        for nxt in self._next_fns:   # (the nodes of next_functions, without making its pairs)
            if nxt is None:
                continue
            if type(nxt) is not AccumulateGrad or nxt._extra is not None:
                return False
            var = nxt.variable   # (post-accumulate hooks may ask for the running pass: the engine's)
            if var._hooks or var._post_acc_hooks or var._grad_dtype is not False:
                return False
        grads = [None] * len(self._out_meta)
        grads[out._output_nr] = Tensor._make(np.ones(out._array.shape, out._array.dtype), False, None, 0)
        if len(grads) > 1:
            grads = fill_missing(self, grads)
        prev = state.enabled
        state.enabled = False   # as in the engine's pass (post-accumulate hooks run without grad mode)
        try:
            results = self._replay(grads, not retain_graph)
            if not retain_graph:
                self._release()
            for i, nxt in enumerate(self._next_fns):
                # (held by `results` alone, as by the engine's buffer: .grad may keep the array without a copy)
                if results[i] is not None:
                    accumulate_grad(nxt.variable, results[i], False, nxt._lock)
        finally:
            state.enabled = prev
        return True

    def _release(self):
        self._saved = self.vals = None


def _compiled_outputs(program, tensors):
    """A replay's output tensors, hung from one CompiledFunctionBackward node."""
    vals = program.forward_arrays(tensors)
    node = CompiledFunctionBackward.__new__(CompiledFunctionBackward)
    node.next_functions = tuple([edge(t) for t in tensors])
    node._sequence_nr_ = _next_seq()
    node._saved, node._versions, node._meta, node._extra = (), (), None, None
    node._out_meta = program.out_meta
    node.program, node.vals = program, vals
    if anomaly_mode.state.enabled:
        anomaly_mode.record(node)
    return [Tensor._make(vals[s], rg, node if rg else None, k)
            for k, (s, rg) in enumerate(zip(program.out_slots, program.out_requires_grad))]


def _flatten(obj, leaves):
    """The structure of obj with its Tensors replaced by their index in `leaves`."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T", len(leaves) - 1)
    if type(obj) in (list, tuple):
        return (type(obj), [_flatten(x, leaves) for x in obj])
    if type(obj) is dict:
        return (dict, [(k, _flatten(v, leaves)) for k, v in obj.items()])
    return ("C", obj)


def _unflatten(tree, leaves):
    kind, val = tree
    if kind == "T":
        return leaves[val]
    if kind == "C":
        return val
    if kind is dict:
        return {k: _unflatten(v, leaves) for k, v in val}
    return kind(_unflatten(v, leaves) for v in val)


def _check_graph(outs):
    """Refuse hooks anywhere in the traced graph (they would run at trace time only)."""
    seen, stack = set(), [o.grad_fn for o in outs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node._extra is not None and (node._extra.pre_hooks or node._extra.post_hooks):
            raise _Refused(f"its graph has hooks ({node.name()})")
        stack.extend(n for n, _ in node.next_functions)


def _trace(fn, args, kwargs, extra):
    """Run fn eagerly under the tracer: (its result, the _Program or the reason it cannot be one)."""
    leaves = []
    _flatten((args, kwargs), leaves)
    tracer = _Tracer()
    tensors = tracer.tensors
    tensors += leaves + extra
    # the tensors that exist before the function runs: one it reads without getting it as an
    # argument is captured (read afresh at each replay); any other unknown one was made outside the ops
    tracer.existing = {id(o): o for o in gc.get_objects() if issubclass(type(o), Tensor)}   # (held: ids stay unique)
    for i, t in enumerate(tensors):
        if type(t._array) is not np.ndarray:
            return None, "an input is sparse, nested or not a NumPy tensor"
        if t._hooks or t._post_acc_hooks:
            return None, "an input has hooks"
        s = tracer.slot_of.get(id(t._array))
        if s is None:
            s = tracer.add(t._array)
            tracer.input_slots[s] = i
    result = None
    try:
        with _DataReadsRefused(), tracer:
            result = fn(*args, **kwargs)
            out_leaves = []
            out_tree = _flatten(result, out_leaves)
            out_slots = []
            for o in out_leaves:
                if any(np.may_share_memory(o._array, t._array) for t in tensors):
                    raise _Refused("it returns one of its inputs or a view of one")
                out_slots.append(tracer.slot(o))
            # each tensor once (the same tensor twice among the arguments gets its gradient once)
            first = {}
            diff = [i for i, t in enumerate(tensors) if t.requires_grad and first.setdefault(id(t), i) == i]
            needs_grad = [o for o in out_leaves if o.requires_grad]
            bwd = None
            if needs_grad and not (state.enabled and diff):
                raise _Refused("it makes tensors that require grad from no input that does")
            if needs_grad:
                _check_graph(needs_grad)
                grad_slots, placeholders, n_slots_before_bwd = [], [], None
                for o in needs_grad:
                    ph = np.ones(o._array.shape, o._array.dtype)
                    grad_slots.append(tracer.add(ph))
                    placeholders.append(Tensor._make(ph, False, None, 0))
                n_fwd, tracer.backward, n_slots_before_bwd = len(tracer.tape), True, len(tracer.arrays)
                grads = engine.run_backward([edge(o) for o in needs_grad], placeholders,
                                            inputs=[edge(tensors[i]) for i in diff], retain_graph=True)
                result_slots = [None if g is None else tracer.slot(g) for g in grads]
                fresh = set(range(n_slots_before_bwd, len(tracer.arrays)))
                # a gradient the backward did not compute itself (a grad_output, a saved value) or
                # one given to two inputs is copied: the engine may keep it as a leaf's .grad
                copies = [s is not None and (s not in fresh or result_slots.count(s) > 1) for s in result_slots]
                _keep_recomputed(tracer, n_fwd)
                bwd_steps = _emit(tracer.tape[n_fwd:], tracer.arrays, [r for r in result_slots if r is not None])
                del tracer.tape[n_fwd:]
                # map each output requiring grad to its place among the gradient slots
                bwd = (bwd_steps, len(tracer.arrays), grad_slots, result_slots, copies)
    except _Refused as why:
        tracer.existing = None
        if result is None:   # the function itself stopped: run it again, eagerly
            return fn(*args, **kwargs), str(why)
        return result, str(why)
    tracer.existing = None
    program = _Program(tracer, len(tensors), out_tree, out_slots, diff if bwd else [], bwd)
    program.captured = tracer.captured
    program.captured_meta = [_meta(t) for t in tracer.captured]
    program.out_requires_grad = [o.requires_grad for o in out_leaves]
    # the node's backward receives a gradient for every output (None for those that do not require grad)
    program.out_meta = [(o._array.shape, o._array.dtype) for o in out_leaves]
    if bwd is not None:
        order = {id(o): k for k, o in enumerate(needs_grad)}
        gs = [None] * len(out_leaves)
        for k, o in enumerate(out_leaves):
            if id(o) in order:
                gs[k] = grad_slots[order[id(o)]]
        program.bwd = (bwd[0], bwd[1], gs, bwd[3], bwd[4])
    return result, program


def _meta(t):
    return t._array.shape, t._array.dtype, t.requires_grad


def _run(program, leaves, extra):
    tensors = leaves + extra + program.captured
    if program.bwd is not None and state.enabled:
        outs = _compiled_outputs(program, tensors)
    else:
        vals = program.forward_arrays(tensors)
        outs = [Tensor._make(vals[s], False, None, 0) for s in program.out_slots]
    return _unflatten(program.out_tree, outs)


# --- the compiled callable ---------------------------------------------------------------------------
def _signature(args, kwargs, module):
    if not kwargs and all(isinstance(a, Tensor) for a in args):
        # tensors only, the common call: their count stands for the structure (an int, where the general
        # key has the structure's repr, a str: the two never collide), and no tree is made
        leaves, key = list(args), [len(args), state.enabled]
    else:
        leaves = []
        key = [repr(_flatten((args, kwargs), leaves)), state.enabled]
    first = {}
    for i, t in enumerate(leaves):   # which arguments are the same tensor is part of the signature
        key.append((t._array.shape, t._array.dtype, t.requires_grad, first.setdefault(id(t), i)))
    extra = []
    if module is not None:
        for m in module.modules():
            key.append(m.training)
        for p in list(module.parameters()) + list(module.buffers()):
            extra.append(p)
            key.append((id(p), p._array.shape, p._array.dtype, p.requires_grad))
    return tuple(key), leaves, extra


class _CompiledFn:
    def __init__(self, fn, module, fullgraph):
        self.fn, self.module, self.fullgraph = fn, module, fullgraph
        self.cache = {}     # signature -> _Program, or the reason the signature runs eagerly
        self.warned = False
        functools.update_wrapper(self, fn)
        _compiled_fns.add(self)

    def __call__(self, *args, **kwargs):
        try:
            key, leaves, extra = _signature(args, kwargs, self.module)
            program = self.cache.get(key)   # (hashes the key once: a tuple does not keep its hash)
        except TypeError:   # an unhashable argument: no signature to cache on
            return self._refuse("an argument cannot be part of a guard (unhashable)", args, kwargs)
        if program is None:
            if len(self.cache) >= recompile_limit:
                if not self.warned:
                    warnings.warn(f"ndgrad.compile: {self.fn.__qualname__} reached the recompile limit "
                                  f"({recompile_limit} signatures); other signatures run eagerly", stacklevel=2)
                    self.warned = True
                return self.fn(*args, **kwargs)
            result, program = _trace(self.fn, args, kwargs, extra)
            if isinstance(program, str) and self.fullgraph:
                raise Unsupported(f"ndgrad.compile(fullgraph=True) cannot trace {self.fn.__qualname__}: {program}")
            self.cache[key] = program
            return result
        if isinstance(program, str) or forward_ad.state.level is not None:   # (a tape carries no tangents)
            return self.fn(*args, **kwargs)
        for t, (shape, dtype, requires_grad) in zip(program.captured, program.captured_meta):
            if t._array.shape != shape or t._array.dtype != dtype or t.requires_grad != requires_grad:
                del self.cache[key]   # a captured tensor changed shape, dtype or requires_grad: trace again
                return self(*args, **kwargs)
        try:
            return _run(program, leaves, extra)
        except _Mismatch:   # data-dependent shapes: this call runs eagerly
            return self.fn(*args, **kwargs)

    def _refuse(self, reason, args, kwargs):
        if self.fullgraph:
            raise Unsupported(f"ndgrad.compile(fullgraph=True) cannot trace {self.fn.__qualname__}: {reason}")
        return self.fn(*args, **kwargs)

    def reasons(self):
        """The signatures that run eagerly, and why."""
        return [p for p in self.cache.values() if isinstance(p, str)]


class OptimizedModule(nn.Module):
    """What ndgrad.compile(module) returns: calls go through the compiled forward; the original module is
    its submodule `_orig_mod` (so state_dict keys start with "_orig_mod.", as torch's), and other
    attributes are read from it."""

    def __init__(self, mod, fullgraph=False):
        super().__init__()
        self._orig_mod = mod
        self._compiled = _CompiledFn(mod.__call__, mod, fullgraph)   # the module's hooks are traced too

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


_MODES = (None, "default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """Compiles a function or module: the result runs the same computation, traced once per kind of input
    and replayed. Usable as ``torch.compile(fn)``, ``@torch.compile`` or ``@torch.compile(fullgraph=True)``.

    ndgrad has one tracing compiler: `backend`, `mode`, `dynamic` and `options` are accepted as torch's
    but choose nothing.

    Args:
        model (Callable or nn.Module, optional): what to compile (without it, a decorator is returned).
        fullgraph (bool): refuse graph breaks. Default: ``False``.
        dynamic (bool, optional): trace with dynamic shapes.
        backend (str or Callable): the backend's name. Default: ``"inductor"``.
        mode (str, optional): the compilation mode.
        options (dict, optional): backend options.
        disable (bool): return `model` unchanged. Default: ``False``.

    Returns:
        Callable: the compiled function or module.

    Example::

        >>> fn = torch.compile(lambda x: torch.sin(x) + 1, backend="eager")
        >>> fn(torch.zeros(3))
        tensor([1., 1., 1.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(m for m in _MODES if m)}")
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable or getattr(model, "_ndgrad_compile_disabled", False):
        return model
    if isinstance(model, nn.Module):
        return OptimizedModule(model, fullgraph)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    module = getattr(model, "__self__", None)
    return _CompiledFn(model, module if isinstance(module, nn.Module) else None, fullgraph)


_compiled_fns = weakref.WeakSet()


def disable(fn=None, recursive=True):
    """Mark fn to run eagerly: ndgrad.compile(fn) then returns fn itself."""
    if fn is None:
        return functools.partial(disable, recursive=recursive)
    fn._ndgrad_compile_disabled = True
    return fn


def reset():
    """Forget every compiled signature (torch._dynamo.reset): the next calls trace again."""
    for compiled in list(_compiled_fns):
        compiled.cache.clear()
        compiled.warned = False


def explain(fn):
    """explain(fn)(*args): the reason fn cannot be traced for these arguments, or None."""
    def run(*args, **kwargs):
        compiled = fn if isinstance(fn, _CompiledFn) else _CompiledFn(fn, None, False)
        compiled(*args, **kwargs)
        reasons = compiled.reasons()
        return reasons[-1] if reasons else None
    return run
