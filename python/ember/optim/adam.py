"""ember.optim.Adam and AdamW: torch's updates (amsgrad, maximize, weight decay
coupled or decoupled), all parameters of a group in one fused C++ call."""
import ember
from ember import _C
from ember._C import Tensor
from ember.optim.optimizer import Optimizer, _float

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if not 0.0 <= _float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if capturable:
            raise ValueError("ember's Adam keeps step counts on the host: capturable=True is "
                             "not supported")
        if differentiable:
            raise ValueError("ember's optimizers are not differentiable (differentiable=True)")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay or self._decoupled)
        super().__init__(params, defaults)

    def _update(self, group, params, grads):
        amsgrad = group["amsgrad"]
        avgs, sqs, maxs, steps = [], [], [], []
        for p in params:
            st = self.state[p]
            if not st:
                st["step"] = 0
                st["exp_avg"] = ember.zeros(p.shape, dtype=p.dtype, device=p.device)
                st["exp_avg_sq"] = ember.zeros(p.shape, dtype=p.dtype, device=p.device)
                if amsgrad:
                    st["max_exp_avg_sq"] = ember.zeros(p.shape, dtype=p.dtype, device=p.device)
            st["step"] += 1
            avgs.append(st["exp_avg"])
            sqs.append(st["exp_avg_sq"])
            if amsgrad:
                maxs.append(st["max_exp_avg_sq"])
            steps.append(st["step"])
        beta1, beta2 = group["betas"]
        _C._adam_step(params, grads, avgs, sqs, maxs, steps, _float(group["lr"]), beta1, beta2,
                      group["eps"], group["weight_decay"], amsgrad, group["maximize"],
                      group["decoupled_weight_decay"])

    # torch keeps 'step' as a float32 tensor in the state dict.
    def _state_to_dict(self, state):
        out = dict(state)
        if "step" in out and not isinstance(out["step"], Tensor):
            out["step"] = ember.tensor(float(out["step"]))
        return out

    def _state_from_dict(self, state, param):
        out = dict(state)
        if "step" in out:
            out["step"] = int(float(out["step"]))
        return out


class AdamW(Adam):
    """Adam with decoupled weight decay (p *= 1 - lr * weight_decay), default 1e-2."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
