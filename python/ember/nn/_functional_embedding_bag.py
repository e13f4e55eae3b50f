"""torch.nn.functional.embedding_bag (re-exported by ember.nn.functional): Python keeps
torch's argument handling (2-D input as fixed-length bags, padding_idx wrapping,
max_norm); the bags are one C++ call and one autograd node (ops/nn/embedding_bag.hpp)."""
import ember
from ember._C import _nn

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, averages or takes the per-feature max of the rows of ``weight`` named by each
    bag of ``input``: a 2-D input is a batch of fixed-length bags; a 1-D input is cut into
    bags at ``offsets``. per_sample_weights (mode 'sum') scales each looked-up row;
    padding_idx's entries are skipped and not counted. Gradients are dense."""
    if weight.dtype == ember.long and input.is_floating_point():
        input, weight = weight, input  # torch's legacy argument order
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), \
                "padding_idx must be within the number of embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), \
                "padding_idx must be within the number of embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if input.dim() == 2:
        if offsets is not None:
            type_str = "<unknown>"
            type_str = str(type(offsets))
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type_str}")
        offsets = ember.arange(0, input.numel(), max(input.size(1), 1), dtype=input.dtype,
                               device=input.device)
        if input.size(1) == 0:
            offsets = ember.zeros(input.size(0), dtype=input.dtype, device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError(
            "ember.nn.functional.embedding_bag: sparse=True (sparse gradients) is not "
            "supported; ember uses dense gradients (pass sparse=False)")
    if scale_grad_by_freq:
        raise NotImplementedError(
            "ember.nn.functional.embedding_bag: scale_grad_by_freq=True is not supported")
    if max_norm is not None:
        with ember.no_grad():
            _nn.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    out, _, _ = _nn.embedding_bag(weight, input, offsets, _MODES[mode], per_sample_weights,
                                  include_last_offset, padding_idx)
    return out
