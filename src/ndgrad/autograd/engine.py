"""The backward engine: one iterative pass over the graph, newest node first.

1. Count, for every node reachable from the roots, how many edges point at it.
2. Pop the ready node with the highest sequence number, run it (hooks, then its formulas), bring
   each gradient to the input it belongs to (shape via sum_to, dtype), add it into the next
   node's input buffer, and queue that node once all its edges have delivered.
   Without create_graph or forward AD, gradients between nodes are NumPy arrays where the nodes
   have array formulas (derivatives/array_formulas.py), Tensors wherever something observes them.
No recursion anywhere: a chain of a million nodes needs no deeper stack than a chain of two.

This file holds that loop. The special cases live beside it: hooks.py (running hooks),
capture.py (inputs= / autograd.grad), gradient_checks.py (fitting gradients to inputs),
anomaly_mode.py (anomaly reports), graph_walk.py (other walks over the graph).

Public API (docs/engine-api.md; the seam for autograd, utils.checkpoint, distributed.pipelining):
run_backward, apply_node, release_saved, current_task, queue_callback, reverse_graph,
reverse_closure. `profile_node` is the profiler's slot (profiler.py sets it while recording).
"""
import heapq
import itertools
import sys
import threading

import numpy as np

from .. import _pool
from .._sparse_array import SparseArray
from .._tensor import Tensor
from . import anomaly_mode, forward_ad
from .anomaly_mode import state as anomaly
from .capture import Capture
from .grad_mode import state
from .gradient_checks import check_count, fill_missing, fit_grad_dtype, fit_to_input, sum_to_array
from .graph_walk import reverse_closure, reverse_graph
from .hooks import run_node_post_hooks, run_node_pre_hooks, run_tensor_pre_hooks
from .node import AccumulateGrad, GradientEdge, GraphRoot, Node, accumulate_grad, edge, saved_hooks

__all__ = ["run_backward", "apply_node", "release_saved", "current_task", "queue_callback", "GraphTask",
           "reverse_graph", "reverse_closure"]

profile_node = None   # set by the profiler while it records: wraps each node call


class _Running(threading.local):
    """Per thread, as torch's current graph task: the backward passes this thread runs now,
    innermost last (a backward may run inside one); passes in other threads are not seen."""

    def __init__(self):
        self.tasks = []


_running = _Running()


class GraphTask:
    """What hooks may ask of the running backward: which nodes run, and the final callbacks.

    targets: None when every reachable node runs, else the set of nodes that receive a gradient.
    id: numbers the backward passes of the process (torch._C._current_graph_task_id); node: the
    node being evaluated (its hooks included), None between nodes; root: the GraphRoot;
    keep_graph: whether the pass retains the graph (retain_graph)."""
    __slots__ = ("deps", "targets", "callbacks", "id", "node", "root", "captured", "keep_graph", "__weakref__")
    _ids = itertools.count()

    def __init__(self, deps, targets, root=None, captured=frozenset()):
        self.deps, self.targets, self.callbacks = deps, targets, []
        self.id = next(self._ids)
        self.node = None
        self.root = root
        self.captured = captured   # nodes whose incoming gradient is returned, not accumulated (autograd.grad)
        self.keep_graph = False    # retain_graph: saved tensors stay after each node runs

    def will_execute(self, node):
        # torch starts a single-root pass at the root's node itself, not from a GraphRoot above it:
        # that node is then not among the nodes the pass "will execute" (it is running already)
        if self.root is not None and len(self.root.next_functions) == 1 and node is self.root.next_functions[0][0]:
            return False
        return node in self.deps and (self.targets is None or node in self.targets)

    def execution_order(self):
        """Every node this pass runs, in the order it runs them (newest ready node first); the
        dependency counts are taken afresh, so it can be asked at any point of the pass."""
        deps = _count_dependencies(self.root)
        targets = self.targets
        # as torch, every root is listed, even one that reaches none of autograd.grad's inputs (not run)
        ready = [(-n._sequence_nr_, k, n) for k, (n, _) in enumerate(self.root.next_functions) if n is not None]
        heapq.heapify(ready)
        counter = itertools.count(len(ready))
        order = []
        while ready:
            node = heapq.heappop(ready)[2]
            order.append(node)
            for nxt in node._next_fns:
                if nxt is None or targets is not None and nxt not in targets:
                    continue
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr_, next(counter), nxt))
        return order


