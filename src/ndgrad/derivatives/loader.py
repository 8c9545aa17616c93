"""Reads derivatives.yaml and builds one Node class per entry, named as torch names it.

Each entry's `name:` is an ATen-style schema; its other keys are backward formulas for the named
arguments (`self: grad * other`), `result:` (forward-mode tangent, used by forward AD) and
`output_differentiability:`. An entry may instead give these per dispatch key, as torch's table does
(`dispatch:` with `Default:` and `AutogradNestedTensor:`, the formulas for nested inputs, whose node
is `<Op>BackwardAutogradNestedTensor<n>` and saves what they read; an entry without `Default:` has
no node for other inputs, as torch's CompositeImplicitAutograd ops). Formulas are compiled once, with the yaml file as their filename
and their yaml line as their line, so an error inside a formula points at the table.
"""
import ast
import hashlib
import inspect
import marshal
import os
import re
import sys
import types



import numpy as np

from .._dtype import INEXACT_KINDS
from .._tensor import PLAIN_TYPES, Tensor
from ..autograd import forward_ad
from ..autograd.node import (LAZY_VC, META, PYTHON_NUMBERS as _NUMBERS, Node, NoTensors, SavedOutput, TensorMeta,
                             arg_name, saved_accessors)
from ..ops import _registry
from . import formulas

_ndarray = np.ndarray
_forward_ad_state = forward_ad.state

YAML_PATH = os.path.join(os.path.dirname(__file__), "derivatives.yaml")
_ARG_RE = re.compile(r"^(?P<type>[\w\[\]\d?()!|. ]+?)\s+(?P<name>\w+)(?:\s*=\s*(?P<default>.+))?$")


class Arg:
    __slots__ = ("name", "type", "is_tensor", "is_tensor_list", "kw_only")

    def __init__(self, name, type_, kw_only):
        self.name, self.type, self.kw_only = name, type_, kw_only
        base = type_.rstrip("?")
        self.is_tensor = base.startswith("Tensor") and "[]" not in base
        self.is_tensor_list = base.startswith("Tensor") and "[]" in base


class Entry:
    """One parsed yaml entry: schema, formulas and the generated Node class."""

    def __init__(self, schema, line):
        self.schema = schema
        self.line = line
        head, _, ret = schema.partition("->")
        name, _, args = head.strip().partition("(")
        self.op_name = name.strip()                      # e.g. "mul.Tensor"
        self.base = self.op_name.split(".")[0]
        self.args = _parse_args(args.rstrip().rstrip(")"))
        self.returns = _parse_returns(ret.strip())
        self.formulas = []        # (arg indices, function, names it reads)
        self.array_sources = ()      # (arg indices, expression, yaml line) of each formula
        self.array_scope = None      # the globals of its array formulas (load's array_scope)
        self.array_formulas = None   # the formulas on arrays (array_formulas.py), once array_forms made them
        self.forward_formula = None   # `result:`: an expression or a shortcut (see forward_ad.py)
        self.forward_fn = self.forward_rule = None
        self.forward_result_alias = False
        self.output_differentiability = None
        self.node_cls = None
        self.saved_names = self.saved_users = self.saved_pos = ()
        self.meta_only = ()
        self.meta_views = ()   # per saved value: torch's suffixes of what is exposed of its metadata, or None
        self.node_name = None

    @property
    def arg_names(self):
        return [a.name for a in self.args]


