"""Docstrings of the ops, kept out of the op modules (as torch keeps its `_torch_docs`).

Most ops have no `def` of their own to carry a docstring (`sin = _unary("sin", np.sin)`), and those that
have one sit among kernels and dispatch code. Their documentation lives here instead, one table per
namespace (`torch_math`, `torch_tensors`, `nn_functional`, `linalg`, `fft`, `special`, `tensor`): a
module whose `DOCS` maps a public name to its docstring, attached by the namespace when it is imported.
Everything with a `def` or `class` outside `ndgrad/ops` (nn modules, optimizers, distributions...) keeps
its docstring inline. A docstring is written in one place: attaching one to an object that already has
one, or naming an object the namespace lacks, is an error (tests/test_docstrings.py runs the tables).

A docstring starts with the call's signature when the Python one says less (`add(input, other, *,
alpha=1, out=None) -> Tensor`: Sphinx shows that line as the signature), then a sentence, then Google
style `Args:`, `Returns:` and an `Example::` block of doctests written with `import ndgrad as torch`.
"""
import importlib
import inspect


def _set(obj, text, where):
    if (getattr(obj, "__doc__", None) or "").strip():
        raise ValueError(f"{where} has a docstring already: write it in one place")
    try:
        obj.__doc__ = text
    except (AttributeError, TypeError) as exc:
        raise TypeError(f"{where}: a {type(obj).__name__} takes no docstring") from exc


def attach(namespace, table):
    """Give the objects named in `ndgrad._docs.<table>.DOCS` their docstrings; `namespace` is the
    globals() of the module that exports them, or a class (its attributes as defined, properties whole)."""
    docs = importlib.import_module(f"{__name__}.{table}").DOCS
    for name, text in docs.items():
        if isinstance(namespace, dict):
            if name not in namespace:
                raise KeyError(f"ndgrad._docs.{table}: {name!r} is not in {namespace.get('__name__')}")
            obj = namespace[name]
        else:
            obj = inspect.getattr_static(namespace, name)
        _set(obj, text, f"{table}.{name}")


def attach_tensor_methods(tensor, namespace):
    """The Tensor methods without a docstring of their own that torch documents by reference: a method
    that has a namesake function in the namespace points to it, an in-place `x_` to its method `x`."""
    for name, obj in list(vars(tensor).items()):
        if name.startswith("_") or not inspect.isfunction(obj) or (obj.__doc__ or "").strip():
            continue
        if name in namespace and namespace[name] is not obj:
            obj.__doc__ = f"See :func:`ndgrad.{name}`."
        elif name.endswith("_") and hasattr(tensor, name[:-1]):
            obj.__doc__ = f"In-place version of :meth:`Tensor.{name[:-1]}`."
