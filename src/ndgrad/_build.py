"""What ndgrad's build computes with, as torch.has_lapack / has_mkl / has_openmp / has_spectral state it
for torch's: ndgrad's linear algebra and FFTs are NumPy's and SciPy's, so the answers come from the NumPy
it runs on (read when first asked for: `import ndgrad` does not pay for it)."""
import numpy as np


def _blas():
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]
    except Exception:   # a NumPy that cannot describe its build: nothing is known about its BLAS
        return {}, {}
    return deps.get("blas", {}), deps.get("lapack", {})


_BLAS, _LAPACK = _blas()
_CONFIG = " ".join(str(_BLAS.get(k, "")) for k in ("name", "openblas configuration")).lower()

# LAPACK: NumPy links one for numpy.linalg (and ndgrad's decompositions use it)
has_lapack = bool(_LAPACK.get("found", True))
# MKL: only when NumPy's BLAS is Intel's MKL
has_mkl = "mkl" in str(_BLAS.get("name", "")).lower()
# OpenMP: ndgrad runs no OpenMP code of its own; true only when NumPy's BLAS was built with OpenMP threading
has_openmp = "openmp" in _CONFIG and "use_openmp=0" not in _CONFIG
# the FFTs (ndgrad.fft on NumPy's pocketfft) are always there
has_spectral = True
