"""Where the CPU's BLAS/LAPACK is: asked once by ember's C++ core at the first CPU matrix
product or factorization (csrc/ops/linalg/lapack_api.cpp), never at ``import ember``.

The candidates, best first: the OpenBLAS that NumPy's wheels bundle (``numpy.libs/
libscipy_openblas64_-*.so`` beside the ``numpy`` package, or ``numpy/.libs`` in older
wheels), then the scipy-openblas64/32 wheels' libraries. NumPy is found without being
imported. ``$EMBER_LAPACK_LIBRARY`` (read by the C++ side) comes before all of them, the
system's libopenblas/libflexiblas/liblapack after them.
"""
import glob
import importlib.util
import os

__all__ = ["candidates"]


def _package_dirs(name):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return list(spec.submodule_search_locations)


def candidates():
    files = []
    for d in _package_dirs("numpy"):
        parent = os.path.dirname(os.path.abspath(d))
        for pattern in ("numpy.libs/lib*openblas*.so*", "numpy/.libs/lib*openblas*.so*",
                        "numpy.libs/lib*openblas*.dylib", "numpy/.dylibs/lib*openblas*.dylib"):
            files += sorted(glob.glob(os.path.join(parent, pattern)))
    for pkg in ("scipy_openblas64", "scipy_openblas32"):
        for d in _package_dirs(pkg):
            files += sorted(glob.glob(os.path.join(d, "lib", "lib*openblas*.so*")))
    return files