def current_task():
    """The innermost running backward pass (a GraphTask), or None outside backward."""
    tasks = _running.tasks
    return tasks[-1] if tasks else None


def queue_callback(callback):
    """Run `callback()` when the innermost running backward has run all its nodes."""
    tasks = _running.tasks
    if not tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    tasks[-1].callbacks.append(callback)


def run_backward(roots, grad_roots, *, inputs=None, accumulate=False, retain_graph=False, create_graph=False):
    """Backpropagate `grad_roots` from the edges `roots` through the graph below them.

    roots: edges (node, output_nr), e.g. GradientEdge, where the gradients enter; grad_roots:
    one gradient (Tensor, or None for none) per root, already of the root's shape and dtype.
    inputs=None: every reachable node runs and leaves accumulate into `.grad`; returns None.
    inputs=[edges]: only nodes on a path to one of these edges run, and the result is the list
    of gradients arriving at each (after tensor hooks; None where none arrives), not accumulated;
    accumulate=True also runs the AccumulateGrad of the leaves among them (backward(inputs=)).
    retain_graph=False frees each node's saved tensors once it ran; create_graph=True runs the
    formulas with grad mode on, so the gradients have a graph themselves.
    """
    if _running.tasks and _stack_is_deep():
        return _on_fresh_thread(run_backward, roots, grad_roots, inputs=inputs, accumulate=accumulate,
                                retain_graph=retain_graph, create_graph=create_graph)
    root = GraphRoot(roots, grad_roots)
    deps = _count_dependencies(root)
    capture = targets = None
    if inputs is not None:
        capture = Capture(root, inputs, accumulate)
        targets = capture.targets

    buffers = {}        # node -> the gradients that reached it so far (one slot per output)
    counter = itertools.count()
    ready = []          # heap of (-sequence_nr, arrival, node): the newest ready node first
    direct = root       # the next node to run when it is the only one ready (skips the heap) ...
    # ... and its gradients, kept out of `buffers` (the root's are its own: handed in, one root's
    # takes the usual node's path below)
    direct_grads = [grad_roots[0]] if len(grad_roots) == 1 else []
    # The array path: where nothing can observe the gradients between nodes (no create_graph, no
    # forward AD), gradients travel as NumPy arrays and a node whose yaml formulas have array forms
    # runs those (GeneratedNode._apply_arrays, bitwise the same numbers); they become Tensors
    # (_as_tensors) wherever something looks: hooks, retain_grad, AccumulateGrad, autograd.grad's
    # captured edges, anomaly mode, the profiler, a node without array formulas, a fallback.
    arrays = not create_graph and forward_ad.state.level is None
    prev_mode = state.enabled
    state.enabled = create_graph
    task = GraphTask(deps, targets, root, capture.at.keys() if capture is not None and not accumulate else frozenset())
    task.keep_graph = bool(retain_graph)
    tasks = _running.tasks
    tasks.append(task)
    hooks_at_start = saved_hooks[:]   # as torch: hooks entered or exited inside backward do not outlive it
    try:
        while True:
            if direct is not None:
                node, grads, direct, direct_grads = direct, direct_grads, None, None
            elif ready:
                node = heapq.heappop(ready)[2]
                grads = buffers.pop(node, None)
            else:
                break
            task.node = node
            if type(node) is AccumulateGrad and node._extra is None and targets is None and len(grads) == 1 \
                    and grads[0] is not None and not node.variable._hooks and node.variable._grad_dtype is False \
                    and not anomaly.enabled and profile_node is None:
                # a leaf's gradient with nothing to run before it (the code below for that case: no hook,
                # no dtype to fit, no edge); grads[0] stays its only holder here (no local name: the
                # reference count decides whether .grad may keep it without a copy)
                if type(grads[0]) is _ndarray:
                    grads[0] = _new_tensor(grads[0], False, None, 0)
                accumulate_grad(node.variable, grads[0], create_graph, node._lock)
                grads = None
                continue
            if node._extra is not None or type(node) is AccumulateGrad:
                if arrays:
                    _as_tensors(grads)
                if type(node) is AccumulateGrad and node.variable._grad_dtype is not False:
                    grads = fit_grad_dtype(node.variable, grads)   # before the hooks, as torch
                grads = run_tensor_pre_hooks(node, grads)
            if capture is not None:
                if arrays and node in capture.at:
                    _as_tensors(grads)
                if not capture.take(node, grads):
                    continue
            if anomaly.enabled or profile_node is not None:
                if arrays:
                    _as_tensors(grads)
                outs = anomaly_mode.call_node(_call_node, node, grads, targets, create_graph) if anomaly.enabled \
                    else profile_node(_call_node, node, grads, targets, create_graph)
            elif node._extra is None and targets is None and len(grads) == 1 and grads[0] is not None:
                # _call_node's usual case, inline: no hooks, every edge wanted, its one gradient arrived
                fns = node._next_fns
                k = len(fns)
                mask = [fns[0] is not None] if k == 1 else [fns[0] is not None, fns[1] is not None] if k == 2 \
                    else _mask(fns)
                apply_arrays = node._apply_arrays if arrays else None
                outs = apply_arrays(grads, mask) if apply_arrays is not None else None
                if outs is None:
                    if arrays and type(grads[0]) is _ndarray:
                        _as_tensors(grads)
                    outs = node._apply(grads, mask, create_graph)
                    if node._extra is not None or len(outs) != len(fns):
                        outs = _after_apply(node, outs)
            else:
                outs = None
                if arrays and node._apply_arrays is not None and node._extra is None:
                    fns = node._next_fns   # (the mask as _call_node makes it; None when no gradient arrived)
                    outs = node._apply_arrays(grads, _mask(fns) if targets is None else _mask_into(fns, targets))
                if outs is None:
                    if arrays:
                        _as_tensors(grads)
                    outs = _call_node(node, grads, targets, create_graph)
            if not retain_graph:
                if type(node)._release is not _node_release:
                    node._release()
                elif node._saved is not None:   # Node._release, inline (most nodes)
                    for v in node._versions:
                        if v is not None:
                            node._saved = None
                            break
            meta = node._meta
            nrs = node._next_nrs
            for i, nxt in enumerate(node._next_fns):
                if nxt is None or targets is not None and nxt not in targets:
                    continue
                nr = nrs[i]
                g = outs[i]
                if type(g) is _ndarray:
                    # the array path's gradient: summed to its input's shape here (a broadcast bias), fitted
                    # otherwise (a cast; an error) as a Tensor below
                    if meta is not None and (m := meta[i]) is not None and (g.shape != m[0] or g.dtype is not m[1]
                                                                            and g.dtype != m[1]):
                        if g.dtype == m[1] and (summed := sum_to_array(g, m[0])) is not None:
                            g = summed
                        else:
                            g = _new_tensor(g, False, None, 0)
                if g is not None and type(g) is not _ndarray and (meta is not None or g._math_bits):
                    m = meta[i] if meta is not None else None
                    # the usual case, shape and dtype already right and no lazy conj/neg view, needs no call
                    # (NumPy's dtypes of one kind are one object: `is` decides most comparisons)
                    if g._math_bits or m is not None and (g._array.shape != m[0] or g._array.dtype is not m[1]
                                                           and g._array.dtype != m[1]):
                        if m is not None and type(nxt) is AccumulateGrad and nxt.variable._grad_dtype is not False:
                            m = (m[0], g._array.dtype)   # the leaf's grad_dtype decides, when its AccumulateGrad runs
                        g = fit_to_input(node, i, g, m)
                left = deps[nxt] - 1
                deps[nxt] = left
                buf = buffers.get(nxt)
                if buf is None:   # the first gradient for nxt: its buffer (in `buffers` while more are due)
                    out_meta = nxt._out_meta
                    buf = [g] if not out_meta and not nr else _first_buffer(out_meta, nr, g)
                    if left:
                        buffers[nxt] = buf
                else:
                    if not left:
                        del buffers[nxt]
                    if nr >= len(buf):
                        buf.extend([None] * (nr + 1 - len(buf)))
                    if g is not None:
                        if buf[nr] is not None and (type(g) is _ndarray or type(buf[nr]) is _ndarray):
                            buf[nr] = _add_arrays(buf[nr], g)
                        else:
                            # a sparse gradient is added to a dense one, not the reverse (sparse + dense is an error)
                            buf[nr] = g if buf[nr] is None else g + buf[nr] if isinstance(buf[nr]._array, SparseArray) \
                                else buf[nr] + g
                if left == 0:
                    # Run order: the ready node with the highest sequence number. A node that is
                    # alone in being ready (a chain) runs next without going through the heap.
                    if direct is None and not ready:
                        direct, direct_grads = nxt, buf
                    else:
                        if direct is not None:
                            buffers[direct] = direct_grads
                            heapq.heappush(ready, (-direct._sequence_nr_, next(counter), direct))
                            direct = direct_grads = None
                        buffers[nxt] = buf
                        heapq.heappush(ready, (-nxt._sequence_nr_, next(counter), nxt))
            outs = g = buf = grads = summed = None   # the buffers are now the only holders (AccumulateGrad may keep them)
        task.node = None
        callbacks = task.callbacks
        while callbacks:   # queue_callback: a callback may queue more
            callbacks.pop(0)()
    finally:
        state.enabled = prev_mode
        tasks.pop()
        saved_hooks[:] = hooks_at_start
    return None if capture is None else capture.results


