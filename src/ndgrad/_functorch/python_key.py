"""functorch.make_fx: tracing a function into a torch.fx graph. ndgrad has no FX graphs (it runs
eagerly, see torch.fx in _api.py's absent names), so the name exists for `import functorch` and
refuses to run."""


def make_fx(f, decomposition_table=None, tracing_mode="real", _allow_non_fake_inputs=False, **kwargs):
    raise NotImplementedError("make_fx: ndgrad has no torch.fx graphs to trace into (it runs eagerly)")
