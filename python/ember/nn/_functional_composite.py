"""torch.nn.functional's functions that are short compositions of ember's bound ops
(re-exported by ember.nn.functional): pixel_shuffle/pixel_unshuffle, channel_shuffle, pad,
bilinear, the 1-d convolution and pooling (through the 2-d ops on a height-1 input), group_norm, instance_norm, rms_norm,
the feature and alpha dropouts, and the losses cosine_embedding, hinge_embedding,
margin_ranking, kl_div, poisson_nll, triplet_margin; cosine_similarity,
pairwise_distance and pdist are ember's top-level composites.

Autograd comes from the composed ops (branches that ``where`` discards are kept finite,
so their gradients never carry 0 * inf). Names, arguments, defaults and messages are
torch's.
"""
import math

import ember
from ember import _C
from ember._composite_linalg import cosine_similarity, pairwise_distance, pdist

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "native_channel_shuffle", "pad", "bilinear", "conv1d", "max_pool1d",
           "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "group_norm",
           "instance_norm", "rms_norm", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
           "dropout2d", "dropout3d", "cosine_embedding_loss", "hinge_embedding_loss",
           "margin_ranking_loss", "kl_div", "poisson_nll_loss", "triplet_margin_loss",
           "cosine_similarity", "pairwise_distance", "pdist"]


def _F():
    from ember.nn import functional
    return functional


def _inplace(input, result, inplace):
    return input.copy_(result) if inplace else result


def _zero(x):
    return _C.zeros((), dtype=x.dtype, device=x.device)


# ---- pixel and channel shuffles, padding ----------------------------------------------------