def _split_top(text, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def _parse_args(text):
    args, kw_only = [], False
    for part in _split_top(text):
        if part == "*":
            kw_only = True
            continue
        m = _ARG_RE.match(part)
        if not m:
            raise ValueError(f"derivatives.yaml: cannot parse argument {part!r}")
        args.append(Arg(m.group("name"), m.group("type"), kw_only))
    return args


def _parse_returns(text):
    text = text.strip()
    if text.startswith("("):
        text = text[1:-1]
    names = []
    for i, part in enumerate(_split_top(text)):
        bits = part.split()
        names.append(bits[1] if len(bits) > 1 else ("result" if text.count(",") == 0 else f"result{i}"))
    return names


def camel(base):
    # torch also capitalizes a letter after a digit: nll_loss2d -> NllLoss2D, log1p -> Log1P
    return re.sub(r"(?<=\d)[a-z]", lambda m: m.group().upper(),
                  "".join(p[:1].upper() + p[1:] for p in base.split("_") if p))


def _compile(src, line, where):
    """The code of the one function defined by `src`, compiled with the yaml as its file."""
    try:
        module = compile(src, YAML_PATH, "exec")
    except SyntaxError as e:
        raise SyntaxError(f"derivatives.yaml line {line} ({where}): {e.msg}") from None
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def _compile_formula(expr, params, line, where):
    """`expr` as the body of a function whose return lies on the yaml line `line`."""
    header = f"def _formula(grads, grad_input_mask, {', '.join(params)}):\n grad = grads[0]\n"
    return _compile("\n" * max(line - 3, 0) + header + f" return ({expr})\n", line, where)


# builtins an array formula may call (on Python values: sizes, dims); any other call is renamed
ARRAY_BUILTINS = frozenset(("len", "tuple", "list", "range", "int", "float", "bool", "min", "max", "zip", "enumerate"))


class _ArrayRewrite(ast.NodeTransformer):
    """A formula's expression for the array namespace (array_formulas.py): operators, method calls
    and calls of scope functions become calls of `_op_<Op>`, `_m_<method>`, `_f_<name>`, other
    attributes than shape and ndim `_a_<attr>`; builtins in `builtins` stay. Records the global
    names the result reads; refuses (ValueError) what has no array form (lambdas, generators, sets...)."""

    def __init__(self, params, builtins):
        self.params, self.builtins, self.needed = set(params), builtins, set()

    def _name(self, name, node):
        self.needed.add(name)
        return ast.copy_location(ast.Name(name, ast.Load()), node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.copy_location(ast.Call(self._name(f"_op_{type(node.op).__name__}", node),
                                          [node.left, node.right], []), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(ast.Call(self._name(f"_op_{type(node.op).__name__}", node), [node.operand], []),
                                 node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1:
            raise ValueError("chained comparison")
        op = type(node.ops[0]).__name__
        if op in ("Is", "IsNot"):
            return node
        return ast.copy_location(ast.Call(self._name(f"_cmp_{op}", node), [node.left, node.comparators[0]], []),
                                 node)

    def visit_Call(self, node):
        func = node.func
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [self.visit(k) for k in node.keywords]
        if isinstance(func, ast.Attribute):   # x.method(...) -> _m_method(x, ...)
            node.args = [self.visit(func.value)] + node.args
            node.func = self._name(f"_m_{func.attr}", func)
        elif isinstance(func, ast.Name) and func.id not in self.params:
            node.func = self._name(func.id if func.id in self.builtins else f"_f_{func.id}", func)
        else:
            raise ValueError("call of a computed function")
        return node

    def visit_Attribute(self, node):   # x.shape and x.ndim read the same of arrays; x.attr -> _a_attr(x)
        self.generic_visit(node)
        if node.attr in ("shape", "ndim"):
            return node
        return ast.copy_location(ast.Call(self._name(f"_a_{node.attr}", node), [node.value], []), node)

    def visit_Name(self, node):
        if node.id not in self.params:
            self.needed.add(node.id)
        return node

    def visit_ListComp(self, node):   # its variables are its own, as parameters are (known before `elt` reads them)
        for g in node.generators:
            self.params.update(n.id for n in ast.walk(g.target) if isinstance(n, ast.Name))
        return self.generic_visit(node)

    def generic_visit(self, node):
        if isinstance(node, (ast.Lambda, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr,
                             ast.Dict, ast.Set, ast.JoinedStr)):
            raise ValueError(type(node).__name__)
        return super().generic_visit(node)


def _compile_array_formula(expr, params, line, where, builtins):
    """The array form of a formula (see _ArrayRewrite): (code, global names it needs), or None."""
    tree = ast.parse(expr, mode="eval")
    rewrite = _ArrayRewrite(["grads", "grad_input_mask", "grad", *params], builtins)
    try:
        body = rewrite.visit(tree.body)
    except ValueError:
        return None
    src = ast.unparse(body)
    header = f"def _array_formula(grads, grad_input_mask, {', '.join(params)}):\n grad = grads[0]\n"
    return _compile("\n" * max(line - 3, 0) + header + f" return ({src})\n", line, where), \
        tuple(sorted(rewrite.needed))


FORWARD_SHORTCUTS = ("auto_element_wise", "auto_linear", "auto_transpose")


def _forward_params(entry):
    """A `result:` expression's parameters: (for each argument) its value, and for tensors
    `<name>_p` (primal) and `<name>_t` (tangent), then the outputs and `result`."""
    params = []
    for a in entry.args:
        params.append(a.name)
        if a.is_tensor or a.is_tensor_list:
            params += [a.name + "_p", a.name + "_t"]
    params += entry.returns
    if "result" not in entry.returns:
        params.append("result")
    return params


def _compile_forward(entry, expr, line):
    src = "\n" * max(line - 2, 0) + f"def _forward({', '.join(_forward_params(entry))}):\n return ({expr})\n"
    return _compile(src, line, f"{entry.op_name} result")


_META_ATTRS = {"shape", "dtype", "ndim", "dim", "size", "numel", "is_complex", "stride", "storage_offset"}


def _names_in(expr, line, where):
    """(names read, names read only through shape/dtype-like attributes)."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise SyntaxError(f"derivatives.yaml line {line} ({where}): {e.msg}") from None
    names, meta_uses = set(), set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.attr in _META_ATTRS:
            meta_uses.add(id(n.value))
    full = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            names.add(n.id)
            if id(n) not in meta_uses:
                full.add(n.id)
    return names, full


def _meta_reads(expr, names):
    """{name: torch's suffixes for what `expr` reads of it}: the names torch's generated node gives
    an argument's metadata saved in its place, after the call in its formula: `x.shape` / `x.size()`
    (torch's x.sym_sizes()) -> sym_sizes, `x.shape[k]` / `x.size(k)` with k a number ->
    sym_argsize_k (sym_argsize_minus_k for -k), `x.numel()` -> sym_numel, `x.stride()` ->
    sym_strides, `x.storage_offset()` -> sym_storage_offset, `x.dim()` / `x.ndim` -> dim; the dtype is
    saved unexposed (torch's ScalarType)."""
    tree = ast.parse(expr, mode="eval")
    parents = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    reads = {}
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in names):
            continue
        up = parents.get(id(n))
        called = isinstance(up, ast.Call) and up.func is n
        index = up.slice if isinstance(up, ast.Subscript) and up.value is n else \
            up.args[0] if called and len(up.args) == 1 else None
        k = _constant_int(index)
        if n.attr in ("shape", "size"):
            suffix = "sym_sizes" if k is None else f"sym_argsize_{k}" if k >= 0 else f"sym_argsize_minus_{-k}"
        else:
            suffix = {"numel": "sym_numel", "stride": "sym_strides", "dim": "dim", "ndim": "dim",
                      "storage_offset": "sym_storage_offset"}.get(n.attr)
        if suffix is not None:
            reads.setdefault(n.value.id, set()).add(suffix)
    return reads


def _constant_int(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        k = _constant_int(node.operand)
        return None if k is None else -k
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _meta_alias(expr, line, names, full, split):
    """(expr, line, names, full) of a formula with its metadata-only reads of the `split` arguments
    renamed to their <name>__meta."""
    renamed = {n for n in split if n in names and n not in full}
    if not renamed:
        return expr, line, names, full

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(node.id + META, node.ctx), node) if node.id in renamed else node
    expr = ast.unparse(Rename().visit(ast.parse(expr, mode="eval")))
    return expr, line, (names - renamed) | {n + META for n in renamed}, full


def _analyse(text):
    """The table as plain data, each formula compiled: per entry (schema, line, output
    differentiability, (forward expression, its code or None) or None, node name, saved names,
    meta-only flags, saved users, [(argument indices, code)])."""
    import yaml   # lazy on purpose: only a cache miss parses the yaml, and importing yaml is a tenth of `import ndgrad`
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml's parser when present: 10x faster
    doc = yaml.compose(text, Loader=loader)
    table, seen = [], set()
    for fields, dispatch_key in _dispatch_variants(doc.value):
        entry = Entry(fields["name"].value, fields["name"].start_mark.line + 1)
        if (entry.op_name, dispatch_key) in seen:
            raise ValueError(f"derivatives.yaml line {entry.line}: duplicate entry {entry.op_name}")
        seen.add((entry.op_name, dispatch_key))
        scope_names = set(entry.arg_names) | set(entry.returns) | {"result"}
        used, used_fully, pending = set(), set(), []
        out_diff = forward = node_name = None
        for key, node in fields.items():
            if key == "name":
                continue
            if key == "output_differentiability":
                out_diff = tuple(v.value in ("True", "true") for v in node.value)
                continue
            if key == "result":
                code = None if node.value in FORWARD_SHORTCUTS else \
                    _compile_forward(entry, node.value, node.start_mark.line + 1)
                forward = (node.value, code)
                continue
            if key == "node_name":   # torch's name for nodes outside the generated scheme
                node_name = node.value
                continue
            if key == "save_whole":   # saved (and version-checked) whole though read for its shape only
                whole = [t.strip() for t in node.value.split(",")]
                for t in whole:
                    if t not in entry.arg_names:
                        raise ValueError(f"derivatives.yaml line {node.start_mark.line + 1}: "
                                         f"{t!r} is not an argument of {entry.op_name}")
                used_fully |= set(whole)
                continue
            targets = [t.strip() for t in key.split(",")]
            for t in targets:
                if t not in entry.arg_names:
                    raise ValueError(f"derivatives.yaml line {node.start_mark.line + 1}: "
                                     f"{t!r} is not an argument of {entry.op_name}")
            names, full = _names_in(node.value, node.start_mark.line + 1, entry.op_name)
            used_fully |= full & scope_names
            pending.append(([entry.arg_names.index(t) for t in targets], node.value, node.start_mark.line + 1,
                            names, full))
        # An argument some formulas read whole and others only for its metadata (mm: mat2 whole for
        # self's gradient, its sizes and strides for its own) is saved twice, as torch saves it: whole,
        # only where one of the first formulas' inputs needs a gradient, and its metadata (always, as
        # torch saves sizes) under <name>__meta, which the others read instead.
        split = {n for n in entry.arg_names if any(n in full for *_, full in pending)
                 and any(n in names and n not in full for *_, names, full in pending)}
        pending = [(idxs, *_meta_alias(expr, line, names, full, split)) for idxs, expr, line, names, full in pending]
        for *_, names, _ in pending:
            used |= names & (scope_names | {n + META for n in split})
        # Saved values: every argument or result a formula reads, in schema order.
        saved = [m for n in entry.arg_names for m in (n, n + META) if m in used] + \
            [n for n in entry.returns if n in used]
        if "result" in used and "result" not in saved:
            saved.append("result")
        meta_only = tuple(n not in used_fully and arg_name(n) in entry.arg_names for n in saved)
        # torch's names for the metadata the formulas read of a Tensor argument (_saved_self_sym_sizes,
        # _saved_bias_sym_sizes_opt for a Tensor?), exposed beside the argument (in its place when
        # only its metadata is saved)
        tensors = {a.name: a.type.endswith("?") for a in entry.args if a.is_tensor}
        reads = {}
        for _, expr, _, _, _ in pending:
            for n, sfx in _meta_reads(expr, [n for n in saved if arg_name(n) in tensors]).items():
                reads.setdefault(n, set()).update(f + "_opt" if tensors[arg_name(n)] else f for f in sfx)
        meta_views = tuple(tuple(sorted(reads[n])) if n in reads else None for n in saved)
        # "offset": the storage offset is kept too (TensorMeta.with_offset), only where a formula reads it
        meta_only = tuple("offset" if m and any(v.startswith("sym_storage_offset") for v in reads.get(n, ())) else m
                          for n, m in zip(saved, meta_only))
        # Which arguments' formulas read each saved value: it is saved only when one of them needs
        # a gradient (as torch does: x * 2.0 saves nothing of x). None: every formula reads it.
        all_args = {i for idxs, *_ in pending for i in idxs}
        users = [frozenset(i for idxs, _, _, names, _ in pending if n in names for i in idxs) for n in saved]
        # (metadata saved for its own sake is saved whatever needs a gradient, as torch saves sizes; so is
        # an argument that is no Tensor: torch saves add's alpha whether or not `other` needs a gradient)
        scalar = {a.name for a in entry.args if not (a.is_tensor or a.is_tensor_list)}
        saved_users = tuple(None if u == all_args or m or n in scalar else tuple(sorted(u))
                            for n, u, m in zip(saved, users, meta_only))
        formulas = [(tuple(idxs), _compile_formula(expr, saved, line, entry.op_name), expr, line)
                    for idxs, expr, line, _, _ in pending]
        table.append((entry.schema, entry.line, out_diff, forward, node_name, tuple(saved), meta_only,
                      saved_users, formulas, meta_views, dispatch_key))
    return table


DISPATCH_KEYS = ("AutogradNestedTensor",)   # the keys besides Default an entry's `dispatch:` may give


def _dispatch_variants(items):
    """(fields, dispatch key) of each entry: an entry with `dispatch:` gives its Default formulas (key
    None) and then those of each other key, each with the entry's name."""
    for item in items:
        fields = {k.value: v for k, v in item.value}
        if "dispatch" not in fields:
            yield fields, None
            continue
        per_key = {k.value: v for k, v in fields["dispatch"].value}
        line = fields["dispatch"].start_mark.line + 1
        if not per_key or set(per_key) - {"Default", *DISPATCH_KEYS} or set(fields) != {"name", "dispatch"}:
            raise ValueError(f"derivatives.yaml line {line}: `dispatch:` takes Default and "
                             f"{', '.join(DISPATCH_KEYS)} (each with its formulas), and nothing beside it")
        # the Default first, whatever the yaml's order: the other keys' node names take its index. Without
        # a Default (torch's CompositeImplicitAutograd op: other inputs record the ops its public function
        # calls) the entry still takes an index (load)
        for key in sorted(per_key, key=lambda k: k != "Default"):
            yield {"name": fields["name"], **{k.value: v for k, v in per_key[key].value}}, \
                None if key == "Default" else key


_CACHE_FORMAT = 11   # bump when _analyse's output changes (its shape or what it computes)


def _table(path):
    """_analyse of the yaml at `path`, from a marshal cache in __pycache__ (as .pyc files are) when
    the cache was made from the same bytes by the same Python; rebuilt and rewritten otherwise."""
    with open(path, "rb") as f:
        raw = f.read()
    key = (hashlib.sha256(raw).hexdigest(), sys.version, _CACHE_FORMAT)
    cache = os.path.join(os.path.dirname(path), "__pycache__",
                         f"{os.path.basename(path)}.{sys.implementation.cache_tag}.marshal")
    try:
        with open(cache, "rb") as f:
            cached_key, table = marshal.load(f)
        if cached_key == key:
            return table
    except (OSError, EOFError, ValueError, TypeError):
        pass   # no cache yet, or one from another version
    table = _analyse(raw.decode())
    try:   # a read-only install just compiles every time
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            marshal.dump((key, table), f)
        os.replace(tmp, cache)
    except OSError:
        pass
    return table


def load(scope, path=YAML_PATH, array_scope=None):
    """Parse the table; returns {op_name: Entry} with node classes built. Formulas run with
    `scope` as their globals (the names they may call). With `array_scope`, an entry whose every
    formula's array form reads only names of it runs those in a plain backward (the engine's array
    path); they are compiled on the node class's first use (array_forms)."""
    entries, counts, composite = {}, {}, set()
    for schema, line, out_diff, forward, node_name, saved, meta_only, users, formulas, meta_views, key in \
            _table(path):
        entry = Entry(schema, line)
        if out_diff is not None:
            entry.output_differentiability = list(out_diff)
        if forward is not None:
            entry.forward_formula, code = forward
            if code is not None:
                entry.forward_fn = types.FunctionType(code, scope)
                entry.forward_result_alias = "result" not in entry.returns
        entry.node_name = node_name
        entry.saved_names, entry.saved_users = saved, users
        # how record keeps an argument saved for its metadata only (False: saved whole)
        entry.meta_only = tuple(TensorMeta.with_offset if m == "offset" else TensorMeta if m else False
                                for m in meta_only)
        entry.meta_views = meta_views
        entry.formulas = [(idxs, types.FunctionType(code, scope)) for idxs, code, _, _ in formulas]
        entry.array_sources = [(idxs, expr, line) for idxs, _, expr, line in formulas]
        entry.array_scope = array_scope
        if key is not None:   # after the Default entry, with its index: SumBackwardAutogradNestedTensor1
            if entry.op_name not in entries and entry.op_name not in composite:   # no Default: the index is its own
                composite.add(entry.op_name)
                counts[camel(entry.base)] = counts.get(camel(entry.base), 0) + 1
            entry.node_cls = _make_node_class(f"{camel(entry.base)}Backward{key}{counts[camel(entry.base)] - 1}",
                                              entry)
            entries[f"{entry.op_name}@{key}"] = entry
            continue
        if entry.node_name:
            entry.node_cls = _make_node_class(entry.node_name.split("::")[-1], entry)
            entry.node_cls.name = lambda self, _n=entry.node_name: _n
        else:
            n = counts.get(camel(entry.base), 0)
            counts[camel(entry.base)] = n + 1
            entry.node_cls = _make_node_class(f"{camel(entry.base)}Backward{n}", entry)
        entries[entry.op_name] = entry
    return entries


def _make_node_class(name, entry):
    diff_args = sorted({i for idxs, _ in entry.formulas for i in idxs})
    # where each saved value comes from: an argument's position, or -1-k for output k
    names = entry.arg_names
    entry.saved_pos = tuple(names.index(arg_name(n)) if arg_name(n) in names
                            else -1 - (entry.returns.index(n) if n in entry.returns else 0) for n in entry.saved_names)
    # the saved tensors in the order torch unpacks (and version-checks) them: arguments by name, then outputs
    args = {a.name: a for a in entry.args}
    saved_tensor_idx = tuple(sorted((i for i, n in enumerate(entry.saved_names)
                                     if arg_name(n) not in args or args[arg_name(n)].is_tensor
                                     or args[arg_name(n)].is_tensor_list),
                                    key=lambda i: (arg_name(entry.saved_names[i]) not in args, entry.saved_names[i])))
    base = NotImplementedNode if name == "NotImplemented" else GeneratedNode
    return type(name, (base,), {
        "__slots__": ("_edge_slices",) if any(entry.args[i].is_tensor_list for i in diff_args) else (),
        "_entry": entry,
        "_diff_args": tuple(diff_args),
        "_saved_names": entry.saved_names,
        "_saved_tensor_idx": saved_tensor_idx,
        "_result_only": entry.saved_pos == (-1,) and tuple(entry.meta_only) == (False,)
        and tuple(entry.saved_users) == (None,),
        "_formulas": tuple((tuple(diff_args.index(i) for i in idxs), fn) for idxs, fn in entry.formulas),
        "_one_formula": len(entry.formulas) == 1 and len(diff_args) == 1,
        "_only_formula": staticmethod(entry.formulas[0][1]) if len(entry.formulas) == 1 and len(diff_args) == 1
        and not any(entry.args[i].is_tensor_list for i in diff_args) else None,
        # the array formulas, compiled at the first call (array_forms): most programs use few entries
        **({} if entry.array_scope is not None and entry.formulas and not any(entry.args[i].is_tensor_list
                                                                         for i in diff_args)
           else {"_apply_arrays": None}),
        **saved_accessors(entry.saved_names, entry.meta_views, entry.meta_only,
                          [args[arg_name(n)].type if arg_name(n) in args else None for n in entry.saved_names]),
    })


def array_forms(cls):
    """Whether the generated node class `cls` runs on arrays: compiles its entry's array formulas
    (once; every formula must have an array form reading only names of the array namespace) and
    sets the class's array attributes, or `_apply_arrays = None`."""
    entry = cls._entry
    if cls._apply_arrays is None:
        return False
    if entry.array_formulas is None:
        forms = []
        for idxs, expr, line in entry.array_sources:
            arr = _compile_array_formula(expr, entry.saved_names, line, entry.op_name, ARRAY_BUILTINS)
            if arr is None or not all(helper_form(n, entry.array_scope) for n in arr[1]):
                cls._apply_arrays = None
                return False
            forms.append((idxs, types.FunctionType(arr[0], entry.array_scope)))
        entry.array_formulas = forms
    for name, value in _array_attributes(entry, list(cls._diff_args)).items():
        setattr(cls, name, value)
    cls._apply_arrays = GeneratedNode._run_arrays
    return True


def helper_form(name, scope, _seen=()):
    """Whether array formulas may read `name` from the array namespace `scope`: it is there, or it
    is `_f_<helper>` for a helper of formulas.py that compiles as the formulas do (its body through
    _ArrayRewrite, each name it reads having an array form, recursively); that form is then added
    to `scope` (on first need: parsing the helpers at import would cost its time)."""
    if name in scope or name in ARRAY_BUILTINS:
        return True
    fn = getattr(formulas, name[3:], None) if name.startswith("_f_") and name not in _seen else None
    if not isinstance(fn, types.FunctionType) or fn.__module__ != formulas.__name__ or name in _NO_HELPER_FORM:
        return False
    func = _helper_def(fn)
    rewrite = _ArrayRewrite([a.arg for a in func.args.args + func.args.kwonlyargs] + [
        n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)], ARRAY_BUILTINS)
    try:
        body = [rewrite.visit(statement) for statement in func.body]
    except ValueError:
        body = None
    if body is None or func.decorator_list or not all(helper_form(n, scope, _seen + (name,)) for n in rewrite.needed):
        _NO_HELPER_FORM.add(name)
        return False
    tree = ast.Module([ast.FunctionDef(name, func.args, body, [], None)], [])
    exec(compile(ast.fix_missing_locations(tree), formulas.__file__, "exec"), scope)
    return True


_NO_HELPER_FORM = set()


def _helper_def(fn):
    """The definition of formulas.py's function `fn`, parsed from its source alone, at its lines in the
    file (nothing kept: a parsed module would be objects for every collection of the cyclic GC to walk)."""
    tree = ast.parse(inspect.getsource(fn))
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    return tree.body[0]


def _array_attributes(entry, diff_args):
    """The class attributes _run_arrays reads: the array formulas by argument position."""
    formulas = tuple((tuple(diff_args.index(i) for i in idxs), fn) for idxs, fn in entry.array_formulas)
    per_argument = None   # each argument's own formula (None: it has none), where no formula serves several
    if all(len(targets) == 1 for targets, _ in formulas):
        per_argument = [None] * len(diff_args)
        for (t,), fn in formulas:
            per_argument[t] = fn
        per_argument = tuple(per_argument)
    return {"_array_formulas": formulas,
            "_only_array_formula": staticmethod(formulas[0][1]) if len(formulas) == 1 and len(diff_args) == 1
            else None,
            "_array_per_argument": per_argument}


class GeneratedNode(Node):
    """Runs the compiled formulas of its yaml entry for the inputs whose gradient is needed."""
    __slots__ = ()
    _edge_slices = None   # a slot in classes with Tensor[] arguments: edge range of each argument
    _diff_args = ()
    _formulas = ()
    _one_formula = False   # a single formula for the single differentiable argument
    _only_formula = None   # that formula, where the argument is no list (one edge)

    def _apply(self, grads, mask, create_graph):
        saved = self._unpack_saved()
        only = self._only_formula
        if only is not None:   # the code below, for one formula of one argument (not a list)
            return [only(grads, mask, *saved) if mask[0] else None]
        slices = self._edge_slices
        if self._one_formula and slices is None:   # the loop below, for one formula of one argument
            return [self._formulas[0][1](grads, mask, *saved) if mask[0] else None]
        n_args = len(self._diff_args)
        out = [None] * n_args
        arg_mask = mask if slices is None else _per_argument(mask, slices)
        for targets, fn in self._formulas:
            if arg_mask[targets[0]] or len(targets) > 1 and _any_of(arg_mask, targets):
                res = fn(grads, arg_mask, *saved)
                if len(targets) == 1:
                    out[targets[0]] = res
                else:
                    for t, r in zip(targets, res):
                        out[t] = r
        if slices is None:
            return out
        flat = []
        for value, s in zip(out, slices):
            count = s.stop - s.start
            if s.stop - s.start == 1 and not isinstance(value, (list, tuple)):
                flat.append(value)
            else:
                flat.extend(value if value is not None else [None] * count)
        return flat


    # The engine's array path (see array_formulas.py): the formulas on NumPy arrays --------
    _array_formulas = ()
    _only_array_formula = None
    _array_per_argument = None

    def _apply_arrays(self, grads, mask):
        """_run_arrays, once array_forms compiled the class's array formulas (its first call);
        None for a class without them (array_forms then sets `_apply_arrays = None`)."""
        return self._run_arrays(grads, mask) if array_forms(type(self)) else None

    def _run_arrays(self, grads, mask):
        """The gradients for the inputs as arrays, computed by the entry's array formulas from
        `grads` (arrays, or plain Tensors, which are unwrapped); None where the array path cannot
        give exactly what _apply gives (a gradient missing, saved values freed or needing Tensors,
        forward AD, the profiler's, selective checkpointing's or autocast's slot of the registry in
        use, a Fallback or any error in a formula: _apply then runs, and raises torch's error where
        there is one)."""
        # (vmap's batched tensors never get here: only exact Tensors and NumPy arrays are unwrapped)
        if _registry.profile_op is not None or _registry.dispatch_hook is not None or _registry.autocast is not None:
            return None
        if len(grads) == 1:
            g = grads[0]
            if type(g) is _ndarray:
                arrays = grads   # (formulas only read it)
            elif type(g) is not Tensor or g._math_bits or type(g._array) is not _ndarray:
                return None
            else:
                arrays = [g._array]
        else:
            arrays = _plain_arrays(grads, self._out_meta if not self._takes_missing else None)
            if arrays is None:
                return None
        saved = self._saved
        if saved is None or _forward_ad_state.level is not None:
            return None
        if (vc := self._versions) is LAZY_VC or type(vc) is list and self._result_only:   # compact (see SavedOutput)
            if vc[0] or type(saved) is not _ndarray:
                return None
            saved = (saved,)
        elif self._saved_tensor_idx:
            saved = self._saved_arrays(saved)
            if saved is None:
                return None
        try:
            only = self._only_array_formula
            if only is not None:
                if not mask[0]:
                    return [None]
                out = only(arrays, mask, *saved)
                return [out] if type(out) is _ndarray else None
            per_argument = self._array_per_argument
            if per_argument is not None and len(per_argument) == 2:   # the loop below, for two arguments
                f0, f1 = per_argument
                r0 = f0(arrays, mask, *saved) if mask[0] and f0 is not None else None
                r1 = f1(arrays, mask, *saved) if mask[1] and f1 is not None else None
                if r0 is not None and type(r0) is not _ndarray or r1 is not None and type(r1) is not _ndarray:
                    return None
                return [r0, r1]
            if per_argument is not None:   # the loop below where each argument has its own formula
                out = []
                for fn, wanted in zip(per_argument, mask):
                    if wanted and fn is not None:
                        res = fn(arrays, mask, *saved)
                        if type(res) is not _ndarray and res is not None:
                            return None
                        out.append(res)
                    else:
                        out.append(None)
                return out
            n_args = len(self._diff_args)
            out = [None] * n_args
            for targets, fn in self._array_formulas:
                if mask[targets[0]] or len(targets) > 1 and _any_of(mask, targets):
                    res = fn(arrays, mask, *saved)
                    if len(targets) == 1:
                        out[targets[0]] = res
                    else:
                        for t, r in zip(targets, res):
                            out[t] = r
        except Exception:  # noqa: BLE001 - Fallback, or an error the Tensor path reports in torch's words
            return None
        for r in out:
            if r is not None and type(r) is not _ndarray:
                return None
        return out

    def _saved_arrays(self, saved):
        """The saved values `saved` (not freed; no forward AD level) with each Tensor as its array,
        after the same version checks as _unpack_saved, or None where a formula needs the Tensor
        path: modified in place (its error), saved-tensor hooks, a subclass, a lazy conj/neg view,
        a list, a non-NumPy array."""
        if len(saved) == 1:   # one saved output (tanh, exp, sigmoid...): the loop below for it
            value = saved[0]
            if type(value) is SavedOutput and value.vc[0] == self._versions[0] and value.cls is Tensor \
                    and type(value.data) is _ndarray:
                return (value.data,)
        versions = self._versions
        if type(versions) is NoTensors:   # no tensor saved (x * 2.0 saves its number): nothing to unwrap
            return saved   # (record gives every Tensor, SavedOutput and Tensor[] it saves a version)
        values = list(saved)
        for i in self._saved_tensor_idx:
            value = values[i]
            kind = type(value)
            if value is None or kind is TensorMeta:   # not saved (no formula that runs reads it), or its metadata
                continue
            if versions[i] is None or kind in _NUMBERS:   # kept as is by _unpack_saved: a Python number (x * 2.0)
                if kind is Tensor or kind is SavedOutput or isinstance(value, (Tensor, list)):   # stays one
                    return None
                continue
            if kind is SavedOutput:
                if value.vc[0] != versions[i] or value.cls is not Tensor or type(value.data) is not _ndarray:
                    return None
                values[i] = value.data
            elif kind is Tensor or kind in PLAIN_TYPES:   # (a module's weight: a Parameter)
                if not _plain_saved(value, versions[i]):
                    return None
                values[i] = value._array
            elif kind is list and type(versions[i]) is list:   # Tensor?[] (index's indices), each as a Tensor above
                for t, v in zip(value, versions[i]):
                    if t is not None and not _plain_saved(t, v):
                        return None
                values[i] = [None if t is None else t._array for t in value]
            else:
                return None
        return values


def _plain_saved(t, version):
    """Whether saved Tensor `t` reads as its NumPy array on the array path: unchanged since it was saved,
    of a plain class, no lazy conj/neg view, not a detached alias."""
    return (type(t) is Tensor or type(t) in PLAIN_TYPES) and (t._vcs or t._vc)[0] == version and not t._math_bits \
        and t._detached_from is None and type(t._array) is _ndarray


class NotImplementedNode(GeneratedNode):
    """torch's NotImplemented node (an op without a derivative): its error names the op as it was
    called, so an in-place call (which records the out-of-place op's node) names `aten::op_`.
    The op glue sets `recorded_inplace` on nodes whose class has that slot."""
    __slots__ = ("recorded_inplace",)

    def _inplace_error(self):
        if getattr(self, "recorded_inplace", False):
            base = self._entry.base
            raise RuntimeError(f"derivative for aten::{base if base.endswith('_') else base + '_'} is not "
                               "implemented")

    def _apply(self, grads, mask, create_graph):
        self._inplace_error()
        return super()._apply(grads, mask, create_graph)

    def _apply_arrays(self, grads, mask):
        self._inplace_error()
        return super()._apply_arrays(grads, mask)


def _plain_arrays(grads, out_meta):
    """A node's several gradients as arrays, the missing ones zeros as the engine's fill_missing
    makes them (from the outputs' metadata `out_meta`; none for integer outputs); None if one is no
    plain array or Tensor, or none arrived."""
    arrays = []
    missing = 0
    for i, g in enumerate(grads):
        if g is None:
            if out_meta is None:
                return None
            shape, dt = out_meta[i]
            g = np.zeros(shape, dt) if dt.kind in INEXACT_KINDS else None
            missing += 1
        elif type(g) is not _ndarray:
            if type(g) is not Tensor or g._math_bits or type(g._array) is not _ndarray:
                return None
            g = g._array
        arrays.append(g)
    return arrays if missing < len(grads) else None


# (helpers rather than comprehensions inside _apply: those would make its locals closure cells,
# slower on every node)
def _per_argument(mask, slices):
    return [any(mask[s]) for s in slices]


def _any_of(mask, indices):
    return any(mask[i] for i in indices)
