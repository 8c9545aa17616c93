"""Containers: Sequential, ModuleList and ModuleDict hold modules, ParameterList and
ParameterDict hold parameters; indexed like a list or a dict, registered like attributes."""
import operator
import warnings
from collections import OrderedDict
from itertools import islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _indent


def _compact_lines(modules):
    """torch's ModuleList repr: runs of identically printed consecutive modules become one line."""
    items = [(name, repr(m)) for name, m in modules.items()]
    lines, i = [], 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1][1] == items[i][1]:
            j += 1
        text = _indent(items[i][1], 2)
        lines.append(f"({items[i][0]}): {text}" if i == j else f"({items[i][0]}-{items[j][0]}): {j - i + 1} x {text}")
        i = j + 1
    return lines


class Sequential(Module):
    r"""Calls its modules in order, each on the previous one's output: `Sequential(m1, m2)`, or
    `Sequential(OrderedDict(name=m))` to name them. Indexing, slicing, ``len``, `append`, `insert` and
    `extend` work as on a list; a slice is a new `Sequential`.

    Args:
        *args: the modules, or one `OrderedDict` of them by name.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
        >>> model(torch.randn(3, 4)).shape
        torch.Size([3, 2])
        >>> model[1], len(model)
        (ReLU(), 3)
        >>> [name for name, _ in model.named_parameters()]
        ['0.weight', '0.bias', '2.weight', '2.bias']
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def _index(self, idx):
        n = len(self)
        idx = operator.index(idx)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx % n

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return next(islice(self._modules.values(), self._index(idx), None))

    def __setitem__(self, idx, module):
        setattr(self, list(self._modules)[self._index(idx)], module)

    def __delitem__(self, idx):
        items = list(self._modules.items())
        del items[idx if isinstance(idx, slice) else self._index(idx)]
        self._modules.clear()   # torch renumbers every key 0..n-1 after a deletion
        for i, (_, m) in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential(*self, *other)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index % (n + 1) if index < 0 else index
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered under their indices, so that their parameters are the parent
    module's (a plain Python list would hide them).

    Args:
        modules (iterable, optional): the modules to start with.

    Example::

        >>> layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
        >>> _ = layers.append(torch.nn.ReLU())
        >>> len(layers), len(list(layers.parameters()))
        (4, 6)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx):
        n = len(self)
        idx = operator.index(idx)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx % n

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(self._index(idx))]

    def __setitem__(self, idx, module):
        self.add_module(str(self._index(idx)), module)

    def __delitem__(self, idx):
        mods = list(self._modules.values())
        del mods[idx if isinstance(idx, slice) else self._index(idx)]
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def _child_lines(self):
        return _compact_lines(self._modules)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward: iterate over it and call its modules")


class ModuleDict(Module):
    """A dict of modules, registered under their keys (in insertion order), so that their parameters
    are the parent module's.

    Args:
        modules (mapping or iterable of pairs, optional): the modules to start with.

    Example::

        >>> heads = torch.nn.ModuleDict({'cls': torch.nn.Linear(4, 3), 'box': torch.nn.Linear(4, 2)})
        >>> heads['box'](torch.ones(1, 4)).shape
        torch.Size([1, 2])
        >>> list(heads.keys())
        ['cls', 'box']
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for j, pair in enumerate(pairs):
            if hasattr(modules, "items"):
                key, module = pair
            else:
                if len(pair) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
                key, module = pair
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward: index it and call its modules")


def _parameter_line(p, type_name):
    return f"Parameter containing: [{type_name} of size {'x'.join(str(s) for s in p.shape)}]"


class ParameterList(Module):
    """A list of Parameters registered under their indices (tensors become Parameters).

    Args:
        values (iterable, optional): the parameters (or tensors) to start with.

    Example::

        >>> params = torch.nn.ParameterList([torch.ones(2), torch.zeros(3)])
        >>> type(params[0]).__name__, [name for name, _ in params.named_parameters()]
        ('Parameter', ['0', '1'])
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return getattr(self, str(idx % n))

    def __setitem__(self, idx, param):
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx % len(self)), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({i}): {_parameter_line(p, str(p.dtype))}" for i, p in enumerate(self))

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ParameterList has no forward: index it")


class ParameterDict(Module):
    """A dict of Parameters registered under their keys (tensors become Parameters).

    Args:
        parameters (mapping or iterable of pairs, optional): the parameters (or tensors) to start with.

    Example::

        >>> params = torch.nn.ParameterDict({'scale': torch.ones(2)})
        >>> params['shift'] = torch.zeros(2)
        >>> sorted(name for name, _ in params.named_parameters())
        ['scale', 'shift']
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters):
        for key, value in (parameters.items() if hasattr(parameters, "items") else parameters):
            self[key] = value

    def extra_repr(self):
        return "\n".join(f"  ({k}): {_parameter_line(p, p.type())}" for k, p in self.items())

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ParameterDict has no forward: index it")


__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


# ---- api: Container, the deprecated ancestor of Module's child registry
class Container(Module):
    """A module holding the given modules as its children, by name: deprecated (creating one warns
    with a FutureWarning); subclass :class:`~ndgrad.nn.Module` instead.

    Args:
        kwargs (Module): the children, by name.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     c = torch.nn.Container(fc=torch.nn.Linear(2, 1))
        >>> [name for name, _ in c.named_children()]
        ['fc']
    """

    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        for name, module in kwargs.items():
            self.add_module(name, module)


__all__ += ["Container"]
