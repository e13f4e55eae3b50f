"""ember.nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector."""
import math

import ember

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


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


def parameters_to_vector(parameters):
    return ember.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    offset = 0
    with ember.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
