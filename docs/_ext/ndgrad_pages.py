"""Pages written at build time from the package itself, so that they cannot drift from the code:

- `_generated/api/<namespace>.rst`: one autodoc entry for every public name of each namespace
  (its `__all__`, or its public attributes defined by ndgrad), the constants in a table;
- `_generated/differences.md`: what ndgrad does not have, from the op catalog (`python -m ndgrad ops`)
  and the namespace check (`python -m ndgrad api`) with the reasons written next to them in the code.

A file is rewritten only when its text changes, so incremental builds stay incremental.
"""
import importlib
import inspect
import re
import os
import types

# (namespace, title): the API reference's pages, in the order of its table of contents
NAMESPACES = [
    ("ndgrad", "ndgrad (torch)"),
    ("ndgrad.Tensor", "ndgrad.Tensor"),
    ("ndgrad.autograd", "ndgrad.autograd"),
    ("ndgrad.autograd.functional", "ndgrad.autograd.functional"),
    ("ndgrad.autograd.forward_ad", "ndgrad.autograd.forward_ad"),
    ("ndgrad.autograd.graph", "ndgrad.autograd.graph"),
    ("ndgrad.nn", "ndgrad.nn"),
    ("ndgrad.nn.functional", "ndgrad.nn.functional"),
    ("ndgrad.nn.init", "ndgrad.nn.init"),
    ("ndgrad.func", "ndgrad.func"),
    ("ndgrad.optim", "ndgrad.optim"),
    ("ndgrad.optim.lr_scheduler", "ndgrad.optim.lr_scheduler"),
    ("ndgrad.linalg", "ndgrad.linalg"),
    ("ndgrad.fft", "ndgrad.fft"),
    ("ndgrad.special", "ndgrad.special"),
    ("ndgrad.utils.data", "ndgrad.utils.data"),
    ("ndgrad.distributions", "ndgrad.distributions"),
]
# names documented on a page of their own (ndgrad.Tensor), never twice
ELSEWHERE = {"ndgrad": {"Tensor"}}


