"""What the per-op overhead work keeps as it was: the shortcuts in the op glue, record, the engine
and the node layout give what the general code gives, next to the cases that must leave them.

- ops._registry.call: one array out, no cast, no view, wrapped (Tensor._make spelled out) and recorded
  without the general loops (inference mode, ops without a derivative, forward AD take it too);
- record: unary and binary edges spelled out (output numbers other than 0, views, scalars);
  saved values kept as a tuple (saved-tensor hooks and register_hooks replace entries); input
  metadata and all-None versions shared among nodes (a bounded table);
- Node: edges kept as nodes and output numbers, `next_functions` built from them;
- the engine: a node alone in being ready gets its gradients without the buffers dict;
- Tensor: no __delattr__, the attributes torch refuses to delete refuse through deleters.
"""
import gc
import warnings

import numpy as np
import pytest

import ndgrad
from ndgrad.autograd.node import LAZY_VC
from parity import both, leaf, lists, parity, same_error


def _edges(fn):
    return [(n.name() if n is not None else None, nr) for n, nr in fn.next_functions]


def test_binary_edges_keep_output_numbers_views_and_scalars():
    def s(T):
        x = leaf(T)
        a, b, c = x.unbind()                      # outputs 1 and 2 of one node
        v = x[1:]                                 # a view: its edge goes through its regenerated history
        out = [_edges((b * c).grad_fn), _edges((c * 2.0).grad_fn), _edges((v * v).grad_fn),
               _edges((2.0 - b).grad_fn), _edges(T.atan2(c, b).grad_fn), _edges(a.exp().grad_fn)]
        loss = (b * c) + (v * v).sum() + T.atan2(c, b) + a.exp()
        loss.backward()
        return out + [x.grad]
    res = both(s)
    assert res[0] == [["UnbindBackward0", 1], ["UnbindBackward0", 2]]


