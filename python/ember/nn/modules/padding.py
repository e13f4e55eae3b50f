"""The padding layers (torch.nn's ZeroPad, ConstantPad, ReflectionPad, ReplicationPad,
CircularPad in 1, 2 and 3 dims) over F.pad, with torch's constructors and reprs. An int
padding pads every side by it; a tuple is (left, right[, top, bottom[, front, back]])."""
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = []


def _ntuple(padding, n):
    return (padding,) * (2 * n) if isinstance(padding, int) else tuple(padding)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ModePadNd(Module):
    __constants__ = ["padding"]
    _mode = "reflect"

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last 1 dim(s) with a constant value."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 1)


class ZeroPad1d(ConstantPad1d):
    """Pads the last 1 dim(s) with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"

class ReflectionPad1d(_ModePadNd):
    """Pads the last 1 dim(s): mirrored about the edge (the edge not repeated)."""
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 1)

class ReplicationPad1d(_ModePadNd):
    """Pads the last 1 dim(s): the edge value repeated."""
    _mode = "replicate"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 1)

class CircularPad1d(_ModePadNd):
    """Pads the last 1 dim(s): wrapped around from the other side."""
    _mode = "circular"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 1)

__all__ += ["ConstantPad1d", "ZeroPad1d", "ReflectionPad1d", "ReplicationPad1d",
            "CircularPad1d"]

class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dim(s) with a constant value."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 2)


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dim(s) with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"

class ReflectionPad2d(_ModePadNd):
    """Pads the last 2 dim(s): mirrored about the edge (the edge not repeated)."""
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2)

class ReplicationPad2d(_ModePadNd):
    """Pads the last 2 dim(s): the edge value repeated."""
    _mode = "replicate"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2)

class CircularPad2d(_ModePadNd):
    """Pads the last 2 dim(s): wrapped around from the other side."""
    _mode = "circular"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2)

__all__ += ["ConstantPad2d", "ZeroPad2d", "ReflectionPad2d", "ReplicationPad2d",
            "CircularPad2d"]

class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dim(s) with a constant value."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 3)


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dim(s) with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"

class ReflectionPad3d(_ModePadNd):
    """Pads the last 3 dim(s): mirrored about the edge (the edge not repeated)."""
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 3)

class ReplicationPad3d(_ModePadNd):
    """Pads the last 3 dim(s): the edge value repeated."""
    _mode = "replicate"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 3)

class CircularPad3d(_ModePadNd):
    """Pads the last 3 dim(s): wrapped around from the other side."""
    _mode = "circular"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 3)

__all__ += ["ConstantPad3d", "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d",
            "CircularPad3d"]
