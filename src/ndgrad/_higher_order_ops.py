"""torch.cond and torch.while_loop, run eagerly.

torch compiles these higher-order ops (it traces both branches, or the loop body, before running them)
and refuses what it cannot trace; ndgrad runs them in Python and makes the same checks on what the
branches and the body return: same pytree structure and tensor metadata for both branches, a loop
body that keeps its carried values' metadata, no output that aliases an input, no in-place change of
an input. With a tensor predicate the outputs pass through one autograd node, ``CondAutogradOp``
(``WhileLoopAutogradOp`` for a loop), as torch's do; gradients flow to the operands and to tensors the
branches capture alike, through the graph the branch recorded.
"""
from . import _random
from ._dtype import bool_
from ._tensor import Tensor
from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled, no_grad
from .utils._pytree import tree_flatten, tree_unflatten

__all__ = ["cond", "while_loop"]


class CondAutogradOp(Function):
    """The node between a cond's branch outputs and the caller (gradients pass through unchanged)."""

    @staticmethod
    def forward(ctx, *outputs):
        return tuple(o.detach() for o in outputs)

    @staticmethod
    def backward(ctx, *grads):
        return grads


class WhileLoopAutogradOp(CondAutogradOp):
    """The node between a while_loop's final carried values and the caller."""


def _through_node(node, out):
    """`out` with its tensors passed through `node` when one of them requires grad (grad mode on)."""
    leaves, spec = tree_flatten(out)
    at = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
    if not is_grad_enabled() or not any(leaves[i].requires_grad for i in at):
        return out
    passed = node.apply(*[leaves[i] for i in at])
    for i, t in zip(at, passed):
        leaves[i] = t
    return tree_unflatten(leaves, spec)


def _root(t):
    while t._base is not None:
        t = t._base
    return t


def _check_aliasing_and_mutation(op, inputs, versions, outputs):
    roots = {id(_root(t)) for t in inputs}
    if any(isinstance(o, Tensor) and id(_root(o)) in roots for o in outputs):
        raise RuntimeError(f"Encountered aliasing during higher order op tracing: torch.{op} does not support "
                           "aliasing (an output of a branch or body is an input or a view of one). Replace "
                           "`return input` with `return input.clone()` to avoid aliasing.")
    if any(t._version != v for t, v in zip(inputs, versions)):
        raise RuntimeError(f"Encountered input mutation during higher order op tracing: torch.{op} does not support "
                           "input mutation (a branch or body modified an input in place).")


def _run(op, fn, flat_inputs, spec):
    """fn on the unflattened inputs, checked for aliasing and in-place changes of them."""
    versions = [t._version for t in flat_inputs if isinstance(t, Tensor)]
    out = fn(*tree_unflatten(flat_inputs, spec))
    _check_aliasing_and_mutation(op, [t for t in flat_inputs if isinstance(t, Tensor)], versions,
                                 tree_flatten(out)[0])
    return out


def _trial(op, fn, flat_inputs, spec):
    """fn run to check what it does: on copies of the inputs, no graph, the random state restored."""
    state = _random.get_rng_state()
    try:
        with no_grad():
            return _run(op, fn, [t.detach().clone() if isinstance(t, Tensor) else t for t in flat_inputs], spec)
    finally:
        _random.set_rng_state(state)


