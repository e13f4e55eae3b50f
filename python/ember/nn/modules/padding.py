"""The padding layers (torch.nn's ZeroPad, ConstantPad, ReflectionPad, ReplicationPad,
CircularPad in 1, 2 and 3 dims) over F.pad."""
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = []


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        n = type(self)._n
        self.padding = (padding,) * (2 * n) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value or 0)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}" + (f", value={self.value}" if self._mode == "constant" else "")


def _make(name, n, mode, takes_value):
    if takes_value and not name.startswith("Zero"):
        def init(self, padding, value):
            _PadNd.__init__(self, padding, value)
    elif takes_value:
        def init(self, padding):
            _PadNd.__init__(self, padding, 0.0)
    else:
        def init(self, padding):
            _PadNd.__init__(self, padding)
    cls = type(name, (_PadNd,), {"_n": n, "_mode": mode, "__init__": init,
                                 "__module__": __name__})
    globals()[name] = cls
    __all__.append(name)


for _n in (1, 2, 3):
    _make(f"ZeroPad{_n}d", _n, "constant", True)
    _make(f"ConstantPad{_n}d", _n, "constant", True)
    _make(f"ReflectionPad{_n}d", _n, "reflect", False)
    _make(f"ReplicationPad{_n}d", _n, "replicate", False)
    _make(f"CircularPad{_n}d", _n, "circular", False)
