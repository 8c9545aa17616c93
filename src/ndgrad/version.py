"""torch.version: the version of this library and of the accelerator toolkits it was built with
(none: ndgrad is CPU only, as a CPU build of torch reports)."""
__version__ = "0.1.0"
debug = False
cuda = None
git_version = None
hip = None
rocm = None
xpu = None
