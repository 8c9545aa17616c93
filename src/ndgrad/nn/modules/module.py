"""Module: the base class of layers, with torch.nn.Module's registration, traversal,
state_dict, mode, dtype conversion and forward-hook behaviour."""
from typing import Any, Dict, Iterator, Mapping, Tuple, TypeVar

import warnings
from collections import OrderedDict, namedtuple

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..._hooks import HookDict
from ..parameter import Parameter
from ...ops.creation import empty_like
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _type_name(value):
    if isinstance(value, Tensor):
        return f"torch.{value.dtype.title}Tensor"
    return type(value).__module__ + "." + type(value).__qualname__ if type(value).__module__ != "builtins" \
        else type(value).__qualname__


def _indent(text, spaces):
    lines = text.split("\n")
    return lines[0] if len(lines) == 1 else lines[0] + "".join("\n" + " " * spaces + ln for ln in lines[1:])


def _add_hook(hooks, fn, prepend):
    handle = hooks.add(fn)
    if prepend:
        rest = [(k, v) for k, v in hooks.items() if k != handle._key]
        hooks.clear()
        hooks[handle._key] = fn
        hooks.update(rest)
    return handle


_M = TypeVar("_M", bound="Module")   # methods that return self keep the subclass's type


class Module:
    """Base class of every layer and model.

    Assigning a `Parameter`, a `Module` or a registered buffer as an attribute registers it: it then
    appears in `parameters()`, `state_dict()`, `to()`, `train()` / `.eval()` and the module's repr.
    Subclasses call ``super().__init__()`` first and define `forward`; calling the module runs its
    hooks around `forward`.

    Example::

        >>> class TwoLayers(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = torch.nn.Linear(3, 4)
        ...         self.out = torch.nn.Linear(4, 1)
        ...     def forward(self, x):
        ...         return self.out(self.hidden(x).relu())
        >>> model = TwoLayers()
        >>> [name for name, _ in model.named_parameters()]
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
        >>> model(torch.ones(2, 3)).shape
        torch.Size([2, 1])
    """
    training: bool
    _version = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments: {args} {kwargs}")
        # object.__setattr__: these are the registries __setattr__ itself consults
        for name, value in (("training", True), ("_parameters", {}), ("_buffers", {}),
                            ("_non_persistent_buffers_set", set()), ("_modules", {}),
                            ("_forward_pre_hooks", HookDict()), ("_forward_pre_hooks_with_kwargs", set()),
                            ("_forward_hooks", HookDict()), ("_forward_hooks_with_kwargs", set()),
                            ("_backward_pre_hooks", HookDict()), ("_backward_hooks", HookDict())):
            object.__setattr__(self, name, value)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # --- registration ---------------------------------------------------------------------
    def _check_name(self, kind, name, registry):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        self._check_name("parameter", name, self.__dict__.get("_parameters", {}))
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Register a tensor that belongs to the module's state but is not a parameter (a running mean, ...).

        Args:
            name: the attribute name.
            tensor: the tensor, or None (declared, not yet set).
            persistent: whether `state_dict` includes it (default True).

        Example::

            >>> m = torch.nn.Module()
            >>> m.register_buffer("steps", torch.tensor(0))
            >>> list(m.state_dict()), list(m.parameters())
            (['steps'], [])
        """
        self._check_name("buffer", name, self.__dict__.get("_buffers", {}))
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Register `module` as a submodule named `name` (what assigning an attribute does).

        Args:
            name: the attribute name.
            module: a Module, or None.

        Example::

            >>> net = torch.nn.Module()
            >>> net.add_module("layer", torch.nn.Linear(2, 2))
            >>> [n for n, _ in net.named_children()]
            ['layer']
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name("module", name, self.__dict__.get("_modules", {}))
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params, buffers, modules = d.get("_parameters"), d.get("_buffers"), d.get("_modules")

        def forget(*registries):   # a name lives in one registry at a time
            d.pop(name, None)
            for r in registries:
                if r is not None:
                    r.pop(name, None)
            if buffers is not None:
                self._non_persistent_buffers_set.discard(name)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget(buffers, modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget(params, buffers)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif getattr(value, "_is_buffer", False) and isinstance(value, Tensor):   # an nn.Buffer
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            forget(params, buffers, modules)
            self.register_buffer(name, value, persistent=value.persistent)
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__   # (deepcopy and pickle probe attributes before __init__ ran)
        for registry in ("_parameters", "_buffers", "_modules"):
            r = d.get(registry)
            if r is not None and name in r:
                return r[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    def get_submodule(self, target):
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    # --- traversal ------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, registry, prefix, recurse, remove_duplicate):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[Tuple[str, Parameter]]:
        """``(name, parameter)`` pairs, names dotted by submodule (``"0.weight"``).

        Args:
            prefix: prepended to every name.
            recurse: include the parameters of submodules (default True).
            remove_duplicate: yield a parameter shared by several modules once (default True).

        Returns:
            Iterator[tuple[str, Parameter]]

        Example::

            >>> [n for n, _ in torch.nn.Sequential(torch.nn.Linear(2, 2)).named_parameters()]
            ['0.weight', '0.bias']
        """
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The module's parameters (and, with `recurse`, those of its submodules), each once.

        Args:
            recurse: include the parameters of submodules (default True).

        Returns:
            Iterator[Parameter]: in registration order; what optimizers take.

        Example::

            >>> sum(p.numel() for p in torch.nn.Linear(3, 2).parameters())
            8
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # --- state_dict -----------------------------------------------------------------------
    def _own_state(self):
        """This module's (name, tensor) entries of the state dict: parameters and persistent buffers."""
        for name, p in self._parameters.items():
            if p is not None:
                yield name, p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                yield name, b

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> Dict[str, Any]:
        """The module's parameters and persistent buffers by dotted name, detached.

        The result is what `torch.save` writes and `load_state_dict` reads back.

        Args:
            prefix: prepended to every key.
            keep_vars: keep the tensors attached to autograd instead of detached.

        Returns:
            dict[str, Tensor]: an ordered dictionary.

        Example::

            >>> list(torch.nn.BatchNorm1d(3).state_dict())
            ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        """
        if args:   # the deprecated positional form (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        destination = OrderedDict() if destination is None else destination
        for name, value in self._own_state():
            destination[prefix + name] = value if keep_vars else value.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False) -> Any:
        """Copy parameters and buffers from `state_dict` into this module (in place, without recording).

        Args:
            state_dict: a mapping from dotted names to tensors, as `state_dict` returns.
            strict: raise an error if a key is missing or unexpected (default True).
            assign: put the given tensors in place of the module's instead of copying into them.

        Returns:
            NamedTuple: ``missing_keys`` and ``unexpected_keys``.

        Example::

            >>> a, b = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
            >>> b.load_state_dict(a.state_dict())
            <All keys matched successfully>
            >>> torch.equal(a.weight, b.weight)
            True
        """
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, errors, consumed = [], [], set()
        for mod_prefix, mod in self.named_modules(remove_duplicate=False):
            prefix = mod_prefix + "." if mod_prefix else ""
            for name, current in mod._own_state():
                key = prefix + name
                if key not in state_dict:
                    missing.append(key)
                    continue
                consumed.add(key)
                value = state_dict[key]
                if not isinstance(value, Tensor):
                    errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                elif tuple(value.shape) != tuple(current.shape):
                    errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {current.shape}.")
                elif assign:
                    if name in mod._parameters:
                        value = value if isinstance(value, Parameter) else Parameter(value, current.requires_grad)
                        mod._parameters[name] = value
                    else:
                        mod._buffers[name] = value
                else:
                    with no_grad():
                        current.copy_(value)
        unexpected = [k for k in state_dict.keys() if k not in consumed and k not in missing]
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # --- modes, conversion, gradients -----------------------------------------------------
    def train(self: _M, mode: bool = True) -> _M:
        """Set training mode (``mode=True``) or evaluation mode on this module and every submodule.

        Layers such as dropout and batch norm behave differently in the two modes.

        Args:
            mode: True for training, False for evaluation.

        Returns:
            Module: self.

        Example::

            >>> net = torch.nn.Sequential(torch.nn.Dropout(0.5))
            >>> net.train(False)[0].training
            False
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self: _M) -> _M:
        """Set evaluation mode: the same as ``train(False)``.

        Returns:
            Module: self.

        Example::

            >>> torch.nn.Dropout().eval().training
            False
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter.

        Args:
            set_to_none: set ``.grad`` to None (default) instead of filling it with zeros.

        Example::

            >>> lin = torch.nn.Linear(2, 1)
            >>> lin(torch.ones(1, 2)).sum().backward()
            >>> lin.zero_grad()
            >>> lin.weight.grad is None
            True
        """
        _zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        """Call ``fn(module)`` on every submodule, then on this module (to initialise weights, ...).

        Args:
            fn: a function of a Module.

        Returns:
            Module: self.

        Example::

            >>> def init(m):
            ...     if isinstance(m, torch.nn.Linear):
            ...         torch.nn.init.zeros_(m.weight)
            >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()).apply(init)
            >>> net[0].weight.abs().sum().item()
            0.0
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn):
        """Convert every parameter (in place, keeping the Parameter objects), grad and buffer."""
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                p.data = fn(p)
                if p._grad is not None:
                    p._grad = fn(p._grad)
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self: _M, *args: Any, **kwargs: Any) -> _M:
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, bool):   # non_blocking
                continue
            else:
                device = a
        kind = None if device is None else str(device).split(":")[0]
        if kind == "meta" or kind == "cpu" and any(t.is_meta for t in self._tensors()):
            return self._to_device(kind, dtype)
        if device is not None and kind != "cpu":
            raise NotImplementedError(f"Module.to({str(device)!r}): ndgrad only has the CPU backend wired to ops")
        if dtype is None:
            return self
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex() else t)

    def _tensors(self):
        return [t for m in self.modules() for t in (*m._parameters.values(), *m._buffers.values()) if t is not None]

    def _to_device(self, kind, dtype):
        """Module.to('meta') (and back, refused as torch refuses it): parameters move into new Parameter
        objects, as torch's _apply makes them when the storage kind changes."""
        if kind != "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
                                      "instead of torch.nn.Module.to() when moving module from meta to a different "
                                      "device.")

        def move(t):
            d = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else t.dtype
            return t.to("meta", d)
        return self._swap_storage(move)

    def _swap_storage(self, fn):
        for module in self.modules():
            with no_grad():
                for name, p in module._parameters.items():
                    if p is not None:
                        module._parameters[name] = Parameter(fn(p), p.requires_grad)
                for name, b in module._buffers.items():
                    if b is not None:
                        module._buffers[name] = fn(b)
        return self

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers moved to `device` without copying their values (uninitialized)."""
        kind = str(device).split(":")[0]
        if kind not in ("cpu", "meta"):
            raise NotImplementedError(f"Module.to_empty({str(device)!r}): ndgrad only has the CPU backend wired to ops")
        return self._swap_storage(lambda t: empty_like(t, device=kind))

    def _float_apply(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._float_apply(_dtype.float32)

    def double(self):
        return self._float_apply(_dtype.float64)

    def half(self):
        return self._float_apply(_dtype.float16)

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self):
        return self

    def share_memory(self):
        """Move the parameters, their gradients and the buffers into shared memory, in place
        (:meth:`Tensor.share_memory_`), so that processes they are sent to update these very tensors.

        Example::

            >>> m = torch.nn.Linear(2, 1).share_memory()
            >>> m.weight.is_shared()
            True
        """
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device=None):
        raise NotImplementedError("ndgrad's CUDA backend (CuPy) is not wired to ops yet; modules live on the CPU")

    # --- calling and hooks ----------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args
        (with_kwargs: hook(module, args, kwargs) -> None or (args, kwargs))."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle._key)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Register ``hook(module, args, output)`` to run after every call of `forward`.

        A hook that returns a value replaces the output.

        Args:
            hook: the function; with ``with_kwargs=True`` it is ``hook(module, args, kwargs, output)``.
            prepend: run it before the hooks already registered.
            with_kwargs: pass the keyword arguments of the call as well.
            always_call: run it even when forward raises an exception.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> lin = torch.nn.Linear(2, 2)
            >>> handle = lin.register_forward_hook(lambda module, args, output: torch.zeros_like(output))
            >>> lin(torch.ones(1, 2))
            tensor([[0., 0.]])
            >>> handle.remove()
        """
        handle = _add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle._key)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or new grad_output, called before the module's input gradients."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or new grad_input, once the gradients with respect
        to the module's tensor inputs are computed (grad_input holds None for inputs without grad)."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        raise NotImplementedError("register_backward_hook (the deprecated non-full hook) is not supported by ndgrad: "
                                  "use register_full_backward_hook")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.__dict__.get("_backward_hooks") or self.__dict__.get("_backward_pre_hooks"):
            return _call_with_backward_hooks(self, self._call_forward, args, kwargs)
        return self._call_forward(*args, **kwargs)

    def _call_forward(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        result = self.forward(*args, **kwargs)
        for key, hook in list(self._forward_hooks.items()):
            res = hook(self, args, kwargs, result) if key in self._forward_hooks_with_kwargs \
                else hook(self, args, result)
            if res is not None:
                result = res
        return result

    # --- printing -------------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of this module's repr; subclasses override it."""
        return ""

    def _child_lines(self):
        return [f"({name}): {_indent(repr(m), 2)}" for name, m in self._modules.items()]

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = self._child_lines()
        if not child_lines and len(extra_lines) <= 1:
            return f"{self._get_name()}({extra})"
        body = "\n  ".join(extra_lines + child_lines)
        return f"{self._get_name()}(\n  {body}\n)"


def _zero_grads(params, set_to_none):
    for p in params:
        if p._grad is None:
            continue
        if set_to_none:
            p._grad = None
        else:
            g = p._grad
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()


# ---- full backward hooks --------------------------------------------------------------------------
# The module's tensor inputs and outputs pass through an identity autograd Function (its node is
# torch's BackwardHookFunctionBackward). A post-hook on the outputs' node sees grad_output (and runs
# the backward pre-hooks); a post-hook on the inputs' node sees grad_input and runs the full hooks,
# once per grad_output (a gradient reaching the inputs without passing the outputs, as in double
# backward, runs none). Post-hooks, as in torch: node hooks registered later run after them.
def _identity_function():

    class BackwardHookFunction(Function):
        @staticmethod
        def forward(ctx, *args):
            return args

        @staticmethod
        def backward(ctx, *grads):
            return grads
    return BackwardHookFunction


_BackwardHookFunction = None


def _wrap(tensors):
    """Pass the grad-requiring tensors of `tensors` through BackwardHookFunction; (new tensors, its node)."""
    global _BackwardHookFunction
    idx = [i for i, t in enumerate(tensors) if isinstance(t, Tensor) and t.requires_grad]
    if not idx or not is_grad_enabled():
        return list(tensors), None
    if _BackwardHookFunction is None:
        _BackwardHookFunction = _identity_function()
    outs = _BackwardHookFunction.apply(*[tensors[i] for i in idx])
    outs = outs if isinstance(outs, tuple) else (outs,)
    tensors = list(tensors)
    for i, t in zip(idx, outs):
        tensors[i] = t
    return tensors, (outs[0].grad_fn, idx)


def _call_with_backward_hooks(module, forward, args, kwargs):
    n_inputs = sum(isinstance(a, Tensor) for a in args)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    wrapped, in_node = _wrap([args[i] for i in positions])
    args = list(args)
    for i, t in zip(positions, wrapped):
        args[i] = t
    result = forward(*args, **kwargs)
    single = isinstance(result, Tensor)
    outputs = [result] if single else list(result) if isinstance(result, tuple) else None
    if outputs is None:
        return result
    out_positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
    wrapped_out, out_node = _wrap([outputs[i] for i in out_positions])
    if out_node is None:
        return result
    state = {"grad_output": None}

    def full_shape(grads, node_info, count):
        """Gradients of the node's tensors placed back at their positions among `count` tensors."""
        full = [None] * count
        for g, i in zip(grads, node_info[1]):
            full[i] = g
        return tuple(full)

    def on_grad_output(_, grads):
        grad_output = full_shape(grads, out_node, len(out_positions))
        for hook in list(module._backward_pre_hooks.values()):
            res = hook(module, grad_output)
            if res is not None:
                res = res if isinstance(res, tuple) else (res,)
                if len(res) != len(grad_output):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(res)}, but expected {len(grad_output)}")
                grad_output = res
        state["grad_output"] = grad_output
        if in_node is None and module._backward_hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")
            for hook in list(module._backward_hooks.values()):
                hook(module, (None,) * n_inputs, grad_output)
            state["grad_output"] = None
        return tuple(grad_output[i] for i in out_node[1])

    def on_grad_input(grads, _):
        if state["grad_output"] is None:
            return None
        grad_input = full_shape(grads, in_node, n_inputs)
        for hook in list(module._backward_hooks.values()):
            res = hook(module, grad_input, state["grad_output"])
            if res is not None:
                res = res if isinstance(res, tuple) else (res,)
                if len(res) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(res)}, "
                                       f"but expected {len(grad_input)}")
                grad_input = res
        state["grad_output"] = None
        return tuple(grad_input[i] for i in in_node[1])

    out_node[0].register_hook(on_grad_output)
    if in_node is not None:
        in_node[0].register_hook(on_grad_input)
    for i, t in zip(out_positions, wrapped_out):
        outputs[i] = t
    return outputs[0] if single else tuple(outputs)
