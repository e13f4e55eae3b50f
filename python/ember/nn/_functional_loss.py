"""torch.nn.functional's losses beyond mse/l1/nll/cross_entropy/bce (those are in
functional.py) and the six of _functional_composite.py: smooth_l1_loss, huber_loss,
soft_margin_loss, multilabel_soft_margin_loss, multi_margin_loss,
multilabel_margin_loss, gaussian_nll_loss, triplet_margin_with_distance_loss and
ctc_loss (a C++ alpha/beta kernel pair on both devices, one autograd node).

The others are compositions of ember's ops, so their gradients come from those ops'
formulas; branches that ``where`` discards are kept finite. Names, arguments, defaults
and messages are torch's."""
import math
import warnings

import ember
from ember import _C

__all__ = ["smooth_l1_loss", "huber_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "multilabel_margin_loss", "gaussian_nll_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"]


def _F():
    from ember.nn import functional
    return functional


def _reduction(size_average, reduce, reduction):
    return _F()._legacy_reduction(size_average, reduce, reduction)


def _reduce(loss, reduction):
    return _F()._reduce(loss, reduction)


# torch's autocast runs these in float32 on both devices (its cpu and cuda lists)
_ac_on = _C._is_any_autocast_enabled
_ac_fp32 = _C._autocast_float32


def _warn_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", stacklevel=3)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 * z**2 / beta where z = |input - target| < beta, z - 0.5 * beta elsewhere
    (beta = 0: the L1 loss)."""
    if _ac_on():
        input, target = _ac_fp32(3, input, target)
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    z = _C.abs(input - target)
    if beta == 0.0:
        return _reduce(z, reduction)
    quad = z * z * (0.5 / beta)
    return _reduce(_C.where(z < beta, quad, z - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 * z**2 where z = |input - target| < delta, delta * (z - 0.5 * delta) elsewhere."""
    if _ac_on():
        input, target, weight = _ac_fp32(3, input, target, weight)
    _warn_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    z = _C.abs(input - target)
    loss = _C.where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _log_sigmoid(x):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite everywhere
    return _C.clamp_max(x, 0) - _C.log1p(_C.exp(-_C.abs(x)))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) (target in {1, -1})."""
    if _ac_on():
        input, target = _ac_fp32(3, input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce(-_log_sigmoid(target * input), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Mean over the classes (last dim) of the binary cross-entropy of sigmoid(input)."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * _log_sigmoid(input) + (1 - target) * _log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _check_class_target(input, target, name):
    """(input 2-D [N, C] or 1-D [C], target [N] or 0-d/[1]) -> (x [N, C], t [N])."""
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    x = input.unsqueeze(0) if input.dim() <= 1 else input
    if input.dim() == 0:
        x = input.reshape(1, 1)
    n = x.shape[0]
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got "
                           f"{list(target.shape)}")
    return x, target.reshape(n)


def _check_targets_in_range(t, c, name, message):
    """CPU: raise now; GPU: the device-side record (raised at the next synchronising call)."""
    if t.numel() == 0:
        return
    if t.is_cuda:
        _C._index.check_index_range(t, c, 0, None, name, False, 0)
    elif bool(((t < 0) | (t >= c)).any()):
        raise RuntimeError(message)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Per sample: sum over i != y of max(0, margin - x[y] + x[i]) ** p * weight[y], / C."""
    if _ac_on():
        input, weight = _ac_fp32(3, input, weight)
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x, t = _check_class_target(input, target, "multi_margin_loss")
    c = x.shape[1]
    _check_targets_in_range(t, c, "multi_margin_loss", "target out of range")
    classes = _C.arange(c, device=x.device)
    is_y = t.unsqueeze(1) == classes
    tc = _C.clamp(t, 0, max(c - 1, 0)).unsqueeze(1)
    xy = x.gather(1, tc)
    z = _C.clamp_min(x - xy + margin, 0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.to(device=x.device, dtype=x.dtype).gather(0, tc.reshape(-1)).unsqueeze(1)
    z = _C.where(is_y, _C.zeros((), dtype=z.dtype, device=z.device), z)
    loss = z.sum(1) / c
    if reduction == "none":
        return loss if input.dim() == 2 else loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: sum over the target classes j (the leading non-negative entries of
    target's row, up to the first -1) and the other classes i of
    max(0, 1 - (x[j] - x[i])), / C."""
    if _ac_on():
        input, = _ac_fp32(3, input)
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() <= 1 else input
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    t = target.reshape(x.shape)
    c = x.shape[1]
    # the target classes: the entries before the first negative one
    valid = _C.cumprod((t >= 0).long(), 1) > 0
    if not t.is_cuda and bool((valid & (t >= c)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    elif t.is_cuda and t.numel():
        _C._index.check_index_range(_C.where(valid, t, _C.zeros_like(t)), c, 0, None,
                                    "multilabel_margin_loss", False, 0)
    tcl = _C.clamp(t, 0, max(c - 1, 0))
    # is_target[n, i]: class i is one of row n's targets
    classes = _C.arange(c, device=x.device)
    hits = (tcl.unsqueeze(2) == classes) & valid.unsqueeze(2)  # [N, slot, class]
    is_target = hits.any(1)
    xj = x.gather(1, tcl)  # [N, slot]
    z = _C.clamp_min(1 - (xj.unsqueeze(2) - x.unsqueeze(1)), 0)  # [N, slot, i]
    keep = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    z = _C.where(keep, z, _C.zeros((), dtype=z.dtype, device=z.device))
    loss = z.sum((1, 2)) / c
    if reduction == "none":
        return loss if input.dim() == 2 else loss.reshape(())
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(max(var, eps)) + (input - target)**2 / max(var, eps)) (+ 0.5 log(2 pi)
    when full); var may be one dim short of input or have one broadcast dim."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _C.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with ember.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_C.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin) for any distance function d (default the
    pairwise 2-norm distance; swap: the smaller of d(a, n) and d(p, n))."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater "
                         f"than 0, got {margin} instead")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pd}D, "
                           f"and negative {nd}D inputs")
    dist = distance_function if distance_function is not None else _F().pairwise_distance
    dpos = dist(anchor, positive)
    dneg = dist(anchor, negative)
    if swap:
        dneg = _C.minimum(dneg, dist(positive, negative))
    loss = _C.clamp_min(margin + dpos - dneg, 0)
    return _reduce(loss, reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss of (T, N, C) (or unbatched (T, C))
    log-probabilities: -log of the summed probability of every alignment of each target
    (padded (N, S) or concatenated 1-D) with blanks. 'mean' divides each loss by its target
    length, then averages over the batch. A C++ alpha/beta kernel pair (log space) on
    both devices; zero_infinity turns infinite losses (impossible alignments) and their
    gradients into zeros."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    tg = targets.unsqueeze(0) if unbatched and targets.dim() == 1 else targets
    il = _lengths(input_lengths)
    tl = _lengths(target_lengths)
    loss = _C._nn.ctc_loss(lp, tg, il, tl, blank, zero_infinity)
    if reduction == "mean":
        denom = ember.tensor([max(v, 1) for v in tl], dtype=loss.dtype, device=loss.device)
        return (loss / denom).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss


def _lengths(x):
    """Lengths as a list of ints (torch reads them on the host too)."""
    if isinstance(x, ember.Tensor):
        if x.dtype.is_floating_point:
            raise RuntimeError(f"ctc_loss: expected integer lengths, got {x.dtype}")
        v = x.tolist()
        return [int(v)] if isinstance(v, (int, bool)) else [int(i) for i in v]
    if isinstance(x, int):
        return [x]
    return [int(i) for i in x]
