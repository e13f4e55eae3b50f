"""The DataLoader's worker and background threads: the sampler's order kept,
prefetching and its bounds, threads stopped on break, deletion and exhaustion, exceptions
with their tracebacks, exit with busy workers, worker_info and worker_init_fn, timeouts."""
import gc
import subprocess
import sys
import threading
import time
import traceback

import pytest

from data_util import Range, Squares, worker_threads
from ember.utils.data import DataLoader, Dataset, get_worker_info

pytestmark = pytest.mark.usefixtures("no_worker_thread_outlives_its_test")


# ---- worker and background threads -----------------------------------------------------

def test_workers_keep_the_sampler_order():
    ds = Squares(40, delay=0.002)
    loader = DataLoader(ds, batch_size=3, num_workers=4)
    out = [b[1].tolist() for b in loader]
    assert out == [[i * i for i in range(j, min(j + 3, 40))] for j in range(0, 40, 3)]
    assert threading.get_ident() not in ds.threads and len(ds.threads) >= 2
    assert worker_threads() == []  # exhausted: joined


def test_background_thread_with_zero_workers():
    ds = Squares(10, delay=0.001)
    loader = DataLoader(ds, batch_size=4, prefetch_thread=True, prefetch_factor=3)
    it = iter(loader)
    assert len(worker_threads()) == 1
    assert [b[1].tolist() for b in it] == [[0, 1, 4, 9], [16, 25, 36, 49], [64, 81]]
    assert ds.threads and threading.get_ident() not in ds.threads
    assert worker_threads() == []