def _check_branches_match(true_out, false_out):
    true_leaves, true_spec = tree_flatten(true_out)
    false_leaves, false_spec = tree_flatten(false_out)
    if true_spec != false_spec:
        raise RuntimeError("Unmatched output spec from torch.cond branches: "
                           f"true branch tree_spec {true_spec} vs false branch tree_spec {false_spec}.")
    for a, b in zip(true_leaves, false_leaves):
        if (a is None) != (b is None):
            raise AssertionError(f"expected both a and b to be None, got a={a}, b={b}")
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            for attr in ("dtype", "device", "layout", "dim"):
                left, right = getattr(a, attr), getattr(b, attr)
                left, right = (left(), right()) if callable(left) else (left, right)
                if left != right:
                    raise RuntimeError(f"When merging two branches' output in torch.cond,  expected same {attr} but "
                                       f"got {left} and {right}.")


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if `pred` else ``false_fn(*operands)``.

    A Python bool (or number) `pred` just picks the branch. A one-element tensor `pred` makes it the op
    torch compiles: `operands` must be a tuple (or list) of nested tensors, both branches must return the
    same structure with tensors of the same dtype, device, layout and rank, and neither may return an
    operand (or a view of one) or change one in place; both branches first run on copies of the operands
    to check that (no graph, the random state restored), then the chosen one runs.

    Example::

        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> y = torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))
        >>> y.grad_fn.name()
        'CondAutogradOpBackward'
    """
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not all(isinstance(t, Tensor) for t in tree_flatten(operands)[0]):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                           f"tensor leaves, but got {operands}.")
    flat, spec = tree_flatten(tuple(operands))
    # torch traces both branches before running one: here both run first on copies of the operands (the
    # true branch first), without a graph and with the random state put back, so that a refused branch
    # changes nothing; then the chosen one runs on the operands themselves
    _check_branches_match(*(_trial("cond", fn, flat, spec) for fn in (true_fn, false_fn)))
    return _through_node(CondAutogradOp, (true_fn if bool(pred) else false_fn)(*tree_unflatten(flat, spec)))


def _check_carried(flat_inputs):
    if not all(isinstance(t, (Tensor, int)) for t in flat_inputs):
        raise AssertionError(f"{flat_inputs} can only be of {(Tensor, int)} but got "
                             f"{tuple(type(t) for t in flat_inputs)}")


def _check_body_output(out, flat_carried):
    flat_out = tree_flatten(out)[0]
    if len(flat_out) != len(flat_carried):
        raise AssertionError("body_fn should return the same number of elements as carried_inputs, got "
                             f"{len(flat_out)} vs {len(flat_carried)}")
    for i, (o, c) in enumerate(zip(flat_out, flat_carried)):
        if isinstance(c, Tensor):
            diffs = [f"'{attr}: {getattr(o, attr, type(o))} vs {getattr(c, attr)}'"
                     for attr in ("shape", "dtype", "device") if getattr(o, attr, None) != getattr(c, attr)]
            if diffs:
                raise RuntimeError("Expected body_fn_output and carried_inputs to have same metadata but found:\n"
                                   f"pair[{i}] differ in {', '.join(diffs)}")
    return flat_out


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` is true (a bool, or a boolean 0-d
    tensor), from `carried_inputs` (a tuple or list of nested tensors and ints), and returns the last
    carried values (copies of the inputs when the body never runs). The body must keep each tensor's
    shape, dtype and device and must not return an input (or a view of one).

    Example::

        >>> i, x = torch.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
        ...                         (torch.tensor(0), torch.tensor([1.0, 2.0])))
        >>> i, x
        (tensor(3), tensor([ 8., 16.]))
    """
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    flat, spec = tree_flatten((carried_inputs, ()))
    _check_carried(flat)
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")

    def should_loop(values):
        pred = cond_fn(*values)
        if not ((isinstance(pred, Tensor) and pred.shape == () and pred.dtype == bool_) or isinstance(pred, bool)):
            raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got {pred}")
        return bool(pred)

    values = tuple(carried_inputs)
    flat_values, carried_spec = tree_flatten(values)
    # torch traces the body before running the loop: one trial step on copies checks it first
    _check_body_output(_trial("while_loop", body_fn, flat_values, carried_spec), flat_values)
    if not should_loop(values):
        return _through_node(WhileLoopAutogradOp, tuple(v.clone() if isinstance(v, Tensor) else v for v in values))
    while True:
        out = _run("while_loop", body_fn, flat_values, carried_spec)
        flat_values = _check_body_output(out, flat_values)
        values = out if isinstance(out, tuple) else (out,)
        carried_spec = tree_flatten(values)[1]
        if not should_loop(values):
            return _through_node(WhileLoopAutogradOp, out)