def test_next_functions_is_rebuilt_from_the_edges_and_can_be_set():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    fns = y.grad_fn.next_functions
    assert fns == y.grad_fn.next_functions and type(fns) is tuple and all(type(e) is tuple for e in fns)
    acc = fns[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and fns[1][0] is acc and acc.next_functions == ()

    class Twice(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    z = Twice.apply(y)
    assert z.grad_fn.next_functions == ((y.grad_fn, 0),)
    z.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_saved_values_tuple_takes_hooks_and_register_hooks():
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t

    x = ndgrad.tensor([0.5, 1.5], dtype=ndgrad.float64, requires_grad=True)
    with ndgrad.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.exp() * 3.0
    y.sum().backward()
    assert packed == [(2,)] and np.array_equal(x.grad.numpy(), 3 * np.exp([0.5, 1.5]))

    calls = []
    z = x.sin()
    assert type(z.grad_fn._saved) is tuple
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: calls.append(1) or t)
    x.grad = None
    z.sum().backward()
    assert calls == [1] and np.array_equal(x.grad.numpy(), np.cos([0.5, 1.5]))


def test_a_saved_result_is_compact_and_every_reader_gets_what_torch_gives():
    """Ops that save only their result (exp, tanh...) keep its array and its version counter in two
    slots instead of a SavedOutput in a tuple, and a tensor's counter is made when first needed: the
    cyclic GC then tracks 4 objects per link of a tanh(x * c) chain (two nodes, their next_functions
    tuples), not 7.
    Hooks, raw saved values, double backward, forward-over-reverse, an in-place op on a view and
    a second backward read it as torch's saved result."""
    x = ndgrad.randn(4, dtype=ndgrad.float64, requires_grad=True)
    y = x
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(500):
        y = ndgrad.tanh(y * 1.0001)
    gc.collect()
    assert (len(gc.get_objects()) - before) / 500 <= 4.05
    node = y.grad_fn
    assert type(node._saved) is np.ndarray and node._versions is LAZY_VC   # its array; no counter yet
    vc = y._vc                                     # made on first need: the node's counter is the output's
    assert node._versions is vc and vc == [0]

    def s(T):
        out = []
        x = leaf(T)
        y = x.exp()
        z = y.tanh()
        out.append(list(z.grad_fn._input_metadata[0].shape))
        g, = T.autograd.grad(z.sum(), x, create_graph=True)   # tanh's and exp's results, with their history
        g.sum().backward(retain_graph=True)
        out += [g, x.grad, z.grad_fn._saved_result, z.grad_fn._saved_result.grad_fn is z.grad_fn]
        calls = []
        w = x.sigmoid()
        w.grad_fn._raw_saved_result.register_hooks(lambda t: t * 2, lambda t: calls.append(1) or t / 2)
        out.append(T.autograd.grad(w.sum(), x, retain_graph=True)[0])
        out.append(T.autograd.grad(w.sum(), x)[0])   # the second backward reads it again
        out.append(len(calls))
        with T.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            e = x.exp()
        out.append(T.autograd.grad(e.sum(), x)[0])
        base = x * 1                                 # exp_ on a view: the saved result is the view's
        v = base[1:]
        v.exp_()
        out.append(T.autograd.grad(base.sum(), x)[0])
        d = x.detach()                               # forward-over-reverse: the saved result keeps its tangent
        out.append(T.func.jvp(T.func.grad(lambda t: t.tanh().exp().sum()), (d,), (T.ones_like(d),))[1])
        return out
    parity(s)


def test_a_version_counter_made_late_is_shared_as_torch_shares_it():
    """A tensor's counter is made on first need (see test above): whichever alias of a saved result makes
    it (the output, its saved_result, a detached alias, a view, data swapped in place), all of them and the
    node see the same versions, and backward refuses the modified result as torch does."""
    def modified(T, make, change):
        x = leaf(T)
        y = make(x)
        aliases = change(T, y)
        try:
            y.sum().backward()
            error = None
        except RuntimeError as e:
            error = str(e).split(";")[0]
        return [error, y._version] + [a._version for a in aliases]

    def s(T):
        return [
            modified(T, T.exp, lambda T, y: (y.grad_fn._saved_result.mul_(2),)),
            modified(T, T.exp, lambda T, y: (y.grad_fn._saved_result, y.add_(1))),
            modified(T, T.tanh, lambda T, y: (y.grad_fn._saved_result, y.detach().add_(1))),
            modified(T, T.sigmoid, lambda T, y: (y[1:].mul_(3),)),
            modified(T, T.exp, lambda T, y: (y.grad_fn._saved_result,)),   # unmodified: backward runs
            modified(T, lambda x: x * x.exp(), lambda T, y: (y.grad_fn._saved_other,)),
            modified(T, lambda x: x * x.exp(), lambda T, y: (y.grad_fn._saved_other.add_(1),)),
        ]
    assert lists(both(s))[0][1:] == [1, 1]

    def data_swapped(T):   # data replaced in place (.data, set_): the counter stays the tensor's
        x = leaf(T)
        y = x.exp()
        y.data = T.zeros_like(y)
        y.add_(1)
        z = x.tanh()
        z.detach().set_(T.ones_like(z))
        return [y._version, z._version, y.grad_fn.name(), z.grad_fn.name()]
    both(data_swapped)

    def backward_after_swap(T):
        y = leaf(T).exp()
        y.data = T.zeros_like(y)
        y.add_(1)
        y.sum().backward()
    same_error(backward_after_swap)


def test_saved_accessors_are_per_node_class():
    def s(T):
        x = leaf(T)
        y = x.tanh()
        m = x * 2.0
        out = [y.grad_fn._saved_result, y.grad_fn._saved_result.grad_fn is y.grad_fn, m.grad_fn._saved_other,
               hasattr(y.grad_fn, "_saved_self"), hasattr(m.grad_fn, "_saved_result")]
        with pytest.raises(AttributeError):
            y.grad_fn._saved_nothing
        return out
    assert both(s)[1:] == [True, 2.0, False, False]


def test_saved_result_unpacked_inline_still_checks_versions():
    same_error(lambda T: _modified_result(T), RuntimeError)


def _modified_result(T):
    x = T.tensor([0.5, 1.0], requires_grad=True)
    y = x.tanh()
    y.add_(1)
    y.sum().backward()


def test_one_array_out_fast_path_in_inference_no_derivative_and_forward_ad():
    x = ndgrad.tensor([0.25, -1.0], dtype=ndgrad.float64, requires_grad=True)
    with ndgrad.inference_mode():
        i = x.tanh()
    assert i.is_inference() and not i.requires_grad and i.grad_fn is None
    with ndgrad.no_grad():
        n = x * 2.0
    assert not n.requires_grad and n.grad_fn is None
    import ndgrad.autograd.forward_ad as fwad
    with fwad.dual_level():
        d = fwad.make_dual(ndgrad.tensor([0.25, -1.0], dtype=ndgrad.float64), ndgrad.ones(2, dtype=ndgrad.float64))
        t = fwad.unpack_dual(d.tanh() * 3.0).tangent
    assert np.allclose(t.numpy(), 3 * (1 - np.tanh([0.25, -1.0]) ** 2))


def test_chain_and_diamond_gradients_match_torch():
    def s(T):
        x = leaf(T)
        y = x
        for _ in range(50):
            y = T.tanh(y * 1.0001)
        h = x.sin()
        d = h * h.cos() + h.exp()    # h reaches one node twice and another once: summed in a buffer
        (y.sum() + d.sum()).backward()
        return [x.grad, y.grad_fn.name()]
    parity(s, rtol=1e-12, atol=1e-14)


def test_a_recorded_link_leaves_few_gc_tracked_objects():
    x = ndgrad.randn(4, dtype=ndgrad.float64, requires_grad=True)
    y = x
    for _ in range(10):
        y = ndgrad.tanh(y * 1.0001)
    gc.collect()
    gc.collect()   # (a tuple of tuples is untracked once its items are: a second pass)
    before = len(gc.get_objects())
    for _ in range(500):
        y = ndgrad.tanh(y * 1.0001)
    gc.collect()
    gc.collect()
    per_link = (len(gc.get_objects()) - before) / 500
    # two nodes, one tuple of next nodes each, the saved output, its version counter and the tuple
    # holding it: the output numbers, saved scalars and versions are not tracked
    assert per_link <= 7.5, per_link


def test_nodes_share_equal_input_metadata_and_unsaved_versions():
    x = ndgrad.randn(4, dtype=ndgrad.float64, requires_grad=True)
    a, b = x.exp(), x.sin()
    assert a.grad_fn._meta == (((4,), np.dtype("float64")),) and a.grad_fn._meta is b.grad_fn._meta
    assert x.float().exp().grad_fn._meta == (((4,), np.dtype("float32")),)   # another dtype: another tuple
    m, n = x * 2.0, x * 3.0        # self not saved, the number as torch's wrapped number: (None, WRAPPED)
    assert m.grad_fn._versions == (None, -1) and m.grad_fn._versions is n.grad_fn._versions
    vc = a._vc
    assert a.grad_fn._versions is vc         # a compact saved result: its version counter itself
    y = x * x                      # saved tensors: their own versions
    with ndgrad.no_grad():
        x.add_(0)
    assert y.grad_fn._versions == (0, 0) and (x * x).grad_fn._versions == (1, 1)
    assert (x.exp() * 1).grad_fn._versions == (None, -1) and (x + 1).grad_fn._versions == (None,)   # (alpha)


def test_shared_metadata_starts_again_when_shapes_keep_changing():
    from ndgrad.autograd import record
    x = ndgrad.randn(3, dtype=ndgrad.float64, requires_grad=True)
    kept = x.exp()
    for n in range(1, 4200):   # more distinct shapes than the table keeps
        ndgrad.zeros(n, dtype=ndgrad.float64, requires_grad=True).exp()
    assert len(record._SHARED) <= 4096
    assert kept.grad_fn._meta == (((3,), np.dtype("float64")),)
    y = x.exp()
    assert y.grad_fn._meta == kept.grad_fn._meta
    (kept + y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.exp(x.detach().numpy()))


def test_an_op_result_is_made_as_tensor_make_makes_it():
    # call's one-array path spells Tensor._make out: the same slots set, nothing else
    x = ndgrad.randn(3, dtype=ndgrad.float64)
    made = ndgrad.Tensor._make(x._array, False, None, 0)
    slots = [n for n in ndgrad.Tensor.__slots__ if n not in ("__dict__", "__weakref__")]
    for out in (x * 2.0, x.exp()):
        assert [type(getattr(out, n)) for n in slots] == [type(getattr(made, n)) for n in slots]
        assert vars(out) == {} and out._vc == [0] and out._vc is not x._vc and out._base is None
    y = ndgrad.randn(3, requires_grad=True).exp()
    assert [getattr(y, n) is not None for n in slots] == [n in ("_array", "_requires_grad", "_fn", "_output_nr")
                                                         for n in slots]


def test_tensor_attribute_stores_are_plain():
    # Tensor defines no __delattr__/__setattr__: attribute stores take CPython's plain (specialised) path
    assert ndgrad.Tensor.__setattr__ is object.__setattr__ and "__delattr__" not in vars(ndgrad.Tensor)


def test_undeletable_attributes_and_legacy_backward_hooks():
    def s(T):
        x = T.tensor([1.0], requires_grad=True)
        before = x._backward_hooks
        x._backward_hooks = {"k": None}
        m = T.zeros(2, 2)   # (a 2-D real tensor: every attribute dir() lists reads, but imag)
        return [before, list(x._backward_hooks), all(hasattr(m, k) for k in dir(m) if k != "imag")]
    assert both(s) == [None, ["k"], True]
    x = ndgrad.tensor([1.0], requires_grad=True)
    for name in ("requires_grad", "_grad_fn", "_backward_hooks"):
        same_error(lambda T: delattr(T.randn(2, requires_grad=True), name), RuntimeError)
    for name in ("grad_fn", "is_leaf"):
        same_error(lambda T: delattr(T.randn(2, requires_grad=True), name), AttributeError)
    y = x * 2
    assert y._grad_fn is y.grad_fn and y._grad_fn.name() == "MulBackward0"
    y._grad_fn = None   # settable, as torch's
    assert y.grad_fn is None


def test_compiled_recorders_make_the_nodes_record_makes(monkeypatch):
    """record.recorder writes record's loops out per op; driven by the op registry (every sample, float64
    and float32), each op's recorder runs after record on the same call and must make the same node:
    class, edges, output numbers, input and output metadata, saved values (metadata-only ones by their
    fields) and versions, sequence number.
    A second pass runs the samples under saved-tensor hooks and anomaly mode (what a node's end calls)."""
    import functools
    from ndgrad.autograd import record
    from ndgrad.autograd.graph import PackedSaved
    from ndgrad.autograd.node import SavedOutput, TensorMeta
    from ndgrad.ops._registry import SPECS
    from op_db import all_ops
    for spec in SPECS:
        monkeypatch.setattr(spec, "recorder", None)
    made = record.recorder
    compared, multi, mismatches = set(), set(), []
    packing = []   # the pass under saved-tensor hooks: packed values compared by kind and packed array

    def same_saved(x, y):
        if type(x) is TensorMeta:   # an argument's metadata, saved in its place: equal fields
            return type(y) is TensorMeta and all(getattr(x, f, None) == getattr(y, f, None) for f in TensorMeta.__slots__)
        if type(x) is SavedOutput:
            return type(y) is SavedOutput and x.data is y.data and x.vc is y.vc and x.output_nr == y.output_nr
        if packing:
            return type(x) is type(y) and (type(x) is not PackedSaved or x.packed._array is y.packed._array)
        return x is y or type(x) is type(y) and x == y

    def checking(spec):
        fast = made(spec)
        if isinstance(fast, functools.partial):
            return fast

        def both_ways(args, outs):
            record.record(spec, args, outs)
            a = outs[0]._fn
            marked = [(t._requires_grad, t._fn is a, t._output_nr) for t in outs]
            for t in outs:   # (what the recorder marks on the outputs: undone, then compared)
                t._requires_grad, t._fn, t._output_nr = False, None, 0
            try:
                fast(args, outs)
            except Exception as e:  # noqa: BLE001 - the samples' own refusals are not the recorder's
                mismatches.append(f"{spec.name}: {type(e).__name__}: {e}")
                raise
            b = outs[0]._fn
            compared.add(spec.name)
            if len(outs) > 1:
                multi.add(spec.name)
            same = (type(a) is type(b) and a is not b and b._sequence_nr_ == a._sequence_nr_ + 1
                    and marked == [(t._requires_grad, t._fn is b, t._output_nr) for t in outs]
                    and a._next_fns == b._next_fns and a._next_nrs == b._next_nrs and a._meta == b._meta
                    and a._out_meta == b._out_meta
                    and (type(a._extra) is type(b._extra) if packing else a._extra is b._extra is None))
            if type(a._versions) is list:   # the compact saved result
                same = same and a._versions is b._versions and a._saved is b._saved
            else:
                same = same and a._versions == b._versions and len(a._saved) == len(b._saved) and all(
                    same_saved(x, y) for x, y in zip(a._saved, b._saved))
            if not same:
                mismatches.append(spec.name)
        spec.recorder = both_ways
        return both_ways
    monkeypatch.setattr(record, "recorder", checking)

    def run_samples():
        for info in all_ops():
            for dtype in ("float64", "float32"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        inputs = [t.to(getattr(ndgrad, dtype)).requires_grad_(t.requires_grad)
                                  if isinstance(t, ndgrad.Tensor) and t.dtype == ndgrad.float64 else t
                                  for t in info.make_inputs(ndgrad)]
                        info.call(ndgrad, *inputs)
                    except Exception:  # noqa: BLE001 - a sample this dtype does not take
                        pass
    run_samples()
    assert not mismatches, sorted(set(mismatches))
    assert len(compared) > 370 and {"mul.Tensor", "tanh", "exp", "addmm", "mm"} <= compared, len(compared)
    assert len(multi) > 40 and {"nll_loss", "max.dim", "native_layer_norm", "split.Tensor"} <= multi, \
        sorted(multi)
    plain = set(compared)
    compared.clear()
    packing.append(True)
    with ndgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t), ndgrad.autograd.detect_anomaly():
        run_samples()
    assert not mismatches, sorted(set(mismatches))
    assert len(compared) > 0.9 * len(plain), sorted(plain - compared)


def test_compiled_recorders_save_a_result_they_cannot_keep_compact_as_record_does():
    """An output already written to (version 1) or of a Tensor subclass is saved as a SavedOutput with its
    version, by a compiled recorder as by record (the glue's fresh outputs never are: called directly)."""
    from ndgrad.autograd import record
    from ndgrad.autograd.node import SavedOutput
    from ndgrad.ops._registry import SPECS

    class Sub(ndgrad.Tensor):
        pass
    specs = {s.name: s for s in SPECS}
    for name in ("tanh", "exp", "sigmoid"):
        spec = specs[name]
        fast = record._compiled_recorder(spec)
        x = ndgrad.randn(3, dtype=ndgrad.float64, requires_grad=True)
        for make in (lambda: ndgrad.randn(3, dtype=ndgrad.float64), lambda: ndgrad.randn(3).as_subclass(Sub)):
            nodes = []
            for rec in (lambda a, o: record.record(spec, a, o), fast):
                out = make()
                out._vc[0] = 1 if type(out) is ndgrad.Tensor else 0
                rec((x,), (out,))
                nodes.append((out, out._fn))
            (oa, a), (ob, b) = nodes
            assert type(a._saved) is tuple and type(b._saved) is tuple and type(b._saved[0]) is SavedOutput
            assert a._versions == b._versions == (oa._vc[0],) and b._saved[0].data is ob._array
            assert b._saved[0].cls is type(ob) and b._next_fns == a._next_fns