def public_names(module):
    """(callables, constants): the public names of `module`, each a sorted list of (name, object)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    funcs, data = [], []
    for name in sorted(set(names) - ELSEWHERE.get(module.__name__, set())):
        obj = getattr(module, name, None)
        if isinstance(obj, types.ModuleType):
            continue   # a namespace: its own page, or not part of the reference
        if callable(obj):
            # what a module merely imports (typing's Any, functools.partial) is not its API
            if (getattr(obj, "__module__", None) or "").startswith("ndgrad") or hasattr(module, "__all__"):
                funcs.append((name, obj))
        elif type(obj).__module__.startswith("ndgrad") or isinstance(obj, (int, float, bool, str, type(None))):
            data.append((name, obj))
    return funcs, data


def _title(text):
    return f"{text}\n{'=' * len(text)}\n"


def namespace_page(qualname, title, seen):
    """The page of one namespace; `seen` holds the ids of objects already documented on an earlier page,
    which are documented again with :no-index: (one object has one canonical entry)."""
    if qualname == "ndgrad.Tensor":
        seen.add(id(importlib.import_module("ndgrad").Tensor))
        return (_title(title) + "\nThe tensor class and every method and attribute ndgrad gives it.\n\n"
                ".. currentmodule:: ndgrad\n\n.. autoclass:: Tensor\n   :members:\n")
    module = importlib.import_module(qualname)
    funcs, data = public_names(module)
    lines = [_title(title), f".. automodule:: {qualname}\n   :no-members:\n", f".. currentmodule:: {qualname}\n"]
    if data:
        lines.append(".. list-table:: Constants\n   :header-rows: 1\n\n   * - name\n     - value")
        for name, obj in data:
            lines.append(f"   * - ``{name}``\n     - ``{obj!r}``")
        lines.append("")
    for name, obj in funcs:
        kind = "autoclass" if inspect.isclass(obj) else "autofunction"
        options = ("   :members:\n" if kind == "autoclass" else "") + ("   :no-index:\n" if id(obj) in seen else "")
        lines.append(f".. {kind}:: {name}\n{options}")
        seen.add(id(obj))
    return "\n".join(lines)


def differences_page():
    # imported here: the pages are written when a build starts, not when Sphinx loads the extension
    from ndgrad import _api, _catalog
    have = _catalog.node_names()
    out = [_title("Differences from PyTorch"),
           "This page is generated when the documentation is built, from the op catalog "
           "(``python -m ndgrad ops``) and the namespace check (``python -m ndgrad api``); the reasons are "
           "those written next to the data in ``ndgrad/_catalog.py`` and ``ndgrad/_api.py``.\n",
           "## Backward nodes\n"]
    rows = _catalog.ROWS
    unreachable = [r for r in rows if r[2] is None]
    not_built = [r for r in rows if r[2] is not None and r[0] in _catalog.NOT_BUILT]
    todo = [r for r in rows if r[2] is not None and r[0] not in _catalog.NOT_BUILT and r[0] not in have]
    built = len(rows) - len(unreachable) - len(not_built) - len(todo)
    out.append(f"Of the {len(rows)} backward-node names PyTorch {_api.TORCH_VERSION} can produce, "
               f"{len(unreachable)} are unreachable from a CPU program; of the other {len(rows) - len(unreachable)}, "
               f"ndgrad has a node for {built}. The others:\n")
    out.append("| node | status | why |\n|---|---|---|")
    for name, call, _, _ in not_built:
        out.append(f"| `{name}` | not built | {_catalog.NOT_BUILT[name]} (torch: `{call}`) |")
    for name, call, _, _ in todo:
        out.append(f"| `{name}` | not implemented yet | torch: `{call}` |")
    out.append("\n## Public names\n")
    out.append(f"For each module, the share of PyTorch {_api.TORCH_VERSION}'s public names that ndgrad has, "
               "counted without the names ndgrad leaves out on purpose (listed below with the reason).\n")
    out.append("| module | present | of | coverage | missing |\n|---|---|---|---|---|")
    for module in _api.NAMES:
        present, wanted, missing = _api.coverage(module)
        pct = 100.0 * present / wanted if wanted else 100.0
        out.append(f"| `{module}` | {present} | {wanted} | {pct:.1f}% | {' '.join(f'`{n}`' for n in missing)} |")
    out.append("\n## Left out on purpose\n")
    for module, groups in _api.DELIBERATELY_ABSENT.items():
        for reason, names in groups.items():
            names = sorted(names & set(_api.NAMES[module]))
            if names:
                out.append(f"- `{module}`, {reason}: {', '.join(f'`{n}`' for n in names)}")
    return "\n".join(out) + "\n"


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_pages(app):
    gen = os.path.join(app.srcdir, "_generated")
    toc = [_title("API reference"), "Every public name of each namespace, from its docstring.\n",
           ".. toctree::\n   :maxdepth: 1\n"]
    seen = set()
    for qualname, title in NAMESPACES:
        _write(os.path.join(gen, "api", qualname + ".rst"), namespace_page(qualname, title, seen))
        toc.append(f"   {qualname}")
    _write(os.path.join(gen, "api", "index.rst"), "\n".join(toc) + "\n")
    _write(os.path.join(gen, "differences.md"), differences_page())


# Many docstrings are plain prose, not reStructuredText: `|x|` or `*args` in them must read as written.
_INLINE = re.compile(r"(``.*?``|`[^`]*`|[*|])")


def _escape(match):
    text = match.group(0)
    return "\\" + text if text in "*|" else text


def plain_prose(app, what, name, obj, options, lines):
    """Escape reST's inline markup characters in a docstring's prose lines (not in code examples,
    literal blocks or backquoted spans), so that plain-text docstrings render as written."""
    literal = None
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if literal is not None and line.strip() and indent <= literal:
            literal = None
        if literal is not None or line.lstrip().startswith((">>>", "...")):
            continue
        lines[i] = _INLINE.sub(_escape, line)
        if line.rstrip().endswith("::"):
            literal = indent
    # a bullet list written right under a paragraph (or a paragraph right under one) needs a blank line
    out, in_list = [], False
    for line in lines:
        bullet, flush = line.startswith("- "), line[:1] not in ("", " ")
        if out and out[-1].strip() and ((bullet and not in_list) or (in_list and flush and not bullet)):
            out.append("")
        in_list = bullet or (in_list and not flush and bool(line.strip()))
        out.append(line)
    lines[:] = out


def setup(app):
    app.connect("builder-inited", write_pages)
    app.connect("autodoc-process-docstring", plain_prose, priority=400)   # before napoleon (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
