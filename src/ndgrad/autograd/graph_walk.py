"""Walks over the backward graph that are not the engine's loop: which nodes reach which.

All iterative (a chain of a million nodes needs no deeper stack than a chain of two). A node's
edges are its `next_functions`, pointing from an output towards the inputs; "reverse" walks go
the other way, from inputs towards the outputs. Used by the engine's captures (capture.py) and by
the split backward of pipeline stages (distributed/pipelining), through engine.py's public API.
"""


def nodes_reaching(root, targets):
    """The nodes below `root` (and root itself) from which some node of `targets` can be reached
    along next_functions: they must run for a gradient to arrive at the targets."""
    reaching = set()
    # iterative post-order: a node reaches the targets if one of its children does or is one
    stack = [(root, iter(root._next_fns))]   # (next_functions' nodes, without building the pairs)
    visited = {root}
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if nxt is not None and nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, iter(nxt._next_fns)))
                break
        else:
            stack.pop()
            for nxt in node._next_fns:
                if nxt is not None and (nxt in reaching or nxt in targets):
                    reaching.add(node)
                    break
    reaching.add(root)
    return reaching


def reverse_graph(roots):
    """{node: [nodes that have it among their next_functions]} for the graph below `roots`.

    A node appears once in a parent's list per edge (a parent using it twice is listed twice)."""
    reverse_edges = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for nxt in node._next_fns:
            if nxt is None:
                continue
            reverse_edges.setdefault(nxt, []).append(node)
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return reverse_edges


def reverse_closure(starts, stop_at, reverse_edges):
    """The nodes reachable from `starts` towards the outputs in `reverse_edges` (see reverse_graph),
    not crossing a node of `stop_at`.

    Returns (closure, met): the nodes walked (starts included, unless in stop_at), and the nodes
    of stop_at met on the way."""
    closure, met = set(), set()
    stack = [s for s in starts if s not in stop_at]
    met.update(s for s in starts if s in stop_at)
    closure.update(stack)
    while stack:
        for parent in reverse_edges.get(stack.pop(), ()):
            if parent in stop_at:
                met.add(parent)
            elif parent not in closure:
                closure.add(parent)
                stack.append(parent)
    return closure, met
