"""The examples in the docstrings of the public API and in the documentation pages run, and print
what they show. Docstring examples are written as a user writes them, with `import ndgrad as torch`."""
import doctest
import importlib
import pathlib

import pytest

import ndgrad

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the modules whose docstrings carry examples (the most used API first)
MODULES = ["ndgrad.ops.creation", "ndgrad.ops.random", "ndgrad.autograd.differentiate", "ndgrad.autograd.function",
           "ndgrad.autograd.functional", "ndgrad.autograd.forward_ad", "ndgrad.autograd.grad_mode",
           "ndgrad.autograd.graph", "ndgrad.nn.modules.module", "ndgrad.optim.optimizer", "ndgrad.optim.sgd",
           "ndgrad.optim.adam"]
PAGES = ["docs/getting-started.md", "docs/mechanics.md"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(module, name, globs={"torch": ndgrad}):
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0, f"{name} has no docstring example"
    assert failed == 0, f"{failed} of {attempted} examples in {name} failed (the report is above)"


@pytest.mark.parametrize("page", PAGES)
def test_documentation_page_examples(page):
    failed, attempted = doctest.testfile(str(ROOT / page), module_relative=False, optionflags=FLAGS)
    assert attempted > 0 and failed == 0, f"{failed} of {attempted} examples in {page} failed"
