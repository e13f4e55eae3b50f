"""CUDA tensors against torch on the GPU machine: creation, views, transfers of every
dtype both ways (sync and non_blocking, non-contiguous sources), conversions on the
device, advanced indexing, interop with torch and CuPy (same memory, ordered on the
GPU), and the errors of mixing devices."""
import time

import numpy as np
import pytest

import ember
from torch_util import to_torch

pytestmark = pytest.mark.gpu

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]
NP = [n for n in ALL if n != "bfloat16"]


def sample(name, shape=(3, 5)):
    n = int(np.prod(shape))
    if name == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if name == "uint8":
        return (np.arange(n) % 200).astype(np.uint8).reshape(shape)
    return ((np.arange(n) % 50) - 20).astype(name).reshape(shape)


def warm(torch):
    """Load the kernels once: lazy loading synchronises the context on first launch."""
    x = ember.ones(4, device="cuda")
    x.to(ember.float16).cpu()
    torch.cuda._sleep(10)
    torch.ones(4, device="cuda").mul_(2)
    torch.cuda.synchronize()


# ---- creation and attributes --------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_creation_on_cuda_matches_torch(torch, name):
    e, t = getattr(ember, name), getattr(torch, name)
    pairs = [
        (ember.zeros(2, 3, dtype=e, device="cuda"), torch.zeros(2, 3, dtype=t, device="cuda")),
        (ember.ones(4, dtype=e, device="cuda:0"), torch.ones(4, dtype=t, device="cuda:0")),
        (ember.full((2, 2), 3, dtype=e, device=0), torch.full((2, 2), 3, dtype=t, device=0)),
        (ember.eye(3, dtype=e, device="cuda"), torch.eye(3, dtype=t, device="cuda")),
        (ember.tensor([[1, 0], [2, 3]], dtype=e, device="cuda"),
         torch.tensor([[1, 0], [2, 3]], dtype=t, device="cuda")),
    ]
    if name != "bool":
        pairs.append((ember.arange(1, 11, 2, dtype=e, device="cuda"),
                      torch.arange(1, 11, 2, dtype=t, device="cuda")))
    if name in ("float16", "bfloat16", "float32", "float64"):
        pairs.append((ember.linspace(-1, 1, 9, dtype=e, device="cuda"),
                      torch.linspace(-1, 1, 9, dtype=t, device="cuda")))
        pairs.append((ember.arange(0, 1, 0.125, dtype=e, device="cuda"),
                      torch.arange(0, 1, 0.125, dtype=t, device="cuda")))
    for got, ref in pairs:
        assert got.is_cuda and got.device == ember.device("cuda", 0) and got.get_device() == 0
        assert got.dtype is e and tuple(got.shape) == tuple(ref.shape)
        assert got.stride() == ref.stride()
        assert torch.equal(to_torch(got, torch), ref)


def test_default_dtypes_and_attributes_on_cuda(torch):
    x = ember.tensor([1.5, 2.5], device="cuda")
    assert x.dtype is ember.float32 and x.is_cuda and not x.is_cpu
    assert x.data_ptr() != 0 and x.data_ptr() == to_torch(x, torch).data_ptr()
    assert repr(x) == "tensor([1.5000, 2.5000], device='cuda:0')"
    assert repr(ember.zeros(2, dtype=ember.int32, device="cuda")) == \
        "tensor([0, 0], device='cuda:0', dtype=ember.int32)"
    assert ember.empty(0, device="cuda").data_ptr() == 0
    big = ember.arange(5000, device="cuda")
    assert repr(big) == "tensor([   0,    1,    2,  ..., 4997, 4998, 4999], device='cuda:0')"


def test_like_functions_keep_device(torch):
    x = ember.ones(2, 3, device="cuda").t()
    for fn in (ember.empty_like, ember.zeros_like, ember.ones_like):
        y = fn(x)
        assert y.is_cuda and y.stride() == (1, 3)
    assert ember.full_like(x, 2, device="cpu").tolist() == [[2.0] * 2] * 3


# ---- views ------------------------------------------------------------------------