def test_background_thread_overlaps_the_loop():
    # Each batch takes 20 ms to prepare and 20 ms to "train" on (both sleep, so the
    # GIL is free): one after the other that is 2 x 20 ms per batch; with the
    # next batch prepared in the background, about 20 ms.
    class SlowBatches(Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            time.sleep(0.02)
            return i

    def epoch(**kw):
        t0 = time.perf_counter()
        out = []
        for b in DataLoader(SlowBatches(), batch_size=None, **kw):
            time.sleep(0.02)
            out.append(b)
        return time.perf_counter() - t0, out

    serial, a = epoch(prefetch_thread=False)
    background, b = epoch(prefetch_thread=True)
    assert a == b == list(range(10))
    assert serial >= 0.4
    assert background < 0.75 * serial, (background, serial)


def test_prefetch_thread_false_loads_in_the_calling_thread():
    ds = Squares(5)
    assert [b[1].tolist() for b in DataLoader(ds, batch_size=2, prefetch_thread=False)] == \
        [[0, 1], [4, 9], [16]]
    assert ds.threads == {threading.get_ident()}


def test_prefetch_is_bounded_by_prefetch_factor_per_worker():
    ds = Squares(100)
    it = iter(DataLoader(ds, batch_size=1, num_workers=2, prefetch_factor=2))
    next(it)
    deadline = time.monotonic() + 5
    while len(ds.fetched) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    # the batch taken + 2 workers x 2 batches ahead
    assert len(ds.fetched) == 5
    del it
    gc.collect()
    assert worker_threads() == []


def test_threads_stop_on_early_break():
    before = threading.active_count()
    for _ in DataLoader(Squares(100, delay=0.001), batch_size=2, num_workers=3):
        assert len(worker_threads()) == 3
        break
    assert worker_threads() == []
    assert threading.active_count() == before


def test_threads_stop_when_the_iterator_is_deleted():
    before = threading.active_count()
    it = iter(DataLoader(Squares(100), batch_size=2, num_workers=2))
    next(it)
    assert threading.active_count() == before + 2
    del it
    gc.collect()
    assert threading.active_count() == before and worker_threads() == []


def test_threads_stop_when_exhausted_and_stay_stopped():
    it = iter(DataLoader(Squares(5), batch_size=2, num_workers=2))
    assert len(list(it)) == 3
    assert worker_threads() == []
    with pytest.raises(StopIteration):
        next(it)


def test_worker_exception_reaches_the_loop_with_its_traceback():
    loader = DataLoader(Squares(12, fail_at=7), batch_size=2, num_workers=2)
    it = iter(loader)
    got = []
    with pytest.raises(ValueError, match="sample 7 is broken") as e:
        for b in it:
            got.append(b[1].tolist())
    assert got == [[0, 1], [4, 9], [16, 25]]
    text = "".join(traceback.format_exception(e.value))
    assert "in __getitem__" in text and 'raise ValueError(f"sample {i} is broken")' in text
    assert "DataLoader worker thread" in text
    # the iterator goes on after the failed batch, as torch's does
    assert [b[1].tolist() for b in it] == [[64, 81], [100, 121]]
    assert worker_threads() == []


def test_background_thread_exception_propagates():
    loader = DataLoader(Squares(6, fail_at=0), batch_size=2, prefetch_thread=True)
    with pytest.raises(ValueError, match="sample 0 is broken") as e:
        list(loader)
    assert "background thread" in "".join(traceback.format_exception(e.value))
    del e
    gc.collect()
    assert worker_threads() == []


def test_collate_exception_propagates():
    def bad_collate(batch):
        raise KeyError("no such field")

    with pytest.raises(KeyError, match="no such field"):
        next(iter(DataLoader(Squares(4), batch_size=2, num_workers=1, collate_fn=bad_collate)))
    gc.collect()
    assert worker_threads() == []


EXIT_WITH_BUSY_WORKERS = """
import ember
from ember.utils.data import DataLoader, Dataset

class Busy(Dataset):
    def __len__(self):
        return 10_000

    def __getitem__(self, i):
        x = ember.zeros(1 << 16)
        for _ in range(20):  # C++ calls that release the GIL
            x = ember.stack([x, x])[0]
        return x

it = iter(DataLoader(Busy(), batch_size=8, num_workers=2, prefetch_factor=4))
next(it)
print("exiting with busy workers")
"""
def test_exit_while_workers_are_busy_in_cpp_calls():
    # Without the atexit hook that stops the workers, a worker inside a C++ call
    # at finalization is killed by pthread_exit and the process aborts.
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", EXIT_WITH_BUSY_WORKERS], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "exiting with busy workers" in r.stdout


def test_worker_info_and_init_fn():
    seen = []

    class Probe(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            info = get_worker_info()
            return info.id, info.num_workers, info.seed, info.dataset is not None

    def init(worker_id):
        seen.append((worker_id, get_worker_info().id))

    assert get_worker_info() is None
    out = list(DataLoader(Probe(), batch_size=None, num_workers=3, worker_init_fn=init))
    assert sorted(seen) == [(0, 0), (1, 1), (2, 2)]
    ids = [o[0] for o in out]
    assert set(ids) == {0, 1, 2} and all(o[1] == 3 for o in out)
    seeds = {o[0]: o[2] for o in out}
    assert seeds[1] == seeds[0] + 1 and seeds[2] == seeds[0] + 2


def test_worker_info_is_read_only():
    class Grab(Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            get_worker_info().id = 5

    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        list(DataLoader(Grab(), num_workers=1))


def test_workers_have_their_own_dataset_copy():
    # worker_init_fn configures each worker's copy (torch's documented pattern).
    def init(worker_id):
        info = get_worker_info()
        ds = info.dataset
        per = -(-(ds.stop - ds.start) // info.num_workers)
        ds.start = ds.start + worker_id * per
        ds.stop = min(ds.start + per, ds.stop)

    ds = Range(3, 11, shard=False)
    out = list(DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=init))
    assert sorted(out) == list(range(3, 11))
    assert (ds.start, ds.stop) == (3, 11)  # the loader's dataset is untouched


def test_iterable_dataset_with_workers():
    out = [b.tolist() for b in DataLoader(Range(0, 10), batch_size=2, num_workers=3)]
    assert sorted(v for b in out for v in b) == list(range(10))
    assert out[:3] == [[0, 3], [1, 4], [2, 5]]  # round robin over the workers
    # without sharding every worker yields everything, as in torch
    out = list(DataLoader(Range(0, 3, shard=False), batch_size=None, num_workers=2))
    assert sorted(out) == [0, 0, 1, 1, 2, 2]
    assert worker_threads() == []


def test_worker_init_fn_failure():
    def init(worker_id):
        raise OSError("cannot open the shard")

    with pytest.raises(OSError, match="cannot open the shard"):
        list(DataLoader(Squares(4), num_workers=1, worker_init_fn=init))
    gc.collect()
    assert worker_threads() == []


def test_out_of_order_mode_returns_every_batch():
    out = [b[1].tolist() for b in DataLoader(Squares(20, delay=0.003), batch_size=2,
                                              num_workers=3, in_order=False)]
    assert sorted(v for b in out for v in b) == [i * i for i in range(20)]
    assert worker_threads() == []


def test_timeout():
    loader = DataLoader(Squares(4, delay=0.8), batch_size=None, num_workers=1, timeout=0.1,
                        sampler=[1])  # sample 1 takes 0.4 s
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.1 seconds"):
        next(iter(loader))
    gc.collect()


def test_persistent_workers_are_accepted():
    loader = DataLoader(Squares(4), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b[1].tolist() for b in loader] == [[0, 1], [4, 9]]
    assert [b[1].tolist() for b in loader] == [[0, 1], [4, 9]]
