"""torch.torch_version: TorchVersion, a version string that compares with version strings and
tuples by release numbers ("2.13.0+cpu" > "2.1", >= (2, 13))."""
import re

from .version import __version__ as _version

__all__ = ["TorchVersion"]

_RELEASE = re.compile(r"v?(\d+(?:\.\d+)*)(.*)$")


def _key(v):
    """(release numbers, padded; the rest: pre/post/local tags) or None for a non-version string."""
    if isinstance(v, (tuple, list)):
        v = ".".join(str(p) for p in v)
    m = _RELEASE.match(str(v).strip())
    if m is None:
        return None
    nums = tuple(int(p) for p in m.group(1).split("."))
    return nums + (0,) * (8 - len(nums)), m.group(2)


class TorchVersion(str):
    def _compare(self, other, op):
        mine, theirs = _key(self), _key(other)
        if mine is None or theirs is None:   # not versions: plain string comparison
            return op(str(self), str(other))
        return op(mine, theirs)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    def __eq__(self, other):
        return self._compare(other, lambda a, b: a == b)

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__


__version__ = TorchVersion(_version)
