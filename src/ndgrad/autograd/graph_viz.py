"""Pictures and memory of a backward graph: to_dot, render, summary (exported by autograd.graph).

The graph is walked from a tensor's grad_fn along next_functions (iteratively, so a long chain
is fine). Each node shows the values it saved for backward (name, shape, dtype, bytes); leaves
show their names when a `params` dict ({name: tensor}, e.g. dict(model.named_parameters())) is
given. Saved values are read as stored, without unpacking, so drawing never runs hooks or
version checks.
"""
import os
import shutil

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
    saved = _node.expand_saved(node)
    if not saved:
        return []
    names = type(node)._saved_names or [f"saved_{i}" for i in range(len(saved))]
    # (an argument's metadata saved apart from it shows under the argument's name)
    return [(_node.arg_name(n), v) for n, v in zip(names, saved)]


def _array_of(value):
    if isinstance(value, Tensor):
        return value._array
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


def _picture(tensor, params, show_saved):
    """What both drawings show: the nodes (roots first), each one's label lines and fill colour
    (None: plain), and the edges (from, to) in the direction data flows; `None` is the output."""
    names = {id(t): name for name, t in (params or {}).items()}
    nodes = _walk(tensor)
    labels, fills = {None: [f"output {tuple(tensor.shape)}"]}, {None: "#c8e6c9"}
    for node in nodes:
        if type(node) is AccumulateGrad:
            var = node.variable
            labels[node] = [names.get(id(var), "leaf"), f"{tuple(var.shape)} {var.dtype.name}"]
            fills[node] = "#bbdefb"
            continue
        labels[node] = [node.name()] + ([f"{name}: {_describe(v)}" for name, v in _saved_items(node)]
                                        if show_saved else [])
        fills[node] = None
    edges = [(nxt, node) for node in nodes for nxt, _ in node.next_functions if nxt is not None]
    if nodes:
        edges.append((nodes[0], None))
    return [None] + nodes, labels, fills, edges


def to_dot(tensor, params=None, show_saved=True):
    """The backward graph of `tensor` as Graphviz DOT text: ndgrad's own function.

    Each node is a box with its name and, with `show_saved`, the values it saved for backward
    (name, shape, dtype, bytes; read as stored, so no hook or version check runs); leaves are blue,
    named when `params` names them; the output is green. Edges go the way data flows in the forward.

    Args:
        tensor (Tensor): the output whose graph is drawn.
        params (dict, optional): ``{name: tensor}`` naming leaves, e.g.
            ``dict(model.named_parameters())``.
        show_saved (bool, optional): list each node's saved values. Default: True.

    Returns:
        str: the DOT source.

    Example::

        >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = (w * w).sum()
        >>> print(torch.autograd.graph.to_dot(y, params={"w": w}, show_saved=False))  # doctest: +ELLIPSIS
        digraph backward {
          node [shape=box, fontname="monospace", fontsize=10];
          out [label="output ()", style=filled, fillcolor="#c8e6c9"];
          n... [label="SumBackward0"];
          n... [label="MulBackward0"];
          n... [label="w\\n(2,) float32", style=filled, fillcolor="#bbdefb"];
          ...
        }
    """
    nodes, labels, fills, edges = _picture(tensor, params, show_saved)
    key = {None: "out", **{node: f"n{id(node)}" for node in nodes[1:]}}
    lines = ["digraph backward {", '  node [shape=box, fontname="monospace", fontsize=10];']
    for node in nodes:
        style = f', style=filled, fillcolor="{fills[node]}"' if fills[node] else ""
        lines.append(f"  {key[node]} [label={_quote(chr(10).join(labels[node]))}{style}];")
    lines += [f"  {key[a]} -> {key[b]};" for a, b in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_svg(tensor, params=None, show_saved=True):
    """The backward graph of `tensor` as SVG text, laid out by ndgrad (no Graphviz needed): ndgrad's
    own function.

    It shows what :func:`to_dot` does, one row per distance from the output: the output at the
    bottom, leaves towards the top.

    Args:
        tensor (Tensor): the output whose graph is drawn.
        params (dict, optional): ``{name: tensor}`` naming leaves.
        show_saved (bool, optional): list each node's saved values. Default: True.

    Returns:
        str: the SVG document.

    Example::

        >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> svg = torch.autograd.graph.to_svg((w * w).sum())
        >>> svg.startswith("<svg"), "MulBackward0" in svg
        (True, True)
    """
    import html   # lazy on purpose: only pictures need it (and html.entities is sizeable at `import ndgrad`)
    nodes, labels, fills, edges = _picture(tensor, params, show_saved)
    consumers = {node: [] for node in nodes}
    for a, b in edges:
        consumers[a].append(b)
    row = {None: 0}
    for node in _consumers_first(nodes, consumers):   # a node sits one row above its highest consumer
        if node is not None:
            row[node] = 1 + max(row[c] for c in consumers[node])
    char_w, line_h, gap_x, gap_y = 7, 14, 24, 40
    size = {n: (char_w * max(map(len, labels[n])) + 16, line_h * len(labels[n]) + 10) for n in nodes}
    rows = {}
    for node in nodes:
        rows.setdefault(row[node], []).append(node)
    heights = {r: max(size[n][1] for n in members) for r, members in rows.items()}
    width = max(sum(size[n][0] + gap_x for n in members) for members in rows.values()) + gap_x
    top, y_of = gap_y // 2, {}
    for r in sorted(rows, reverse=True):
        y_of[r] = top
        top += heights[r] + gap_y
    box = {}
    for r, members in rows.items():
        x = (width - sum(size[n][0] + gap_x for n in members) + gap_x) / 2
        for n in members:
            box[n] = (x, y_of[r], *size[n])
            x += size[n][0] + gap_x
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{top:.0f}" '
           'font-family="monospace" font-size="11">',
           '<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L8,4 L0,8 z"/></marker></defs>']
    for a, b in edges:
        (xa, ya, wa, ha), (xb, yb, wb, _) = box[a], box[b]
        out.append(f'<line x1="{xa + wa / 2:.1f}" y1="{ya + ha}" x2="{xb + wb / 2:.1f}" y2="{yb}" '
                   'stroke="#555" marker-end="url(#arrow)"/>')
    for n in nodes:
        x, y, w, h = box[n]
        out.append(f'<rect x="{x:.1f}" y="{y}" width="{w}" height="{h}" fill="{fills[n] or "white"}" stroke="black"/>')
        out += [f'<text x="{x + 8:.1f}" y="{y + 5 + line_h * (i + 1) - 3}">{html.escape(text)}</text>'
                for i, text in enumerate(labels[n])]
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _consumers_first(nodes, consumers):
    """`nodes` ordered so that every node comes after all of its consumers (Kahn's algorithm)."""
    waiting = {n: len(consumers[n]) for n in nodes}
    producers = {n: [] for n in nodes}
    for n in nodes:
        for c in consumers[n]:
            producers[c].append(n)
    ready, order = [n for n in nodes if waiting[n] == 0], []
    while ready:
        n = ready.pop()
        order.append(n)
        for p in producers[n]:
            waiting[p] -= 1
            if waiting[p] == 0:
                ready.append(p)
    return order


