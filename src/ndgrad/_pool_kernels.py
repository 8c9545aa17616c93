"""The helper threads of _pool.py and the passes they share, compiled with numba (imported by _pool on
first use only: this module imports numba).

A job lives in `ctrl`, an int64 array shared with the helpers, one 64-byte line per hot counter:
  SEQ      even: the job published; odd: the caller is writing the next one (a seqlock: a helper copies
           the job's slots, then checks SEQ again)
  CLAIM    chunks claimed so far, over all jobs (a job's chunks are numbered BASE .. BASE + COUNT - 1: a
           helper that read an older job finds CLAIM past its range and takes nothing)
  DONE     chunks finished so far, over all jobs (the caller waits for BASE + COUNT)
  SLEEPERS helpers asleep on the condition variable (the caller wakes them after publishing)
  STOP     set once, at exit
  SGEMM, DGEMM  the addresses of NumPy's OpenBLAS's CBLAS products (0: none)
  JOB..    the job: BASE, COUNT, OP, then the op's arguments (addresses as integers)
Each thread, the caller too, claims chunks by compare-and-swap until none is left, so a helper that
is slow to wake costs its share of the speed-up, not a wait.
"""
import platform

import numba
import numpy as np
from llvmlite import ir
from numba import literal_unroll, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._numba_pointers import f32_at, f64_at, i64_at

SEQ, CLAIM, DONE, SLEEPERS, STOP, SGEMM, DGEMM, JOB = 0, 8, 16, 24, 25, 26, 27, 32
BASE, COUNT, OP = JOB, JOB + 1, JOB + 2
ARGS = JOB + 3             # an op's arguments: ctrl[ARGS + i]
SLOTS = 24                 # BASE .. the last argument
PRIVATE = 64               # thread t's copy of the job: ctrl[PRIVATE + 32 t:]
SPIN_CYCLES = 1 << 21      # a helper spins ~0.7 ms after its last chunk, then sleeps

# ops
BINARY, GEMM, BMM, CALL = 1, 2, 3, 4
ADD, SUB, MUL, DIV, RELU = 0, 1, 2, 3, 4   # (RELU: of x alone)
FULL, SCALAR, ROW = 0, 1, 2   # an operand of BINARY: as long as the output, one value, one row repeated

jit = numba.njit(nogil=True, cache=True, error_model="numpy")


def _slot(context, builder, sig, args):
    arr = context.make_array(sig.args[0])(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, sig.args[0], arr, [args[1]])


@intrinsic
def load(typingctx, arr, i):
    def codegen(context, builder, sig, args):
        return builder.load_atomic(_slot(context, builder, sig, args), ordering="seq_cst", align=8)
    return types.int64(arr, i), codegen


@intrinsic
def store(typingctx, arr, i, v):
    def codegen(context, builder, sig, args):
        builder.store_atomic(args[2], _slot(context, builder, sig, args), ordering="seq_cst", align=8)
    return types.void(arr, i, v), codegen


@intrinsic
def fetch_add(typingctx, arr, i, v):
    def codegen(context, builder, sig, args):
        return builder.atomic_rmw("add", _slot(context, builder, sig, args), args[2], ordering="seq_cst")
    return types.int64(arr, i, v), codegen


