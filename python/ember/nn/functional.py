"""ember.nn.functional: torch.nn.functional's names. Layers are the C++ ops
(linear is one cuBLAS call, the activations one kernel each); losses are
compositions of them, so their gradients come from the ops' formulas."""
import math
import warnings

import ember
from ember._C import _nn

__all__ = ["linear", "relu", "relu_", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax",
           "dropout", "mse_loss", "l1_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy_with_logits", "binary_cross_entropy", "leaky_relu", "elu",
           "softplus", "one_hot", "normalize", "conv2d", "max_pool2d", "max_pool2d_with_indices",
           "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "layer_norm", "embedding"]

#: linear(input, weight, bias=None) -> input @ weight.T + bias. On the GPU the
#: bias is added in cuBLASLt's epilogue (one pass over the output).
linear = _nn.linear

#: conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1): one C++
#: autograd node (im2col + GEMM, or a direct kernel on the GPU for small C/groups*kH*kW).
conv2d = _nn.conv2d
#: max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
#: return_indices=False)
max_pool2d = _nn.max_pool2d
#: avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
#: count_include_pad=True, divisor_override=None)
avg_pool2d = _nn.avg_pool2d
#: adaptive_avg_pool2d(input, output_size): output_size an int or a pair (None keeps a size).
adaptive_avg_pool2d = _nn.adaptive_avg_pool2d


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return _nn.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


_relu = ember._C.relu
_gelu = ember._C.gelu
_silu = ember._C.silu


def relu(input, inplace=False):
    return input.relu_() if inplace else _relu(input)


def relu_(input):
    return input.relu_()


def gelu(input, approximate="none"):
    return _gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return input.silu_() if inplace else _silu(input)


sigmoid = ember._C.sigmoid
tanh = ember._C.tanh


def _softmax_dim(ndim):
    # torch's legacy implicit choice
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return ember._C.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return ember._C.log_softmax(input, dim, dtype=dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes elements with probability p and scales the rest by 1/(1-p) (training only).
    The mask comes from the generator of input's device (ember.manual_seed)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    mask = ember.empty_like(input).bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(mask) if inplace else input * mask


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _check_target_size(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            f"Please ensure they have the same size.", stacklevel=3)


_mse_loss = _nn.mse_loss

# Autocast (torch's op lists) for the ops written here: their tensors go to
# float32 when autocast is on for their device type and its list has the op
# (1: cpu list, 2: cuda list, 3: both). One C++ flag read when autocast is off.
_ac_on = ember._C._is_any_autocast_enabled
_ac_fp32 = ember._C._autocast_float32
_BCE_BANNED = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
               "autocast.\nMany models use a sigmoid layer right before the binary cross entropy "
               "layer.\nIn this case, combine the two layers using "
               "torch.nn.functional.binary_cross_entropy_with_logits\nor torch.nn.BCEWithLogitsLoss.  "
               "binary_cross_entropy_with_logits and BCEWithLogits are\nsafe to autocast.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """mean((input - target) ** 2) (or sum/none): one C++ call and one autograd node."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    if input.shape != target.shape:
        _check_target_size(input, target, "mse_loss")
    if weight is not None:
        diff = input - target
        return _reduce(diff * diff * weight, reduction)
    return _mse_loss(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _ac_on():
        input, target, weight = _ac_fp32(3, input, target, weight)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_target_size(input, target, "l1_loss")
    loss = ember.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _class_last(input):
    """[N, C, d1, ...] -> [N*d1*..., C]; [C] -> [1, C]."""
    if input.dim() == 1:
        return input.unsqueeze(0)
    if input.dim() == 2:
        return input
    c = input.shape[1]
    return input.movedim(1, -1).reshape(-1, c)


def _check_nll_shapes(input, target):
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() == 1:
        if target.dim() != 0:
            raise RuntimeError(f"Expected target to be 0-dimensional for a 1-D input, got "
                               f"{target.dim()}-D")
        return
    if input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {tuple([input.shape[0]] + list(input.shape[2:]))}, "
                           f"got {tuple(target.shape)}")


def _target_weights(x, t, weight, ignore_index=-100):
    """[M, C] weights picking each row's target class (times its class weight); rows
    whose target is ignore_index (or any other value outside [0, C)) get none. A
    comparison with the class indices instead of indexing: no host synchronisation
    on the GPU."""
    classes = ember.arange(x.shape[1], device=x.device)
    picked = t.unsqueeze(1) == classes
    if 0 <= ignore_index < x.shape[1]:  # an ignored class that is also a valid index
        picked = picked & (t != ignore_index).unsqueeze(1)
    w = picked.to(x.dtype)
    if weight is not None:
        w = w * weight.to(device=x.device, dtype=x.dtype)
    return w


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-input[n, target[n]] * weight[target[n]], averaged over the weights of the
    targets that are not ignore_index (or sum/none)."""
    if _ac_on():
        input, target, weight = _ac_fp32(3, input, target, weight)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    _check_nll_shapes(input, target)
    x = _class_last(input)
    t = target.reshape(-1)
    c = x.shape[1]
    if not x.is_cuda and t.numel():
        bad = ((t < 0) | (t >= c)) & (t != ignore_index)
        if bool(bad.any()):
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    elif t.numel():
        # no host wait: a bad target is recorded on the device and raised as IndexError at
        # the next synchronising call (runtime/device_error.hpp)
        ember._C._index.check_index_range(t, c, 1, ignore_index, "nll_loss", False, 0)
    w = _target_weights(x, t, weight, ignore_index)
    loss = -(x * w).sum(1)
    if reduction == "none":
        return loss.reshape(target.shape)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / w.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over dim 1 (dim 0 for a 1-D input) then nll_loss; ``target`` holds
    class indices, or class probabilities (same shape as input)."""
    if _ac_on():
        input, target, weight = _ac_fp32(3, input, target, weight)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = log_softmax(input, class_dim)
    c = input.shape[class_dim]
    if target.dtype.is_floating_point:  # probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected floating point target to have the same shape as the "
                               f"input, got {tuple(target.shape)} and {tuple(input.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            shape = [1] * input.dim()
            shape[class_dim] = c
            prod = prod * weight.view(shape)
        loss = -prod.sum(class_dim)
        if reduction == "mean":
            n = input.numel() // c if input.dim() > 1 else 1
            return loss.sum() / n
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    x = _class_last(logp)
    t = target.reshape(-1)
    valid = (t != ignore_index).to(x.dtype)
    per_class = x if weight is None else x * weight.to(device=x.device, dtype=x.dtype)
    smooth = -per_class.sum(1) * valid
    if reduction == "none":
        smooth = smooth.reshape(target.shape)
    elif reduction == "sum":
        smooth = smooth.sum()
    elif weight is None:
        smooth = smooth.sum() / valid.sum()
    else:
        smooth = smooth.sum() / _target_weights(x, t, weight, ignore_index).sum()
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / c)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in the stable form
    (1 - t) x + w_p (log(1 + exp(-|x|)) + max(-x, 0)), w_p = 1 + (pos_weight - 1) t."""
    if _ac_on():
        input, target, weight, pos_weight = _ac_fp32(3, input, target, weight, pos_weight)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    softplus_neg = ember.log1p(ember.exp(-ember.abs(input))) + ember.relu(-input)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    if _ac_on():
        if input.is_cuda and ember._C.is_autocast_enabled("cuda"):
            raise RuntimeError(_BCE_BANNED)
        input, target, weight = _ac_fp32(1, input, target, weight)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         f"size.")
    log_p = ember.clamp_min(ember.log(input), -100)
    log_q = ember.clamp_min(ember.log(1 - input), -100)
    loss = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def one_hot(tensor, num_classes=-1):
    """tensor's int64 class indices as one-hot rows (int64) of num_classes (-1: max + 1).
    A class outside [0, num_classes) raises RuntimeError on the CPU; on the GPU it is
    recorded on the device (no host wait) and raised as IndexError by the next
    synchronising call, its row left zero."""
    if tensor.dtype != ember.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif not tensor.is_cuda:
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(tensor.max()) + 1
        elif num_classes <= int(tensor.max()):
            raise RuntimeError("Class values must be smaller than num_classes.")
    else:
        if num_classes == -1:
            num_classes = int(tensor.max()) + 1  # a host read, as torch's
        ember._C._index.check_index_range(tensor.reshape(-1), num_classes, 0, None, "one_hot",
                                          False, 0)
    ar = ember.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == ar).long()


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps) (written into ``out`` when given)."""
    denom = ember.clamp_min(ember.norm(input, p=p, dim=dim, keepdim=True), eps)
    if out is None:
        return input / denom
    return ember.div(input, denom.expand_as(input), out=out)


# ---- normalisation and embeddings (C++: ember._C._nn, one autograd node each) ----

_batch_norm = _nn.batch_norm
#: layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5): normalises
#: over the last len(normalized_shape) dims (one kernel forward, one backward).
layer_norm = _nn.layer_norm
_embedding = _nn.embedding
_embedding_renorm_ = _nn.embedding_renorm_


def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalises each channel (dim 1) of an (N, C, *) input with the batch's
    statistics (training; running_mean/running_var, when given, are updated in
    place with momentum and the unbiased variance) or with the running ones."""
    if training:
        _verify_batch_size(input.size())
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """weight[input]: rows of ``weight`` for the int64/int32 indices ``input``.
    padding_idx's row gets no gradient; max_norm renormalises the looked-up rows
    of weight in place first. Gradients are dense (sparse=True is not supported).
    On the GPU an out-of-range index gives a zero row and is reported (IndexError)
    by the next embedding call: the check never waits for the GPU."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError(
            "ember.nn.functional.embedding: sparse=True (sparse gradients) is not supported; "
            "ember uses dense gradients (pass sparse=False)")
    if max_norm is not None:
        input = input.contiguous()
        with ember.no_grad():
            _embedding_renorm_(weight, input, max_norm, norm_type)
    return _embedding(weight, input, padding_idx, scale_grad_by_freq)