VIEWS = [
    lambda x: x.view(6, 4), lambda x: x.reshape(4, 6), lambda x: x.T, lambda x: x.mT,
    lambda x: x.permute(2, 0, 1), lambda x: x.transpose(0, 2), lambda x: x[1], lambda x: x[:, 1:],
    lambda x: x[..., ::2], lambda x: x[None, 0, :, None], lambda x: x.unsqueeze(1),
    lambda x: x.narrow(2, 1, 2), lambda x: x.select(1, -1), lambda x: x[0].t(),
    lambda x: x.flatten(1), lambda x: x[:, :1].expand(2, 5, 4), lambda x: x.diagonal(0, 1, 2),
    lambda x: x.movedim(0, -1), lambda x: x.split(2, dim=2)[1], lambda x: x.chunk(2, 1)[0],
    lambda x: x.unbind(2)[3], lambda x: x.transpose(0, 1).reshape(-1),
]


@pytest.mark.parametrize("i", range(len(VIEWS)))
# torch deprecates x.T on tensors that are not 2-D (ember keeps torch's current behaviour)
@pytest.mark.filterwarnings("ignore:The use of `x.T`:UserWarning")
def test_views_match_torch(torch, i):
    op = VIEWS[i]
    e = ember.arange(24, dtype=ember.float32, device="cuda").view(2, 3, 4)
    t = torch.arange(24, dtype=torch.float32, device="cuda").view(2, 3, 4)
    ge, gt = op(e), op(t)
    assert tuple(ge.shape) == tuple(gt.shape)
    assert ge.stride() == gt.stride()
    assert ge.storage_offset() == gt.storage_offset()
    assert ge.is_contiguous() == gt.is_contiguous()
    assert torch.equal(to_torch(ge, torch), gt)
    shares_e = ge.data_ptr() - e.data_ptr() == ge.storage_offset() * 4
    shares_t = gt.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    assert shares_e == shares_t


def test_contiguous_clone_on_cuda(torch):
    e = ember.arange(12, device="cuda").view(3, 4).t()
    c = e.contiguous()
    assert c.is_cuda and c.is_contiguous() and c.tolist() == e.tolist()
    k = e.clone()
    assert k.stride() == e.stride() and k.data_ptr() != e.data_ptr()


# ---- transfers -----------------------------------------------------------------------

@pytest.mark.parametrize("name", NP)
@pytest.mark.parametrize("non_blocking", [False, True])
def test_transfers_every_dtype_both_ways(name, non_blocking):
    a = sample(name, (7, 9))
    h = ember.from_numpy(a)
    d = h.to("cuda", non_blocking=non_blocking)
    assert d.is_cuda and d.dtype is getattr(ember, name)
    back = d.to("cpu", non_blocking=non_blocking)
    if non_blocking:
        assert back.is_pinned()  # as torch: the async D2H lands in pinned memory
        ember.cuda.synchronize()
    np.testing.assert_array_equal(back.numpy(), a)
    np.testing.assert_array_equal(d.cpu().numpy(), a)
    # Non-contiguous sources both ways.
    np.testing.assert_array_equal(h.t().cuda().cpu().numpy(), a.T)
    np.testing.assert_array_equal(h[::2, 1::3].cuda().cpu().numpy(), a[::2, 1::3])
    np.testing.assert_array_equal(d.t().cpu().numpy(), a.T)
    np.testing.assert_array_equal(d[1::2, ::4].cpu().numpy(), a[1::2, ::4])


@pytest.mark.parametrize("name", ALL)
def test_bfloat16_and_all_dtypes_via_torch(torch, name):
    t = torch.arange(-10, 10, device="cpu").to(getattr(torch, name)).view(4, 5)
    e = ember.from_dlpack(t)  # CPU, zero-copy
    assert torch.equal(to_torch(e.cuda(), torch).cpu(), t)
    assert torch.equal(to_torch(e.cuda().t().cpu(), torch), t.t())


INTS = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1),
        "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


@pytest.mark.parametrize("src", ALL)
def test_conversions_on_the_device_match_torch(torch, src):
    base = torch.tensor([0, 1, -3, 7, 100, -128, 127, 2.5, -2.5, 65504], dtype=torch.float64)
    ts = base.to(getattr(torch, src)).cuda()
    es = ember.from_dlpack(ts)
    assert es.data_ptr() == ts.data_ptr()
    v = ts.double().cpu()
    for dst in ALL:
        got = es.to(getattr(ember, dst))
        assert got.is_cuda and got.dtype is getattr(ember, dst)
        ref = ts.to(getattr(torch, dst)).cpu()
        g = to_torch(got, torch).cpu()
        ok = torch.ones_like(v, dtype=torch.bool)
        if ts.is_floating_point() and dst in INTS:
            lo, hi = INTS[dst]  # float -> int out of range is unspecified (C++, torch, NumPy)
            ok = (v >= lo) & (v <= hi)
        assert torch.equal(g[ok], ref[ok]), (src, dst)
        g2 = es[::2].to(getattr(ember, dst))  # a strided source, converted on the device
        assert torch.equal(to_torch(g2, torch).cpu()[ok[::2]], g[::2][ok[::2]]), (src, dst)


