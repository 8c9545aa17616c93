"""Lazy conjugate and negative views (torch's conj and neg bits): `conj()` of a complex tensor and
`_neg_view()` share their input's memory and carry a bit (`is_conj`, `is_neg`) that ops resolve;
in-place ops write through the bit, `numpy()` refuses, views of such views keep it.

Each scenario runs on ndgrad and, where torch is installed, on torch, and the results must agree.
"""
import copy
import pickle

from parity import both, same_error


def R(t):
    """t's values in a tensor without bits (what parity's numpy() can read)."""
    return t.resolve_conj().resolve_neg()


def Z(T, values=(1 + 2j, 3 - 1j, 0.5 + 0.25j), requires_grad=False):
    return T.tensor(list(values), dtype=T.complex128, requires_grad=requires_grad)


def test_conj_of_a_complex_tensor_is_a_flagged_view_of_its_memory():
    def scenario(T):
        z = Z(T)
        c = z.conj()
        r = T.randn(3)
        return [c.is_conj(), T.is_conj(c), z.is_conj(), c._base is z, c.data_ptr() == z.data_ptr(),
                r.conj() is r, r.conj().is_conj(), c.conj().is_conj(), c.conj()._base is z, c.tolist(), c[1].item()]
    out = both(scenario)
    assert out[:9] == [True, True, False, True, True, True, False, False, True]
    assert out[9] == [1 - 2j, 3 + 1j, 0.5 - 0.25j] and out[10] == 3 + 1j


def test_neg_view_sets_the_negative_bit_on_complex_and_real_tensors():
    def scenario(T):
        z = Z(T)
        n = z._neg_view()
        r = T.tensor([1.0, -2.0])._neg_view()
        return [n.is_neg(), n.is_conj(), r.is_neg(), n._base is z, n.tolist(), r.tolist(), n.conj().is_neg(),
                n.conj().is_conj(), n.conj().resolve_conj().is_neg()]
    out = both(scenario)
    assert out[:4] == [True, False, True, True] and out[4] == [-1 - 2j, -3 + 1j, -0.5 - 0.25j]
    assert out[5] == [-1.0, 2.0] and out[6:] == [True, True, False]


def test_in_place_ops_on_a_conj_view_write_the_conjugate_into_the_base():
    def scenario(T):
        z = Z(T)
        c = z.conj()
        c.mul_(2)
        after_mul = z.clone()
        c[0] = 5 + 5j
        c[[2]] = 7j
        after_set = z.clone()
        z.add_(1)   # and the view sees writes into its base
        n = z._neg_view()
        n[1:].zero_()
        c.imag.mul_(3)   # imag of a conj view: a negative view of the memory's imaginary part
        return [after_mul, after_set, c.clone(), z, c.imag.is_neg(), c.real.is_neg()]
    out = both(scenario)
    assert list(out[0]) == [2 + 4j, 6 - 2j, 1 + 0.5j]
    assert list(out[1]) == [5 - 5j, 6 - 2j, -7j]
    assert out[4:] == [True, False]


def test_ops_read_the_resolved_values_and_resolve_makes_a_copy():
    def scenario(T):
        z = Z(T)
        c = z.conj()
        n = z._neg_view()
        w = Z(T, (2 - 1j, 1j, -1 + 0j))
        res = c.resolve_conj()
        return [c + w, c * n, T.cat([c, n]), c.abs(), c.sum(), c @ w, c.flip(0), c.expand(2, 3) * 1,
                res, res.is_conj(), res.data_ptr() == z.data_ptr(), n.resolve_neg().is_neg(),
                T.equal(c, z.conj_physical()), T.tensor(c), c.detach().is_conj(), c.data.is_conj(),
                c.expand(2, 3).is_conj(), c[[0, 1]].is_conj(), c.view(3).is_conj(), (c + 1).is_conj(),
                c.clone().is_conj(), c.conj_physical().is_conj(), repr(c) == repr(z.conj_physical())]
    out = both(scenario)
    assert out[9:11] == [False, False] and out[12] is True
    assert out[11] is False and out[14:] == [True, True, True, False, True, False, False, False, True]


def test_copies_of_a_conj_view_hold_its_values():
    def scenario(T):
        c = Z(T).conj()
        d, p = copy.deepcopy(c), pickle.loads(pickle.dumps(c))
        return [d, R(p), d.is_conj(), p.is_conj()]   # (torch's deepcopy resolves the bit, its pickle keeps it)
    out = both(scenario)
    assert list(out[0]) == [1 - 2j, 3 + 1j, 0.5 - 0.25j] and list(out[1]) == list(out[0])
    assert out[2:] == [False, True]


