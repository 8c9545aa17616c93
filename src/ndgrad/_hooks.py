"""Hook handles: the ordered hook dictionaries of tensors, nodes and modules, and the handle that
removes one hook (torch.utils.hooks.RemovableHandle). Tensor layer: imports nothing of ndgrad."""
import itertools
import weakref


class RemovableHandle:
    __slots__ = ("_hooks", "_key")
    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = weakref.ref(hooks)
        self._key = next(self._ids)

    @property
    def id(self):
        """The key of the hook in its dictionary (torch's ``handle.id``)."""
        return self._key

    def remove(self):
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class HookDict(dict):
    """Ordered hooks keyed by handle id (a dict subclass so handles can hold a weak reference)."""
    __slots__ = ("__weakref__",)

    def __reduce__(self):   # as a plain container (no copyreg helper), so weights-only loads may allow it
        return HookDict, (), None, None, iter(self.items())

    def add(self, fn):
        handle = RemovableHandle(self)
        self[handle._key] = fn
        return handle
