"""torch.quasirandom.SobolEngine: the same points as torch's, however they are drawn."""
import pytest

import ndgrad

from parity import both, err


def _engine(T, *args, **kwargs):
    from importlib import import_module
    return import_module(T.__name__ + ".quasirandom").SobolEngine(*args, **kwargs)


@pytest.mark.parametrize("dimension", [1, 3, 40])
def test_unscrambled_points_in_every_drawing_pattern(dimension):
    def scenario(T):
        e = _engine(T, dimension)
        out = [e.draw(), e.draw(5), e.draw(3, dtype=T.float64)]
        e.fast_forward(7)
        out += [e.draw(2), e.num_generated, repr(e)]
        e.reset()
        out += [e.draw_base2(3), e.draw_base2(3), e.quasi, e.sobolstate[:, :6]]
        fresh = _engine(T, dimension)
        fresh.fast_forward(9)
        out += [fresh.draw(2, dtype=T.float64), fresh.num_generated]
        return out
    r = both(scenario)
    assert r[0].shape == (1, dimension) and (r[0] == 0).all() and r[4] == 18


def test_draw_into_out_and_the_refusals():
    def scenario(T):
        e = _engine(T, 3)
        out = T.empty(2, 3, dtype=T.float64)
        same = e.draw(2, out=out) is out
        return [same, out, err(lambda: _engine(T, 3).draw(0)), err(lambda: _engine(T, 21202)),
                err(lambda: e.draw_base2(2)), repr(_engine(T, 2, seed=5)), repr(_engine(T, 2, scramble=True, seed=5))]
    r = both(scenario)
    assert r[0] is True and r[3][0] == "ValueError"


def test_scrambled_engines_are_deterministic_per_seed_and_stay_in_the_unit_cube():
    a, b = ndgrad.quasirandom.SobolEngine(4, scramble=True, seed=11), ndgrad.quasirandom.SobolEngine(4, True, 11)
    x = a.draw(64, dtype=ndgrad.float64)
    assert ndgrad.equal(x, b.draw(64, dtype=ndgrad.float64)) and (x >= 0).all() and (x < 1).all()
    # scrambling keeps the net property: each of the 64 points alone in its 1/64 slice of a coordinate
    assert ndgrad.equal((x * 64).floor().sort(0).values, ndgrad.arange(64.0).reshape(64, 1).expand(64, 4))


@pytest.mark.parametrize("seed", [0, 7, 2 ** 40])
def test_scrambled_points_are_torch_s_for_a_seed(seed):
    def scenario(T):
        e = _engine(T, 6, scramble=True, seed=seed)
        out = [e.shift, e.sobolstate[:, :5], e.draw(), e.draw(7, dtype=T.float64)]
        e.reset()
        out.append(e.draw(3, dtype=T.float64))   # the first point at float32 precision, as torch keeps it
        return out
    both(scenario)