@pytest.mark.parametrize("nbytes", [(4 << 20) - 4, 33 << 20, (100 << 20) + 12])
def test_large_transfers_through_the_staging_pipeline(nbytes):
    a = np.random.default_rng(0).integers(0, 255, nbytes, dtype=np.uint8)
    d = ember.from_numpy(a).cuda()
    back = d.cpu().numpy()
    assert np.array_equal(back, a)
    f = np.arange(nbytes // 4, dtype=np.float32)
    assert np.array_equal(ember.from_numpy(f).cuda().cpu().numpy(), f)
    pinned = ember.from_numpy(f).pin_memory()
    assert pinned.is_pinned()
    assert np.array_equal(pinned.cuda().cpu().numpy(), f)


def test_non_blocking_from_pinned_is_asynchronous(torch):
    warm(torch)
    n = 16 << 20
    src = ember.ones(n, dtype=ember.float32, pin_memory=True)
    dst = ember.zeros(n, dtype=ember.float32, device="cuda")
    torch.cuda._sleep(100_000_000)  # ~50 ms on the legacy default stream, shared with ember
    t0 = time.perf_counter()
    dst.copy_(src, non_blocking=True)
    queued = time.perf_counter() - t0
    t0 = time.perf_counter()
    ember.cuda.synchronize()
    waited = time.perf_counter() - t0
    assert queued < 0.02 < waited
    assert dst[-1].item() == 1.0 and dst.cpu().numpy().min() == 1.0


def test_blocking_copies_wait_for_the_stream(torch):
    warm(torch)
    d = ember.full((1 << 20,), 3.0, device="cuda")
    torch.cuda._sleep(100_000_000)
    t0 = time.perf_counter()
    host = d.cpu()  # pageable: returns only when the data is there
    assert time.perf_counter() - t0 > 0.02
    assert host.numpy().min() == 3.0
    a = np.full(1 << 20, 5.0, dtype=np.float32)
    torch.cuda._sleep(100_000_000)
    e = ember.from_numpy(a).cuda()
    a[:] = 0  # the copy already read the host memory
    assert e.cpu().numpy().min() == 5.0


def test_numpy_of_a_cuda_tensor_points_at_cpu():
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. Use "
                                        r"Tensor\.cpu\(\) to copy the tensor to host memory first\."):
        ember.zeros(2, device="cuda").numpy()
    with pytest.raises(TypeError):
        np.asarray(ember.zeros(2, device="cuda"))
    assert ember.ones(2, device="cuda").numpy(force=True).tolist() == [1.0, 1.0]


def test_item_tolist_bool_on_cuda():
    x = ember.tensor([[1.5, 2.0]], device="cuda")
    assert x.tolist() == [[1.5, 2.0]] and x[0, 1].item() == 2.0
    assert bool(ember.ones(1, device="cuda")) and float(x[0, 0]) == 1.5


def test_copy_between_devices_and_same_device_conversions(torch):
    x = ember.arange(10, device="cuda")
    y = ember.empty(10, dtype=ember.float16, device="cuda")
    y.copy_(x)
    assert y.tolist() == [float(i) for i in range(10)]
    z = ember.zeros(2, 10)
    z.copy_(y)  # D2H with conversion and broadcast
    assert z.tolist() == [[float(i) for i in range(10)]] * 2
    w = ember.zeros(2, 10, dtype=ember.int64, device="cuda")
    w.t().copy_(ember.arange(20).view(10, 2))  # H2D into a strided destination
    assert w.tolist() == ember.arange(20).view(10, 2).t().tolist()


@pytest.mark.skipif(ember.cuda.device_count() < 2 if ember.cuda.is_available() else True,
                    reason="needs two GPUs")
def test_copies_between_two_gpus(torch):
    a = ember.arange(1000, dtype=ember.float32, device="cuda:0")
    b = a.to("cuda:1")
    assert b.device == ember.device("cuda:1") and b.tolist() == a.tolist()
    c = a[::3].to("cuda:1", ember.float64)
    assert c.dtype is ember.float64 and c.tolist() == a[::3].tolist()
    d = ember.zeros(1000, device="cuda:1")
    d.copy_(a)
    assert d.tolist() == a.tolist()


