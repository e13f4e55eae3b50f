"""BatchNorm1d/2d/3d, SyncBatchNorm and the lazy batch norms (torch.nn's batchnorm.py API).

The forward is one C++ call (``ember._C._nn.batch_norm``): statistics, the
running-statistics update and the normalisation are fused kernels, and the
backward is one node."""
import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d"]


class _NormBase(Module):
    """Parameters and buffers shared by the batch-norm layers: weight/bias (affine),
    running_mean/running_var/num_batches_tracked (track_running_stats)."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(ember.empty(num_features, device=device, dtype=dtype))
            self.bias = Parameter(ember.empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", ember.zeros(num_features, device=device,
                                                             dtype=dtype))
            self.register_buffer("running_var", ember.ones(num_features, device=device,
                                                           dtype=dtype))
            self.register_buffer("num_batches_tracked",
                                 ember.tensor(0, dtype=ember.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, assign=False):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints from before num_batches_tracked existed
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else ember.tensor(0, dtype=ember.long))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs, assign)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:  # cumulative moving average
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:
                    exponential_average_factor = self.momentum
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias,
                            bn_training, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of a 2-D (N, C) or 3-D (N, C, L) input over N (and L)."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of a 4-D (N, C, H, W) input over N, H and W."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of a 5-D (N, C, D, H, W) input over N, D, H and W."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation synchronised over a process group. ember has no distributed
    backend: the batch is the one process's, so this is BatchNorm over (N, C, *) inputs
    (torch's behaviour when no process group is initialised)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*D layer replaced by a SyncBatchNorm sharing its
        parameters and buffers."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                          module.affine, module.track_running_stats,
                                          process_group)
            if module.affine:
                with ember.no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output


class _LazyNormMixin:
    """num_features taken from the first input's dim 1: until then the parameters and
    running statistics are empty tensors (torch's
    UninitializedParameter/UninitializedBuffer), num_features is 0, and the first forward
    sizes and initialises them and turns the module into cls_to_become."""

    cls_to_become = None

    def _lazy_init(self, eps, momentum, affine, track_running_stats, device, dtype):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(ember.empty(0, device=device, dtype=dtype))
            self.bias = Parameter(ember.empty(0, device=device, dtype=dtype))
        if track_running_stats:
            self.running_mean = ember.empty(0, device=device, dtype=dtype)
            self.running_var = ember.empty(0, device=device, dtype=dtype)
            self.num_batches_tracked = ember.tensor(0, dtype=ember.long, device=device)
        self._lazy_pending = True

    def has_uninitialized_params(self):
        return getattr(self, "_lazy_pending", False)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        n = input.shape[1]  # torch's choice, also for unbatched instance-norm inputs
        self.num_features = n
        with ember.no_grad():
            if self.affine:
                self.weight = Parameter(ember.empty(n, device=self.weight.device,
                                                    dtype=self.weight.dtype))
                self.bias = Parameter(ember.empty(n, device=self.bias.device,
                                                  dtype=self.bias.dtype))
            if self.track_running_stats:
                self.running_mean = ember.zeros(n, device=self.running_mean.device,
                                                dtype=self.running_mean.dtype)
                self.running_var = ember.ones(n, device=self.running_var.device,
                                              dtype=self.running_var.dtype)
        self._lazy_pending = False
        self.reset_parameters()
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        # the class may have just become cls_to_become: Module's call, not super()'s
        return Module.__call__(self, *args, **kwargs)


class LazyBatchNorm1d(_LazyNormMixin, _BatchNorm):
    """BatchNorm1d whose num_features comes from the first input."""

    cls_to_become = BatchNorm1d

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        self._lazy_init(eps, momentum, affine, track_running_stats, device, dtype)

    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormMixin, _BatchNorm):
    """BatchNorm2d whose num_features comes from the first input."""

    cls_to_become = BatchNorm2d

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        self._lazy_init(eps, momentum, affine, track_running_stats, device, dtype)

    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormMixin, _BatchNorm):
    """BatchNorm3d whose num_features comes from the first input."""

    cls_to_become = BatchNorm3d

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        self._lazy_init(eps, momentum, affine, track_running_stats, device, dtype)

    _check_input_dim = BatchNorm3d._check_input_dim
