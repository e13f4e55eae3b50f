"""ember.cuda.set_sync_debug_mode: the mode (process-wide, no GPU needed to set it), and on
the GPU the warnings and errors of the ops that block the host (docs/sync.md lists them);
the user's own synchronize() calls never count."""
import warnings

import pytest

import ember


@pytest.fixture
def restore_mode():
    yield
    ember.cuda.set_sync_debug_mode(0)


def test_mode_names_and_numbers(restore_mode):
    assert ember.cuda.get_sync_debug_mode() == 0
    for mode, value in (("warn", 1), ("error", 2), ("default", 0), (1, 1), (2, 2), (0, 0)):
        ember.cuda.set_sync_debug_mode(mode)
        assert ember.cuda.get_sync_debug_mode() == value


def test_bad_modes(restore_mode):
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
        ember.cuda.set_sync_debug_mode("loud")
    with pytest.raises(RuntimeError, match="expected one of 0,1,2"):
        ember.cuda.set_sync_debug_mode(3)
    with pytest.raises(TypeError, match="must be a str or an int"):
        ember.cuda.set_sync_debug_mode(1.5)
    assert ember.cuda.get_sync_debug_mode() == 0


def test_cpu_ops_never_report(restore_mode):
    ember.cuda.set_sync_debug_mode("error")
    x = ember.arange(6.0)
    assert x.sum().item() == 15.0 and x.tolist()[2] == 2.0 and x[x > 2].numel() == 3


SYNCING = {
    "item": lambda x: x.sum().item(),
    "tolist": lambda x: x.tolist(),
    "cpu": lambda x: x.cpu(),
    "numpy": lambda x: x.cpu().numpy(),
    "bool": lambda x: bool(x[0] > 0),
    "float": lambda x: float(x[0]),
    "repr": lambda x: repr(x),
    "bool mask": lambda x: x[x > 1],
    "h2d blocking": lambda x: ember.ones(4).to("cuda"),
}
NOT_SYNCING = {
    "math": lambda x: (x * 2 + 1).sum(),
    # bad GPU indices surface at the next synchronising call instead (device_error.hpp)
    "index tensor": lambda x: x[x.long()[:2]],
    "index tensor setitem": lambda x: x.__setitem__(x.long()[:2], x[2:]),
    "index list": lambda x: x[[0, 3]],  # uploaded from pageable memory without waiting
    "h2d non_blocking pinned": lambda x: ember.ones(4).pin_memory().to("cuda", non_blocking=True),
    "d2h non_blocking pinned":
        lambda x: ember.empty(4, pin_memory=True).copy_(x, non_blocking=True),
    "synchronize": lambda x: ember.cuda.synchronize(),
    "stream synchronize": lambda x: ember.cuda.current_stream().synchronize(),
    "event synchronize": lambda x: _event_sync(),
}


def _event_sync():
    e = ember.cuda.Event()
    e.record()
    e.synchronize()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(SYNCING))
def test_syncing_ops_warn_and_raise(name, restore_mode):
    x = ember.arange(4.0, device="cuda")
    ember.cuda.set_sync_debug_mode("warn")
    with pytest.warns(UserWarning, match="called a synchronizing CUDA operation"):
        SYNCING[name](x)
    ember.cuda.set_sync_debug_mode("error")
    with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
        SYNCING[name](x)
    ember.cuda.set_sync_debug_mode("default")
    SYNCING[name](x)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(NOT_SYNCING))
def test_other_calls_stay_quiet(name, restore_mode):
    x = ember.arange(4.0, device="cuda")
    ember.cuda.set_sync_debug_mode("error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NOT_SYNCING[name](x)


@pytest.mark.gpu
def test_against_torch(torch, restore_mode):
    """The ops torch reports (item, cpu, blocking copies) ember reports too."""
    for fn in (lambda L: L.ones(3, device="cuda").sum().item(),
               lambda L: L.ones(3, device="cuda").cpu(),
               lambda L: L.ones(3).to("cuda")):
        try:
            with warnings.catch_warnings():  # torch: "a prototype feature" UserWarning
                warnings.simplefilter("ignore")
                torch.cuda.set_sync_debug_mode("error")
            ember.cuda.set_sync_debug_mode("error")
            with pytest.raises(RuntimeError, match="synchronizing CUDA operation"):
                fn(torch)
            with pytest.raises(RuntimeError, match="synchronizing CUDA operation"):
                fn(ember)
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.cuda.set_sync_debug_mode(0)
