"""func.rearrange against torch.func.rearrange: shapes, values and gradients of einops patterns."""
import numpy as np
import pytest

from parity import both

X = np.arange(2 * 6 * 4 * 3, dtype=np.float64).reshape(2, 6, 4, 3)


@pytest.mark.parametrize("pattern,lengths", [
    ("b h w c -> b c h w", {}), ("b h w c -> (b h) w c", {}), ("b h w c -> h (b w) c", {}),
    ("b (h1 h2) w c -> b h1 (h2 w) c", {"h1": 2}), ("b h w c -> b (c h w)", {}), ("... c -> c ...", {}),
    ("b h w c -> b h w c 1", {}), ("b h ... -> (h b) ...", {}), ("b h w c -> c b h w", {}),
])
def test_patterns_values_and_grads(pattern, lengths):
    def scenario(T):
        x = T.tensor(X, requires_grad=True)
        y = T.func.rearrange(x, pattern, **lengths)
        (y * T.arange(y.numel(), dtype=T.float64).reshape(y.shape)).sum().backward()
        return list(y.shape), y, x.grad
    shape, y, g = both(scenario)
    assert np.prod(shape) == X.size and not np.allclose(g, 0)


def test_list_of_tensors_is_stacked():
    def scenario(T):
        return T.func.rearrange([T.tensor(X[0]), T.tensor(X[1])], "b h w c -> h (b w) c")
    y = both(scenario)
    assert y.shape == (6, 8, 3)
