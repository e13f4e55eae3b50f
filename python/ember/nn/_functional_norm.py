"""torch.nn.functional's normalisation functions other than batch_norm and layer_norm
(re-exported by ember.nn.functional): group_norm (one C++ autograd node with fused
kernels), instance_norm (group_norm with one group per channel when no running
statistics are involved; batch_norm of the (1, N * C, *) view otherwise, as torch),
rms_norm, local_response_norm, and the legacy cross-map LRN of nn.CrossMapLRN2d.
Names, arguments, defaults and messages are torch's."""
import ember
from ember import _C
from ember._C import _nn

__all__ = ["group_norm", "instance_norm", "rms_norm", "local_response_norm"]


def _stats_dtype(x):
    return _C.float32 if x.dtype in (_C.float16, _C.bfloat16) else x.dtype


def _affine(y, weight, bias, spatial_dims):
    shape = [1, -1] + [1] * spatial_dims
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each group of channels of (N, C, *) by its mean and (biased) variance,
    then scales and shifts each channel: one kernel forward, one backward."""
    return _nn.group_norm(input, num_groups, weight, bias, eps)


def _verify_spatial_size(size):
    spatial = 1
    for s in size[2:]:
        spatial *= s
    if spatial == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalises each (sample, channel) plane of (N, C, *) over its spatial dims. Without
    running statistics this is group_norm with C groups (the weight and bias fused into
    the same kernel); with them, batch_norm of the input viewed as (1, N * C, *), whose
    running statistics are averaged over N (torch's definition)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    if input.dim() < 2:
        raise ValueError(f"Expected input to have at least 2 dims, got {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if use_input_stats and running_mean is None and running_var is None:
        if _C._is_any_autocast_enabled():
            # instance_norm is on no autocast list (group_norm is on CUDA's float32 one)
            with ember.autocast(input.device.type, enabled=False):
                return _nn.group_norm(input, c, weight, bias, eps)
        return _nn.group_norm(input, c, weight, bias, eps)
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    x = input.reshape([1, n * c] + list(input.shape[2:]))
    y = _nn.batch_norm(x, rm, rv, None, None, use_input_stats, momentum, eps)
    if use_input_stats:
        with ember.no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    return _affine(y.reshape(input.shape), weight, bias, input.dim() - 2)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x ** 2 over the last len(normalized_shape) dims) + eps) * weight
    (eps: the machine epsilon of the compute type unless given: float32's for float16 and
    bfloat16 inputs, as torch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if k > input.dim() or tuple(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in shape)}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    xs = input.to(_stats_dtype(input))
    if eps is None:  # torch: the epsilon of the compute (opmath) type, float32 for halves
        eps = ember.finfo(xs.dtype).eps
    dims = tuple(range(input.dim() - k, input.dim()))
    ms = (xs * xs).mean(dims, keepdim=True) if k else xs * xs
    y = xs * _C.rsqrt(ms + eps)
    if weight is not None:
        y = y * weight
    return y.to(input.dtype)


def _channel_window_sum(sq, window):
    """sum_j window[c, j] * sq[:, j, ...]: a [C, C] matrix applied over dim 1."""
    y = ember.matmul(sq.movedim(1, -1), window.t())
    return y.movedim(-1, 1)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x**2 over the `size` neighbouring channels) ** beta (the
    window is zero-padded: size // 2 channels before, (size - 1) // 2 after)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    ch = ember.arange(c, device=input.device)
    off = ch.unsqueeze(0) - ch.unsqueeze(1)  # j - c
    window = ((off >= -(size // 2)) & (off <= (size - 1) // 2)).to(input.dtype) / size
    div = _channel_window_sum(input * input, window)
    div = (div * alpha + k) ** beta
    return input / div


def _cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    """nn.CrossMapLRN2d's legacy normalisation: x * (k + alpha / size * S) ** -beta, S the
    sum of x**2 over channels as torch's running-window loop computes it (channel 0 stays
    in every window past the first pre_pad ones, as there)."""
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    c = input.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    rows = []
    for ci in range(c):
        hi = min(ci + pre_pad - 1, c - 1)
        lo = 1 + max(ci - pre_pad, 0) if ci > pre_pad else 0
        row = [1.0 if (lo <= j <= hi) else 0.0 for j in range(c)]
        if ci > pre_pad:
            row[0] = 1.0
        rows.append(row)
    window = ember.tensor(rows, dtype=input.dtype, device=input.device)
    scale = _channel_window_sum(input * input, window) * (alpha / size) + k
    return input * scale ** (-beta)