def render(tensor, path, params=None, show_saved=True, format=None):
    """Write a picture of the backward graph of `tensor` to the file `path`: ndgrad's own function.

    The format comes from `format` or the extension of `path` (``svg``, ``png``, ``pdf``...). It
    runs Graphviz's ``dot`` program on :func:`to_dot`'s text; without Graphviz, SVG is still drawn
    (by :func:`to_svg`) and other formats raise RuntimeError.

    Args:
        tensor (Tensor): the output whose graph is drawn.
        path (str): the file to write.
        params (dict, optional): ``{name: tensor}`` naming leaves.
        show_saved (bool, optional): list each node's saved values. Default: True.
        format (str, optional): the output format; default: from the extension of `path`.

    Returns:
        str: `path`.

    Example::

        >>> import os, tempfile
        >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> path = os.path.join(tempfile.mkdtemp(), "graph.svg")
        >>> torch.autograd.graph.render((w * w).sum(), path) == path, os.path.exists(path)
        (True, True)
    """
    fmt = format or os.path.splitext(path)[1].lstrip(".") or "svg"
    dot = shutil.which("dot")
    if dot is None and fmt == "svg":   # ndgrad lays out SVG itself; Graphviz's layout is tidier
        with open(path, "w") as f:
            f.write(to_svg(tensor, params, show_saved))
        return path
    if dot is None:
        raise RuntimeError(f"render() needs Graphviz's `dot` program for {fmt.upper()}, and it was not found on PATH. "
                           "Install Graphviz (apt-get install graphviz, brew install graphviz, or conda install "
                           "graphviz), render to .svg (drawn without Graphviz), or use to_dot(tensor).")
    source = to_dot(tensor, params, show_saved)
    import subprocess   # lazy on purpose: rendering is rare, and subprocess is a noticeable part of `import ndgrad`
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
    """How many nodes of each type the backward graph of `tensor` has, and the bytes their saved
    values hold: ndgrad's own function, to find what keeps memory alive until backward.

    Args:
        tensor (Tensor): the output whose graph is measured.

    Returns:
        GraphSummary: ``counts`` and ``saved_bytes`` (dicts by node name), ``num_nodes`` and
        ``total_saved_bytes`` (each saved array counted once); printing it gives a table.

    Example::

        >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> s = torch.autograd.graph.summary((w * w).sum())
        >>> s.num_nodes, s.counts["MulBackward0"], s.total_saved_bytes
        (3, 1, 8)
    """
    counts, per_type, seen = {}, {}, set()
    total = 0
    for node in _walk(tensor):
        name = node.name()
        counts[name] = counts.get(name, 0) + 1
        values = [v for _, v in _saved_items(node)]
        per_type[name] = per_type.get(name, 0) + sum(_nbytes(v) for v in values)
        total += sum(_nbytes(v, seen) for v in values)
    return GraphSummary(counts, per_type, total)
