"""Helpers shared by the tests/test_data_*.py files: small datasets that record how they
are read, seeded generators, and the guard that no DataLoader thread outlives its test
(a fixture: conftest.py registers this module as a plugin; each file uses it for every
test through pytestmark)."""
import collections
import gc
import threading
import time

import pytest

import ember
from ember.utils.data import Dataset, IterableDataset, get_worker_info

Point = collections.namedtuple("Point", ["x", "y"])


def generator(seed):
    return ember.Generator().manual_seed(seed)


def worker_threads():
    return [t for t in threading.enumerate() if t.name.startswith("ember DataLoader")]


@pytest.fixture
def no_worker_thread_outlives_its_test():
    gc.collect()
    assert worker_threads() == []
    yield
    gc.collect()
    assert worker_threads() == [], "a DataLoader iterator left its threads running"


def ints(batch):
    return batch.tolist()


class Squares(Dataset):
    """x -> (x, x*x) with a configurable delay, recording which threads fetch."""

    def __init__(self, n, delay=0.0, fail_at=None):
        self.n, self.delay, self.fail_at = n, delay, fail_at
        self.threads = set()
        self.fetched = []

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.threads.add(threading.get_ident())
        self.fetched.append(i)
        if self.delay:
            time.sleep(self.delay * ((i * 7) % 5) / 4)
        if i == self.fail_at:
            raise ValueError(f"sample {i} is broken")
        return ember.tensor([i]), i * i


class Range(IterableDataset):
    """range(start, stop), split between workers with get_worker_info()."""

    def __init__(self, start, stop, shard=True):
        self.start, self.stop, self.shard = start, stop, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.stop))
        return iter(range(self.start + info.id, self.stop, info.num_workers))

