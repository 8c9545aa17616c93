"""Gradient shapes: `sum_to` undoes broadcasting, so that a gradient gets the shape of the input
it flows into. Used by the engine, forward AD and the derivative formulas."""


def sum_to(t, shape):
    """Sum `t` down to `shape` (undoing broadcasting); ValueError if it cannot be."""
    shape = tuple(shape)
    tshape = t._data.shape
    if tshape == shape:
        return t
    lead = len(tshape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot sum {tshape} to {shape}")
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and tshape[lead + i] != 1:
            dims.append(lead + i)
        elif s != tshape[lead + i]:
            raise ValueError(f"cannot sum {tshape} to {shape}")
    if dims:
        t = t.sum(dims, keepdim=True)
    return t.reshape(shape) if lead else t
