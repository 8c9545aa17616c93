"""The backward engine: one iterative pass over the graph, newest node first.

1. Count, for every node reachable from the roots, how many edges point at it.
2. With `inputs=` (or autograd.grad), mark the nodes on a path to a requested edge; only they run.
3. Pop the ready node with the highest sequence number, run its hooks and its formulas, check
   each gradient against the input it belongs to (shape via sum_to, dtype), add it into the
   next node's input buffer, and queue that node once all its edges have delivered.
No recursion anywhere: a chain of a million nodes needs no deeper stack than a chain of two.
"""
import heapq
import itertools

from . import anomaly_mode
from .anomaly_mode import state as anomaly
from .grad_mode import state
from .node import AccumulateGrad, GraphRoot

profile_node = None   # set by the profiler while it records: wraps each node call
tasks = []            # the backward passes running now, innermost last (a backward may run inside one)


class GraphTask:
    """What hooks may ask of the running backward: which nodes run, and the final callbacks."""
    __slots__ = ("deps", "targets", "callbacks", "__weakref__")

    def __init__(self, deps, targets):
        self.deps, self.targets, self.callbacks = deps, targets, []

    def will_execute(self, node):
        return node in self.deps and (self.targets is None or node in self.targets)


def run(roots, root_grads, keep_graph, create_graph, captures=None, accumulate=True):
    """Backpropagate `root_grads` into the edges `roots`.

    captures: None, or a list of edges whose incoming gradient is wanted; then only nodes on a
    path to them run, and the result is the list of captured gradients (None where unreached).
    With accumulate=True the captured leaves' AccumulateGrad nodes run (backward(inputs=));
    the caller accumulates captured non-leaf gradients.
    """
    root = GraphRoot(roots, root_grads)
    deps = _count_dependencies(root)
    needed = capture_at = targets = None
    results = None
    if captures is not None:
        capture_at = {}
        for k, (node, nr) in enumerate(captures):
            capture_at.setdefault(node, []).append((nr, k))
        needed = _needed_nodes(root, capture_at)
        targets = needed | capture_at.keys()
        results = [None] * len(captures)

    buffers = {}
    counter = itertools.count()
    ready = []          # heap of (-sequence_nr, arrival, node): the newest ready node first
    direct = root       # the next node to run when it is the only one ready (skips the heap)
    prev_mode = state.enabled
    state.enabled = create_graph
    task = GraphTask(deps, targets)
    tasks.append(task)
    try:
        while True:
            if direct is not None:
                node, direct = direct, None
            elif ready:
                node = heapq.heappop(ready)[2]
            else:
                break
            grads = buffers.pop(node, None) if node is not root else []
            if node._extra is not None or type(node) is AccumulateGrad:
                grads = _tensor_pre_hooks(node, grads)
            if capture_at is not None:
                if node in capture_at:
                    for nr, k in capture_at[node]:
                        g = grads[nr] if nr < len(grads) else None
                        results[k] = g
                if node not in needed and not (accumulate and type(node) is AccumulateGrad and node in capture_at):
                    continue
            if anomaly.enabled:
                outs = anomaly_mode.call_node(_call_node, node, grads, targets, create_graph)
            elif profile_node is not None:
                outs = profile_node(_call_node, node, grads, targets, create_graph)
            else:
                outs = _call_node(node, grads, targets, create_graph)
            if not keep_graph:
                node._release()
            meta = node._meta
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None or targets is not None and nxt not in targets:
                    continue
                g = outs[i]
                if g is not None and meta is not None:
                    m = meta[i]
                    # the usual case, shape and dtype already right, needs no call
                    if m is not None and (g._data.shape != m[0] or g._data.dtype != m[1]):
                        g = _validate(node, i, g, m)
                buf = buffers.get(nxt)
                if buf is None:
                    out_meta = nxt._out_meta
                    buf = buffers[nxt] = [None] * (len(out_meta) if out_meta else 1)
                if nr >= len(buf):
                    buf.extend([None] * (nr + 1 - len(buf)))
                if g is not None:
                    buf[nr] = g if buf[nr] is None else buf[nr] + g
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    # Run order: the ready node with the highest sequence number. A node that is
                    # alone in being ready (a chain) runs next without going through the heap.
                    if direct is None and not ready:
                        direct = nxt
                    else:
                        if direct is not None:
                            heapq.heappush(ready, (-direct._sequence_nr_, next(counter), direct))
                            direct = None
                        heapq.heappush(ready, (-nxt._sequence_nr_, next(counter), nxt))
            outs = g = None   # the buffers are now the only holders (AccumulateGrad may keep them)
        callbacks = task.callbacks
        while callbacks:   # queue_callback: a callback may queue more
            callbacks.pop(0)()
    finally:
        state.enabled = prev_mode
        tasks.pop()
    return results