_ndarray = np.ndarray
_new_tensor = Tensor._make
_node_release = Node._release


def _as_tensors(grads):
    """The array path's gradients in `grads` made Tensors, in place (the list is the engine's
    buffer: AccumulateGrad's reference counts expect it to be the Tensor's only holder)."""
    for i in range(len(grads)):
        if type(grads[i]) is _ndarray:
            grads[i] = _new_tensor(grads[i], False, None, 0)


def _first_buffer(out_meta, nr, g):
    """The input buffer of a node with several outputs (or a gradient for output nr > 0) holding its first
    gradient."""
    buf = [None] * max(len(out_meta) if out_meta else 1, nr + 1)
    buf[nr] = g
    return buf


def _add_arrays(old, g):
    """Two gradients of one output summed, at least one an array: as the Tensor path's `old + g`
    (the add kernel, np.add) when both are arrays of one dtype, else through Tensors."""
    if type(old) is _ndarray and type(g) is _ndarray and old.dtype == g.dtype and old.dtype.kind in "fc":
        out = _pool.binary(_pool.ADD, old, g) if old.size >= _pool.MIN_ELEMENTS else None
        out = old + g if out is None else out
        return out if type(out) is _ndarray else np.asarray(out)   # (a 0-d sum is a NumPy scalar)
    pair = [old, g]
    _as_tensors(pair)
    old, g = pair
    return g + old if isinstance(old._array, SparseArray) else old + g