@intrinsic
def cas(typingctx, arr, i, old, new):
    def codegen(context, builder, sig, args):
        pair = builder.cmpxchg(_slot(context, builder, sig, args), args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)
    return types.boolean(arr, i, old, new), codegen


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def pause(typingctx):
    # x86's spin-wait hint (other CPUs: nothing; the loop's sched_yield still lets others run)
    def codegen(context, builder, sig, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse2.pause")
            builder.call(fn, [])
    return types.void(), codegen


@intrinsic
def cycles(typingctx):
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.int64(), codegen


# libc's functions, called by name (numba's on-disk cache cannot keep ctypes pointers); BLAS's products
# through their addresses in ctrl (SGEMM, DGEMM: 0 where NumPy's BLAS has none), by call_c
_i32, _i64 = types.int32, types.int64
sched_yield = types.ExternalFunction("sched_yield", _i32())
mutex_lock = types.ExternalFunction("pthread_mutex_lock", _i32(_i64))
mutex_unlock = types.ExternalFunction("pthread_mutex_unlock", _i32(_i64))
cond_wait = types.ExternalFunction("pthread_cond_wait", _i32(_i64, _i64))
cond_broadcast = types.ExternalFunction("pthread_cond_broadcast", _i32(_i64))


@intrinsic
def call_c(typingctx, fn, args):
    """Calls the C function at address fn, void f(the types of the tuple `args`), with those arguments."""
    def codegen(context, builder, sig, llargs):
        kinds = sig.args[1].types
        values = cgutils.unpack_tuple(builder, llargs[1], len(kinds))
        fnty = ir.FunctionType(ir.VoidType(), [context.get_value_type(t) for t in kinds])
        builder.call(builder.inttoptr(llargs[0], fnty.as_pointer()), values)
    return types.void(fn, args), codegen


# ---- the passes ------------------------------------------------------------------------------------
@jit
def _line(kind, x, y, o, xs, ys):
    # o = x (op) y over o's length: x and y as long (step 1) or one value (step 0); each branch a
    # loop LLVM vectorises, the operation IEEE's in the arrays' dtype as NumPy's
    n = o.shape[0]
    if xs and ys:
        if kind == RELU:   # x's bits unless below 0 (NaN and -0.0 stay), as np.clip(x, 0, inf)
            for j in range(n):
                o[j] = 0 if x[j] < 0 else x[j]
        elif kind == ADD:
            for j in range(n):
                o[j] = x[j] + y[j]
        elif kind == SUB:
            for j in range(n):
                o[j] = x[j] - y[j]
        elif kind == MUL:
            for j in range(n):
                o[j] = x[j] * y[j]
        else:
            for j in range(n):
                o[j] = x[j] / y[j]
    elif xs:
        v = y[0]
        if kind == ADD:
            for j in range(n):
                o[j] = x[j] + v
        elif kind == SUB:
            for j in range(n):
                o[j] = x[j] - v
        elif kind == MUL:
            for j in range(n):
                o[j] = x[j] * v
        else:
            for j in range(n):
                o[j] = x[j] / v
    else:
        v = x[0]
        if kind == ADD:
            for j in range(n):
                o[j] = v + y[j]
        elif kind == SUB:
            for j in range(n):
                o[j] = v - y[j]
        elif kind == MUL:
            for j in range(n):
                o[j] = v * y[j]
        else:
            for j in range(n):
                o[j] = v / y[j]


@jit
def _operand(a, mode, lo, hi, cols):
    # the part of a BINARY operand that meets out[lo:hi] (ROW: lo, hi whole rows of `cols`)
    if mode == FULL:
        return a[lo:hi]
    return a[:1] if mode == SCALAR else a[:cols]


@jit
def _binary(a, b, o, kind, amode, bmode, cols, lo, hi):
    if amode == ROW or bmode == ROW:   # row by row: the row operand meets each row in turn
        for r in range(lo, hi, cols):
            _line(kind, _operand(a, amode, r, r + cols, cols), _operand(b, bmode, r, r + cols, cols),
                  o[r:r + cols], amode != SCALAR, bmode != SCALAR)
    else:
        _line(kind, _operand(a, amode, lo, hi, cols), _operand(b, bmode, lo, hi, cols), o[lo:hi],
              amode != SCALAR, bmode != SCALAR)


@jit
def _gemm(ctrl, f64, ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
    # C (m, n, row-major) = op(A) @ op(B) on the calling thread (the caller holds OpenBLAS to one thread)
    order, ta, tb = np.int32(101), np.int32(112 if ta else 111), np.int32(112 if tb else 111)
    if f64:
        call_c(ctrl[DGEMM], (order, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc))
    else:
        one, zero = np.float32(1.0), np.float32(0.0)
        call_c(ctrl[SGEMM], (order, ta, tb, m, n, k, one, a, lda, b, ldb, zero, c, ldc))


@jit
def _chunk(ctrl, job, c):
    """Chunk c (counted from the job's first) of the job in `job` (a thread's copy of its slots)."""
    op, x = job[OP - JOB], job[ARGS - JOB:]
    if op == BINARY:   # kind, dtype size, a, b, out, n, amode, bmode, cols, chunk elements, na, nb
        kind, size, n, amode, bmode, cols, step = x[0], x[1], x[5], x[6], x[7], x[8], x[9]
        lo, hi = c * step, min(n, (c + 1) * step)
        if size == 8:
            _binary(numba.carray(f64_at(x[2]), x[10]), numba.carray(f64_at(x[3]), x[11]),
                    numba.carray(f64_at(x[4]), n), kind, amode, bmode, cols, lo, hi)
        else:
            _binary(numba.carray(f32_at(x[2]), x[10]), numba.carray(f32_at(x[3]), x[11]),
                    numba.carray(f32_at(x[4]), n), kind, amode, bmode, cols, lo, hi)
    elif op == GEMM:   # dtype size, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, by columns, piece
        size, ta, tb, m, n, k = x[0], x[1], x[2], x[3], x[4], x[5]
        a, lda, b, ldb, cc, ldc, by_cols, piece = x[6], x[7], x[8], x[9], x[10], x[11], x[12], x[13]
        if by_cols:   # C[:, lo:hi] = op(A) @ op(B)[:, lo:hi]
            lo, hi = c * piece, min(n, (c + 1) * piece)
            _gemm(ctrl, size == 8, ta, tb, m, hi - lo, k, a, lda, b + size * lo * (ldb if tb else 1), ldb,
                  cc + size * lo, ldc)
        else:         # C[lo:hi] = op(A)[lo:hi] @ op(B)
            lo, hi = c * piece, min(m, (c + 1) * piece)
            _gemm(ctrl, size == 8, ta, tb, hi - lo, n, k, a + size * lo * (1 if ta else lda), lda, b, ldb,
                  cc + size * lo * ldc, ldc)
    elif op == BMM:    # dtype size, ta, tb, m, n, k, a, lda, a's batch stride, b, ldb, ..., c, ..., per chunk
        size, ta, tb, m, n, k = x[0], x[1], x[2], x[3], x[4], x[5]
        batch, per = x[15], x[16]
        for i in range(c * per, min(batch, (c + 1) * per)):
            _gemm(ctrl, size == 8, ta, tb, m, n, k, x[6] + size * i * x[8], x[7], x[9] + size * i * x[11], x[10],
                  x[12] + size * i * x[14], x[13])
    elif op == CALL:   # a compiled job: fn(block, lo, hi) over items lo..hi of n, `step` per chunk
        fn, block, n, step = x[0], x[1], x[2], x[3]
        call_c(fn, (block, c * step, min(n, (c + 1) * step)))


@jit
def _claim(ctrl, job):
    """Runs chunks of the job copied in `job` until none is left; the number it ran."""
    first, last = job[0], job[0] + job[1]
    ran = 0
    while True:
        c = load(ctrl, CLAIM)
        if c >= last or c < first:
            return ran
        if cas(ctrl, CLAIM, c, c + 1):
            _chunk(ctrl, job, c - first)
            ran += 1


@jit
def _finish(ctrl, job):
    ran = _claim(ctrl, job)
    if ran:
        fetch_add(ctrl, DONE, ran)


@jit
def helper_loop(address, me):
    ctrl = numba.carray(i64_at(address), PRIVATE + 32 * (me + 1))
    sync = address + 8 * (PRIVATE + 32 * 64)   # (the mutex, then the condition variable, after the copies)
    job = ctrl[PRIVATE + 32 * me:PRIVATE + 32 * me + SLOTS]
    seen = load(ctrl, SEQ)
    idle = cycles()
    while True:
        s = load(ctrl, SEQ)
        if s == seen or s & 1:
            if cycles() - idle < SPIN_CYCLES:
                for _ in range(64):
                    pause()
                sched_yield()
                continue
            mutex_lock(sync)
            fetch_add(ctrl, SLEEPERS, 1)
            while load(ctrl, SEQ) == seen:
                cond_wait(sync + 64, sync)
            fetch_add(ctrl, SLEEPERS, -1)
            mutex_unlock(sync)
            idle = cycles()
            continue
        if load(ctrl, STOP):
            return
        for i in range(SLOTS):
            job[i] = load(ctrl, JOB + i)
        if load(ctrl, SEQ) != s:   # rewritten while copied: read again
            continue
        seen = s
        _finish(ctrl, job)
        idle = cycles()


@numba.cfunc(types.voidptr(types.int64), cache=True)
def helper(arg):
    # a pthread's start routine (its void * argument taken as an address): arg points at (ctrl's address,
    # this helper's index)
    pair = numba.carray(i64_at(arg), 2)
    helper_loop(pair[0], pair[1])
    return 0


# ---- the caller's side: publish a job, run chunks of it, wait for the rest ------------------------------
@jit
def _at(a):
    return np.int64(a.ctypes.data)


@jit
def _put(ctrl, values):
    for i in range(len(values)):
        store(ctrl, OP + i, values[i])


@jit
def _begin(ctrl):
    s = load(ctrl, SEQ)
    store(ctrl, SEQ, s + 1)
    return s


@jit
def _run(ctrl, s, count):
    base = load(ctrl, DONE)   # (== CLAIM: every earlier chunk is claimed and done)
    store(ctrl, BASE, base)
    store(ctrl, COUNT, count)
    store(ctrl, SEQ, s + 2)
    if load(ctrl, SLEEPERS):
        sync = _at(ctrl) + 8 * (PRIVATE + 32 * 64)
        mutex_lock(sync)
        cond_broadcast(sync + 64)
        mutex_unlock(sync)
    _finish(ctrl, ctrl[JOB:JOB + SLOTS])
    while load(ctrl, DONE) < base + count:
        pause()


@jit
def binary(ctrl, kind, a, b, out, amode, bmode, cols, step):
    s = _begin(ctrl)
    n = out.size
    _put(ctrl, (BINARY, kind, out.itemsize, _at(a), _at(b), _at(out), n, amode, bmode, cols, step,
                         a.size, b.size))
    _run(ctrl, s, (n + step - 1) // step)


@jit
def gemm(ctrl, a, b, c, ta, tb, k, lda, ldb, by_cols, piece, count):
    s = _begin(ctrl)
    m, n = c.shape
    _put(ctrl, (GEMM, c.itemsize, ta, tb, m, n, k, _at(a), lda, _at(b), ldb, _at(c), n, by_cols,
                         piece))
    _run(ctrl, s, count)


@jit
def bmm(ctrl, a, b, c, ta, tb, k, lda, sa, ldb, sb, per, count):
    s = _begin(ctrl)
    batch, m, n = c.shape
    _put(ctrl, (BMM, c.itemsize, ta, tb, m, n, k, _at(a), lda, sa, _at(b), ldb, sb, _at(c), n, m * n,
                         batch, per))
    _run(ctrl, s, count)


@jit
def call(ctrl, fn, block, arrays, scalars, n, step):
    """Runs the compiled job fn(block, lo, hi) (a numba cfunc void(int64, int64, int64)) over n items in
    chunks of `step`, block (int64, filled here) holding: the first array's itemsize, each array's address and
    first and last dims, then the scalars (float64 bits)."""
    values = block.view(np.float64)
    block[0] = arrays[0].itemsize
    i = 1
    for a in literal_unroll(arrays):
        block[i], block[i + 1], block[i + 2] = _at(a), a.shape[0], a.shape[-1]
        i += 3
    for v in scalars:   # (floats: a homogeneous tuple)
        values[i] = v
        i += 1
    s = _begin(ctrl)
    _put(ctrl, (CALL, fn, _at(block), n, step))
    _run(ctrl, s, (n + step - 1) // step)


@jit
def halt(ctrl):
    store(ctrl, STOP, 1)
    s = _begin(ctrl)
    store(ctrl, SEQ, s + 2)
    sync = _at(ctrl) + 8 * (PRIVATE + 32 * 64)
    mutex_lock(sync)
    cond_broadcast(sync + 64)
    mutex_unlock(sync)
