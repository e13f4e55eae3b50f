"""ember.utils: torch.utils' place. ``ember.utils.data`` holds datasets,
samplers and the DataLoader; ``ember.utils.cpp_extension`` builds C++/CUDA
extensions against ember (imported on first use); ``ember.utils.checkpoint`` is
activation checkpointing (on first use); ``cmake_prefix_path`` is
where CMake finds ``emberConfig.cmake`` (target ``ember::ember``)."""
import os as _os

from ember.utils import data

# ember/share/cmake: find_package(ember) with this in CMAKE_PREFIX_PATH.
cmake_prefix_path = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))),
                                  "share", "cmake")

__all__ = ["data", "cpp_extension", "checkpoint", "cmake_prefix_path"]


def __getattr__(name):
    if name in ("cpp_extension", "checkpoint"):
        import importlib
        return importlib.import_module("ember.utils." + name)
    raise AttributeError(f"module 'ember.utils' has no attribute {name!r}")
