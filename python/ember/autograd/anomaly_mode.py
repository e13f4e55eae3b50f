"""ember.autograd.anomaly_mode (torch.autograd.anomaly_mode): anomaly detection.

While it is on (process-wide, as torch's), each node of the backward graph records
the Python stack of the forward call that made it; when a node's backward fails,
a warning shows that stack ("Error detected in MulBackward0. Traceback of forward
call that caused the error: ..."), and with ``check_nan`` a node whose gradient
holds a NaN raises torch's "Function 'MulBackward0' returned nan values in its
0th output." (the check reads each gradient back: one host synchronisation per
node on the GPU). For debugging only: it slows forward and backward down.
"""
import warnings

from ember import _C

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def set_anomaly_enabled(enabled, check_nan=True):
    _C._set_detect_anomaly(bool(enabled), bool(check_nan))


class detect_anomaly:
    """Context manager that turns anomaly detection on (and restores the previous
    setting on exit). Warns that it slows things down, as torch."""

    def __init__(self, check_nan=True):
        self.prev = _C.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _C.is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turns anomaly detection on or off: as a function call (it stays so) or as a
    context manager (the previous setting comes back on exit)."""

    def __init__(self, mode, check_nan=True):
        self.prev = _C.is_anomaly_enabled()
        self.prev_check_nan = _C.is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
