"""ember.nn.utils: clip_grad_norm_, clip_grad_value_, get_total_norm, parameters_to_vector,
vector_to_parameters, and the submodules rnn, parametrize, parametrizations; the older
weight_norm/spectral_norm hooks."""
import math

import ember

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters",
           "get_total_norm", "clip_grads_with_norm_", "clip_grad_norm", "rnn", "parametrize",
           "parametrizations", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm", "skip_init"]


def _grads(parameters):
    if ember.is_tensor(parameters):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so that their joint norm is at most max_norm; returns the
    norm before scaling (a 0-d tensor)."""
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return ember.tensor(0.0)
    with ember.no_grad():
        norms = [ember.norm(g.detach(), p=norm_type) for g in grads]
        if math.isinf(norm_type):
            total = ember.stack([n.to(grads[0].device) for n in norms]).amax()
        else:
            total = ember.norm(ember.stack([n.to(grads[0].device) for n in norms]), p=norm_type)
        if error_if_nonfinite and not bool(ember.isfinite(total)):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                               "`parameters` is non-finite, so it cannot be clipped. To disable "
                               "this error and scale the gradients by the non-finite norm anyway, "
                               "set `error_if_nonfinite=False`")
        coef = ember.clamp_max(max_norm / (total + 1e-6), 1.0)
        for g in grads:
            g.mul_(coef.to(g.device, g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    with ember.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def _check_same_device(p, old):
    if old is None:
        return p.device
    if p.device != old:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return old


def parameters_to_vector(parameters):
    """All parameters flattened into one vector (differentiable)."""
    device, vec = None, []
    for p in parameters:
        device = _check_same_device(p, device)
        vec.append(p.reshape(-1))
    return ember.cat(vec)


def vector_to_parameters(vec, parameters):
    """Copies slices of vec into the parameters (their .data, as torch)."""
    if not isinstance(vec, ember.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device, offset = None, 0
    for p in parameters:
        device = _check_same_device(p, device)
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of tensors (as if concatenated into one vector)."""
    if ember.is_tensor(tensors):
        tensors = [tensors]
    tensors = [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return ember.tensor(0.0)
    with ember.no_grad():
        norms = [ember.linalg.vector_norm(t.detach(), norm_type).to(tensors[0].device)
                 for t in tensors]
        total = ember.linalg.vector_norm(ember.stack(norms), norm_type)
    if error_if_nonfinite and not bool(ember.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = _grads(parameters)
    if not grads:
        return
    with ember.no_grad():
        coef = ember.clamp_max(float(max_norm) / (total_norm + 1e-6), 1.0)
        for g in grads:
            g.mul_(coef.to(g.device, g.dtype))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated in torch in favour of clip_grad_norm_."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) whose parameters are left uninitialised (made on the
    meta-less path: built on the given device, then its tensors replaced by empty ones)."""
    if "device" not in module_cls.__init__.__code__.co_varnames:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs).to_empty(device=final_device)


from ember.nn.utils import rnn, parametrize, parametrizations  # noqa: E402
from ember.nn.utils.weight_norm import weight_norm, remove_weight_norm  # noqa: E402
from ember.nn.utils.spectral_norm import spectral_norm, remove_spectral_norm  # noqa: E402
