"""torch.distributions: log_prob, entropy, moments and their gradients against torch (fixed parameters);
rsample by shape and reparameterised gradient; validation errors; kl_divergence."""
import pytest

from parity import both, same_error


def _p(T, v):
    return T.tensor(v, dtype=T.float64, requires_grad=True)


CASES = {
    "Normal": (lambda T, a, b: T.distributions.Normal(a, b), [0.3, -1.0], [0.5, 2.0], [0.1, 0.7]),
    "Laplace": (lambda T, a, b: T.distributions.Laplace(a, b), [0.3, -1.0], [0.5, 2.0], [0.1, 0.7]),
    "Uniform": (lambda T, a, b: T.distributions.Uniform(a, b), [0.0, -1.0], [1.0, 2.0], [0.1, 0.7]),
    "Beta": (lambda T, a, b: T.distributions.Beta(a, b), [0.5, 2.0], [1.5, 3.0], [0.1, 0.7]),
    "Gamma": (lambda T, a, b: T.distributions.Gamma(a, b), [0.5, 2.0], [1.5, 3.0], [0.1, 0.7]),
    "Exponential": (lambda T, a, b: T.distributions.Exponential(a * b), [0.5, 2.0], [1.5, 3.0], [0.1, 0.7]),
    "Bernoulli": (lambda T, a, b: T.distributions.Bernoulli(a * b), [0.5, 0.2], [0.5, 3.0], [1.0, 0.0]),
    "Poisson": (lambda T, a, b: T.distributions.Poisson(a * b), [0.5, 2.0], [1.5, 3.0], [2.0, 0.0]),
    "Binomial": (lambda T, a, b: T.distributions.Binomial(4, a * b), [0.5, 0.2], [0.5, 3.0], [2.0, 4.0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_entropy_moments_and_grads(name):
    make, a, b, x = CASES[name]

    def scenario(T):
        pa, pb = _p(T, a), _p(T, b)
        d = make(T, pa, pb)
        outs = [d.log_prob(T.tensor(x, dtype=T.float64)), d.mean, d.variance, d.stddev]
        if name != "Poisson":
            outs.append(d.entropy())
        total = sum(o.sum() for o in outs)
        return outs + list(T.autograd.grad(total, (pa, pb)))
    out = both(scenario, rtol=1e-6, atol=1e-9)
    assert out[0].shape == (2,)


def test_cdf_icdf():
    def scenario(T):
        loc = _p(T, [0.3, -1.0])
        outs = []
        for d in (T.distributions.Normal(loc, 2.0), T.distributions.Laplace(loc, 2.0),
                  T.distributions.Exponential(loc.exp()), T.distributions.Uniform(loc - 1, loc + 2)):
            outs += [d.cdf(T.tensor([0.2, 0.4], dtype=T.float64)), d.icdf(T.tensor([0.2, 0.4], dtype=T.float64))]
        return outs + [T.autograd.grad(sum(o.sum() for o in outs), loc)[0]]
    both(scenario, rtol=1e-6, atol=1e-9)


def test_categorical_and_one_hot():
    def scenario(T):
        logits = _p(T, [[0.1, 0.5, -1.0], [2.0, 0.0, 0.3]])
        c, o = T.distributions.Categorical(logits=logits), T.distributions.OneHotCategorical(logits=logits)
        v = T.tensor([2, 0])
        outs = [c.log_prob(v), c.entropy(), c.probs, o.log_prob(T.nn.functional.one_hot(v, 3).double()),
                o.entropy(), o.mean, o.variance, c.mode, list(c.batch_shape), list(o.event_shape)]
        return outs + [T.autograd.grad(sum(x.sum() for x in outs[:7]), logits)[0]]
    out = both(scenario, rtol=1e-6, atol=1e-9)
    assert out[-2] == [3]


@pytest.mark.parametrize("kind", ["scale_tril", "covariance_matrix", "precision_matrix"])
def test_multivariate_normal(kind):
    def scenario(T):
        loc = _p(T, [0.5, -1.0])
        A = _p(T, [[2.0, 0.3], [0.3, 1.0]])
        m = A if kind != "scale_tril" else T.linalg.cholesky(A)
        d = T.distributions.MultivariateNormal(loc, **{kind: m})
        outs = [d.log_prob(T.tensor([[0.1, 0.2], [1.0, -2.0]], dtype=T.float64)), d.entropy(), d.variance,
                d.covariance_matrix, d.precision_matrix, d.scale_tril]
        return outs + list(T.autograd.grad(sum(o.sum() for o in outs), (loc, A)))
    both(scenario, rtol=1e-6, atol=1e-9)


def test_kl_divergences():
    def scenario(T):
        a, b = _p(T, [0.5, 2.0]), _p(T, [0.3, 0.6])
        D = T.distributions
        pairs = [(D.Normal(a, b), D.Normal(b, a)), (D.Bernoulli(b), D.Bernoulli(b * 0.5)),
                 (D.Categorical(b.softmax(0)), D.Categorical(a.softmax(0))), (D.Uniform(b, a + 1), D.Uniform(0.0, a + 2)),
                 (D.Beta(a, b), D.Beta(b, a)), (D.Exponential(a), D.Exponential(b)),
                 (D.MultivariateNormal(a, T.diag(b)), D.MultivariateNormal(b, scale_tril=T.diag(a)))]
        outs = [D.kl_divergence(p, q) for p, q in pairs]
        return outs + list(T.autograd.grad(sum(o.sum() for o in outs), (a, b)))
    both(scenario, rtol=1e-6, atol=1e-9)


def test_rsample_shapes_and_reparameterised_gradient():
    def scenario(T):
        loc = _p(T, [0.5, -1.0])
        D = T.distributions
        s = D.Normal(loc, 2.0).rsample((3,))
        g = T.autograd.grad(s.sum(), loc)[0]
        shapes = [list(d.rsample((4,)).shape) for d in (D.Laplace(loc, 1.0), D.Uniform(loc, loc + 1),
                                                         D.Exponential(loc.exp()), D.Beta(loc.exp(), 1.0),
                                                         D.MultivariateNormal(loc, T.eye(2, dtype=T.float64)))]
        sampled = D.Normal(loc, 1.0).sample((2,))
        return [list(s.shape), str(s.dtype), s.requires_grad, g, shapes, sampled.requires_grad,
                list(D.Categorical(T.tensor([0.2, 0.8])).sample((5, 2)).shape)]
    out = both(scenario)
    assert out[2] is True and out[3].tolist() == [3.0, 3.0] and out[5] is False


def test_validation_errors():
    D = "distributions"
    same_error(lambda T: getattr(T, D).Normal(T.tensor([0.0]), T.tensor([-1.0])), ValueError)
    same_error(lambda T: getattr(T, D).Bernoulli(), ValueError)
    same_error(lambda T: getattr(T, D).Normal(0.0, 1.0).log_prob(1.0), ValueError)
    same_error(lambda T: getattr(T, D).Categorical(T.tensor(1.0)), ValueError)
    same_error(lambda T: getattr(T, D).MultivariateNormal(T.zeros(2)), ValueError)


def test_constraints_shapes_expand_independent():
    def scenario(T):
        C, D = T.distributions.constraints, T.distributions
        cs = [C.real, C.positive, C.unit_interval, C.simplex, C.integer_interval(0, 3), C.nonnegative_integer,
              C.boolean, C.real_vector, C.lower_cholesky, C.positive_definite]
        v = T.tensor([[0.5, 0.5], [-1.0, 2.0]])
        checks = [c.check(v) for c in cs[:8]] + [c.check(T.eye(2)) for c in cs[8:]]
        base = D.Normal(T.zeros(3, 2), T.ones(3, 2))
        ind = D.Independent(base, 1)
        e = D.Normal(T.zeros(2), 1.0).expand((4, 2))
        return [[repr(c) for c in cs], checks, list(ind.batch_shape), list(ind.event_shape),
                ind.log_prob(T.ones(3, 2)), list(e.batch_shape), e.log_prob(T.zeros(4, 2)), repr(D.Normal(0.0, 1.0)),
                repr(ind), [d.has_rsample for d in (base, D.Bernoulli(0.5))]]
    out = both(scenario)
    assert out[0][1] == "GreaterThan(lower_bound=0.0)" and out[2] == [3]
