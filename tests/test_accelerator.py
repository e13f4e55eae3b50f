"""ember.accelerator, ember.backends.mps and ember.cuda's extra names (deprecated memory
aliases, capability questions, NVML readings)."""
import pytest

import ember
from conftest import HAS_GPU


def test_accelerator_without_or_with_gpu():
    acc = ember.accelerator
    assert acc.is_available() == ember.cuda.is_available()
    assert acc.device_count() == ember.cuda.device_count()
    expected = ember.device("cuda") if ember._C._compiled_with_cuda else None
    assert acc.current_accelerator() == expected
    if not HAS_GPU:
        assert acc.current_accelerator(check_available=True) is None
    assert acc.current_device_idx is acc.current_device_index
    assert acc.set_device_idx is acc.set_device_index
    with acc.device_index(None):
        pass


def test_accelerator_names_match_torch(torch):
    missing = set(torch.accelerator.__all__) - set(dir(ember.accelerator))
    assert not missing


@pytest.mark.gpu
def test_accelerator_on_gpu(torch):
    acc = ember.accelerator
    assert acc.current_accelerator(check_available=True) == ember.device("cuda")
    assert acc.current_device_index() == ember.cuda.current_device()
    cap = acc.get_device_capability()
    try:
        tcap = torch.accelerator.get_device_capability()
    except (AttributeError, RuntimeError):  # torch 2.11's CUDA backend does not answer
        tcap = None
    if tcap is not None:
        assert cap == tcap
    else:
        assert cap["major"] >= 5 if isinstance(cap, dict) and "major" in cap else cap
    free, total = acc.get_memory_info()
    assert 0 < free <= total
    x = ember.ones(1024, device="cuda")
    assert acc.memory_allocated() >= 4096
    acc.synchronize()
    with acc.device_index(0):
        assert acc.current_device_index() == 0
    del x


def test_mps_is_absent():
    assert ember.backends.mps.is_available() is False
    assert ember.backends.mps.is_built() is False


def test_deprecated_memory_aliases():
    for name, target in (("memory_cached", "memory_reserved"),
                         ("max_memory_cached", "max_memory_reserved"),
                         ("reset_max_memory_allocated", "reset_peak_memory_stats"),
                         ("reset_max_memory_cached", "reset_peak_memory_stats")):
        with pytest.warns(FutureWarning, match=name):
            try:
                getattr(ember.cuda, name)()
            except RuntimeError:
                assert not HAS_GPU  # no GPU: the target raises, after the warning


def test_legacy_constants():
    assert ember.cuda.has_half is True     # torch.cuda.has_half: True in every torch build
    assert ember.cuda.has_magma is False


def test_capabilities_without_gpu():
    if HAS_GPU:
        pytest.skip("checks the answers without a GPU")
    assert ember.cuda.is_bf16_supported() is False
    assert ember.cuda.is_tf32_supported() is False
    assert ember.cuda.get_arch_list() == []
    assert ember.cuda.get_gencode_flags() == ""
    with pytest.raises(RuntimeError, match="Invalid device id"):
        ember.cuda.can_device_access_peer(0, 1)


@pytest.mark.gpu
def test_capabilities_on_gpu(torch):
    assert ember.cuda.is_bf16_supported() == torch.cuda.is_bf16_supported()
    assert ember.cuda.is_tf32_supported() == torch.cuda.is_tf32_supported()
    archs = ember.cuda.get_arch_list()
    major, minor = ember.cuda.get_device_capability()
    assert f"sm_{major}{minor}" in archs or f"compute_{major}{minor}" in archs
    assert ember.cuda.get_gencode_flags().startswith("-gencode compute=compute_")
    assert ember.cuda.can_device_access_peer(0, 0) == torch.cuda.can_device_access_peer(0, 0)


@pytest.mark.gpu
def test_nvml_readings():
    assert 0 <= ember.cuda.utilization() <= 100
    assert 0 <= ember.cuda.memory_usage() <= 100
    assert 0 < ember.cuda.temperature() < 130
    assert ember.cuda.power_draw() > 0
    assert ember.cuda.clock_rate() > 0
    x = ember.empty(1 << 20, device="cuda")
    assert ember.cuda.device_memory_used() >= x.nbytes
    text = ember.cuda.list_gpu_processes()
    assert text.startswith("GPU:")


def test_nvml_readings_without_nvml():
    if ember.cuda._c._nvml_available():
        pytest.skip("NVML is present here")
    with pytest.raises(RuntimeError, match="NVML"):
        ember.cuda.temperature()
    assert "libnvidia-ml" in ember.cuda.list_gpu_processes()