def _stack_is_deep():
    """Whether this thread has used half its Python recursion budget (walks the frames: only asked
    by a backward started inside another one)."""
    budget = sys.getrecursionlimit() // 2
    frame = sys._getframe()
    while frame is not None and budget:
        frame, budget = frame.f_back, budget - 1
    return budget == 0


def _on_fresh_thread(fn, *args, **kwargs):
    """fn(*args, **kwargs) on a new thread (a fresh stack), waiting for it: how a reentrant backward
    nested deeper than the stack allows goes on, as torch hands it to another worker thread.
    run_backward sets grad mode itself; the caller stays blocked, so nothing runs concurrently."""
    result = []

    def run():
        try:
            result.append((True, fn(*args, **kwargs)))
        except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
            result.append((False, e))

    worker = threading.Thread(target=run, name="ndgrad-reentrant-backward")
    worker.start()
    worker.join()
    ok, value = result[0]
    if not ok:
        raise value
    return value


def _count_dependencies(root):
    deps = {}   # also the set of nodes seen (the root is no node's input)
    stack = [root]
    while stack:
        for nxt in stack.pop()._next_fns:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
    return deps


def _call_node(node, grads, targets, create_graph):
    extra = node._extra
    fns = node._next_fns
    if extra is None and targets is None and len(grads) == 1 and grads[0] is not None:
        # the usual node: no hooks, every edge wanted, its one gradient arrived (the code below for that case)
        outs = node._apply(grads, [fns[0] is not None] if len(fns) == 1 else _mask(fns), create_graph)
        if node._extra is not None or len(outs) != len(fns):
            outs = _after_apply(node, outs)
        return outs
    if extra is not None and extra.pre_hooks:
        grads = run_node_pre_hooks(extra.pre_hooks, grads)
    had_post_hooks = extra is not None and bool(extra.post_hooks)
    mask = _mask(fns) if targets is None else _mask_into(fns, targets)
    n_missing = (grads[0] is None) if len(grads) == 1 else sum(g is None for g in grads)
    if n_missing and type(node) is not GraphRoot and not node._takes_missing:
        if node._out_meta is None or n_missing == len(grads):
            outs = [None] * len(fns)   # no gradient arrived: nothing flows on
        else:
            outs = node._apply(fill_missing(node, grads), mask, create_graph)
    else:
        outs = node._apply(grads, mask, create_graph)
    if node._extra is not None and node._extra.post_hooks:
        # hooks added while the node ran (by an unpack hook) get no grad_outputs, as in torch
        outs = run_node_post_hooks(node._extra.post_hooks, outs, grads if had_post_hooks else ())
    if len(outs) != len(fns):
        check_count(node, outs, node.next_functions)
    return outs


