"""Pytrees: nested tuples, lists, dicts (and namedtuples) of leaves, as torch.utils._pytree.

The function transforms (ndgrad.func) take and return such nests: `tree_flatten` gives the leaves
in order and a TreeSpec that `tree_unflatten` uses to rebuild the nest. Anything that is not a
tuple, list or dict (a Tensor, a number, None) is a leaf.
"""
__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure"]


class TreeSpec:
    """The shape of a nest: its container type, context (dict keys) and the specs of its children."""
    __slots__ = ("type", "context", "children_specs", "num_leaves")

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, children_specs
        self.num_leaves = sum(c.num_leaves for c in children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.is_leaf() == other.is_leaf() and self.type is other.type
                and self.context == other.context and self.children_specs == other.children_specs)

    def __hash__(self):
        return hash((self.type, repr(self.context), tuple(self.children_specs)))

    def _repr(self, indent):
        sep = ",\n" + " " * (indent + 2)
        children = sep.join(c._repr(indent + 2) for c in self.children_specs)
        context = None if self.context is None else list(self.context) if self.type is dict else self.context
        return f"TreeSpec({self.type.__name__}, {context}, [{children}])"

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


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(tree):
    """(type, context, children) of a container, None for a leaf."""
    t = type(tree)
    if t is tuple or t is list:
        return t, None, list(tree)
    if t is dict:
        return t, list(tree.keys()), list(tree.values())
    if _is_namedtuple(tree):
        return t, t, list(tree)
    return None


def tree_flatten(tree):
    """(leaves, spec) of a nest."""
    leaves = []

    def walk(node):
        parts = _children(node)
        if parts is None:
            leaves.append(node)
            return _LEAF
        t, context, children = parts
        return TreeSpec(t, context, [walk(c) for c in children])

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    """The nest of shape `spec` holding `leaves` in order."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to "
                         f"a pytree that holds {spec.num_leaves} items ({spec}).")
    it = iter(leaves)

    def build(s):
        if s.is_leaf():
            return next(it)
        children = [build(c) for c in s.children_specs]
        if s.type is dict:
            return dict(zip(s.context, children))
        if s.type is list:
            return children
        if s.type is tuple:
            return tuple(children)
        return s.type(*children)   # a namedtuple

    return build(spec)


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_structure(tree):
    return tree_flatten(tree)[1]


def tree_map(fn, tree, *rests):
    """fn applied to each leaf of tree (and the leaves at the same places in rests), same nest."""
    leaves, spec = tree_flatten(tree)
    others = [_flatten_as(r, spec) for r in rests]
    return tree_unflatten([fn(*xs) for xs in zip(leaves, *others)], spec)


def _flatten_as(tree, spec):
    leaves, other = tree_flatten(tree)
    if other != spec:
        raise ValueError(f"Tree structure mismatch: expected {spec}, got {other}")
    return leaves


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
