"""Pictures and memory of a backward graph: to_dot, render, summary (exported by autograd.graph).

The graph is walked from a tensor's grad_fn along next_functions (iteratively, so a long chain
is fine). Each node shows the values it saved for backward (name, shape, dtype, bytes); leaves
show their names when a `params` dict ({name: tensor}, e.g. dict(model.named_parameters())) is
given. Saved values are read as stored, without unpacking, so drawing never runs hooks or
version checks.
"""
import os
import shutil
import subprocess

from . import node as _node
from .._tensor import Tensor
from .._dtype import from_numpy_dtype
from .node import AccumulateGrad, SavedOutput, TensorMeta


def _walk(tensor):
    """The nodes reachable from tensor.grad_fn, each once, roots first."""
    root = tensor.grad_fn if tensor.grad_fn is not None else _leaf_node(tensor)
    order, seen, stack = [], set(), [root] if root is not None else []
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None and n not in seen)
    return order


def _leaf_node(tensor):
    if not tensor._requires_grad:
        return None
    return _node.edge(tensor)[0]


def _saved_items(node):
    """(name, value) for each value `node` saved, as stored."""
    saved = node._saved
    if not saved:
        return []
    names = type(node)._saved_names or [f"saved_{i}" for i in range(len(saved))]
    return list(zip(names, saved))


def _array_of(value):
    if isinstance(value, Tensor):
        return value._data
    if type(value) is SavedOutput:
        return value.data
    return None


def _nbytes(value, seen=None):
    """Bytes a saved value keeps alive (each array once when `seen` is shared)."""
    if type(value) is list:
        return sum(_nbytes(v, seen) for v in value)
    if type(value) is _node.PackedSaved:
        return value.nbytes()
    data = _array_of(value)
    if data is None:
        return 0
    if seen is not None:
        key = (data.__array_interface__["data"][0], data.nbytes)
        if key in seen:
            return 0
        seen.add(key)
    return data.nbytes


def _describe(value):
    if type(value) is list:
        return "[" + ", ".join(_describe(v) for v in value) + "]"
    if type(value) is _node.PackedSaved:
        return f"packed by hooks, {value.nbytes()} B"
    if type(value) is TensorMeta:
        return f"{tuple(value.shape)} {value.dtype.name} (shape only)"
    data = _array_of(value)
    if data is None:
        return repr(value)
    return f"{tuple(data.shape)} {from_numpy_dtype(data.dtype).name} {data.nbytes} B"


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(tensor, params=None, show_saved=True):
    """DOT text of the backward graph of `tensor`: nodes, saved tensors, named leaves, edges."""
    names = {id(t): name for name, t in (params or {}).items()}
    lines = ["digraph backward {", '  node [shape=box, fontname="monospace", fontsize=10];',
             f'  out [label={_quote("output " + str(tuple(tensor.shape)))}, style=filled, fillcolor="#c8e6c9"];']
    nodes = _walk(tensor)
    for node in nodes:
        if type(node) is AccumulateGrad:
            var = node.variable
            label = f"{names.get(id(var), 'leaf')}\n{tuple(var.shape)} {var.dtype.name}"
            lines.append(f'  n{id(node)} [label={_quote(label)}, style=filled, fillcolor="#bbdefb"];')
            continue
        label = node.name()
        if show_saved:
            label += "".join(f"\n{name}: {_describe(v)}" for name, v in _saved_items(node))
        lines.append(f"  n{id(node)} [label={_quote(label)}];")
    for node in nodes:
        for nxt, _ in node.next_functions:
            if nxt is not None:
                lines.append(f"  n{id(nxt)} -> n{id(node)};")   # drawn in the direction data flows
    if nodes:
        lines.append(f"  n{id(nodes[0])} -> out;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(tensor, path, params=None, show_saved=True, format=None):
    """Write a picture of the backward graph of `tensor` to `path` (SVG, PNG, PDF… by extension)
    with Graphviz's `dot` program; returns `path`."""
    fmt = format or os.path.splitext(path)[1].lstrip(".") or "svg"
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("render() needs Graphviz's `dot` program, which was not found on PATH. Install Graphviz "
                           "(apt-get install graphviz, brew install graphviz, or conda install graphviz), or use "
                           "to_dot(tensor) and render the DOT text elsewhere.")
    source = to_dot(tensor, params, show_saved)
    done = subprocess.run([dot, f"-T{fmt}", "-o", path], input=source.encode(), capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz's dot failed to render {path!r} as {fmt}: {done.stderr.decode().strip()}")
    return path


class GraphSummary:
    """Node counts and saved bytes per node type of one backward graph (str() gives a table)."""

    def __init__(self, counts, saved_bytes, total_saved_bytes):
        self.counts = counts                        # node type name -> number of nodes
        self.saved_bytes = saved_bytes              # node type name -> bytes its nodes saved
        self.total_saved_bytes = total_saved_bytes  # every saved array counted once

    @property
    def num_nodes(self):
        return sum(self.counts.values())

    def __str__(self):
        width = max([len("Node")] + [len(k) for k in self.counts])
        rows = [f"{'Node':<{width}}  {'Count':>7}  {'Saved bytes':>12}", "-" * (width + 23)]
        for name in sorted(self.counts, key=lambda k: (-self.saved_bytes[k], k)):
            rows.append(f"{name:<{width}}  {self.counts[name]:>7}  {self.saved_bytes[name]:>12}")
        rows.append("-" * (width + 23))
        rows.append(f"{'Total':<{width}}  {self.num_nodes:>7}  {self.total_saved_bytes:>12}")
        return "\n".join(rows)

    __repr__ = __str__


def summary(tensor):
    """Counts of each node type in the graph of `tensor` and the bytes their saved values hold."""
    counts, per_type, seen = {}, {}, set()
    total = 0
    for node in _walk(tensor):
        name = node.name()
        counts[name] = counts.get(name, 0) + 1
        values = [v for _, v in _saved_items(node)]
        per_type[name] = per_type.get(name, 0) + sum(_nbytes(v) for v in values)
        total += sum(_nbytes(v, seen) for v in values)
    return GraphSummary(counts, per_type, total)