def test_numpy_and_view_as_real_of_a_flagged_view_raise_torch_errors():
    assert "conjugate bit set" in same_error(lambda T: Z(T).conj().numpy())
    assert "negative bit set" in same_error(lambda T: Z(T)._neg_view().numpy())
    assert "unresolved conjugated" in same_error(lambda T: T.view_as_real(Z(T).conj()))
    same_error(lambda T: Z(T).conj().__dlpack__(), BufferError)
    assert "conjugate view" in same_error(lambda T: Z(T).conj().view(T.float64))
    assert "negative bit" in same_error(lambda T: Z(T)._neg_view().view(T.float64))

    def scenario(T):   # a negative view can be viewed as real: the real view keeps the bit
        v = T.view_as_real(Z(T)._neg_view())
        return [R(v), v.is_neg()]
    assert both(scenario)[1] is True


def test_grad_fns_and_gradients_through_conj_and_neg_views():
    def scenario(T):
        z = Z(T, requires_grad=True)
        i = z.conj().imag
        names = [z.conj().grad_fn.name(), i.grad_fn.name(), i.grad_fn.next_functions[0][0].name(),
                 z._neg_view().grad_fn.name(), z.conj().resolve_conj().grad_fn.name()]
        (i * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        g1 = z.grad.clone()
        z.grad = None
        (z.conj() * 2).sum().abs().backward()
        return names + [g1, R(z.grad)]   # (torch may leave the conj bit on z.grad; ndgrad resolves gradients)
    out = both(scenario)
    assert out[:5] == ["ConjBackward0", "SelectBackward0", "NegViewBackward0", "NegViewBackward0", "CloneBackward0"]
    assert list(out[5]) == [-1j, -2j, -3j]


def test_in_place_on_a_conj_view_of_a_non_leaf_rebases_both_histories():
    def scenario(T):
        z = Z(T, requires_grad=True)
        w = Z(T, (2 - 1j, 1 + 1j, -1 + 0.5j), requires_grad=True)
        b = z.clone()
        c = b.conj()
        c.mul_(w)
        names = [c.grad_fn.name(), b.grad_fn.name()]
        ((b * b.conj()).real.sum() + (c.abs() ** 2).sum()).backward()
        return names + [z.grad, w.grad]
    out = both(scenario)
    assert out[:2] == ["ConjBackward0", "torch::autograd::CopySlices"]


def test_second_order_gradients_through_conj():
    def scenario(T):
        x = Z(T, (1 + 2j, 3 - 1j), requires_grad=True)
        g, = T.autograd.grad((x.conj() * x).real.sum(), x, create_graph=True)
        return [g, T.autograd.grad(g.abs().sum(), x)[0]]
    out = both(scenario)
    assert list(out[0]) == [2 + 4j, 6 - 2j]


def test_forward_ad_tangents_keep_their_primals_bits():
    def scenario(T):
        fw = T.autograd.forward_ad
        keys = {"none": lambda x: x, "conj": lambda x: x.conj(), "neg": lambda x: x._neg_view()}
        out = []
        for p in keys:
            for q in keys:
                x = keys[p](Z(T))
                t = keys[q](Z(T, (0.5 - 1j, 2 + 3j, 1j)))
                with fw.dual_level():
                    d = fw.make_dual(x, t)
                    tt = fw.unpack_dual(d).tangent
                    out += [tt is t, tt.is_conj(), tt.is_neg(), T.equal(tt, t), R(fw.unpack_dual(T.imag(d)).tangent),
                            R(fw.unpack_dual(d * d).tangent)]
        return out
    out = both(scenario)
    assert out[0::6] == [p == q for p in range(3) for q in range(3)]
    assert all(out[3::6])


def test_gradcheck_takes_and_returns_flagged_views():
    def scenario(T):
        z = Z(T, requires_grad=True)
        x = Z(T).conj().requires_grad_()
        check = T.autograd.gradcheck
        return [check(lambda a: (a * a).sin(), (x,), check_forward_ad=True),
                check(T.conj, (z,), check_forward_ad=True),
                check(lambda a: a.conj().imag, (z,), check_forward_ad=True, fast_mode=True),
                T.autograd.gradgradcheck(lambda a: a.conj() * a._neg_view(), (z,))]
    assert both(scenario) == [True] * 4


def test_zero_dim_conjugate_and_negative_views_print_and_resolve():
    def scenario(T):
        x = T.tensor(1 + 2j, dtype=T.complex128, requires_grad=True)
        y = T.conj(x)
        g, = T.autograd.grad([y], [x], [T.tensor(0.3 + 0.1j, dtype=T.complex128)])
        return [repr(y), repr(x._neg_view()), y.resolve_conj().detach(), g.resolve_conj()]
    shown, neg, resolved, g = both(scenario)
    assert shown == "tensor(1.-2.j, dtype=torch.complex128, grad_fn=<ConjBackward0>)"
    assert "tensor(-1.-2.j" in neg and complex(resolved) == 1 - 2j and abs(complex(g) - (0.3 - 0.1j)) < 1e-12