# ---- indexing ------------------------------------------------------------------

def test_advanced_indexing_on_cuda_matches_torch(torch):
    e = ember.arange(60, dtype=ember.float32, device="cuda").view(3, 4, 5)
    t = torch.arange(60, dtype=torch.float32, device="cuda").view(3, 4, 5)
    cases = [
        ([0, 2],), ([[0, 1], [2, 0]],), ([0, 2], slice(None), [1, 3]), (slice(None), [0, 3]),
        (Ellipsis, [4, 0]), ([-1, 0], [-4, 3]),
    ]
    for idx in cases:
        ti = tuple(torch.tensor(i, device="cuda") if isinstance(i, list) else i for i in idx)
        ei = tuple(ember.tensor(i, device="cuda") if isinstance(i, list) else i for i in idx)
        assert torch.equal(to_torch(e[ei], torch), t[ti])
        ec = tuple(ember.tensor(i) if isinstance(i, list) else i for i in idx)  # CPU indices
        assert torch.equal(to_torch(e[ec], torch), t[ti])
    mask_t = t > 30
    mask_e = ember.from_dlpack(mask_t)
    assert torch.equal(to_torch(e[mask_e], torch), t[mask_t])
    e[mask_e] = -1.0
    t[mask_t] = -1.0
    e[[0, 1], [1, 2]] = ember.tensor([[7.0], [8.0]], device="cuda")  # broadcast to [2, 5]
    t[[0, 1], [1, 2]] = torch.tensor([[7.0], [8.0]], device="cuda")
    with pytest.raises(RuntimeError, match=r"value tensor of shape \[2\] cannot be broadcast"):
        e[[0, 1], [1, 2]] = ember.tensor([7.0, 8.0], device="cuda")  # torch raises the same
    e[1, :, 2] = 9
    t[1, :, 2] = 9
    assert torch.equal(to_torch(e, torch), t)


def test_out_of_range_cuda_indices_surface_at_the_next_sync_and_leave_the_context_usable(torch):
    """x[idx] / x[idx] = v on the GPU queue without waiting for the indices: a bad one is
    recorded on the device (runtime/device_error.hpp) and raised at the next synchronising
    call; the gather read zero there, the scatter skipped it."""
    e = ember.arange(10, device="cuda")
    r = e[ember.tensor([1, 10], device="cuda")]  # queued: no error yet
    with pytest.raises(IndexError, match="index: index 10 is out of bounds for dimension 0 "
                                         "with size 10"):
        ember.cuda.synchronize()
    assert r.tolist() == [1, 0]
    e[ember.tensor([-11, 3], device="cuda")] = 5
    with pytest.raises(IndexError, match="index_put_: index -11 is out of bounds"):
        e.tolist()
    assert e.tolist() == [0, 1, 2, 5, 4, 5, 6, 7, 8, 9]
    assert ember.ones(3, device="cuda").tolist() == [1.0] * 3


# ---- mixing devices ---------------------------------------------------------------

def test_same_device_error_message():
    msg = ("Expected all tensors to be on the same device, but found at least two devices, "
           "cuda:0 and cpu!")
    with pytest.raises(RuntimeError, match=msg.replace("(", r"\(")):
        ember.cat([ember.zeros(2, device="cuda"), ember.zeros(2)])
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ember.zeros(3, device="cuda")[ember.tensor([0, 1])] = ember.ones(2)
    assert ember.cat([ember.zeros(2, device="cuda")] * 2).is_cuda


def test_cat_stack_on_cuda(torch):
    a = ember.arange(6, device="cuda").view(2, 3)
    b = ember.arange(6, 12, device="cuda").view(2, 3).to(ember.float32)
    c = ember.cat([a, b], 1)
    assert c.is_cuda and c.dtype is ember.float32
    assert c.tolist() == torch.cat([to_torch(a, torch), to_torch(b, torch)], 1).tolist()
    assert ember.stack([a, a], 2).tolist() == torch.stack([to_torch(a, torch)] * 2, 2).tolist()


