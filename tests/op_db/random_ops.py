"""Registry entries for the random ops (see op_db/__init__.py for the format).

Each sample seeds the generator inside its call, so that every call (gradcheck's perturbed ones, the
forward-AD test's finite differences) draws the same values: the op is then a deterministic
function whose draw does not move with its input (a fresh draw into a copy, a draw that is
locally constant in the probability / rate, or mean and std that reach the node through `* 0`), the
zero gradient and zero tangent torch defines for it. ndgrad draws from NumPy's generator, not torch's, so values are not compared with torch; the
node names are (grad_fn).
"""
from . import OpInfo, S

PROB = dict(low=0.2, high=0.8)


def seeded(name, call, inputs, grad_fn):
    return OpInfo(name, lambda T, *xs: (T.manual_seed(0), call(T, *xs))[1], inputs, grad_fn=grad_fn,
                  torch_parity=False)


OPS = [
    seeded("normal_", lambda T, x: x.clone().normal_(), [S(2, 3)], "NormalBackward0"),
    seeded("uniform_", lambda T, x: x.clone().uniform_(-2, 3), [S(2, 3)], "UniformBackward0"),
    seeded("cauchy_", lambda T, x: x.clone().cauchy_(), [S(4)], "CauchyBackward0"),
    seeded("exponential_", lambda T, x: x.clone().exponential_(2.0), [S(4)], "ExponentialBackward0"),
    seeded("geometric_", lambda T, x: x.clone().geometric_(0.3), [S(4)], "GeometricBackward0"),
    seeded("log_normal_", lambda T, x: x.clone().log_normal_(), [S(4)], "LogNormalBackward0"),
    seeded("random_", lambda T, x: x.clone().random_(), [S(4)], "RandomBackward2"),
    seeded("random_from_to", lambda T, x: x.clone().random_(2, 9), [S(4)], "RandomBackward0"),
    seeded("random_to", lambda T, x: x.clone().random_(7), [S(4)], "RandomBackward1"),
    seeded("bernoulli_float", lambda T, x: x.clone().bernoulli_(0.3), [S(4)], "BernoulliBackward2"),
    seeded("bernoulli_tensor", lambda T, x, p: x.clone().bernoulli_(p), [S(4), S(4, **PROB)], "BernoulliBackward1"),
    seeded("bernoulli", lambda T, p: T.bernoulli(p), [S(2, 3, **PROB)], "BernoulliBackward0"),
    seeded("poisson", lambda T, r: T.poisson(r), [S(2, 3, low=0.5, high=3.0)], "PoissonBackward0"),
    # normal(mean, std) with the seed fixed inside the call; torch defines zero gradients for mean and std
    # (no reparameterization), so the inputs reach the node through `* 0`: the draw is then constant
    # and the zero gradient and tangent are the derivative
    seeded("normal_tensor_tensor", lambda T, m, s: T.normal(m * 0, s * 0 + 1.5), [S(2, 3), S(2, 3)], "NormalBackward3"),
    seeded("normal_tensor_float", lambda T, m: T.normal(m * 0, 2.0), [S(2, 3)], "NormalBackward1"),
    seeded("normal_float_tensor", lambda T, s: T.normal(0.5, s * 0 + 1.5), [S(2, 3)], "NormalBackward2"),
]
