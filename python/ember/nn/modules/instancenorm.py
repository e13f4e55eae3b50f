"""InstanceNorm1d/2d/3d and their lazy forms (torch.nn's instancenorm.py API): each
(sample, channel) plane normalised over its spatial dims. Without running statistics
this is one group_norm kernel (one group per channel) with the affine map fused."""
import warnings

from ember.nn import functional as F
from ember.nn.modules.batchnorm import _LazyNormMixin, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _no_batch_dim = None
    _dims = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got "
                             f"{input.dim()}D input)")

    def _get_no_batch_dim(self):
        return self._no_batch_dim

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, assign=False):
        version = local_metadata.get("version", None)
        # version 1 dropped running_mean/running_var when track_running_stats=False
        if version is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    "0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True "
                    "in {klass} to enable them. See the documentation of {klass} for "
                    "details.".format(names=" and ".join(f'"{k}"' for k in keys),
                                      klass=self.__class__.__name__))
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs, assign)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L)."""
    _no_batch_dim, _dims = 2, (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W)."""
    _no_batch_dim, _dims = 3, (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W)."""
    _no_batch_dim, _dims = 4, (4, 5)


class _LazyInstanceNorm(_LazyNormMixin, _InstanceNorm):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        self._lazy_init(eps, momentum, affine, track_running_stats, device, dtype)


class LazyInstanceNorm1d(_LazyInstanceNorm):
    """InstanceNorm1d whose num_features comes from the first input."""
    _no_batch_dim, _dims = 2, (2, 3)
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNorm):
    """InstanceNorm2d whose num_features comes from the first input."""
    _no_batch_dim, _dims = 3, (3, 4)
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyInstanceNorm):
    """InstanceNorm3d whose num_features comes from the first input."""
    _no_batch_dim, _dims = 4, (4, 5)
    cls_to_become = InstanceNorm3d