def _mask(fns):
    """Which of a node's inputs get a gradient: those with an edge."""
    if len(fns) == 2:   # most nodes have one or two inputs: spelled out, cheaper than a comprehension
        return [fns[0] is not None, fns[1] is not None]
    return [fn is not None for fn in fns]


def _mask_into(fns, targets):
    # (not inline in _call_node: a comprehension there would make `targets` a closure cell)
    return [fn is not None and fn in targets for fn in fns]


def _after_apply(node, outs):
    """The end of _call_node's usual case where it is not so usual: post hooks that an unpack hook
    added while the node ran (they get no grad_outputs, as in torch), or a wrong number of outputs."""
    if node._extra is not None and node._extra.post_hooks:
        outs = run_node_post_hooks(node._extra.post_hooks, outs, ())
    if len(outs) != len(node._next_fns):
        check_count(node, outs, node.next_functions)
    return outs


def vjp(outputs, inputs, grad_outputs, *, create_graph=False):
    """The gradients of the Tensors `outputs` (given `grad_outputs`, one per output) with respect to
    the Tensors `inputs`, returned (None where an input is not reached): the way formulas and ops
    differentiate a computation they compose (autograd.grad without its argument handling).
    The graph is kept when create_graph is True, freed otherwise."""
    return run_backward([edge(o) for o in outputs], list(grad_outputs), inputs=[edge(t) for t in inputs],
                        retain_graph=create_graph, create_graph=create_graph)


def apply_node(node, grads, towards, *, create_graph=False):
    """Run `node`'s formulas on `grads` (the gradients of its outputs, as captured by a node
    pre-hook) for its edges into the node set `towards` only, outside any backward pass.

    No hooks run and nothing is accumulated; create_graph as in run_backward. Returns
    [(GradientEdge, gradient)] for the edges into `towards` that got a gradient, each fitted to
    its input: roots for a later run_backward.
    This is how a backward is resumed from the middle of the graph (pipelining's weight pass).
    """
    edges = node.next_functions
    mask = [nxt is not None and nxt in towards for nxt, _ in edges]
    if any(g is None for g in grads) and not node._takes_missing:
        grads = fill_missing(node, grads)
    prev_mode = state.enabled
    state.enabled = create_graph
    try:
        outs = node._apply(list(grads), mask, create_graph)
    finally:
        state.enabled = prev_mode
    meta = node._meta
    return [(GradientEdge(*edges[i]), fit_to_input(node, i, outs[i], meta[i] if meta is not None else None))
            for i in range(len(edges)) if mask[i] and outs[i] is not None]


def release_saved(nodes):
    """Free the saved tensors of `nodes` (as retain_graph=False does once a node ran); running
    one of them again raises torch's "backward through the graph a second time" error."""
    for node in nodes:
        node._release()