def pixel_shuffle(input, upscale_factor):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    b = list(input.shape[:-3])
    n = len(b)
    x = input.reshape(b + [c // (r * r), r, r, h, w])
    x = x.permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(b + [c // (r * r), h * r, w * r])


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W)."""
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    b = list(input.shape[:-3])
    n = len(b)
    x = input.reshape(b + [c, h // r, r, w // r, r])
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(b + [c * r * r, h // r, w // r])


def channel_shuffle(input, groups):
    """(N, g * k, *) -> channels reordered as (k, g) (a copy)."""
    g = int(groups)
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    c = input.shape[1]
    if c % g:
        raise RuntimeError("Number of channels must be divisible by groups. Got "
                           f"{c} channels and {g} groups.")
    s = list(input.shape)
    x = input.reshape([s[0], g, c // g] + s[2:]).transpose(1, 2)
    return x.reshape(s)


native_channel_shuffle = channel_shuffle


def _pad_index(n, lo, hi, mode, device):
    i = _C.arange(-lo, n + hi, device=device)
    if mode == "replicate":
        return _C.clamp(i, 0, n - 1)
    if mode == "circular":
        return _C.remainder(i, n)
    # reflect: mirror about 0 and n - 1, without repeating the edge
    period = 2 * (n - 1)
    j = _C.remainder(i, period) if period else i * 0
    return _C.where(j >= n, period - j, j)


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dims: pad = (left of the last, right of the last, left of
    the one before, ...). constant (negative pads crop), reflect, replicate, circular."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length "
                           f"{len(pad)} and input of dimension {input.dim()}")
    nd = input.dim()
    if mode == "constant":
        v = 0 if value is None else value
        shape, src = list(input.shape), input
        for k in range(len(pad) // 2):
            d = nd - 1 - k
            lo, hi = pad[2 * k], pad[2 * k + 1]
            new = shape[d] + lo + hi
            if new < 0:
                raise RuntimeError(f"The input size {shape[d]}, plus negative padding {lo} and "
                                   f"{hi} resulted in a negative output size, which is invalid. "
                                   f"Check dimension {d} of your input.")
            shape[d] = new
            if lo < 0:
                src = src.narrow(d, -lo, src.shape[d] + lo)
            if hi < 0:
                src = src.narrow(d, 0, src.shape[d] + hi)
        out = _C.full(shape, v, dtype=input.dtype, device=input.device)
        view = out
        for k in range(len(pad) // 2):
            d = nd - 1 - k
            view = view.narrow(d, max(pad[2 * k], 0), src.shape[d])
        view.copy_(src)
        return out
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k_pad = len(pad) // 2
    # torch has reflect/replicate/circular kernels for 1, 2 and 3 padded dims, each with an
    # optional batch dim
    if not (1 <= k_pad <= 3 and nd in (k_pad + 1, k_pad + 2)):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {nd}D input "
                                  "tensor.")
    if mode != "circular":
        first = 1 if nd == k_pad + 2 else 0
        if any(s == 0 for s in input.shape[first:]):
            raise RuntimeError(f"Expected {k_pad + 1}D or {k_pad + 2}D (batch mode) tensor with "
                               "possibly 0 batch size and other non-zero dimensions for input, "
                               f"but got: {list(input.shape)}")
    x = input
    for k in range(k_pad):
        d = nd - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        n = x.shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {d} of input {list(input.shape)}")
        if mode == "circular":
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n + lo + hi < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
            # negative pads crop first; the wrap-around is of what is left (torch's order)
            if lo < 0 or hi < 0:
                x = x.narrow(d, max(-lo, 0), n - max(-lo, 0) - max(-hi, 0))
                n, lo, hi = x.shape[d], max(lo, 0), max(hi, 0)
            if n == 0:
                continue
        elif n + lo + hi < 0:
            raise RuntimeError(f"input (W: {n}) is too small. Calculated output W: {n + lo + hi}")
        idx = _pad_index(n, lo, hi, mode, x.device)
        x = x[(slice(None),) * d + (idx,)]
    return x


_META_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16"}


def _meta_name(dtype):
    n = str(dtype).split(".")[-1]
    return _META_NAMES.get(n, n)


def bilinear(input1, input2, weight, bias=None):
    """y = x1^T A x2 + b per output feature (weight (out, in1, in2)); checks and messages
    as torch's."""
    ts = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        ts.append(("bias", bias))
    if any(t.dtype != input1.dtype for _, t in ts):
        raise RuntimeError("All tensors must have the same dtype, got " +
                           ", ".join(f"{n}: {_meta_name(t.dtype)}" for n, t in ts))
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.dim()}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError("bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError("bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.numel() != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.numel()} but expected {weight.shape[0]}")
    y = ember.einsum("...i,oij,...j->...o", input1, weight, input2)
    return y if bias is None else y + bias


# ---- 1-d convolution and pooling, through the 2-d ops ---------------------------------------

def _one(v, name):
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError(f"{name} must be an int or a 1-tuple, got {tuple(v)}")
        return int(v[0])
    return v


def _batched(input, name, want=3):
    if input.dim() == want - 1:
        return input.unsqueeze(0), True
    if input.dim() != want:
        raise RuntimeError(f"{name}: Expected {want - 1}D (unbatched) or {want}D (batched) input "
                           f"to {name}, but got input of size: {list(input.shape)}")
    return input, False


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution of (N, C, L): the 2-d convolution of (N, C, 1, L)."""
    x, unb = _batched(input, "conv1d")
    if weight.dim() != 3:
        raise RuntimeError(f"Expected 3D weight for conv1d, but got weight of size "
                           f"{list(weight.shape)}")
    p = _one(padding, "padding")
    p2 = p if isinstance(p, str) else (0, p)
    y = _F().conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, _one(stride, "stride")), p2,
                    (1, _one(dilation, "dilation")), groups).squeeze(2)
    return y.squeeze(0) if unb else y


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    x, unb = _batched(input, "max_pool1d")
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or stride == () or stride == [] else _one(stride, "stride")
    y, i = _F().max_pool2d(x.unsqueeze(2), (1, k), (1, s), (0, _one(padding, "padding")),
                           (1, _one(dilation, "dilation")), ceil_mode, True)
    y, i = y.squeeze(2), i.squeeze(2)
    return (y.squeeze(0), i.squeeze(0)) if unb else (y, i)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling of (N, C, L) (or (C, L)), through max_pool2d."""
    y, i = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (y, i) if return_indices else y


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling of (N, C, L) (or (C, L)), through avg_pool2d."""
    x, unb = _batched(input, "avg_pool1d")
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or stride == () or stride == [] else _one(stride, "stride")
    y = _F().avg_pool2d(x.unsqueeze(2), (1, k), (1, s), (0, _one(padding, "padding")),
                        ceil_mode, count_include_pad).squeeze(2)
    return y.squeeze(0) if unb else y


def adaptive_avg_pool1d(input, output_size):
    """1-d adaptive average pooling of (N, C, L) (or (C, L)), through adaptive_avg_pool2d."""
    x, unb = _batched(input, "adaptive_avg_pool1d")
    y = _F().adaptive_avg_pool2d(x.unsqueeze(2), (1, _one(output_size, "output_size")))
    y = y.squeeze(2)
    return y.squeeze(0) if unb else y


# ---- normalisation: nn/_functional_norm.py ---------------------------------------------

from ember.nn._functional_norm import group_norm, instance_norm, rms_norm  # noqa: E402,F401


# ---- dropouts ------------------------------------------------------------------------------

_ALPHA = 1.7580993408473766


def _check_p(p, error=ValueError):
    if p < 0.0 or p > 1.0:
        raise error(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, feature, alpha, inplace):
    """torch's _dropout_impl: a Bernoulli(1 - p) mask (per element, or per (N, C) feature
    map), scaled so the output keeps the mean (alpha: and the variance of SELU's output)."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    else:
        shape = list(input.shape)
    noise = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
        noise = noise * a
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise = noise / (1 - p)
    return input.mul_(noise) if inplace else input * noise


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance (dropped values go to
    -alpha * scale, then an affine correction)."""
    _check_p(p)
    return _dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1)."""
    _check_p(p)
    return _dropout_impl(input, p, training, True, True, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L)."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    unb = input.dim() == 2
    x = input.unsqueeze(0) if unb else input
    r = _dropout_impl(x, p, training, True, False, inplace)
    return r.squeeze(0) if unb else r


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) (a 3-D input is taken as (N, C, L),
    with torch's warning)."""
    import warnings
    _check_p(p)
    nd = input.dim()
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that dropout2d "
                      "exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D "
                      "or 4D inputs).", stacklevel=2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape (C, H, "
                      "W). To maintain the 1D channel-wise dropout behavior, please switch to "
                      "using dropout1d instead.", stacklevel=2)
        return _dropout_impl(input, p, training, True, False, inplace)
    unb = nd != 4
    x = input.unsqueeze(0) if unb else input
    r = _dropout_impl(x, p, training, True, False, inplace)
    return r.squeeze(0) if unb else r


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)."""
    import warnings
    _check_p(p)
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that dropout3d "
                      "exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D "
                      "or 5D inputs).", stacklevel=2)
    unb = nd != 5
    x = input.unsqueeze(0) if unb else input
    r = _dropout_impl(x, p, training, True, False, inplace)
    return r.squeeze(0) if unb else r


# ---- losses ----------------------------------------------------------------------------------

def _reduction(size_average, reduce, reduction):
    return _F()._legacy_reduction(size_average, reduce, reduction)


def _reduce(loss, reduction):
    return _F()._reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2):
        raise RuntimeError(f"cosine_embedding_loss : 1D target tensor expects 2D input tensors, "
                           f"but found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    d = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    m1 = (input1 * input1).sum(d) + eps
    m2 = (input2 * input2).sum(d) + eps
    cos = prod / _C.sqrt(m1 * m2)
    zeros = _C.zeros_like(cos)
    pos = 1 - cos
    neg = _C.clamp_min(cos - margin, 0)
    out = _C.where(target == 1, pos, zeros) + _C.where(target == -1, neg, zeros)
    return _reduce(out, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """x where target is 1, max(0, margin - x) where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _C.zeros_like(input)
    m = _C.clamp_min(margin - input, 0)
    out = _C.where(target != 1, m, zeros) + _C.where(target != -1, input, zeros)
    return _reduce(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (x1 - x2) + margin)."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {list(input1.shape)}, input2: "
                           f"{list(input2.shape)}, target: {list(target.shape)} ")
    out = _C.clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(out, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) (input holds log-probabilities; log_target: target
    does too); 'batchmean' divides the sum by the batch size."""
    import warnings
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    if log_target:
        out = _C.exp(target) * (target - input)
    else:
        from ember._composite_math import xlogy
        out = xlogy(target, target) - target * input
    if reduction == "batchmean":
        if input.dim() == 0:
            return out.sum()
        return out.sum() / input.shape[0]
    return _reduce(out, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); full
    adds Stirling's term for target > 1."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = _C.exp(input) - target * input
    else:
        loss = input - target * _C.log(input + eps)
    if full:
        t = target
        safe = _C.where(t > 1, t, _C.ones_like(t))
        stirling = safe * _C.log(safe) - safe + 0.5 * _C.log(2 * math.pi * safe)
        loss = loss + _C.where(t > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin), d the pairwise p-norm distance (swap: the smaller
    of d(a, n) and d(p, n))."""
    reduction = _reduction(size_average, reduce, reduction)
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pd}D, "
                           f"and negative {nd}D inputs")
    dpos = pairwise_distance(anchor, positive, p, eps)
    dneg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dneg = _C.minimum(dneg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_C.clamp_min(margin + dpos - dneg, 0), reduction)
