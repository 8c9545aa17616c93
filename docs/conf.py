"""Sphinx configuration of ndgrad's documentation site.

Build: `python -m sphinx -W -j 2 -b html docs docs/_build/html` (`pip install -e '.[docs]'`).
The API reference and the "differences from PyTorch" page are written at build time by
`_ext/ndgrad_pages.py` from the package itself (its namespaces, op catalog and API check).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
# the checkout's ndgrad, installed or not; an absolute, normalised path, since the compiled derivative
# table is cached with the file names it was compiled from (tracebacks and anomaly mode read them)
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "src")))

import ndgrad  # noqa: E402

project = "ndgrad"
author = "the ndgrad authors"
copyright = "2026, the ndgrad authors"
release = version = ndgrad.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",      # the docstrings' Args / Returns / Example sections
    "myst_parser",              # Markdown pages (the guides, bench/RESULTS.md)
    "ndgrad_pages",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"ndgrad {release}"

autodoc_member_order = "bysource"
autodoc_default_options = {"undoc-members": True}
# signatures as written in the code (torch-style), not with the hints expanded into them
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_custom_sections = [("Example", "examples_style"), ("Shape", "params_style")]
nitpicky = False
