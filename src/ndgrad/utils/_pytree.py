"""Pytrees: nested containers of leaves, as torch.utils._pytree.

The function transforms (ndgrad.func) take and return such nests: `tree_flatten` gives the leaves
in order and a TreeSpec that `tree_unflatten` uses to rebuild the nest. The containers are the types
in a registry (`SUPPORTED_NODES`): tuple, list, dict, namedtuples, OrderedDict, defaultdict, deque, and
whatever `register_pytree_node` adds; anything else (a Tensor, a number, None) is a leaf. One
mechanism, written here in Python (torch's Python implementation's behaviour; no optree).
"""
import collections
import dataclasses
import json
from collections import OrderedDict, defaultdict, deque, namedtuple

__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure",
           "register_pytree_node", "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path", "keystr",
           "key_get", "tree_map_only", "tree_map_", "tree_map_only_", "tree_iter", "tree_all", "tree_any",
           "tree_all_only", "tree_any_only", "tree_is_leaf", "is_namedtuple", "is_namedtuple_class",
           "is_namedtuple_instance", "is_structseq", "is_structseq_class", "is_structseq_instance", "treespec_dumps",
           "treespec_loads", "treespec_pprint", "SequenceKey", "MappingKey", "GetAttrKey"]


class TreeSpec:
    """The shape of a nest: its container type, context (dict keys) and the specs of its children."""
    __slots__ = ("type", "context", "children_specs", "num_leaves")

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, children_specs
        self.num_leaves = sum(c.num_leaves for c in children_specs)

    def is_leaf(self):
        return False

    @property
    def num_children(self):
        return len(self.children_specs)

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.children_specs)

    def children(self):
        return list(self.children_specs)

    def child(self, index):
        return self.children_specs[index]

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.is_leaf() == other.is_leaf() and self.type is other.type
                and self.context == other.context and self.children_specs == other.children_specs)

    def __hash__(self):
        return hash((self.type, repr(self.context), tuple(self.children_specs)))

    def _repr(self, indent):
        sep = ",\n" + " " * (indent + 2)
        children = sep.join(c._repr(indent + 2) for c in self.children_specs)
        return f"TreeSpec({self.type.__name__}, {self.context}, [{children}])"

    def __repr__(self):
        return self._repr(0)


class LeafSpec(TreeSpec):
    __slots__ = ()

    def __init__(self):
        self.type, self.context, self.children_specs, self.num_leaves = None, None, [], 1

    def is_leaf(self):
        return True

    def _repr(self, indent):
        return "*"


_LEAF = LeafSpec()


# ---- key paths --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """A position in a sequence node: ``[idx]``."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """A key of a mapping node: ``['key']``."""
    key: object

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """An attribute of a node (a namedtuple's field): ``.name``."""
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp):
    """The key path `kp` as Python source (``"['a'][0].x"``)."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The item of `obj` that the key path `kp` leads to."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ---- the registry -----------------------------------------------------------------------------------------
NodeDef = collections.namedtuple("NodeDef", "type flatten_fn unflatten_fn flatten_with_keys_fn")
_SerializeNodeDef = collections.namedtuple("_SerializeNodeDef",
                                           "typ serialized_type_name to_dumpable_context from_dumpable_context")
SUPPORTED_NODES = {}
SUPPORTED_SERIALIZED_TYPES = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Makes `cls` a container: ``flatten_fn(node) -> (children, context)`` and ``unflatten_fn(children,
    context) -> node``; `flatten_with_keys_fn(node) -> ([(key, child)], context)` for the *_with_path
    functions; `serialized_type_name` (and a context's to/from JSON-able converters) for treespec_dumps."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or registered.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if serialized_type_name is not None:
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, serialized_type_name, to_dumpable_context,
                                                            from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def _sequence(kind):
    return (lambda node: (list(node), None), lambda children, context: kind(children),
            lambda node: ([(SequenceKey(i), c) for i, c in enumerate(node)], None))


def _mapping(make):
    return (lambda node: (list(node.values()), list(node.keys())), make,
            lambda node: ([(MappingKey(k), v) for k, v in node.items()], list(node.keys())))


def _namedtuple_keys(node):
    return [(GetAttrKey(f), v) for f, v in zip(node._fields, node)], type(node)


def _namedtuple_dumpable(context):
    raise NotImplementedError(f"Can't serialize TreeSpec of namedtuple class {context} because we didn't register "
                              "a serializated_type_name. Please register using `_register_namedtuple`.")


def _namedtuple_from_dumpable(dumpable):
    raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {dumpable}.")


def _defaultdict_dumpable(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__, "default_factory_name": factory.__qualname__,
            "dict_context": keys}


def _defaultdict_from_dumpable(dumpable):
    import importlib   # lazy on purpose: only a loaded spec names the factory's module
    module = importlib.import_module(dumpable["default_factory_module"])
    return [getattr(module, dumpable["default_factory_name"]), dumpable["dict_context"]]


register_pytree_node(tuple, *_sequence(tuple)[:2], serialized_type_name="builtins.tuple",
                     flatten_with_keys_fn=_sequence(tuple)[2])
register_pytree_node(list, *_sequence(list)[:2], serialized_type_name="builtins.list",
                     flatten_with_keys_fn=_sequence(list)[2])
register_pytree_node(dict, *_mapping(lambda children, keys: dict(zip(keys, children)))[:2],
                     serialized_type_name="builtins.dict", flatten_with_keys_fn=_mapping(dict)[2])
register_pytree_node(namedtuple, lambda node: (list(node), type(node)), lambda children, cls: cls(*children),
                     serialized_type_name="collections.namedtuple", to_dumpable_context=_namedtuple_dumpable,
                     from_dumpable_context=_namedtuple_from_dumpable, flatten_with_keys_fn=_namedtuple_keys)
register_pytree_node(OrderedDict, *_mapping(lambda children, keys: OrderedDict(zip(keys, children)))[:2],
                     serialized_type_name="collections.OrderedDict", flatten_with_keys_fn=_mapping(OrderedDict)[2])
register_pytree_node(defaultdict, lambda node: (list(node.values()), [node.default_factory, list(node.keys())]),
                     lambda children, context: defaultdict(context[0], zip(context[1], children)),
                     serialized_type_name="collections.defaultdict", to_dumpable_context=_defaultdict_dumpable,
                     from_dumpable_context=_defaultdict_from_dumpable,
                     flatten_with_keys_fn=lambda node: ([(MappingKey(k), v) for k, v in node.items()],
                                                        [node.default_factory, list(node.keys())]))
register_pytree_node(deque, lambda node: (list(node), node.maxlen),
                     lambda children, maxlen: deque(children, maxlen=maxlen), serialized_type_name="collections.deque",
                     flatten_with_keys_fn=lambda node: ([(SequenceKey(i), c) for i, c in enumerate(node)], node.maxlen))


# ---- what is a node ---------------------------------------------------------------------------------------
def is_namedtuple_class(cls):
    """Whether `cls` is a namedtuple class (a tuple subclass with ``_fields``, ``_make`` and ``_asdict``)."""
    return (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields) and callable(getattr(cls, "_make", None))
            and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj):
    """Whether `obj` is an instance of a namedtuple class."""
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    """Whether `obj` is a namedtuple class or an instance of one."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


