"""Pinned batches: pin_memory without a GPU (a warning, unpinned batches), the
pin_memory utility, and pinned batches with and without workers, copied non-blocking."""
import collections
import threading

import numpy as np
import pytest

import ember
from conftest import HAS_GPU
from data_util import Point, Squares, generator, worker_threads
from ember.utils.data import DataLoader, Dataset, TensorDataset
from ember.utils.data._utils.pin_memory import pin_memory

pytestmark = pytest.mark.usefixtures("no_worker_thread_outlives_its_test")


# ---- pinned memory ----------------------------------------------------------------------

@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour on a machine without a GPU")
def test_pin_memory_without_a_gpu_warns_and_loads_unpinned():
    loader = DataLoader(Squares(4), batch_size=2, pin_memory=True)
    before = threading.active_count()
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no "
                                         "accelerator is found, then device pinned memory "
                                         "won't be used."):
        it = iter(loader)
    assert threading.active_count() == before  # nothing to overlap: no thread
    batches = list(it)
    assert [b[1].tolist() for b in batches] == [[0, 1], [4, 9]]
    assert not batches[0][0].is_pinned()


@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour on a machine without a GPU")
def test_pin_memory_device_is_deprecated():
    loader = DataLoader(Squares(2), pin_memory=True, pin_memory_device="cuda")
    with pytest.warns(UserWarning) as record:
        list(loader)
    messages = [str(w.message) for w in record]
    assert any("pin_memory_device is deprecated" in m for m in messages)
    assert any("no accelerator is found" in m for m in messages)


def test_pin_memory_util_leaves_non_tensors_alone():
    data = {"s": "text", "n": 3, "b": b"x", "l": ["a", 1]}
    assert pin_memory(data) == data


@pytest.mark.gpu
def test_pin_memory_util_pins_recursively():
    x = ember.arange(6)
    out = pin_memory({"a": x, "t": (x, "s"), "p": Point(x, [x, 1]),
                      "od": collections.OrderedDict(k=x)})
    assert out["a"].is_pinned() and out["a"].tolist() == x.tolist()
    assert isinstance(out["t"], list) and out["t"][0].is_pinned() and out["t"][1] == "s"
    assert isinstance(out["p"], Point) and out["p"].x.is_pinned() and out["p"].y[0].is_pinned()
    assert type(out["od"]) is collections.OrderedDict and out["od"]["k"].is_pinned()
    assert not x.is_pinned()
    assert pin_memory(out["a"]) is out["a"]  # already pinned: no copy


@pytest.mark.gpu
@pytest.mark.parametrize("num_workers", [0, 2])
def test_pinned_batches(num_workers):
    samples = [{"x": ember.full((3,), float(i)), "y": (i, f"s{i}")} for i in range(10)]

    class Dicts(Dataset):
        def __len__(self):
            return len(samples)

        def __getitem__(self, i):
            return samples[i]

    loader = DataLoader(Dicts(), batch_size=4, pin_memory=True, num_workers=num_workers)
    it = iter(loader)
    assert len(worker_threads()) == max(1, num_workers)  # prepared in the background
    batches = list(it)
    assert len(batches) == 3 and worker_threads() == []
    for k, b in enumerate(batches):
        assert b["x"].is_pinned() and b["y"][0].is_pinned()
        assert b["y"][1] == [f"s{i}" for i in range(4 * k, min(4 * k + 4, 10))]
        assert b["x"][:, 0].tolist() == [float(i) for i in range(4 * k, min(4 * k + 4, 10))]


@pytest.mark.gpu
@pytest.mark.parametrize("num_workers", [0, 3])
def test_non_blocking_copies_of_pinned_batches_are_correct(num_workers):
    n, d = 4096, 256
    x = ember.from_numpy(np.arange(n * d, dtype=np.float32).reshape(n, d))
    y = ember.from_numpy(np.arange(n, dtype=np.int64))
    loader = DataLoader(TensorDataset(x, y), batch_size=512, shuffle=True, pin_memory=True,
                        num_workers=num_workers, generator=generator(0))
    side = ember.cuda.Stream()
    main = ember.cuda.current_stream()
    xs, ys = [], []
    for epoch in range(2):
        for xb, yb in loader:
            assert xb.is_pinned() and yb.is_pinned()
            with ember.cuda.stream(side):  # copy on a side stream...
                xg = xb.to("cuda", non_blocking=True)
                yg = yb.to("cuda", non_blocking=True)
            main.wait_stream(side)  # ...the compute stream waits for it on the GPU
            xg.record_stream(main)
            yg.record_stream(main)
            ember.cuda._sleep(20000)  # "compute" while later batches are pinned and copied
            xs.append(xg)
            ys.append(yg)
    ember.cuda.synchronize()
    got_x = ember.cat(xs).cpu().numpy()
    got_y = ember.cat(ys).cpu().numpy()
    assert got_y.shape == (2 * n,)
    for e in range(2):
        idx = got_y[e * n:(e + 1) * n]
        assert sorted(idx.tolist()) == list(range(n))
        np.testing.assert_array_equal(got_x[e * n:(e + 1) * n], x.numpy()[idx])
    assert worker_threads() == []
