"""ndgrad draws torch's CPU random numbers: after the same seed, every random function gives torch's
values bit for bit and leaves the generator in torch's state (its state bytes compared too).

Each scenario runs on ndgrad and, where torch is installed, on torch (`exact`); a few known values are
stated as literals, so that the streams are checked without torch as well.
"""
import math
import struct
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, same_error, torch

SEEDS = [0, 42, 2 ** 40, -1]
SIZES = [0, 1, 15, 16, 17, 100]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


def exact(scenario):
    """scenario(T) on ndgrad and torch: the same values, bit for bit, and the same generator state after."""
    def with_state(T):
        out = scenario(T)
        outs = out if isinstance(out, tuple) else (out,)
        # bfloat16 has no NumPy form in torch: its values compare exactly as float32
        outs = tuple(o.float() if o.dtype == T.bfloat16 else o for o in outs)
        return list(outs) + [T.get_rng_state()]
    return both(with_state, rtol=0, atol=0)


def seeded(seed, draw):
    def scenario(T):
        T.manual_seed(seed)
        return draw(T)
    return scenario


# ---- literals: torch's values, checked without torch ----------------------------------------------
def test_known_values():
    ndgrad.manual_seed(0)
    assert ndgrad.randn(4).tolist() == [1.5409960746765137, -0.293428897857666, -2.1787893772125244,
                                        0.5684312582015991]
    ndgrad.manual_seed(0)
    assert ndgrad.rand(3).tolist() == [0.49625658988952637, 0.7682217955589294, 0.08847743272781372]
    ndgrad.manual_seed(0)
    assert ndgrad.randint(0, 10, (6,)).tolist() == [4, 9, 3, 0, 3, 9]
    assert ndgrad.randperm(6).tolist() == [1, 4, 3, 2, 5, 0]   # the stream goes on after randint
    ndgrad.manual_seed(42)
    assert [v.hex() for v in ndgrad.randn(2, dtype=ndgrad.float64).tolist()] == ["0x1.58c55b33d44ccp-2",
                                                                                "0x1.07cd39b3d4b85p-3"]
    assert ndgrad.randn(17).tolist()[-2:] == [-0.6215953826904297, -0.5920005440711975]   # the 16-wide kernel
    ndgrad.manual_seed(0)
    assert ndgrad.nn.functional.dropout(ndgrad.ones(8), 0.5).tolist() == [0, 0, 2, 0, 0, 0, 2, 2]
    assert ndgrad.bernoulli(ndgrad.full((8,), 0.5)).tolist() == [0, 0, 1, 1, 0, 0, 1, 0]
    ndgrad.manual_seed(0)
    assert ndgrad.multinomial(ndgrad.tensor([1.0, 2, 3, 4]), 3).tolist() == [2, 1, 3]
    assert ndgrad.multinomial(ndgrad.tensor([1.0, 2, 3, 4]), 6, True).tolist() == [3, 3, 1, 2, 2, 1]


def test_state_layout():
    """torch's 5056 bytes: seed, words left + 1, seeded, next index, the 624 words, the cached normal."""
    ndgrad.manual_seed(0)
    ndgrad.randn(1, dtype=ndgrad.float64)   # a Box-Muller pair: the sine waits for the next draw
    raw = ndgrad.get_rng_state().numpy().tobytes()
    assert len(raw) == 5056
    assert struct.unpack("<QiiQ", raw[:24]) == (0, 621, 1, 4)
    assert struct.unpack("<d", raw[5024:5032]) == (-0.2934289057609464,) and raw[5040] == 1
    ndgrad.manual_seed(2 ** 40 + 5)   # the words are seeded from the low 32 bits; the seed is kept whole
    raw = ndgrad.get_rng_state().numpy().tobytes()
    assert struct.unpack("<QiiQ", raw[:24]) == (2 ** 40 + 5, 1, 1, 0) and raw[24:32] == struct.pack("<Q", 5)
    assert ndgrad.manual_seed(-1).initial_seed() == 2 ** 64 - 1


