"""functorch's make_functional / make_functional_with_buffers / combine_state_for_ensemble: a module
turned into a function of its parameters (and buffers), run through func.functional_call on a copy
of the module."""
import copy

from ..func import functional_call, stack_module_state
from ..nn.modules.module import Module

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "combine_state_for_ensemble", "make_functional",
           "make_functional_with_buffers"]


def _distinct(named):
    """(names, tensors) of a module's named tensors, each tensor once (tied weights share a name)."""
    names, tensors, seen = [], [], set()
    for name, t in named:
        if id(t) not in seen:
            seen.add(id(t))
            names.append(name)
            tensors.append(t)
    return tuple(names), tuple(tensors)


class FunctionalModuleWithBuffers(Module):
    """fmodel(params, buffers, *args): the module's forward with these parameters and buffers."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model, self.param_names, self.buffer_names = stateless_model, param_names, buffer_names

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        param_names, params = _distinct(model_copy.named_parameters())
        buffer_names, buffers = _distinct(model_copy.named_buffers())
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        return FunctionalModuleWithBuffers(model_copy, param_names, buffer_names), params, buffers

    def forward(self, params, buffers, *args, **kwargs):
        state = dict(zip(self.param_names, params))
        state.update(zip(self.buffer_names, buffers))
        return functional_call(self.stateless_model, state, args, kwargs, tie_weights=True)


class FunctionalModule(Module):
    """fmodel(params, *args): the module's forward with these parameters (its buffers its own)."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model, self.param_names = stateless_model, param_names

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        param_names, params = _distinct(model_copy.named_parameters())
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        return FunctionalModule(model_copy, param_names), params

    def forward(self, params, *args, **kwargs):
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs,
                               tie_weights=True)


def make_functional(model, disable_autograd_tracking=False):
    """(fmodel, params) for a module without buffers (refused otherwise, as functorch)."""
    if len(tuple(model.buffers())) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    return FunctionalModule._create_from(model, disable_autograd_tracking=disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """(fmodel, params, buffers)."""
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking=disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """(fmodel, params, buffers) for models of one architecture, each parameter and buffer stacked on a
    new first dimension (for vmap over the ensemble)."""
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    fmodel, _, _ = make_functional_with_buffers(models[0])
    params, buffers = stack_module_state(models)
    return fmodel, tuple(params[n] for n in fmodel.param_names), tuple(buffers[n] for n in fmodel.buffer_names)