def _count_dependencies(root):
    deps = {}   # also the set of nodes seen (the root is no node's input)
    stack = [root]
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
    return deps


def _needed_nodes(root, capture_at):
    """Nodes from which some captured edge can be reached (they must run to deliver it)."""
    needed = set()
    # iterative post-order: a node is needed if any child is needed or is captured below it
    stack = [(root, iter(root.next_functions))]
    visited = {root}
    while stack:
        node, it = stack[-1]
        for nxt, _ in it:
            if nxt is not None and nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, iter(nxt.next_functions)))
                break
        else:
            stack.pop()
            for nxt, _ in node.next_functions:
                if nxt is not None and (nxt in needed or nxt in capture_at):
                    needed.add(node)
                    break
    needed.add(root)
    return needed


def _call_node(node, grads, targets, create_graph):
    extra = node._extra
    if extra is not None and extra.pre_hooks:
        for hook in list(extra.pre_hooks.values()):
            res = hook(tuple(grads))
            if res is not None:
                grads = list(res)
    edges = node.next_functions
    if targets is not None:
        mask = [e[0] is not None and e[0] in targets for e in edges]
    elif len(edges) == 1:   # most nodes have one or two inputs: spelled out, cheaper than a comprehension
        mask = [edges[0][0] is not None]
    elif len(edges) == 2:
        mask = [edges[0][0] is not None, edges[1][0] is not None]
    else:
        mask = [e[0] is not None for e in edges]
    n_missing = (grads[0] is None) if len(grads) == 1 else sum(g is None for g in grads)
    if n_missing and type(node) is not GraphRoot and not node._takes_missing:
        if node._out_meta is None or n_missing == len(grads):
            outs = [None] * len(edges)   # no gradient arrived: nothing flows on
        else:
            outs = node._apply(_materialize(node, grads), mask, create_graph)
    else:
        outs = node._apply(grads, mask, create_graph)
    if extra is not None and extra.post_hooks:
        for hook in list(extra.post_hooks.values()):
            res = hook(tuple(outs), tuple(grads))
            if res is not None:
                outs = list(res)
    if len(outs) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(outs)})")
    return outs


def _materialize(node, grads):
    from .. import zeros
    from .._dtype import from_numpy_dtype
    # integer outputs (indices) carry no gradient: their slot stays empty
    return [g if g is not None or dt.kind not in "fc" else zeros(shape, dtype=from_numpy_dtype(dt))
            for g, (shape, dt) in zip(grads, node._out_meta)]


def _tensor_pre_hooks(node, grads):
    """Tensor hooks (registered with Tensor.register_hook), then retains_grad, per gradient slot."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks and grads and grads[0] is not None:
            grads = [_run_tensor_hooks(hooks, grads[0])]
        return grads
    extra = node._extra
    for nr, hooks in extra.tensor_pre_hooks.items():
        if nr < len(grads) and grads[nr] is not None and hooks:
            grads[nr] = _run_tensor_hooks(hooks, grads[nr])
    for nr, fn in extra.retains_grad_hooks.items():
        if nr < len(grads) and grads[nr] is not None:
            fn(grads[nr])
    return grads


def _run_tensor_hooks(hooks, grad):
    for hook in list(hooks.values()):
        res = hook(grad)
        if res is not None:
            grad = res
    return grad


def _validate(node, i, grad, meta):
    """Bring a gradient to the shape and dtype of the input it flows into."""
    if meta is None:
        return grad
    shape, dtype = meta
    if grad._data.shape != shape:
        from .shapes import sum_to
        try:
            grad = sum_to(grad, shape)
        except ValueError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, grad.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]") from None
    if grad._data.dtype != dtype:
        if dtype.kind not in "fc":
            return None
        grad = grad._cast(dtype)
    return grad

