"""torch's top-level spellings of nn functions (torch.conv1d, torch.layer_norm,
torch.dropout, torch.celu, torch.kl_div ...), over ember.nn.functional.

Their signatures are torch's ATen ones, which differ from torch.nn.functional's:
positional training flags (``torch.dropout(input, p, train)``), weights before running
statistics (``torch.batch_norm(input, weight, bias, running_mean, running_var, training,
momentum, eps, cudnn_enabled)``), reductions as integers (0 none, 1 mean, 2 sum), the
weight before the indices in ``torch.embedding``. The ``native_*`` forms also return the
saved statistics (mean and reciprocal standard deviation) or the dropout mask.

ember.nn.functional is imported on first call, so ``import ember`` stays cheap.
"""
import math
import warnings

from ember import _C

__all__ = ["conv1d", "conv2d", "layer_norm", "batch_norm", "group_norm", "instance_norm",
           "native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout",
           "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
           "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "embedding",
           "max_pool1d", "max_pool2d", "max_pool1d_with_indices", "avg_pool1d",
           "adaptive_avg_pool1d", "celu", "celu_", "selu", "selu_", "rrelu", "rrelu_",
           "threshold", "threshold_", "hardshrink", "prelu", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "native_channel_shuffle", "constant_pad_nd", "bilinear",
           "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "kl_div",
           "poisson_nll_loss", "triplet_margin_loss", "binary_cross_entropy_with_logits",
           "rms_norm"]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _F():
    from ember.nn import functional
    return functional


