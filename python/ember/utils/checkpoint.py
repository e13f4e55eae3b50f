"""ember.utils.checkpoint (torch.utils.checkpoint): activation checkpointing.

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` keeping none of the
tensors its backward needs; the backward runs ``fn`` again to get them back:

- ``use_reentrant=False`` (recommended, torch's default advice): the forward runs
  under saved-tensor hooks (ember.autograd.graph.saved_tensors_hooks) whose pack
  keeps only a number and the tensor's metadata; the first unpack in backward
  re-runs ``fn`` with grad enabled under hooks that collect the tensors it saves,
  in the same order, and hands them out. Works with ``ember.autograd.grad``,
  keyword arguments, inputs that do not require grad, and nested checkpoints.
- ``use_reentrant=True``: an ``autograd.Function`` whose forward runs ``fn`` without
  grad and whose backward re-runs it and calls ``ember.autograd.backward`` inside
  (unlike torch's, it also works under ``ember.autograd.grad``, where torch raises).

With ``preserve_rng_state=True`` the CPU generator's state, and the state of the
generator of every CUDA device the tensor arguments are on (once CUDA was
initialised), are stashed before the forward and restored around the re-run (then
put back as they were), so that dropout draws the same mask twice.
``determinism_check="default"`` compares the shape, dtype and device of each
re-computed tensor with the original (``CheckpointError`` on a difference).
``checkpoint_sequential`` checkpoints a sequence of modules in segments.
"""
import contextlib
import warnings

import ember
from ember import _C

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop",
           "detach_variable", "check_backward_validity", "get_device_states",
           "set_device_states"]


class CheckpointError(RuntimeError):
    """The re-computation of a checkpointed function did not match its forward."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


_checkpoint_debug_enabled = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Overrides ``debug`` of every checkpoint inside the context (None: leave them be)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


_checkpoint_early_stop = True


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """torch stops a re-computation once every needed tensor is back; ember always re-runs
    the whole function (the results are the same), so this only records the setting."""
    global _checkpoint_early_stop
    prev = _checkpoint_early_stop
    _checkpoint_early_stop = enable
    try:
        yield
    finally:
        _checkpoint_early_stop = prev


def detach_variable(inputs):
    """Detached copies of the tensors of a tuple, keeping requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           + type(inputs).__name__)
    return _detach_args(inputs)


