"""torch.func.rearrange: einops-style axis rearrangement ("b h w c -> b (h w) c") as one reshape
into the elementary axes, one permute, one reshape into the output groups, so autograd and
views follow from those ops."""
import math
import re

from ..ops import _registry

_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+|\S")


def _side(text):
    """The groups of one side: each a list of axis names ("..." for the ellipsis, "1" a unit axis)."""
    groups, current = [], None
    for tok in _TOKEN.findall(text):
        if tok == "(":
            if current is not None:
                raise ValueError(f"rearrange: nested parentheses in {text.strip()!r}")
            current = []
        elif tok == ")":
            if current is None:
                raise ValueError(f"rearrange: unbalanced parentheses in {text.strip()!r}")
            groups.append(current)
            current = None
        elif tok == "..." or tok.isidentifier() or tok == "1":
            (current if current is not None else groups).append(tok if current is not None else [tok])
        else:
            raise ValueError(f"rearrange: unexpected {tok!r} in {text.strip()!r}")
    if current is not None:
        raise ValueError(f"rearrange: unbalanced parentheses in {text.strip()!r}")
    return groups


def rearrange(tensor, pattern, **axes_lengths):
    """Rearrange the dimensions of `tensor` by an einops-style `pattern`.

    The pattern names the input's axes on the left of ``->`` and the output's on the right:
    swapping names transposes, a parenthesized group ``(h w)`` is one dimension made of (or split
    into) several, ``...`` stands for the remaining dimensions and ``1`` for a dimension of size 1.
    The result is built by reshape and permute, so it is differentiable.

    Args:
        tensor (Tensor or sequence of Tensors): the input; a sequence is first stacked along a new
            first dimension.
        pattern (str): the rearrangement, e.g. ``"b c h w -> b (h w) c"``.
        axes_lengths (int): the sizes of axes that a split needs, by name (``c=2``).

    Returns:
        Tensor: the rearranged tensor.

    Example::

        >>> x = torch.arange(6).view(2, 3)
        >>> torch.func.rearrange(x, "a b -> b a")
        tensor([[0, 3],
                [1, 4],
                [2, 5]])
        >>> torch.func.rearrange(x, "a (b c) -> a b c", c=1).shape
        torch.Size([2, 3, 1])
    """
    if isinstance(tensor, (list, tuple)):
        tensor = _registry.OPS["stack"](list(tensor))
    if "->" not in pattern:
        raise ValueError(f"rearrange: the pattern {pattern!r} has no '->'")
    left, right = (_side(s) for s in pattern.split("->"))
    names = [a for g in left for a in g if a != "1"]
    if len(set(names)) != len(names):
        raise ValueError(f"rearrange: an axis appears twice on the left of {pattern!r}")
    ellipsis = any("..." in g for g in left)
    n_ell = tensor.dim() - (len(left) - 1) if ellipsis else 0
    if (ellipsis and n_ell < 0) or (not ellipsis and len(left) != tensor.dim()):
        raise ValueError(f"rearrange: the pattern {pattern!r} has {len(left)} dimensions on the left, the tensor "
                         f"{tensor.dim()}")
    sizes, elementary, dim = dict(axes_lengths), [], 0
    for group in left:
        if group == ["..."]:
            for i in range(n_ell):
                sizes[f"...{i}"] = tensor.shape[dim + i]
                elementary.append(f"...{i}")
            dim += n_ell
            continue
        size = tensor.shape[dim]
        unknown = [a for a in group if a not in sizes and a != "1"]
        known = math.prod(sizes[a] for a in group if a in sizes)
        if len(unknown) > 1:
            raise ValueError(f"rearrange: cannot infer the sizes of {unknown} in {pattern!r}")
        if unknown:
            if known == 0 or size % known:
                raise ValueError(f"rearrange: dimension {dim} of size {size} cannot be split as {group}")
            sizes[unknown[0]] = size // known
        elif known != size:
            raise ValueError(f"rearrange: dimension {dim} has size {size}, the pattern asks {known}")
        elementary += [a for a in group if a != "1"]
        dim += 1
    out_names = [a for g in right for a in g if a not in ("1", "...")]
    missing = set(out_names) ^ set(n for n in names if n != "...")
    if missing:
        raise ValueError(f"rearrange: axes {sorted(missing)} appear on one side of {pattern!r} only")
    ell = [f"...{i}" for i in range(n_ell)]
    order = [e for g in right for a in g if a != "1" for e in (ell if a == "..." else [a])]
    x = tensor.reshape([sizes[a] for a in elementary]).permute([elementary.index(a) for a in order])
    shape = [s for g in right for s in ([sizes[e] for e in ell] if g == ["..."] else
                                        [math.prod(sizes[e] for a in g if a != "1"
                                                   for e in (ell if a == "..." else [a]))])]
    return x.reshape(shape)
