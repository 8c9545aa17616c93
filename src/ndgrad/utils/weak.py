"""torch.utils.weak: weak references and weak-keyed dictionaries that compare objects by identity.

A Tensor's ``==`` is elementwise and its ``__hash__`` is its id, so a plain ``weakref.WeakKeyDictionary``
cannot tell two tensors apart reliably; these containers use ``id`` (and ``is``) instead.
"""
import copy as _copy
import weakref
from collections.abc import MutableMapping

from .._tensor import Tensor

__all__ = ["TensorWeakRef", "WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed by the referent's id and equal to another only for the same object
    (two dead references are equal only if they are the same reference).

    Example::

        >>> from ndgrad.utils.weak import WeakIdRef
        >>> x = torch.zeros(2)
        >>> WeakIdRef(x) == WeakIdRef(x), hash(WeakIdRef(x)) == id(x)
        (True, True)
    """
    __slots__ = ("_id",)

    def __init__(self, key, callback=None):
        # the id is taken now: once the referent is gone it could be reused by another object
        self._id = id(key)
        super().__init__(key, callback)

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class _WeakHashRef(weakref.ref):
    """A weak reference hashed by the referent's hash (for keys that hash by value)."""
    __slots__ = ("_hash",)

    def __init__(self, key, callback=None):
        self._hash = hash(key)
        super().__init__(key, callback)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        a, b = self(), other()
        if a is not None and b is not None:
            return hash(a) == hash(b)
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A dictionary whose keys are held weakly and compared by identity: an entry goes away when its key
    is collected. ``ref_type`` is the reference class used for keys (WeakIdRef by default).

    Example::

        >>> from ndgrad.utils.weak import WeakIdKeyDictionary
        >>> d = WeakIdKeyDictionary()
        >>> x = torch.zeros(2)
        >>> d[x] = "x"
        >>> len(d), x in d, torch.zeros(2) in d
        (1, True, False)
        >>> del x
        >>> len(d)
        0
    """

    def __init__(self, dict=None, ref_type=WeakIdRef):  # noqa: A002  (torch's parameter name)
        self.data = {}
        self.ref_type = ref_type
        self_ref = weakref.ref(self)

        def remove(k, self_ref=self_ref):
            d = self_ref()
            if d is not None:
                d.data.pop(k, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def _ref(self, key, callback=None):
        return self.ref_type(key, callback) if callback is not None else self.ref_type(key)

    def __getitem__(self, key):
        return self.data[self._ref(key)]

    def __setitem__(self, key, value):
        self.data[self._ref(key, self._remove)] = value

    def __delitem__(self, key):
        del self.data[self._ref(key)]

    def __contains__(self, key):
        try:
            ref = self._ref(key)
        except TypeError:   # an object that cannot be weakly referenced is never a key
            return False
        return ref in self.data

    def __len__(self):
        return sum(1 for ref in list(self.data) if ref() is not None)

    def __iter__(self):
        for ref in list(self.data):   # a snapshot: collection during iteration removes entries
            obj = ref()
            if obj is not None:
                yield obj

    def __repr__(self):
        return f"<{type(self).__name__} at {id(self):#x}>"

    def items(self):
        for ref, value in list(self.data.items()):
            obj = ref()
            if obj is not None:
                yield obj, value

    def values(self):
        for _, value in self.items():
            yield value

    def keys(self):
        return iter(self)

    def keyrefs(self):
        """The weak references to the keys (a key's entry lasts as long as its reference is alive)."""
        return list(self.data)

    def get(self, key, default=None):
        return self.data.get(self._ref(key), default)

    def pop(self, key, *default):
        return self.data.pop(self._ref(key), *default)

    def popitem(self):
        while True:
            ref, value = self.data.popitem()
            obj = ref()
            if obj is not None:
                return obj, value

    def setdefault(self, key, default=None):
        return self.data.setdefault(self._ref(key, self._remove), default)

    def update(self, dict=None, **kwargs):  # noqa: A002
        if dict is not None:
            for key, value in (dict.items() if hasattr(dict, "items") else dict):
                self[key] = value
        if kwargs:
            self.update(kwargs)

    def copy(self):
        new = type(self)(ref_type=self.ref_type)
        for key, value in self.items():
            new[key] = value
        return new

    __copy__ = copy

    def __deepcopy__(self, memo):
        new = type(self)(ref_type=self.ref_type)
        for key, value in self.items():
            new[key] = _copy.deepcopy(value, memo)
        return new

    def __ior__(self, other):
        self.update(other)
        return self

    def __or__(self, other):
        if isinstance(other, MutableMapping):
            new = self.copy()
            new.update(other)
            return new
        return NotImplemented

    def __eq__(self, other):
        if not isinstance(other, MutableMapping):
            return NotImplemented
        return {id(k): v for k, v in self.items()} == {id(k): v for k, v in other.items()}


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a Tensor: calling it gives the tensor, or None once it is collected.

    Example::

        >>> from ndgrad.utils.weak import TensorWeakRef
        >>> x = torch.zeros(2)
        >>> TensorWeakRef(x)() is x
        True
    """

    def __init__(self, tensor):
        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self):
        out = self.ref()
        if out is not None and not isinstance(out, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(out)}.")
        return out