def check_backward_validity(inputs):
    if not any(_C.is_tensor(inp) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def get_device_states(*args):
    """(the CUDA devices of the tensor arguments, their generators' states)."""
    devices = _cuda_devices(args)
    return devices, [ember.cuda.get_rng_state(d) for d in devices]


def set_device_states(devices, states, *, device_type=None):
    for d, state in zip(devices, states):
        ember.cuda.set_rng_state(state, d)


# ---- RNG state ---------------------------------------------------------------------

def _cuda_devices(args):
    """The CUDA devices of the tensor arguments (when CUDA was initialised: otherwise no
    CUDA generator has drawn anything)."""
    if not ember.cuda.is_initialized():
        return []
    devices = []
    for a in args:
        if _C.is_tensor(a) and a.is_cuda:
            index = a.get_device()
            if index not in devices:
                devices.append(index)
    return devices


class _RngState:
    """The CPU generator's state and those of the given CUDA devices."""

    def __init__(self, devices):
        self.devices = devices
        self.cpu = ember.get_rng_state()
        self.cuda = [ember.cuda.get_rng_state(d) for d in devices]

    def restore(self):
        ember.set_rng_state(self.cpu)
        for d, state in zip(self.devices, self.cuda):
            ember.cuda.set_rng_state(state, d)


@contextlib.contextmanager
def _replay_rng(stash):
    """Inside: the generators as stashed; after: as they were before (torch's fork_rng)."""
    if stash is None:
        yield
        return
    now = _RngState(stash.devices)
    stash.restore()
    try:
        yield
    finally:
        now.restore()


# ---- use_reentrant=True ------------------------------------------------------------

def _detach_args(args):
    out = []
    for a in args:
        if _C.is_tensor(a):
            d = a.detach()
            d.requires_grad_(a.requires_grad)
            out.append(d)
        else:
            out.append(a)
    return tuple(out)


class CheckpointFunction(ember.autograd.Function):
    """The reentrant checkpoint (use_reentrant=True)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _RngState(_cuda_devices(args)) if preserve_rng_state else None
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if _C.is_tensor(arg):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with ember.no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = _detach_args(inputs)
        with _replay_rng(ctx.rng), ember.enable_grad():
            outputs = ctx.run_function(*detached)
        if _C.is_tensor(outputs):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for out, g in zip(outputs, args):
            if _C.is_tensor(out) and out.requires_grad:
                outputs_with_grad.append(out)
                args_with_grad.append(g)
        if not outputs_with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        ember.autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if _C.is_tensor(inp) else None for inp in detached)
        return (None, None) + grads


# ---- use_reentrant=False -----------------------------------------------------------

class _Frame:
    """One checkpointed call: what the forward saved (metadata only) and, once the
    backward asked, the re-computed tensors."""

    def __init__(self, fn, args, kwargs, rng, recompute_context, determinism_check):
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.rng = rng
        self.recompute_context = recompute_context
        self.determinism_check = determinism_check
        self.metadata = []      # (shape, dtype, device) of each saved tensor, in order
        self.recomputed = None  # the re-computed saved tensors, in the same order

    def pack(self, tensor):
        self.metadata.append((tuple(tensor.shape), tensor.dtype, tensor.device))
        return _Handle(self, len(self.metadata) - 1)

    def recompute(self):
        recomputed = []

        def pack(t):
            recomputed.append(t)
            return None

        def unpack(_):
            raise CheckpointError("torch.utils.checkpoint: unpacking a tensor saved during "
                                  "the re-computation is not supported")

        with _replay_rng(self.rng), ember.enable_grad(), self.recompute_context, \
                ember.autograd.graph.saved_tensors_hooks(pack, unpack):
            self.fn(*self.args, **self.kwargs)
        if self.determinism_check == "default":
            if len(recomputed) < len(self.metadata):
                raise CheckpointError(
                    "torch.utils.checkpoint: A different number of tensors was saved during the "
                    "original forward and recomputation.\n"
                    f"Number of tensors saved during forward: {len(self.metadata)}\n"
                    f"Number of tensors saved during recomputation: {len(recomputed)}")
            for i, (t, (shape, dtype, device)) in enumerate(zip(recomputed, self.metadata)):
                now = (tuple(t.shape), t.dtype, t.device)
                if now != (shape, dtype, device):
                    raise CheckpointError(
                        "torch.utils.checkpoint: Recomputed values for the following tensors have "
                        "different metadata than during the forward pass.\n"
                        f"tensor at position {i}:\nsaved metadata: "
                        f"{{'shape': {shape}, 'dtype': {dtype}, 'device': {device}}}\n"
                        f"recomputed metadata: {{'shape': {now[0]}, 'dtype': {now[1]}, "
                        f"'device': {now[2]}}}\n")
        self.recomputed = recomputed

    def unpack(self, index):
        if self.recomputed is None or self.recomputed[index] is None:
            self.recompute()
        t = self.recomputed[index]
        self.recomputed[index] = None  # each saved tensor is read once per backward pass
        if all(r is None for r in self.recomputed):
            self.recomputed = None
        return t


class _Handle:
    __slots__ = ("frame", "index")

    def __init__(self, frame, index):
        self.frame = frame
        self.index = index


def _unpack_handle(handle):
    return handle.frame.unpack(handle.index)


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check,
                                  debug, *args, **kwargs):
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    rng = _RngState(_cuda_devices(args)) if preserve_rng_state else None
    frame = _Frame(function, args, kwargs, rng, recompute_context, determinism_check)
    with ember.autograd.graph.saved_tensors_hooks(frame.pack, _unpack_handle), forward_context:
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` without keeping its intermediate tensors; the backward
    computes them again (see the module's docstring)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if not _C.is_grad_enabled():
        return function(*args, **kwargs)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, *args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (a list or an nn.Sequential) on ``input`` in ``segments`` chunks,
    each but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is "
            "not passed. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, ember.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
