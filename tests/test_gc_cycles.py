"""Reference cycles through the autograd graph are freed by the cyclic GC, and a plain graph needs no GC.

Graph nodes are ordinary tracked Python objects. Leaving them out of the collector (as torch's C++
nodes are, and as would make long forward passes cheaper) would leak every cycle below, since
to the collector an untracked object is a root: each one passes through plain nodes on its way from
an output back to a leaf or a hooked node, and torch, whose nodes are outside Python's GC, leaks
all but the custom Function one. These tests fail if the graph's objects ever stop being seen.
"""
import gc
import weakref

import pytest

import ndgrad


class _Box:
    pass


def _kept_then_freed(build):
    """build() makes a cycle through the graph and returns an object only that cycle keeps alive:
    (alive before a collection, freed by it). (No `assert` on the object itself here: pytest's
    assertion rewriting would keep it in a local.)"""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        ref = weakref.ref(build())
        kept = ref() is not None
        gc.collect()
        return kept, ref() is None
    finally:
        if was:
            gc.enable()


def _leaf_attribute_holds_output():
    x = ndgrad.randn(3, requires_grad=True)
    x.out = (x * 2).exp()          # x -> out -> ExpBackward0 -> MulBackward0 -> AccumulateGrad -> x
    return x


def _hook_of_upstream_tensor_holds_downstream_output():
    x = ndgrad.randn(3, requires_grad=True)
    a = x * 2
    b = a.exp().sin()
    a.register_hook(lambda g: b)   # the hook lives on MulBackward0, below SinBackward0 and ExpBackward0
    b.box = box = _Box()
    return box


def _node_hook_holds_its_output():
    x = ndgrad.randn(3, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda *grads: y)
    y.box = box = _Box()
    return box


def _create_graph_gradient():
    x = ndgrad.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="create a reference cycle"):   # (torch's warning: torch leaks it)
        (x.exp() * x).sum().backward(create_graph=True)   # x.grad's graph reaches x's AccumulateGrad
    return x


def _parameter_hook_refers_to_module_holding_output():
    module = _Box()
    module.w = w = ndgrad.randn(3, requires_grad=True)
    w.register_hook(lambda g: module and g)
    module.out = (w * 2).exp()
    return module


def _saved_input_refers_to_output():
    x = ndgrad.randn(3, requires_grad=True)
    a = x * 1
    b = a * a                      # MulBackward0 saves a
    a.out = b
    b.box = box = _Box()
    return box


def _metadata_holds_downstream_output():
    x = ndgrad.randn(3, requires_grad=True)
    y = x.exp()
    z = y.sin()
    y.grad_fn.metadata["z"] = z    # z -> SinBackward0 -> ExpBackward0 -> metadata -> z
    z.box = box = _Box()
    return box


def _post_accumulate_hook_holds_output():
    x = ndgrad.randn(3, requires_grad=True)
    y = (x * 2).exp()
    x.register_post_accumulate_grad_hook(lambda t: y)
    return x


def _saved_tensor_hooks_pack_into_a_holder_of_the_output():
    x = ndgrad.randn(3, requires_grad=True)
    box = _Box()
    with ndgrad.autograd.graph.saved_tensors_hooks(lambda t: (box, t), lambda packed: packed[1]):
        y = x.exp()
    box.y = y
    return box


class _Double(ndgrad.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def _custom_function_node_holds_its_output():
    x = ndgrad.randn(3, requires_grad=True)
    y = _Double.apply(x).exp()
    y.grad_fn.next_functions[0][0].keep = y
    y.box = box = _Box()
    return box


@pytest.mark.parametrize("build", [
    _leaf_attribute_holds_output, _hook_of_upstream_tensor_holds_downstream_output, _node_hook_holds_its_output,
    _create_graph_gradient, _parameter_hook_refers_to_module_holding_output, _saved_input_refers_to_output,
    _metadata_holds_downstream_output, _post_accumulate_hook_holds_output,
    _saved_tensor_hooks_pack_into_a_holder_of_the_output, _custom_function_node_holds_its_output,
], ids=lambda f: f.__name__.strip("_"))
def test_a_cycle_through_the_graph_is_collected(build):
    assert _kept_then_freed(build) == (True, True)


def test_a_plain_chain_is_freed_by_reference_counting_alone():
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        x = ndgrad.randn(4, dtype=ndgrad.float64, requires_grad=True)
        y = x
        for _ in range(200):
            y = ndgrad.tanh(y * 1.0001)
        middle = weakref.ref(y.grad_fn.next_functions[0][0].next_functions[0][0])
        saved = y.grad_fn._saved_result
        y = saved = None
        assert middle() is None               # recording made no cycle: dropping the output frees the graph
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