_Py_TPFLAGS_BASETYPE = 1 << 10


def is_structseq_class(cls):
    """Whether `cls` is a C struct sequence type (``os.stat_result``, ``time.struct_time``): a direct tuple
    subclass with integer ``n_fields``, ``n_sequence_fields``, ``n_unnamed_fields`` that cannot be
    subclassed."""
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int) for a in ("n_fields", "n_sequence_fields",
                                                                     "n_unnamed_fields"))
            and not cls.__flags__ & _Py_TPFLAGS_BASETYPE)


def is_structseq_instance(obj):
    """Whether `obj` is an instance of a struct sequence type."""
    return is_structseq_class(type(obj))


def is_structseq(obj):
    """Whether `obj` is a struct sequence type or an instance of one."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree):
    return namedtuple if is_namedtuple_instance(tree) else type(tree)


def tree_is_leaf(tree, is_leaf=None):
    """Whether `tree` is a leaf: `is_leaf(tree)` says so, or its type is not a registered container."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


def _children(tree, is_leaf=None):
    """(type, context, children) of a container, None for a leaf."""
    if tree_is_leaf(tree, is_leaf):
        return None
    t = _node_type(tree)
    children, context = SUPPORTED_NODES[t].flatten_fn(tree)
    return t, context, list(children)


# ---- flatten / unflatten ----------------------------------------------------------------------------------
def tree_flatten(tree, is_leaf=None):
    """(leaves, spec) of a nest."""
    leaves = []

    def walk(node):
        parts = _children(node, is_leaf)
        if parts is None:
            leaves.append(node)
            return _LEAF
        t, context, children = parts
        return TreeSpec(t, context, [walk(c) for c in children])

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    """The nest of shape `spec` holding `leaves` in order."""
    if not isinstance(spec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(spec)}.")
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to "
                         f"a pytree that holds {spec.num_leaves} items ({spec}).")
    it = iter(leaves)

    def build(s):
        if s.is_leaf():
            return next(it)
        return SUPPORTED_NODES[s.type].unflatten_fn([build(c) for c in s.children_specs], s.context)

    return build(spec)


def tree_iter(tree, is_leaf=None):
    """The leaves of a nest, one by one, in order."""
    parts = _children(tree, is_leaf)
    if parts is None:
        yield tree
        return
    for child in parts[2]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(fn, tree, *rests, is_leaf=None):
    """fn applied to each leaf of tree (and the leaves at the same places in rests), same nest."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [_flatten_as(r, spec, is_leaf) for r in rests]
    return tree_unflatten([fn(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_(fn, tree, *rests, is_leaf=None):
    """fn called on each leaf (and the leaves at the same places in rests) for its effect; returns `tree`."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [_flatten_as(r, spec, is_leaf) for r in rests]
    for xs in zip(leaves, *others):
        fn(*xs)
    return tree


