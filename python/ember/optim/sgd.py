"""ember.optim.SGD: torch.optim.SGD's update, all parameters of a group in one
fused C++ call (multi-tensor CUDA kernels: csrc/ops/optim/optim_step.cu)."""
import ember
from ember import _C
from ember.optim.optimizer import Optimizer, required, _float

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required and _float(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise ValueError("ember's optimizers are not differentiable (differentiable=True)")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def _update(self, group, params, grads):
        momentum = group["momentum"]
        bufs = []
        first = []
        if momentum != 0:
            state = self.state
            for p in params:
                st = state[p]
                buf = st.get("momentum_buffer")
                if buf is None:
                    buf = ember.empty(p.shape, dtype=p.dtype, device=p.device)
                    st["momentum_buffer"] = buf
                    first.append(True)
                else:
                    first.append(False)
                bufs.append(buf)
        _C._sgd_step(params, grads, bufs, first, _float(group["lr"]), momentum,
                     group["dampening"], group["weight_decay"], group["nesterov"],
                     group["maximize"])
