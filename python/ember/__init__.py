"""ember: torch.cuda's API on a small, fast C++/CUDA core.

Code written for torch's device, stream, event and memory APIs runs on ember
with ``import ember as torch``. ``import ember`` loads no CUDA library and
creates no CUDA context; CUDA initialises on first use.
"""
from ember import _C
from ember._C import device
from ember import cuda, version

__version__ = _C.__version__

__all__ = ["cuda", "device", "version", "__version__"]