# Short compositions of the ops above (celu, selu, pad, pixel_shuffle, the 1-d conv and pools,
# group/instance/rms norm, the feature and alpha dropouts, more losses): nn/_functional_composite.py
from ember.nn import _functional_composite as _fc  # noqa: E402
from ember.nn._functional_composite import *  # noqa: E402,F401,F403
__all__ += _fc.__all__


# ---- activations (nn1): the fused C++ ones and torch's short compositions ---------------------
# (nn/_functional_activation.py: relu6, hardtanh, hardswish, hardsigmoid, elu/selu/celu,
# leaky_relu, softplus, mish, softshrink, hardshrink, tanhshrink, softsign, logsigmoid,
# threshold, glu, prelu, rrelu, softmin, gumbel_softmax and the in-place forms)
from ember.nn import _functional_activation as _fa  # noqa: E402
from ember.nn._functional_activation import *  # noqa: E402,F401,F403
__all__ += [n for n in _fa.__all__ if n not in __all__]

# ---- normalisation (group/instance/rms/local-response norm) and the other losses
# (smooth_l1, huber, margins, gaussian_nll, ctc...): nn/_functional_norm.py and
# nn/_functional_loss.py; embedding_bag: nn/_functional_embedding_bag.py ----
from ember.nn import (_functional_norm as _fn, _functional_loss as _fl,  # noqa: E402
                      _functional_embedding_bag as _feb)
from ember.nn._functional_norm import *  # noqa: E402,F401,F403
from ember.nn._functional_loss import *  # noqa: E402,F401,F403
from ember.nn._functional_embedding_bag import *  # noqa: E402,F401,F403
__all__ += [n for n in _fn.__all__ + _fl.__all__ + _feb.__all__ if n not in __all__]
