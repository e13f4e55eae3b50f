"""Foreign streams: ExternalStream never destroys, CUDA stream protocol objects
everywhere, torch's and CuPy's streams; several devices: a stream of another device
switches the device, ExternalStream on the wrong device."""
import gc

import pytest

import ember
from cuda_util import ProtocolStream, cuda, gpu, sleep_ms, two_gpus

pytestmark = pytest.mark.usefixtures("restore_current_streams")


# ---- foreign streams ----

@gpu
def test_external_stream_never_destroys():
    s = cuda.Stream()
    ext = cuda.ExternalStream(s.cuda_stream)
    assert isinstance(ext, cuda.ExternalStream) and ext == s
    assert ext.device == s.device
    assert repr(ext).startswith("<ember.cuda.ExternalStream device=cuda:")
    assert cuda.ExternalStream(handle=s.cuda_stream) == s
    assert cuda.ExternalStream(ProtocolStream(s.cuda_stream)) == s
    del ext
    gc.collect()
    s.synchronize()  # still a valid stream
    assert cuda.ExternalStream(0).cuda_stream == 0


@gpu
def test_protocol_objects_everywhere(cycles_per_ms):
    s = cuda.Stream()
    foreign = ProtocolStream(s.cuda_stream)
    with cuda.stream(foreign):
        cur = cuda.current_stream()
        assert cur == s and cur.device == s.device
        sleep_ms(cycles_per_ms, 50)
    assert cuda.current_stream().cuda_stream == 0
    e = cuda.Event()
    e.record(foreign)
    assert not e.query()
    e.wait(ProtocolStream(0))
    cuda.set_stream(foreign)
    assert cuda.current_stream() == s
    cuda.set_stream(cuda.default_stream())
    e.synchronize()


@gpu
def test_torch_streams(torch, cycles_per_ms):
    torch.cuda._sleep(1000)  # load torch's kernel before timing anything
    torch.cuda.synchronize()
    ts = torch.cuda.Stream()
    # ExternalStream of a torch stream orders after torch's work on it.
    with torch.cuda.stream(ts):
        torch.cuda._sleep(int(cycles_per_ms * 100))
    e = cuda.Event()
    e.record(cuda.ExternalStream(ts.cuda_stream))
    assert not e.query()
    e.synchronize()
    assert ts.query()
    # torch runs on an ember stream.
    s = cuda.Stream()
    with torch.cuda.stream(torch.cuda.ExternalStream(s.cuda_stream)):
        torch.cuda._sleep(int(cycles_per_ms * 50))
    assert not s.query()
    s.synchronize()
    if not hasattr(ts, "__cuda_stream__"):
        pytest.skip(f"torch {torch.__version__} streams lack __cuda_stream__ (added in 2.10)")
    with cuda.stream(ts):
        assert cuda.current_stream().cuda_stream == ts.cuda_stream
        sleep_ms(cycles_per_ms, 50)
    assert not ts.query()
    ts.synchronize()
    s.wait_stream(ts)
    cuda.Event().record(ts)


@gpu
def test_cupy_streams(cycles_per_ms):
    cp = pytest.importorskip("cupy")
    cs = cp.cuda.Stream(non_blocking=True)
    ext = cuda.ExternalStream(cs.ptr)
    assert ext.cuda_stream == cs.ptr
    with cuda.stream(ext):
        sleep_ms(cycles_per_ms, 50)
    assert not cs.done
    cs.synchronize()
    assert cs.done
    if not hasattr(cs, "__cuda_stream__"):
        pytest.skip(f"CuPy {cp.__version__} streams lack __cuda_stream__")
    with cuda.stream(cs):
        assert cuda.current_stream().cuda_stream == cs.ptr
        sleep_ms(cycles_per_ms, 50)
    assert not cs.done
    e = cuda.Event()
    e.record(cs)
    e.synchronize()
    assert cs.done


# ---- several devices ----

@two_gpus
def test_stream_of_another_device_switches_device():
    cuda.set_device(0)
    s0, s1 = cuda.Stream(device=0), cuda.Stream(device=1)
    assert s1.device == ember.device("cuda:1")
    cuda.set_stream(s0)
    prev1 = cuda.current_stream(1)
    with cuda.stream(s1):
        assert cuda.current_device() == 1
        assert cuda.current_stream() == s1
        assert cuda.current_stream(0) == s0
    assert cuda.current_device() == 0
    assert cuda.current_stream(0) == s0
    assert cuda.current_stream(1) == prev1
    with pytest.raises(RuntimeError):
        with cuda.stream(s1):
            raise RuntimeError("boom")
    assert cuda.current_device() == 0 and cuda.current_stream(1) == prev1


@two_gpus
def test_external_stream_wrong_device():
    s1 = cuda.Stream(device=1)
    assert cuda.ExternalStream(s1.cuda_stream).device_index == 1
    with pytest.raises(ValueError, match="belongs to cuda:1, not cuda:0"):
        cuda.ExternalStream(s1.cuda_stream, device=0)
