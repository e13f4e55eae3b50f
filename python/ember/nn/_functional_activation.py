"""torch.nn.functional's activations (re-exported by ember.nn.functional).

The pointwise ones that torch runs as one kernel are one fused C++ pass here too,
forward and backward (ember._C._nn: hardswish, hardsigmoid, elu/selu/celu,
softplus, mish, leaky_relu, hardtanh/relu6, softshrink, hardshrink, logsigmoid,
threshold; csrc/ops/pointwise/activation.*). What stays in Python is what torch
keeps in Python: argument checks, the integer inputs of hardtanh/relu6/threshold
(torch computes those with clamp/where), and the short compositions torch also
composes (softsign, tanhshrink, glu, softmin, prelu, rrelu, gumbel_softmax).
Names, arguments, defaults and messages are torch's.
"""
import ember
from ember import _C
from ember._C import _nn

__all__ = ["relu6", "hardtanh", "hardtanh_", "hardswish", "hardsigmoid", "elu", "elu_", "selu",
           "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "softplus", "mish",
           "softshrink", "hardshrink", "tanhshrink", "softsign", "logsigmoid", "threshold",
           "threshold_", "glu", "prelu", "rrelu", "rrelu_", "softmin", "gumbel_softmax",
           "assert_int_or_pair"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

_hardswish = _nn.hardswish
_hardsigmoid = _nn.hardsigmoid
_elu = _nn.elu
_softplus = _nn.softplus
_mish = _nn.mish
_leaky_relu = _nn.leaky_relu
_hardtanh = _nn.hardtanh
_softshrink = _nn.softshrink
_hardshrink = _nn.hardshrink
_log_sigmoid = _nn.log_sigmoid
_threshold = _nn.threshold


def _floating(x):
    return x.dtype.is_floating_point


def _inplace(input, result, inplace):
    return input.copy_(result) if inplace else result


# ---- clamps: hardtanh, relu6, threshold ------------------------------------------------------

def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val); its gradient is 0 outside (min_val, max_val)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if _floating(input):
        r = _hardtanh(input, min_val, max_val, inplace)
        return input if inplace else r
    # integers: torch's clamp with the bounds truncated to integers
    if input.dtype == _C.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype == _C.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    lo, hi = int(min_val), int(max_val)
    if inplace:
        return input.clamp_(lo, hi)
    return ember.clamp(input, lo, hi)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    """min(max(0, x), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value."""
    if _floating(input):
        r = _threshold(input, threshold, value, inplace)
        return input if inplace else r
    v = _C.full((), value, dtype=input.dtype, device=input.device)
    return _inplace(input, _C.where(input > threshold, input, v), inplace)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, True)


# ---- the elu family ------------------------------------------------------------------------

def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    r = _elu(input, alpha, 1.0, 1.0, inplace)
    return input if inplace else r


def elu_(input, alpha=1.0):
    _elu(input, alpha, 1.0, 1.0, True)
    return input


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    r = _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)
    return input if inplace else r


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    r = _elu(input, alpha, 1.0, 1.0 / alpha, inplace)
    return input if inplace else r


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


# ---- smooth ones ----------------------------------------------------------------------------

def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    r = _hardswish(input, inplace)
    return input if inplace else r


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    r = _hardsigmoid(input, inplace)
    return input if inplace else r


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x for x > 0, negative_slope * x otherwise."""
    r = _leaky_relu(input, negative_slope, inplace)
    return input if inplace else r


def leaky_relu_(input, negative_slope=0.01):
    _leaky_relu(input, negative_slope, True)
    return input


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta; x where beta * x > threshold."""
    return _softplus(input, beta, threshold)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    r = _mish(input, inplace)
    return input if inplace else r


def logsigmoid(input):
    """log(1 / (1 + exp(-x))), without overflow."""
    return _log_sigmoid(input)


def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - input.tanh()


# ---- shrinks ----------------------------------------------------------------------------------

_DTYPE_MAX = {"float16": ("Half", "65504"), "bfloat16": ("BFloat16", "3.38953e+38"),
              "float32": ("Float", "3.40282e+38"), "float64": ("Double", "1.79769e+308")}


def _number(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def softshrink(input, lambd=0.5):
    """x - lambd for x > lambd, x + lambd for x < -lambd, 0 in between."""
    if lambd < 0 and _floating(input):
        name, top = _DTYPE_MAX.get(str(input.dtype).rpartition(".")[2], ("Float", "3.40282e+38"))
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {name}, but "
                           f"found {_number(lambd)}")
    return _softshrink(input, lambd)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return _hardshrink(input, lambd)


# ---- compositions ------------------------------------------------------------------------------

def glu(input, dim=-1):
    """a * sigmoid(b) with (a, b) the two halves of input along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.narrow(d, 0, n // 2), input.narrow(d, n // 2, n // 2)
    return a * _C.sigmoid(b)


def prelu(input, weight):
    """x where x > 0, else weight * x (weight per channel, dim 1, or one value)."""
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
        if input.dim() >= 2:
            weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    else:
        weight = weight.reshape(())
    return _C.where(input > 0, input, weight * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn uniformly from [lower, upper] per element
    while training (from the generator of input's device: ember.manual_seed reproduces
    it), and (lower + upper) / 2 in evaluation."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    a = _C.empty(input.shape, dtype=input.dtype, device=input.device).uniform_(lower, upper)
    return _inplace(input, _C.where(input >= 0, input, input * a), inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input, dim)."""
    from ember.nn.functional import softmax
    return softmax(-input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1); hard: the one-hot argmax in the
    forward pass with the soft sample's gradient (straight-through)."""
    gumbels = -_C.empty(logits.shape, dtype=logits.dtype, device=logits.device).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = ember.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def assert_int_or_pair(arg, arg_name, message):
    """torch.nn.functional's argument check: arg is an int or has two elements."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