def _red(reduction):
    if reduction not in _REDUCTIONS:
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _stride(stride, kernel_size):
    return None if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else stride


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.conv1d: nn.functional.conv1d."""
    return _F().conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.conv2d: nn.functional.conv2d."""
    return _F().conv2d(input, weight, bias, stride, padding, dilation, groups)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """torch.layer_norm: nn.functional.layer_norm."""
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """torch.batch_norm: nn.functional.batch_norm, weights before running statistics."""
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm: nn.functional.group_norm."""
    return _F().group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """torch.instance_norm: nn.functional.instance_norm, weights first."""
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                              momentum, eps)


def _mean_rstd(x, dims, eps):
    xs = x.to(_C.float32) if x.dtype in (_C.float16, _C.bfloat16) else x
    mean = xs.mean(dims, keepdim=True)
    var = ((xs - mean) ** 2).mean(dims, keepdim=True)
    return mean, _C.rsqrt(var + eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """torch.native_layer_norm: (layer_norm's output, mean, rstd), the statistics of shape
    input.shape[:axis] + (1,) * len(normalized_shape)."""
    k = len(normalized_shape)
    out = _F().layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.dim() - k, input.dim()))
    if input.numel() == 0 or not dims:
        shape = list(input.shape[:input.dim() - k]) + [1] * k
        dt = _C.float32 if input.dtype in (_C.float16, _C.bfloat16) else input.dtype
        if input.numel() == 0:
            return out, _C.zeros(shape, dtype=dt, device=input.device), \
                _C.full(shape, math.nan, dtype=dt, device=input.device)
    mean, rstd = _mean_rstd(input, dims, eps)
    return out, mean.detach(), rstd.detach()  # torch's are not differentiable


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """torch.native_batch_norm: (batch_norm's output, save_mean, save_invstd): the batch's
    statistics per channel when training, empty tensors otherwise."""
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    dt = _C.float32 if input.dtype in (_C.float16, _C.bfloat16) else input.dtype
    if not training:
        empty = _C.empty((0,), dtype=dt, device=input.device)
        return out, empty, empty.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    mean, rstd = _mean_rstd(input.detach(), dims, eps)  # not differentiable, as torch's
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """torch.native_group_norm: (group_norm's output, mean, rstd), statistics (N, group)."""
    out = _F().group_norm(input, group, weight, bias, eps)
    mean, rstd = _mean_rstd(input.reshape(N, group, -1), (-1,), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def native_dropout(input, p, train):
    """torch.native_dropout: (output, the bool mask of the kept elements)."""
    if train is None or train:
        if p < 0 or p > 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        keep = _C.empty(input.shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
        scale = 0.0 if p == 1 else 1.0 / (1 - p)
        return input * keep * scale, keep.to(_C.bool)
    return input.clone(), _C.ones(input.shape, dtype=_C.bool, device=input.device)


def _drop(input, p, train, feature, alpha, inplace):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    from ember.nn._functional_composite import _dropout_impl
    if not feature and not alpha:
        return _F().dropout(input, p, train, inplace)
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout_impl(input, p, train, feature, alpha, inplace)


def dropout(input, p, train):
    """torch.dropout."""
    return _drop(input, p, train, False, False, False)


def dropout_(input, p, train):
    """torch.dropout_."""
    return _drop(input, p, train, False, False, True)


def alpha_dropout(input, p, train):
    """torch.alpha_dropout."""
    return _drop(input, p, train, False, True, False)


def alpha_dropout_(input, p, train):
    """torch.alpha_dropout_."""
    return _drop(input, p, train, False, True, True)


def feature_dropout(input, p, train):
    """torch.feature_dropout: whole channels (dim 1)."""
    return _drop(input, p, train, True, False, False)


def feature_dropout_(input, p, train):
    """torch.feature_dropout_."""
    return _drop(input, p, train, True, False, True)


def feature_alpha_dropout(input, p, train):
    """torch.feature_alpha_dropout."""
    return _drop(input, p, train, True, True, False)


def feature_alpha_dropout_(input, p, train):
    """torch.feature_alpha_dropout_."""
    return _drop(input, p, train, True, True, True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding: weight[indices] (the weight first; padding_idx -1 is none)."""
    return _F().embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d."""
    return _F().max_pool1d(input, kernel_size, _stride(stride, kernel_size), padding, dilation,
                           ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """torch.max_pool1d_with_indices: (values, indices)."""
    return _F().max_pool1d_with_indices(input, kernel_size, _stride(stride, kernel_size),
                                        padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool2d."""
    return _F().max_pool2d(input, kernel_size, _stride(stride, kernel_size), padding, dilation,
                           ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """torch.avg_pool1d."""
    return _F().avg_pool1d(input, kernel_size, _stride(stride, kernel_size), padding, ceil_mode,
                           count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    """torch.adaptive_avg_pool1d."""
    return _F().adaptive_avg_pool1d(input, output_size)


def celu(input, alpha=1.0):
    """torch.celu."""
    return _F().celu(input, alpha)


def celu_(input, alpha=1.0):
    """torch.celu_."""
    return _F().celu(input, alpha, True)


def selu(input):
    """torch.selu."""
    return _F().selu(input)


def selu_(input):
    """torch.selu_."""
    return _F().selu(input, True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu."""
    return _F().rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu_."""
    return _F().rrelu(input, lower, upper, training, True)


def threshold(input, threshold, value):
    """torch.threshold."""
    return _F().threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """torch.threshold_."""
    return _F().threshold(input, threshold, value, True)


def hardshrink(input, lambd=0.5):
    """torch.hardshrink."""
    return _F().hardshrink(input, lambd)


def prelu(input, weight):
    """torch.prelu."""
    return _F().prelu(input, weight)


def pixel_shuffle(input, upscale_factor):
    """torch.pixel_shuffle."""
    return _F().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """torch.pixel_unshuffle."""
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):
    """torch.channel_shuffle."""
    return _F().channel_shuffle(input, groups)


def native_channel_shuffle(input, groups):
    """torch.native_channel_shuffle."""
    return _F().channel_shuffle(input, groups)


def constant_pad_nd(input, pad, value=0):
    """torch.constant_pad_nd: nn.functional.pad in constant mode."""
    return _F().pad(input, pad, "constant", value)


def bilinear(input1, input2, weight, bias=None):
    """torch.bilinear."""
    return _F().bilinear(input1, input2, weight, bias)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """torch.cosine_embedding_loss (reduction: 0 none, 1 mean, 2 sum)."""
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_red(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """torch.hinge_embedding_loss."""
    return _F().hinge_embedding_loss(input, target, margin, reduction=_red(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """torch.margin_ranking_loss."""
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_red(reduction))


def kl_div(input, target, reduction=0, *, log_target=False):
    """torch.kl_div (no 'batchmean' here: that is nn.functional's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _F().kl_div(input, target, reduction=_red(reduction), log_target=log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """torch.poisson_nll_loss."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_red(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """torch.triplet_margin_loss."""
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_red(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """torch.binary_cross_entropy_with_logits."""
    return _F().binary_cross_entropy_with_logits(input, target, weight,
                                                 reduction=_red(reduction),
                                                 pos_weight=pos_weight)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.rms_norm."""
    return _F().rms_norm(input, normalized_shape, weight, eps)


# ---- ctc_loss, embedding_bag, embedding_renorm_ (torch's ATen signatures) ----

def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """torch.ctc_loss: nn.functional.ctc_loss with an integer reduction (default 0, none:
    torch's binding)."""
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _red(reduction), zero_infinity)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.embedding_bag: (output, offset2bag, bag_size, max_indices) over 1-D indices and
    offsets, mode 0 sum, 1 mean, 2 max. The auxiliary tensors follow torch's CPU kernel
    (bag_size and max_indices zeros for sum, max_indices the bag sizes for mean, the argmax
    rows for max) except offset2bag, always the bag of each index here (torch's is empty
    in some sum-mode calls)."""
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("ember.embedding_bag: scale_grad_by_freq and sparse are not "
                                  "supported")
    pad = -1 if padding_idx is None else (padding_idx + weight.size(0) if padding_idx < 0
                                          else padding_idx)
    out, bag_size, max_idx = _C._nn.embedding_bag(weight, indices, offsets, mode,
                                                  per_sample_weights, include_last_offset, pad)
    import ember
    starts = offsets[:-1] if include_last_offset else offsets
    pos = _C.arange(indices.numel(), device=weight.device)
    offset2bag = ember.searchsorted(starts.contiguous().long(), pos, right=True) - 1
    if mode == 0:
        bag_size = _C.zeros_like(bag_size)
        max_idx = _C.zeros_like(bag_size)
    elif mode == 1:
        max_idx = bag_size.clone()
    else:
        max_idx = _C.clamp_min(max_idx, 0)
    return out, offset2bag, bag_size, max_idx


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rows of input named by indices scaled to norm at most
    max_norm, in place (no autograd)."""
    import ember
    with ember.no_grad():
        _C._nn.embedding_renorm_(input, indices.contiguous(), max_norm, norm_type)
    return input


__all__ += ["ctc_loss", "embedding_bag", "embedding_renorm_"]


def _methods():
    def hs(self, lambd=0.5):
        return _F().hardshrink(self, lambd)

    def pr(self, weight):
        return _F().prelu(self, weight)
    return {"hardshrink": hs, "prelu": pr}


from ember._composite_shape import _attach  # noqa: E402

_attach(_methods())
