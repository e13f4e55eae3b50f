"""Conv2d (torch.nn.Conv2d): the layer over F.conv2d, torch's arguments, default
initialisation and repr."""
import math

import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _pair(v):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (v[0], v[0])
        return tuple(v)
    return (v, v)


def _pad_dim(x, dim, lo, hi, mode):
    """Pads dim `dim` of x by lo before and hi after: 'circular' and 'replicate' with
    slices and cat, 'reflect' with an index (all differentiable)."""
    if lo == 0 and hi == 0:
        return x
    n = x.shape[dim]
    if mode == "circular":
        if lo > n or hi > n:
            raise ValueError("Padding value causes wrapping around more than once.")
        parts = [x.narrow(dim, n - lo, lo), x, x.narrow(dim, 0, hi)]
    elif mode == "replicate":
        parts = []
        for start, count in ((0, lo), (n - 1, hi)):
            shape = list(x.shape)
            shape[dim] = count
            parts.append(x.narrow(dim, start, 1).expand(shape) if count else None)
        parts = [parts[0], x, parts[1]]
    else:  # reflect
        if lo >= n or hi >= n:
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                f"{list(x.shape)}")
        idx = list(range(lo, 0, -1)) + list(range(n)) + list(range(n - 2, n - 2 - hi, -1))
        index = ember.tensor(idx, dtype=ember.int64, device=x.device)
        return x[(slice(None),) * (dim % x.dim()) + (index,)]
    return ember.cat([p for p in parts if p is not None and p.shape[dim] > 0], dim)


class Conv2d(Module):
    """2-D convolution over [N, C, H, W] (or [C, H, W]) input: weight
    [out_channels, in_channels // groups, kH, kW], bias [out_channels]. torch's
    default initialisation: kaiming_uniform_(a=sqrt(5)) for the weight, uniform in
    +-1/sqrt(fan_in) for the bias. padding_mode 'reflect', 'replicate', 'circular'
    pad the input explicitly before a convolution without padding."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = _pair(kernel_size), _pair(stride), _pair(dilation)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _pair(padding)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0, 0)
        self.groups = groups
        self.padding_mode = padding_mode
        # (left, right, top, bottom) for the explicit padding modes, torch's order.
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * 2
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [padding[1], padding[1], padding[0],
                                                     padding[0]]
        self.weight = Parameter(ember.empty((out_channels, in_channels // groups, *kernel_size),
                                            device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            left, right, top, bottom = self._reversed_padding_repeated_twice
            x = _pad_dim(input, -2, top, bottom, self.padding_mode)
            x = _pad_dim(x, -1, left, right, self.padding_mode)
            return F.conv2d(x, weight, bias, self.stride, 0, self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)
