"""Every public name of the API reference has a docstring, and every example in one runs and prints
what it shows (doctests written as a user writes them, with `import ndgrad as torch`)."""
import doctest
import importlib
import inspect
import pathlib
import re
import sys

import pytest

import ndgrad
from ndgrad import _docs

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import ndgrad_pages  # noqa: E402  (the reference's own list of public names)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def documented_objects():
    """(qualified name, object) for each object of the API reference, once (the first name it has)."""
    seen, out = set(), []
    for qualname, _ in ndgrad_pages.NAMESPACES:
        if qualname == "ndgrad.Tensor":
            items = [(n, inspect.getattr_static(ndgrad.Tensor, n)) for n in dir(ndgrad.Tensor) if not n.startswith("_")]
        else:
            items = ndgrad_pages.public_names(importlib.import_module(qualname))[0]
        for name, obj in items:
            if id(obj) not in seen:
                seen.add(id(obj))
                out.append((f"{qualname}.{name}", obj))
    return out


def own_doc(obj):
    doc = getattr(obj, "__doc__", None) or ""
    if inspect.isclass(obj):   # a class without a docstring of its own shows its base's
        base = next((b for b in obj.__mro__[1:] if b is not object), None)
        if base is not None and doc == base.__doc__ and "__doc__" not in vars(obj):
            return ""
    return doc.strip()


OBJECTS = documented_objects()


def test_every_public_name_has_a_docstring():
    assert len(OBJECTS) > 1500   # the enumeration must not silently find nothing
    missing = [name for name, obj in OBJECTS if not own_doc(obj)]
    assert not missing, f"public names without a docstring: {missing}"


# a docstring without a runnable example: a pointer to the documented function, or one of these
POINTERS = ("See :func:", "In-place version of", "Alias for", "Alias of")
NO_DOCTEST = {   # name -> why its example cannot be a doctest (they show a plain code block)
    "ndgrad.set_flush_denormal": "its result depends on the CPU in torch (ndgrad always returns False)",
    "ndgrad.set_num_interop_threads": "torch allows the call once per process",
    "ndgrad.Tensor.chalf": "ndgrad has no complex32 (NumPy has none): it raises NotImplementedError",
}


def test_every_docstring_has_an_example_or_points_to_one():
    lacking = []
    for name, obj in OBJECTS:
        doc = own_doc(obj)
        first, _, rest = doc.partition("\n\n")
        summary = rest if re.fullmatch(r"\w+\(.*\)( -> .*)?", first) else doc   # past a signature line
        if ">>>" not in doc and not summary.startswith(POINTERS) and name not in NO_DOCTEST:
            lacking.append(name)
    assert not lacking, f"docstrings without an example: {lacking}"


def _namespace_of(name):
    return name.rsplit(".", 1)[0]


@pytest.mark.parametrize("namespace", sorted({_namespace_of(n) for n, _ in OBJECTS}))
def test_docstring_examples(namespace):
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=FLAGS)
    for name, obj in OBJECTS:
        doc = own_doc(obj)
        if _namespace_of(name) == namespace and ">>>" in doc:
            ndgrad.manual_seed(0)
            runner.run(parser.get_doctest(doc, {"torch": ndgrad}, name, None, 0))
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} examples in {namespace} docstrings failed (the report is above)"


def test_docstring_tables_are_written_in_one_place():
    def f():
        """mine"""
    namespace = {"__name__": "demo", "f": f}
    with pytest.raises(ValueError, match="has a docstring already"):
        _docs._set(f, "again", "demo.f")
    table = type(sys)("ndgrad._docs._test_table")
    table.DOCS = {"nothing": "text"}
    sys.modules[table.__name__] = table
    try:
        with pytest.raises(KeyError, match="'nothing' is not in demo"):
            _docs.attach(namespace, "_test_table")
    finally:
        del sys.modules[table.__name__]


def test_tensor_methods_point_to_their_namesakes():
    assert ndgrad.Tensor.add_.__doc__ == "In-place version of :meth:`Tensor.add`."
    pointing = [n for n, o in vars(ndgrad.Tensor).items() if inspect.isfunction(o) and
                o.__doc__ == f"See :func:`ndgrad.{n}`."]
    assert pointing and all(vars(ndgrad)[n] is not vars(ndgrad.Tensor)[n] for n in pointing)