def test_state_round_trip_keeps_the_cached_normal():
    g = ndgrad.Generator().manual_seed(3)
    ndgrad.randn(3, dtype=ndgrad.float64, generator=g)   # odd: a normal is cached
    state = g.get_state()
    a = ndgrad.randn(5, dtype=ndgrad.float64, generator=g)
    g.manual_seed(11)
    g.set_state(state)
    assert ndgrad.equal(ndgrad.randn(5, dtype=ndgrad.float64, generator=g), a)
    with ndgrad.random.fork_rng():
        ndgrad.rand(7)
    before = ndgrad.get_rng_state()
    with ndgrad.random.fork_rng():
        ndgrad.randn(5)
    assert ndgrad.equal(ndgrad.get_rng_state(), before)


def test_state_errors_match_torch():
    same_error(lambda T: T.set_rng_state(T.zeros(10, dtype=T.uint8)))
    same_error(lambda T: T.set_rng_state(T.zeros(5056)), TypeError)


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_state_from_torch_loads_in_ndgrad():
    torch.manual_seed(5)
    torch.randn(3, dtype=torch.float64)
    torch.rand(700)   # past one regeneration of the 624 words
    ndgrad.set_rng_state(ndgrad.tensor(torch.get_rng_state().numpy()))
    assert ndgrad.randn(9, dtype=ndgrad.float64).tolist() == torch.randn(9, dtype=torch.float64).tolist()
    assert np.array_equal(ndgrad.get_rng_state().numpy(), torch.get_rng_state().numpy())


# ---- each distribution against torch ------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_randn(dtype, n, seed):
    exact(seeded(seed, lambda T: (T.rand(n, dtype=getattr(T, dtype)), T.randn(n, dtype=getattr(T, dtype)))))


@pytest.mark.parametrize("seed", [0, -1])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_normal_fills(dtype, n, seed):
    def draw(T):
        d = getattr(T, dtype)
        return T.empty(n, dtype=d).uniform_(-2.5, 3.25), T.empty(n, dtype=d).normal_(0.3, 1.7)
    exact(seeded(seed, draw))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("view", ["t", "slice", "permute"])
def test_fills_of_non_contiguous_tensors(view, dtype):
    """Elements drawn in memory order; normal_ draws one scalar normal each when not contiguous."""
    def draw(T):
        base = T.zeros(6, 4, 10, dtype=getattr(T, dtype))
        x = {"t": lambda: base[0].t(), "slice": lambda: base[:, ::2, 1:], "permute": lambda: base.permute(2, 0, 1)}[view]()
        return x.normal_(), x.uniform_(1, 2).clone(), x.exponential_().clone(), base
    exact(seeded(7, draw))


@pytest.mark.parametrize("seed", SEEDS)
def test_integers(seed):
    def draw(T):
        return (T.randint(-5, 17, (50,)), T.randint(0, 2 ** 28, (9,), dtype=T.int32),   # 64-bit words from 2**28
                T.randint(-2 ** 40, 2 ** 40, (9,)), T.randint(0, 2 ** 28, (9,), dtype=T.float32),
                T.randint(3, 1000, (7,), dtype=T.bfloat16), T.randint_like(T.zeros(2, 3), 3, 10),
                T.empty(9, dtype=T.int64).random_(), T.empty(9, dtype=T.int32).random_(),
                T.empty(9, dtype=T.uint8).random_(), T.empty(9, dtype=T.bool).random_(),
                T.empty(9).random_(), T.empty(9, dtype=T.float16).random_(), T.empty(9).random_(7),
                T.empty(9, dtype=T.int32).random_(-3, None), T.empty(9, dtype=T.int64).random_(-3, None),
                T.empty(9, dtype=T.float64).random_(-3, None))
    exact(seeded(seed, draw))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 100, 1000, 20000, 1 << 15, (1 << 15) + 1, 50000])
