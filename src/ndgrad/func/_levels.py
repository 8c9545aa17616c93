"""What every transform of ndgrad.func shares: argument checks, fresh inputs and lifting results.

A transform level is a call of grad/vjp/jacrev/jvp/jacfwd. It runs the user's function on
*fresh* copies of the inputs it differentiates with respect to, so that ordinary autograd (and
forward AD) can tell them from everything else, and computes gradients with `create_graph` only
when something outside the level still needs the graph: an enclosing transform, a captured
tensor that requires grad, or an active dual level. Nested levels therefore compose
(grad(grad(f)), jacfwd(jacrev(f))) and one level's inputs are never confused with another's.
Results that depend on nothing outside the level are detached ("lifted" back out of it), keeping
their forward-mode tangent if they have one.
"""
from .._tensor import Tensor
from ..autograd import forward_ad as fwad
from ..autograd.node import AccumulateGrad
from ..utils._pytree import tree_flatten


def check_argnums(argnums, nargs):
    """argnums as a tuple of non-negative positions (torch.func's errors for bad ones)."""
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        nums = argnums
    elif isinstance(argnums, int) and not isinstance(argnums, bool):
        nums = (argnums,)
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for n in nums:
        if not isinstance(n, int) or isinstance(n, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
    return tuple(n % nargs for n in nums)


def check_tensor(x):
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    return x


class Level:
    """The fresh leaves of one transform level; `fresh` makes them, `lift` takes results out."""
    __slots__ = ("own", "outside")

    def __init__(self):
        self.own = set()       # ids of the leaves this level made
        self.outside = False   # the outputs' graph reaches something not made here

    def fresh(self, x):
        """A tensor equal to x that requires grad, from which gradients at this level are taken."""
        check_tensor(x)
        tangent = fwad.tangent_of(x) if fwad.state.level is not None else None
        if x.requires_grad:
            return x.view_as(x)   # keeps the history (and the tangent) for the levels outside
        leaf = x.detach().requires_grad_()
        self.own.add(id(leaf))
        return leaf if tangent is None else fwad.make_dual(leaf, tangent)

    def look_outside(self, tensors):
        """Note whether the graph of `tensors` reaches a leaf this level did not make."""
        if not self.outside:
            self.outside = reaches_outside(tensors, self.own)
        return self.outside

    def create_graph(self):
        # an active dual level needs the formulas recorded so that gradients carry tangents
        return self.outside or fwad.state.level is not None

    def lift(self, x):
        """x as seen outside the level: detached unless something outside depends on its graph."""
        if self.outside or not isinstance(x, Tensor) or not x.requires_grad:
            return x
        tangent = fwad.tangent_of(x) if fwad.state.level is not None else None
        out = x.detach()
        return out if tangent is None else fwad.make_dual(out, tangent.detach())


def reaches_outside(tensors, own):
    """Whether the backward graph of `tensors` reaches a leaf whose id is not in `own`."""
    seen, stack = set(), []
    for t in tree_flatten(tensors)[0]:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if id(t) not in own:
                    return True
            else:
                stack.append(t.grad_fn)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own:
                return True
            continue
        stack.extend(n for n, _ in node.next_functions)
    return False


def pprint(spec):
    """A short picture of a pytree's structure, as torch's error messages print it."""
    if spec.is_leaf():
        return "*"
    parts = [pprint(c) for c in spec.children_specs]
    if spec.type is dict:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(spec.context, parts)) + "}"
    if spec.type is list:
        return "[" + ", ".join(parts) + "]"
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
