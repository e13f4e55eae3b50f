"""ember.optim.Optimizer: parameter groups, per-parameter state, zero_grad and
state dicts with torch's layout (so a state dict can move between ember and
torch through ember.save / torch.save conversions of its tensors)."""
from collections import defaultdict
from copy import deepcopy
import itertools

import ember
from ember._C import Tensor

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: subclasses implement ``_update`` (the shared ``step`` calls it per group)
    or override ``step``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. Please "
                            "use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure=None):
        """One update of every parameter group, torch's contract: ``closure`` (if given)
        re-evaluates the loss with gradients enabled and its value is returned; then,
        under no_grad, each group's parameters that have a gradient go to
        ``_update(group, params, grads)`` -- one fused C++ call per group in SGD and
        Adam. A group without gradients is skipped. A subclass implements ``_update``
        (or overrides ``step`` itself, as torch's optimisers do)."""
        if type(self)._update is Optimizer._update:
            raise NotImplementedError
        loss = None
        if closure is not None:
            with ember.enable_grad():
                loss = closure()
        with ember.no_grad():
            for group in self.param_groups:
                params, grads = _with_grad(group["params"])
                if params:
                    self._update(group, params, grads)
        return loss

    def _update(self, group, params, grads):
        """Update ``params`` (the group's parameters that have a gradient, in the group's
        order) from ``grads``, their gradients, with the group's hyperparameters."""
        raise NotImplementedError

    # ---- state dicts -------------------------------------------------------------

    def _state_to_dict(self, state):
        """A parameter's state as stored in the state dict (subclasses convert)."""
        return dict(state)

    def _state_from_dict(self, state, param):
        return dict(state)

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}, as torch."""
        mapping = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start)
                            if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        params = {id(p): p for g in self.param_groups for p in g["params"]}
        packed_state = {mapping[id(p)]: self._state_to_dict(s) for p, s in self.state.items()
                        if id(p) in mapping}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(itertools.chain.from_iterable(g["params"] for g in saved_groups),
                          itertools.chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            k = int(k) if isinstance(k, str) and k.isdigit() else k
            if k in id_map:
                param = id_map[k]
                state[param] = self._state_from_dict(
                    {key: self._cast(param, key, value) for key, value in v.items()}, param)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            new_groups.append(saved)
        self.state = state
        self.param_groups = new_groups

    @staticmethod
    def _cast(param, key, value):
        """State tensors follow their parameter's device (and dtype, if floating);
        'step' stays as saved."""
        if not isinstance(value, Tensor):
            return value
        if key == "step":
            return value
        if value.is_floating_point():
            return value.to(device=param.device, dtype=param.dtype).contiguous()
        return value.to(device=param.device)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += "\n"
            out += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        out += ")"
        return out


def _with_grad(params):
    """(parameters that have a gradient, their gradients), in order."""
    with_grad, grads = [], []
    for p in params:
        g = p.grad
        if g is not None:
            with_grad.append(p)
            grads.append(g)
    return with_grad, grads


def _float(x):
    return float(x) if isinstance(x, Tensor) else x