def _flatten_as(tree, spec, is_leaf=None):
    leaves, other = tree_flatten(tree, is_leaf)
    if other != spec:
        raise ValueError(f"Tree structure mismatch: expected {spec}, got {other}")
    return leaves


def _only(type_or_types_or_pred, fn):
    """fn on the leaves the filter selects (a type, a tuple of types or a predicate), the others as they are."""
    if isinstance(type_or_types_or_pred, (type, tuple)) or type(type_or_types_or_pred).__name__ == "UnionType":
        def wanted(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        wanted = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")
    return lambda x: fn(x) if wanted(x) else x, wanted


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """tree_map applying `func` to the leaves of the given type(s) (or that a predicate selects) only."""
    return tree_map(_only(type_or_types_or_pred, func)[0], tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """tree_map_ calling `func` on the leaves of the given type(s) only; returns `tree`."""
    return tree_map_(_only(type_or_types_or_pred, func)[0], tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    """Whether `pred` holds for every leaf of the given type(s)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    """Whether `pred` holds for some leaf of the given type(s)."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


# ---- key paths over a nest --------------------------------------------------------------------------------
def _keyed_children(tree):
    t = _node_type(tree)
    keys_fn = SUPPORTED_NODES[t].flatten_with_keys_fn
    if keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {t}. Please pass a flatten_with_keys_fn "
                         "argument to register_pytree_node.")
    return keys_fn(tree)[0]


def tree_flatten_with_path(tree, is_leaf=None):
    """([(key path, leaf)], spec): each leaf with the keys that lead to it from the root."""
    out = []

    def walk(node, path):
        if tree_is_leaf(node, is_leaf):
            out.append((path, node))
            return
        for key, child in _keyed_children(node):
            walk(child, path + (key,))

    walk(tree, ())
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """tree_map whose `func(path, leaf, *others)` also sees each leaf's key path."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [_flatten_as(r, spec, is_leaf) for r in rests]
    return tree_unflatten([func(p, x, *xs) for (p, x), *xs in zip(pairs, *others)], spec)


# ---- serialization ----------------------------------------------------------------------------------------
DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1


def _spec_to_json(spec):
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if node is None:
        raise NotImplementedError(f"No registered serialization name for {spec.type} found. Please update your "
                                  "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if node.to_dumpable_context is not None:
        context = node.to_dumpable_context(spec.context)
    else:
        try:
            context = json.dumps(spec.context)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json dump-able, or register a "
                            "custom serializer using _register_pytree_node.") from e
    return {"type": node.serialized_type_name, "context": context,
            "children_spec": [_spec_to_json(c) for c in spec.children_specs]}


def _json_to_spec(data):
    if data["type"] is None and data["context"] is None and not data["children_spec"]:
        return _LEAF
    cls = SERIALIZED_TYPE_TO_PYTHON_TYPE.get(data["type"])
    if cls is None:
        raise NotImplementedError(f"Deserializing {data['type']} in pytree is not registered.")
    node = SUPPORTED_SERIALIZED_TYPES[cls]
    context = (node.from_dumpable_context(data["context"]) if node.from_dumpable_context is not None
               else json.loads(data["context"]))
    return TreeSpec(cls, context, [_json_to_spec(c) for c in data["children_spec"]])


_PROTOCOLS = {1: (_spec_to_json, _json_to_spec)}


def _protocol(protocol):
    if protocol not in _PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: {list(_PROTOCOLS)}")
    return _PROTOCOLS[protocol]


def treespec_dumps(treespec, protocol=None):
    """The spec as a JSON string (``[protocol, spec]``), for treespec_loads."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"treespec_dumps(treespec, protocol): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    return json.dumps([protocol, _protocol(protocol)[0](treespec)])


def treespec_loads(serialized):
    """The spec that treespec_dumps wrote."""
    protocol, data = json.loads(serialized)
    return _protocol(protocol)[1](data)


class _Star:
    def __repr__(self):
        return "*"


def treespec_pprint(treespec):
    """The nest the spec describes, with ``*`` for each leaf (``"[*, (*, {'a': *})]"``)."""
    return repr(tree_unflatten([_Star()] * treespec.num_leaves, treespec))


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of `prefix` repeated over `spec`: a prefix leaf stands for every leaf of the
    subtree at its place (vmap's in_dims=0 for a tuple of tensors). None when it does not fit."""
    out = []

    def walk(p, s):
        parts = _children(p)
        if parts is None:
            out.extend([p] * s.num_leaves)
            return True
        t, context, children = parts
        if s.is_leaf() or t is not s.type or len(children) != len(s.children_specs):
            return False
        if t is dict:
            if set(context) != set(s.context):
                return False
            children = [p[k] for k in s.context]
        return all(walk(c, cs) for c, cs in zip(children, s.children_specs))

    return out if walk(prefix, spec) else None