def test_randperm(n):
    exact(seeded(4, lambda T: (T.randperm(n), T.randperm(n, dtype=T.float32))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_other_distributions(dtype):
    def draw(T):
        d = getattr(T, dtype)
        p = T.tensor([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] * 5, dtype=d)
        return (T.empty(40, dtype=d).exponential_(2.0), T.empty(40, dtype=d).geometric_(0.2),
                T.empty(40, dtype=d).cauchy_(0.5, 2.0), T.empty(40, dtype=d).log_normal_(0.5, 0.7),
                T.bernoulli(p), T.empty(35, dtype=d).bernoulli_(p), T.empty(35, dtype=d).bernoulli_(0.3),
                T.bernoulli(T.zeros(20, dtype=d), 0.6), T.poisson(T.tensor([0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1e3] * 4, dtype=d)),
                T.binomial(T.tensor([0.0, 5, 10, 30, 100, 1000, 7, 50, 200, 3] * 3, dtype=d),
                           T.tensor([0.3, 0.5, 0.05, 0.9, 0.5, 0.01, 1.0, 0.7, 0.999, 0.0] * 3, dtype=d)))
    exact(seeded(1, draw))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_forms(dtype):
    def draw(T):
        d = getattr(T, dtype)
        mean = T.arange(20, dtype=d)
        std = T.arange(1, 21, dtype=d) / 7
        return (T.normal(mean, std), T.normal(mean, 0.7), T.normal(0.3, std), T.normal(0.3, 2.0, (20,), dtype=d),
                T.normal(mean[:5], std[:5]))
    exact(seeded(2, draw))


def test_complex():
    exact(seeded(0, lambda T: (T.view_as_real(T.rand(9, dtype=T.complex64)), T.view_as_real(T.randn(9, dtype=T.complex64)),
                               T.view_as_real(T.randn(3, dtype=T.complex128)))))


@pytest.mark.parametrize("seed", SEEDS)
def test_interleaved_calls_share_one_stream(seed):
    def draw(T):
        return (T.rand(3), T.randn(5), T.randint(0, 9, (4,)), T.randn(17), T.randn(1, dtype=T.float64), T.randn(2),
                T.randperm(5), T.rand(2, dtype=T.float64), T.randn(3, dtype=T.float64))
    exact(seeded(seed, draw))


def test_explicit_generators():
    def draw(T):
        g, h = T.Generator().manual_seed(1), T.Generator().manual_seed(2)
        a = T.randn(20, generator=g)
        b = T.rand(3, generator=h)
        c = T.randn(3, generator=g)
        d = T.empty(5).normal_(generator=h)
        e = T.randint(0, 5, (4,), generator=g)
        return a, b, c, d, e, T.randperm(7, generator=h), g.get_state(), h.get_state()
    exact(seeded(0, draw))


def test_multinomial():
    def draw(T):
        probs = T.tensor([[0.1, 0.5, 0.2, 0.2, 0.0, 1.5], [3.0, 1.0, 0.5, 0.5, 2.0, 1.0]])
        return (T.multinomial(probs, 1), T.multinomial(probs, 4), T.multinomial(probs, 9, True),
                T.multinomial(probs[0], 3), T.multinomial(probs.double(), 20, True))
    exact(seeded(3, draw))


def test_dropout_family():
    def draw(T):
        F = T.nn.functional
        x = T.ones(4, 5, 3, 3)
        return (F.dropout(x, 0.3), F.dropout2d(x, 0.4), F.dropout1d(T.ones(4, 5, 3), 0.5),
                F.alpha_dropout(x, 0.2, True), F.feature_alpha_dropout(x, 0.2, True), T.dropout(x, 0.1, True),
                T.native_dropout(x, 0.3, True)[0], T.nn.Dropout(0.25)(T.ones(30)))
    exact(seeded(0, draw))


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d"])
@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 2)])
def test_channel_dropout_of_every_rank(name, shape):
    # torch drops dropout2d's 3-D input as (N, C, L) and other ranks of dropout2d/3d with a warning
    # (dropout2d with a batch dimension, dropout3d without one unless 5-D); dropout1d refuses them
    def draw(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = getattr(T.nn.functional, name)(T.ones(shape, dtype=T.float64), 0.5).tolist()
            except RuntimeError as e:
                out = str(e)
        return out, [str(w.message) for w in caught]
    ours = both(seeded(3, draw))
    if (name, shape) == ("dropout2d", (2, 3, 4)):   # one draw per (N, C) row of L
        assert {tuple(row) for rows in ours[0] for row in rows} <= {(0.0,) * 4, (2.0,) * 4}
        assert "interpreted as shape (N, C, L)" in ours[1][0]
    if (name, shape) == ("dropout1d", (3,)):
        assert ours[0].startswith("dropout1d: Expected 2D or 3D input, but received a 1D input.")


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_rrelu(dtype):
    x = [(-1) ** i * (i % 7) / 3 for i in range(40)]
    exact(seeded(0, lambda T: T.nn.functional.rrelu(T.tensor(x, dtype=getattr(T, dtype)), 0.1, 0.6, training=True)))


@pytest.mark.parametrize("shape", [(), (1,), (3, 2)])
def test_rrelu_in_place_without_history_draws_once(shape):
    """rrelu_ on a tensor without history (a 0-d one too, whose NumPy result is a scalar) writes torch's
    draws and leaves the stream where torch's is: the next draw agrees."""
    def draw(T):
        x = -T.arange(1.0, 1.0 + math.prod(shape), dtype=T.float64).reshape(shape)
        T.nn.functional.rrelu(x, 0.0, 1.0, training=True, inplace=True)
        return x, T.rand(2, dtype=T.float64)
    exact(seeded(5, draw))


def test_init_and_layers():
    def draw(T):
        init = T.nn.init
        lin = T.nn.Linear(7, 5)
        conv = T.nn.Conv2d(3, 4, 3)
        return (lin.weight.detach(), lin.bias.detach(), conv.weight.detach(), T.nn.Embedding(6, 3).weight.detach(),
                init.kaiming_normal_(T.empty(30, 20)), init.xavier_uniform_(T.empty(30, 20)),
                init.normal_(T.empty(17), 1.0, 0.5), init.uniform_(T.empty(5), -0.1, 0.1),
                init.trunc_normal_(T.empty(30, 20)), init.trunc_normal_(T.empty(300), a=0.1, b=0.2),
                init.trunc_normal_(T.empty(50, dtype=T.float64), std=0.02))
    exact(seeded(0, draw))


def test_large_draws_stay_vectorised():
    """A million of each, against torch where installed (and a sanity check of the moments)."""
    def draw(T):
        return T.rand(10 ** 6), T.randn(10 ** 6 + 3), T.randint(0, 100, (10 ** 6,))
    u, z, k, _ = exact(seeded(9, draw))
    assert abs(u.mean() - 0.5) < 1e-3 and abs(z.std() - 1) < 1e-2 and k.min() == 0 and k.max() == 99


def test_seed_and_initial_seed():
    g = ndgrad.Generator()
    assert g.initial_seed() == 67280421310721
    s = g.seed()
    assert g.initial_seed() == s
    a = ndgrad.rand(4, generator=g.manual_seed(s))
    assert ndgrad.equal(a, ndgrad.rand(4, generator=ndgrad.Generator().manual_seed(s)))
    assert not math.isnan(float(a.sum()))


def test_gamma_rsample_gradient():
    """The implicit reparameterization gradient at torch's samples (ndgrad's formula, a central difference
    of the incomplete gamma function, agrees with torch's series to about 1e-5)."""
    def grads(T):
        T.manual_seed(0)
        a = T.tensor([0.4, 1.0, 2.5, 7.0], dtype=T.float64, requires_grad=True)
        r = T.tensor([0.5, 1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        x = T.distributions.Gamma(a, r).rsample((3,))
        return [x.detach()] + list(T.autograd.grad(x.sum(), (a, r)))
    both(grads, rtol=1e-4, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_and_distributions(dtype):
    def draw(T):
        d, D = getattr(T, dtype), T.distributions
        alpha = T.tensor([0.3, 1.0, 2.5, 0.05, 7.0, 100.0, 0.0] * 3, dtype=d)

        def t(*v):
            return T.tensor(v, dtype=d)
        return (T._standard_gamma(alpha), D.Gamma(t(2.0), t(0.5)).sample((5,)), D.Exponential(t(1.5)).rsample((4,)),
                D.Cauchy(t(0.0), t(2.0)).sample((4,)), D.Normal(t(0.0, 1.0), t(1.0, 2.0)).sample((6,)),
                D.Categorical(probs=t(0.2, 0.3, 0.5)).sample((7,)), D.Bernoulli(probs=t(0.3, 0.6)).sample((4,)),
                D.Chi2(t(3.0)).sample((3,)), D.StudentT(t(3.0)).sample((3,)), D.Weibull(t(1.0), t(2.0)).sample((3,)),
                D.MultivariateNormal(T.zeros(2, dtype=d), T.eye(2, dtype=d)).sample((3,)))
    exact(seeded(0, draw))


def test_fractional_max_pool_windows_reaching_the_edge_and_empty_batches():
    # output + kernel - 1 == input is allowed (the last window ends at the edge); one more is refused
    def pool(T):
        x = T.arange(2 * 81, dtype=T.float64).reshape(1, 2, 9, 9).sin().requires_grad_()
        y = T.nn.functional.fractional_max_pool2d(x, 6, output_size=4)
        y.sum().backward()
        return y, x.grad
    y, grad = both(seeded(5, pool))
    assert y.shape == (1, 2, 4, 4) and grad.sum() == 32
    message = same_error(lambda T: T.nn.functional.fractional_max_pool2d(T.zeros(1, 3, 9, 9), (2, 7), output_size=4))
    assert message == "fractional_max_pool2d(): pool width 7 too large relative to input width 9"

    def empty(T):
        x = T.zeros(0, 1, 4, 5, 4, dtype=T.float64, requires_grad=True)
        y = T.nn.functional.fractional_max_pool3d(x, (2, 2, 1), output_size=2)
        y.sum().backward()
        return y, x.grad
    y, grad = both(empty)
    assert y.shape == (0, 1, 2, 2, 2) and grad.shape == (0, 1, 4, 5, 4)


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d"])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 5, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_channel_dropout_in_place_and_its_history(name, shape, training):
    # an unbatched input gets its batch dimension in place and loses it again (two more version bumps),
    # and the result's history ends in that squeeze, as torch's
    def run(T):
        a = T.ones(shape, dtype=T.float64, requires_grad=True)
        out = []
        for inplace in (False, True):
            x = a * 1
            v = x._version
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    y = getattr(T.nn.functional, name)(x, 0.5, training, inplace)
            except RuntimeError as e:
                out.append(str(e))
                continue
            y.sum().backward()
            out.append([y.grad_fn.name(), y is x, x._version - v, y.tolist()])
        return out, a.grad
    both(seeded(1, run))


@pytest.mark.parametrize("training", [True, False])
def test_rrelu_in_place_records_its_own_node(training):
    def run(T):
        a = T.tensor([-2.0, -1.0, 0.5, 3.0], dtype=T.float64, requires_grad=True)
        x = a * 1
        y = T.nn.functional.rrelu_(x, 0.1, 0.3, training=training)
        y.sum().backward()
        return y is x, x._version, x.grad_fn.name(), x, a.grad
    is_x, version, name, _, grad = both(seeded(0, run))
    assert (is_x, version, name) == (True, 1, "RreluWithNoiseBackward1")
    assert grad.tolist()[2:] == [1.0, 1.0] and 0.1 <= grad[0] <= 0.3
    message = same_error(lambda T: T.nn.functional.rrelu(T.ones(2, requires_grad=True), training=training, inplace=True))
    assert message == "a leaf Variable that requires grad is being used in an in-place operation."


def test_complex_fills_draw_the_real_view():
    # normal_ and uniform_ on a complex tensor fill its real view (normal_: each part of variance std**2 / 2),
    # in memory order when not contiguous; on a tensor with history the node is the fill's own
    def draw(T):
        base = T.zeros(4, 6, dtype=T.complex128)
        x = base[:, ::2].t()
        x.normal_(0.5, 2.0)
        y = T.empty(20, dtype=T.complex64).uniform_(-1, 3)
        z = T.zeros(3, dtype=T.complex64, requires_grad=True) * 1
        z.normal_()
        return T.view_as_real(base), T.view_as_real(y), T.view_as_real(z.detach())
    exact(seeded(5, draw))
    z = ndgrad.zeros(3, dtype=ndgrad.complex64, requires_grad=True) * 1
    assert z.normal_().grad_fn.name() == "NormalBackward0"
    assert same_error(lambda T: T.empty(2, dtype=T.complex64).normal_(0, -1)) == \
        "normal expects std >= 0.0, but found std -1"