# ---- interop ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_dlpack_with_torch_shares_memory(torch, name):
    e = ember.arange(12, device="cuda").to(getattr(ember, name)).view(3, 4)
    t = torch.from_dlpack(e)
    assert t.data_ptr() == e.data_ptr() and t.dtype == getattr(torch, name)
    assert t.stride() == e.stride() and t.is_cuda
    back = ember.from_dlpack(t.t())
    assert back.data_ptr() == e.data_ptr() and back.stride() == (1, 4)
    t.zero_()
    torch.cuda.synchronize()
    assert not e.to(ember.float32).cpu().numpy().any()


def test_from_dlpack_orders_after_the_producer_stream(torch):
    warm(torch)
    t = torch.zeros(1 << 22, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)
        t.fill_(5.0)
        t0 = time.perf_counter()
        e = ember.from_dlpack(t)  # ember's current stream (legacy default) waits for s on the GPU
        assert time.perf_counter() - t0 < 0.02  # ... not the host
    assert e.data_ptr() == t.data_ptr()
    assert e.cpu().numpy().min() == 5.0


def test_torch_from_dlpack_orders_after_ember(torch):
    warm(torch)
    e = ember.zeros(1 << 22, device="cuda")
    torch.cuda._sleep(100_000_000)  # legacy default stream: ember's current stream
    e.fill_(2.0)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_dlpack(e)  # s waits for the legacy stream
        total = t.sum()
    torch.cuda.current_stream().wait_stream(s)  # `total` was made on s
    assert total.item() == 2.0 * (1 << 22)


def test_cuda_array_interface_export(torch):
    e = ember.arange(12, dtype=ember.float32, device="cuda").view(3, 4)
    cai = e.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (e.data_ptr(), False) and cai["strides"] is None
    assert cai["stream"] == 1  # the legacy default stream is ember's current stream
    assert e.t().__cuda_array_interface__["strides"] == (4, 16)
    with pytest.raises(TypeError, match="BFloat16"):
        ember.zeros(1, dtype=ember.bfloat16, device="cuda").__cuda_array_interface__
    assert torch.as_tensor(e, device="cuda").data_ptr() == e.data_ptr()


def test_cuda_array_interface_import_honours_the_producer_stream(torch):
    warm(torch)
    t = torch.zeros(1 << 22, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)
        t.fill_(7.0)

    class Producer:
        __cuda_array_interface__ = {"shape": tuple(t.shape), "typestr": "<f4",
                                    "data": (t.data_ptr(), False), "version": 3,
                                    "strides": None, "stream": s.cuda_stream}

    e = ember.as_tensor(Producer())
    assert e.data_ptr() == t.data_ptr() and e.is_cuda
    assert e.cpu().numpy().min() == 7.0


def test_cupy_round_trips():
    cupy = pytest.importorskip("cupy")
    c = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    e = ember.as_tensor(c)
    assert e.data_ptr() == c.data.ptr and e.tolist() == c.get().tolist()
    e2 = ember.from_dlpack(c.T)
    assert e2.data_ptr() == c.data.ptr and e2.stride() == (1, 4)
    back = cupy.asarray(e)
    assert back.data.ptr == e.data_ptr()
    back2 = cupy.from_dlpack(e.t())
    assert back2.data.ptr == e.data_ptr() and back2.strides == (4, 16)
    back[0, 0] = 100
    cupy.cuda.Device().synchronize()
    assert e[0, 0].item() == 100


def test_record_stream_accepts_torch_streams(torch):
    e = ember.zeros(10, device="cuda")
    e.record_stream(torch.cuda.current_stream())
    e.record_stream(torch.cuda.Stream())


def test_fast_paths_round_trip_256_mib():
    a = np.random.default_rng(1).standard_normal(64 << 20, dtype=np.float32)
    x = ember.from_numpy(a).cuda()
    assert np.array_equal(x.cpu().numpy(), a)


def test_empty_cache_releases_the_staging_buffers_of_pageable_transfers(torch):
    import numpy as np
    a = np.arange(8 << 20, dtype=np.float32)  # 32 MiB: goes through the staging pipeline
    x = ember.from_numpy(a).cuda()
    assert np.array_equal(x.cpu().numpy(), a)
    ember.cuda.empty_cache()
    stats = ember.cuda.host_memory_stats()
    # Nothing idle stays cached: only pinned blocks still in use (by live
    # tensors of other tests, if any) remain allocated.
    assert stats["allocated_bytes.current"] == stats["active_bytes.current"], stats
    y = ember.from_numpy(a).cuda()  # the pipeline allocates its chunks again
    assert np.array_equal(y.cpu().numpy(), a)
