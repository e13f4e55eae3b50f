"""ember.utils.data: datasets, samplers, collation, the DataLoader (order, batching,
shuffling, worker and background threads, errors) and pinned batches.
torch.utils.data is the oracle where it is installed."""
import collections
import gc
import subprocess
import sys
import threading
import time
import traceback

import numpy as np
import pytest

import ember
from conftest import HAS_GPU, import_torch
from ember.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                              IterableDataset, RandomSampler, Sampler, SequentialSampler,
                              StackDataset, Subset, SubsetRandomSampler, TensorDataset,
                              WeightedRandomSampler, default_collate, default_convert,
                              get_worker_info, random_split)
from ember.utils.data._utils import rng
from ember.utils.data._utils.collate import collate, default_collate_fn_map
from ember.utils.data._utils.pin_memory import pin_memory

Point = collections.namedtuple("Point", ["x", "y"])


def generator(seed):
    return ember.Generator().manual_seed(seed)


def worker_threads():
    return [t for t in threading.enumerate() if t.name.startswith("ember DataLoader")]


@pytest.fixture(autouse=True)
def _no_worker_thread_outlives_its_test():
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


# ---- datasets ------------------------------------------------------------------

def test_dataset_base_class():
    with pytest.raises(NotImplementedError, match="should implement __getitem__"):
        Dataset()[0]
    a, b = TensorDataset(ember.arange(3)), TensorDataset(ember.arange(3, 5))
    c = a + b
    assert isinstance(c, ConcatDataset) and len(c) == 5
    assert [int(c[i][0]) for i in range(5)] == [0, 1, 2, 3, 4]


def test_tensor_dataset():
    x = ember.arange(12).reshape(4, 3)
    y = ember.tensor([0.0, 1.0, 2.0, 3.0])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    xi, yi = ds[2]
    assert xi.tolist() == [6, 7, 8] and float(yi) == 2.0
    assert [t.tolist() for t in ds[1:3]] == [[[3, 4, 5], [6, 7, 8]], [1.0, 2.0]]


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors") as e:
        TensorDataset(ember.zeros(5, 2), ember.zeros(4))
    assert "(5, 4)" in str(e.value)
    assert len(TensorDataset(ember.zeros(5, 2), ember.zeros(5))) == 5


def test_subset():
    ds = TensorDataset(ember.arange(10))
    sub = Subset(ds, [7, 2, 5])
    assert len(sub) == 3
    assert [int(sub[i][0]) for i in range(3)] == [7, 2, 5]
    assert [int(s[0]) for s in sub.__getitems__([2, 0])] == [5, 7]
    # a dataset with __getitems__ is asked for the whole batch at once
    nested = Subset(Subset(ds, list(range(9, -1, -1))), [0, 1])
    assert [int(s[0]) for s in nested.__getitems__([1, 0])] == [8, 9]


def test_concat_dataset():
    c = ConcatDataset([TensorDataset(ember.arange(3)), TensorDataset(ember.arange(10, 12))])
    assert len(c) == 5 and c.cumulative_sizes == [3, 5]
    assert [int(c[i][0]) for i in range(5)] == [0, 1, 2, 10, 11]
    assert int(c[-1][0]) == 11 and int(c[-5][0]) == 0
    with pytest.raises(ValueError, match="should not exceed dataset length"):
        c[-6]
    with pytest.raises(AssertionError, match="should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Range(0, 3)])


def test_chain_and_stack_datasets():
    chain = Range(0, 2) + Range(5, 7)
    assert isinstance(chain, ChainDataset) and list(chain) == [0, 1, 5, 6]
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(ChainDataset([TensorDataset(ember.arange(2))]))
    a, b = TensorDataset(ember.arange(3)), TensorDataset(ember.arange(3, 6))
    s = StackDataset(a, b)
    assert len(s) == 3 and int(s[1][1][0]) == 4
    d = StackDataset(first=a, second=b)
    assert set(d[0]) == {"first", "second"}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a, TensorDataset(ember.arange(2)))
    with pytest.raises(ValueError, match="At least one dataset"):
        StackDataset()
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(a, b=b)


def test_random_split_lengths_and_fractions():
    ds = list(range(10))
    parts = random_split(ds, [3, 7], generator=generator(1))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    parts = random_split(ds, [0.3, 0.3, 0.4], generator=generator(1))
    assert [len(p) for p in parts] == [3, 3, 4]
    parts = random_split(list(range(11)), [0.5, 0.5])
    assert [len(p) for p in parts] == [6, 5]  # the remainder goes round robin


def test_random_split_is_reproducible_with_a_seeded_generator():
    first = [p.indices for p in random_split(range(50), [20, 30], generator=generator(7))]
    again = [p.indices for p in random_split(range(50), [20, 30], generator=generator(7))]
    other = [p.indices for p in random_split(range(50), [20, 30], generator=generator(8))]
    assert first == again
    assert first != other
    assert first[0] != list(range(20))  # actually shuffled


def test_random_split_errors():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(10), [0.5, 1.5, -1.0])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.5, 0.0, 0.5])


# ---- samplers --------------------------------------------------------------------

def test_sequential_sampler():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5


def test_sampler_base_class():
    with pytest.raises(NotImplementedError):
        iter(Sampler())
    with pytest.warns(UserWarning, match="`data_source` argument is not used"):
        Sampler(range(3))


def test_random_sampler_permutes_and_differs_between_epochs():
    s = RandomSampler(range(100), generator=generator(3))
    e1, e2 = list(s), list(s)
    assert sorted(e1) == sorted(e2) == list(range(100))
    assert e1 != e2 and e1 != list(range(100))
    t = RandomSampler(range(100), generator=generator(3))
    assert list(t) == e1 and list(t) == e2  # same seed: same sequence of epochs
    assert len(s) == 100


def test_random_sampler_num_samples_and_replacement():
    s = RandomSampler(range(10), num_samples=25, generator=generator(0))
    out = list(s)
    assert len(out) == len(s) == 25
    assert sorted(out[:10]) == list(range(10)) and sorted(out[10:20]) == list(range(10))
    assert len(set(out[20:])) == 5
    r = RandomSampler(range(4), replacement=True, num_samples=200, generator=generator(0))
    out = list(r)
    assert len(out) == 200 and set(out) == {0, 1, 2, 3}


def test_random_sampler_errors():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got "
                                        "replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but "
                                         "got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples=0"):
        RandomSampler([])
    with pytest.raises(TypeError, match="generator must be an ember.Generator"):
        list(RandomSampler(range(3), generator=42))
    assert len(list(RandomSampler(range(3)))) == 3  # still usable


def test_subset_random_sampler():
    s = SubsetRandomSampler([10, 20, 30, 40], generator=generator(5))
    out = list(s)
    assert sorted(out) == [10, 20, 30, 40] and len(s) == 4
    assert list(SubsetRandomSampler([10, 20, 30, 40], generator=generator(5))) == out


def test_weighted_random_sampler():
    s = WeightedRandomSampler([0.0, 1.0, 3.0], 400, generator=generator(2))
    out = list(s)
    assert len(out) == 400 and 0 not in out
    assert out.count(2) > out.count(1)
    u = list(WeightedRandomSampler([1, 1, 5, 0], 3, replacement=False, generator=generator(2)))
    assert sorted(u) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        WeightedRandomSampler([1.0], 1, replacement="yes")
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0, 2.0]], 1)
    with pytest.raises(RuntimeError, match="without replacement"):
        WeightedRandomSampler([1, 0], 2, replacement=False)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        WeightedRandomSampler([-1.0, 2.0], 1)


def test_batch_sampler():
    b = BatchSampler(SequentialSampler(range(10)), 3, drop_last=False)
    assert list(b) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(b) == 4
    b = BatchSampler(SequentialSampler(range(10)), 3, drop_last=True)
    assert list(b) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(b) == 3
    assert list(BatchSampler(range(6), 3, False)) == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but "
                                         "got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="batch_size=True"):
        BatchSampler(range(3), True, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got "
                                         "drop_last=None"):
        BatchSampler(range(3), 2, None)


def test_rng_draws_are_embers_generator_calls():
    g = generator(11)
    a = rng.randperm(20, g)
    b = rng.randperm(20, g)
    assert sorted(a) == list(range(20)) and a != b
    h = generator(11)
    assert a == ember.randperm(20, generator=h).tolist()
    assert b == ember.randperm(20, generator=h).tolist()
    g.manual_seed(11)  # reseeding rewinds the stream
    assert rng.randperm(20, g) == a
    assert 0 <= rng.random_seed(g) < 2 ** 63
    assert all(0 <= v < 7 for v in rng.randint(7, 50, g))
    h = generator(3)
    assert rng.multinomial([1.0, 0.0, 2.0], 5, True, generator(3)) == ember.multinomial(
        ember.tensor([1.0, 0.0, 2.0], dtype=ember.float64), 5, True, generator=h).tolist()
    assert g.get_state().tolist() != generator(11).get_state().tolist()  # the draws advanced it


def test_rng_rejects_what_is_not_an_ember_generator():
    for bad in (42, "seed", object()):
        with pytest.raises(TypeError, match="generator must be an ember.Generator or None, got"):
            rng.randperm(3, bad)
    assert sorted(rng.randperm(5)) == list(range(5))  # still usable


def _library(name):
    """(the library, its utils.data) for the draw-sequence tests: ember, or torch as the
    oracle that the sequences assumed here are torch's."""
    if name == "torch":
        torch = import_torch()
        import torch.utils.data as torch_data
        return torch, torch_data
    import ember.utils.data as ember_data
    return ember, ember_data


@pytest.mark.parametrize("lib_name", ["ember", "torch"])
def test_random_sampler_draws_like_torch(lib_name):
    # RandomSampler with a generator: num_samples // n permutations, then one more
    # for the remainder, drawn even when the remainder is empty.
    lib, data = _library(lib_name)
    state = lambda g: g.get_state().tolist()  # noqa: E731
    g, ref = lib.Generator().manual_seed(21), lib.Generator().manual_seed(21)
    out = list(data.RandomSampler(range(10), generator=g))
    assert out == lib.randperm(10, generator=ref).tolist()
    lib.randperm(10, generator=ref)
    assert state(g) == state(ref)
    out = list(data.RandomSampler(range(4), num_samples=6, generator=g))
    first, second = (lib.randperm(4, generator=ref).tolist() for _ in range(2))
    assert out == first + second[:2] and state(g) == state(ref)
    # with replacement: chunks of 32 ints, then the remainder
    out = list(data.RandomSampler(range(5), replacement=True, num_samples=70, generator=g))
    chunks = [lib.randint(5, (k,), generator=ref).tolist() for k in (32, 32, 6)]
    assert out == chunks[0] + chunks[1] + chunks[2] and state(g) == state(ref)


@pytest.mark.parametrize("lib_name", ["ember", "torch"])
def test_random_sampler_without_a_generator_follows_manual_seed(lib_name):
    # a fresh generator seeded with a 63-bit draw from the default generator
    lib, data = _library(lib_name)
    lib.manual_seed(1234)
    a = list(data.RandomSampler(range(30)))
    lib.manual_seed(1234)
    seed = int(lib.empty((), dtype=lib.int64).random_().item())
    assert a == lib.randperm(30, generator=lib.Generator().manual_seed(seed)).tolist()
    lib.manual_seed(1234)
    assert list(data.RandomSampler(range(30))) == a
    assert list(data.RandomSampler(range(30))) != a  # the default generator moved on


@pytest.mark.parametrize("lib_name", ["ember", "torch"])
def test_dataloader_epoch_draws_like_torch(lib_name):
    # Each epoch: the workers' base seed (one int64 random_), then the sampler's
    # permutation and its remainder permutation, all from loader.generator.
    lib, data = _library(lib_name)
    ds = data.TensorDataset(lib.arange(12))
    g, ref = lib.Generator().manual_seed(5), lib.Generator().manual_seed(5)
    loader = data.DataLoader(ds, batch_size=5, shuffle=True, generator=g)
    for _ in range(2):
        order = [i for (b,) in loader for i in b.tolist()]
        lib.empty((), dtype=lib.int64).random_(generator=ref)
        assert order == lib.randperm(12, generator=ref).tolist()
        lib.randperm(12, generator=ref)
        assert g.get_state().tolist() == ref.get_state().tolist()


def test_subset_and_weighted_samplers_and_random_split_draw_from_the_generator():
    ref = generator(8)
    perm = ember.randperm(4, generator=ref).tolist()
    assert list(SubsetRandomSampler([10, 20, 30, 40], generator=generator(8))) == [
        [10, 20, 30, 40][i] for i in perm]
    w = [0.5, 1.0, 3.0]
    want = ember.multinomial(ember.tensor(w, dtype=ember.float64), 9, True,
                             generator=generator(8)).tolist()
    assert list(WeightedRandomSampler(w, 9, generator=generator(8))) == want
    parts = random_split(range(12), [5, 7], generator=generator(8))
    perm = ember.randperm(12, generator=generator(8)).tolist()
    assert parts[0].indices == perm[:5] and parts[1].indices == perm[5:]
    ember.manual_seed(99)
    default = random_split(range(12), [5, 7])
    ember.manual_seed(99)
    assert [p.indices for p in random_split(range(12), [5, 7])] == [p.indices for p in default]


# ---- collation -----------------------------------------------------------------------

def test_default_collate_tensors_numbers_strings():
    out = default_collate([ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])])
    assert out.shape == (2, 2) and out.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    f = default_collate([1.5, 2.5])
    assert f.dtype == ember.float64 and f.tolist() == [1.5, 2.5]
    i = default_collate([1, 2, 3])
    assert i.dtype == ember.int64 and i.tolist() == [1, 2, 3]
    b = default_collate([True, False])
    assert b.dtype == ember.bool and b.tolist() == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_default_collate_numpy():
    out = default_collate([np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)])
    assert isinstance(out, ember.Tensor) and out.dtype == ember.float32
    assert out.tolist() == [[0, 1, 2], [1, 1, 1]]
    s = default_collate([np.int32(4), np.int32(5)])
    assert s.dtype == ember.int32 and s.tolist() == [4, 5]
    f = default_collate([np.float64(0.5), np.float64(1.5)])
    assert f.dtype == ember.float64 and f.tolist() == [0.5, 1.5]
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy "
                                        "arrays, numbers, dicts or lists; found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_collate_nested_structures():
    samples = [{"img": ember.tensor([i, i]), "meta": (i, f"s{i}"), "p": Point(float(i), [i, -i])}
               for i in range(3)]
    out = default_collate(samples)
    assert set(out) == {"img", "meta", "p"}
    assert out["img"].tolist() == [[0, 0], [1, 1], [2, 2]]
    assert isinstance(out["meta"], list)  # tuples become lists, as in torch
    assert out["meta"][0].tolist() == [0, 1, 2] and out["meta"][1] == ("s0", "s1", "s2")
    assert isinstance(out["p"], Point)
    assert out["p"].x.dtype == ember.float64
    assert [t.tolist() for t in out["p"].y] == [[0, 1, 2], [0, -1, -2]]
    lists = default_collate([[1, 2], [3, 4]])
    assert isinstance(lists, list) and [t.tolist() for t in lists] == [[1, 3], [2, 4]]


def test_default_collate_keeps_mapping_types():
    out = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert type(out) is collections.OrderedDict and out["a"].tolist() == [1, 2]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal "
                                           "size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="found <class 'object'>"):
        default_collate([object(), object()])


def test_collate_with_a_custom_map():
    def tensor_as_list(batch, *, collate_fn_map):
        return [t.tolist() for t in batch]

    out = collate([(ember.tensor([1]), 2), (ember.tensor([3]), 4)],
                  collate_fn_map={ember.Tensor: tensor_as_list, int: lambda b, **k: sum(b)})
    assert out == [[[1], [3]], 6]
    assert ember.Tensor in default_collate_fn_map


def test_default_convert():
    a = np.arange(3)
    t = default_convert(a)
    assert isinstance(t, ember.Tensor) and t.tolist() == [0, 1, 2]
    assert default_convert(5) == 5 and default_convert("s") == "s"
    out = default_convert({"a": a, "b": (a, "x"), "p": Point(a, 1)})
    assert isinstance(out["a"], ember.Tensor)
    assert isinstance(out["b"], list) and isinstance(out["b"][0], ember.Tensor)
    assert isinstance(out["p"], Point) and isinstance(out["p"].x, ember.Tensor)
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings


def test_import_is_lazy_and_numpy_free():
    code = ("import sys, ember; assert 'ember.utils' not in sys.modules; "
            "import ember.utils.data; assert 'numpy' not in sys.modules, 'numpy imported'; "
            "assert ember.utils.data.DataLoader is not None; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, "-c", "import ember; print(ember.utils.data.Dataset)"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "Dataset" in r.stdout, r.stderr


# ---- DataLoader: order, batching, length ---------------------------------------------

@pytest.mark.parametrize("n,bs,drop_last", [(10, 3, False), (10, 3, True), (9, 3, False),
                                            (2, 5, False), (2, 5, True), (7, 1, False)])
def test_sequential_batches_follow_the_dataset(n, bs, drop_last):
    x = ember.arange(n * 2).reshape(n, 2)
    loader = DataLoader(TensorDataset(x, ember.arange(n)), batch_size=bs, drop_last=drop_last)
    batches = list(loader)
    want = [list(range(i, min(i + bs, n))) for i in range(0, n, bs)]
    if drop_last:
        want = [w for w in want if len(w) == bs]
    assert len(loader) == len(want) == len(batches)
    for (xb, yb), w in zip(batches, want):
        assert yb.tolist() == w
        assert xb.tolist() == [[2 * i, 2 * i + 1] for i in w]


@pytest.mark.parametrize("shuffle", [False, True])
def test_gather_path_matches_per_sample_collation(shuffle):
    # A TensorDataset is batched by one gather (or slice copy) per tensor; the
    # result must equal what per-sample indexing + default_collate gives.
    x = ember.arange(60, dtype=ember.float32).reshape(20, 3)
    y = ember.arange(20, dtype=ember.int16)
    ds = TensorDataset(x, y)
    fast = list(DataLoader(ds, batch_size=6, shuffle=shuffle, generator=generator(1)))
    slow = list(DataLoader(ds, batch_size=6, shuffle=shuffle, generator=generator(1),
                           collate_fn=lambda b: default_collate(b)))
    assert len(fast) == len(slow) == 4
    for (fx, fy), (sx, sy) in zip(fast, slow):
        assert fx.dtype == sx.dtype == ember.float32 and fy.dtype == sy.dtype == ember.int16
        assert fx.tolist() == sx.tolist() and fy.tolist() == sy.tolist()
        assert fx.is_contiguous()
        assert not fx._is_view_of(x) and not fy._is_view_of(y)  # copies, never views
    # out-of-range indices fail as per-sample indexing does
    with pytest.raises(IndexError):
        next(iter(DataLoader(ds, batch_sampler=[[18, 19, 20]])))
    with pytest.raises(IndexError):
        next(iter(DataLoader(ds, batch_sampler=[[25, 3]])))
    assert next(iter(DataLoader(ds, batch_sampler=[[-1, 0]])))[1].tolist() == [19, 0]


def test_batch_size_none_yields_samples():
    loader = DataLoader(Squares(4), batch_size=None)
    out = list(loader)
    assert len(loader) == 4
    assert [o[1] for o in out] == [0, 1, 4, 9]
    assert isinstance(out[0], list)  # default_convert: tuples become lists


def test_custom_sampler_and_batch_sampler():
    loader = DataLoader(Squares(6), sampler=[5, 0, 3], batch_size=2)
    assert [b[1].tolist() for b in loader] == [[25, 0], [9]]
    loader = DataLoader(Squares(6), batch_sampler=[[1, 2], [4]])
    assert [b[1].tolist() for b in loader] == [[1, 4], [16]]
    assert len(loader) == 2


def test_collate_fn_is_used():
    loader = DataLoader(Squares(4), batch_size=2, collate_fn=lambda b: [s[1] for s in b])
    assert list(loader) == [[0, 1], [4, 9]]


def test_iterable_dataset_batches_and_length():
    loader = DataLoader(Range(0, 7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    loader = DataLoader(Range(0, 7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]

    class Sized(Range):
        def __len__(self):
            return self.stop - self.start

    assert len(DataLoader(Sized(0, 7), batch_size=3)) == 3
    assert len(DataLoader(Sized(0, 7), batch_size=3, drop_last=True)) == 2
    assert len(DataLoader(Sized(0, 7), batch_size=None)) == 7
    with pytest.raises(TypeError):
        len(DataLoader(Range(0, 7)))


def test_iterable_dataset_longer_than_its_len_warns():
    class Liar(Range):
        def __len__(self):
            return 2

    loader = DataLoader(Liar(0, 3), batch_size=None)
    assert len(loader) == 2
    with pytest.warns(UserWarning, match="was reported to be 2"):
        assert list(loader) == [0, 1, 2]


# ---- shuffling ----------------------------------------------------------------------

def epoch_orders(loader, epochs):
    return [[i for b in loader for i in b.tolist()] for _ in range(epochs)]


def test_shuffle_is_deterministic_with_a_seeded_generator():
    ds = TensorDataset(ember.arange(50))
    mk = lambda seed: DataLoader(ds, batch_size=8, shuffle=True,  # noqa: E731
                                 generator=generator(seed), collate_fn=lambda b: ember.stack(
                                     [s[0] for s in b]))
    a = epoch_orders(mk(0), 3)
    b = epoch_orders(mk(0), 3)
    c = epoch_orders(mk(1), 3)
    assert a == b
    assert a != c
    for order in a:
        assert sorted(order) == list(range(50))
    assert a[0] != a[1] != a[2] and a[0] != list(range(50))


def test_shuffle_without_a_generator_covers_the_dataset_in_a_new_order():
    loader = DataLoader(Squares(40), batch_size=7, shuffle=True)
    orders = [[v[0] for b in loader for v in b[0].tolist()] for _ in range(2)]
    assert sorted(orders[0]) == sorted(orders[1]) == list(range(40))
    assert orders[0] != orders[1]


def test_shuffle_with_workers_matches_the_calling_thread():
    ds = TensorDataset(ember.arange(30))
    main = [b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True,
                                              generator=generator(4))]
    threaded = [b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, num_workers=3,
                                                  generator=generator(4))]
    assert main == threaded


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


# ---- DataLoader: argument errors ------------------------------------------------------

@pytest.mark.parametrize("kwargs,match", [
    (dict(num_workers=-1), "num_workers option should be non-negative; use num_workers=0 to "
                           "disable multiprocessing."),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in "
                              "multiprocessing"),
    (dict(num_workers=1, prefetch_factor=-1), "prefetch_factor option should be non-negative"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(sampler=[0, 1], shuffle=True), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive with "
                                              "batch_size, shuffle, sampler, and drop_last"),
    (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching and "
                                            "is mutually exclusive with drop_last"),
    (dict(multiprocessing_context="spawn"), "multiprocessing_context can only be used with "
                                            "multi-process loading"),
    (dict(num_workers=1, multiprocessing_context="nope"), "multiprocessing_context option should "
                                                          "specify a valid start method"),
    (dict(num_workers=2, prefetch_thread=False), "prefetch_thread=False loads in the calling "
                                                 "thread"),
    (dict(batch_size=0), "batch_size should be a positive integer value"),
])
def test_dataloader_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(Squares(4), **kwargs)


def test_dataloader_iterable_dataset_argument_errors():
    for kwargs, name in ((dict(shuffle=True), "shuffle"), (dict(sampler=[0]), "sampler"),
                         (dict(batch_sampler=[[0]]), "batch_sampler")):
        with pytest.raises(ValueError, match=f"DataLoader with IterableDataset: expected "
                                             f"unspecified {name} option"):
            DataLoader(Range(0, 3), **kwargs)
    assert list(DataLoader(Range(0, 3), shuffle=False, batch_size=None)) == [0, 1, 2]


def test_dataloader_rejects_bad_context_objects():
    with pytest.raises(TypeError, match="should be a valid context object"):
        DataLoader(Squares(4), num_workers=1, multiprocessing_context=42)
    import multiprocessing
    loader = DataLoader(Squares(4), num_workers=1, batch_size=2,
                        multiprocessing_context=multiprocessing.get_all_start_methods()[0])
    assert [b[1].tolist() for b in loader] == [[0, 1], [4, 9]]  # accepted; threads anyway


def test_timeout_needs_a_thread():
    loader = DataLoader(Squares(4), timeout=1, prefetch_thread=False)
    with pytest.raises(ValueError, match="timeout=1 applies to batches prepared by worker"):
        iter(loader)


def test_dataloader_attributes_are_frozen():
    loader = DataLoader(Squares(4), batch_size=2)
    for attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                 "persistent_workers"):
        with pytest.raises(ValueError, match=f"{attr} attribute should not be set after "
                                             "DataLoader is initialized"):
            setattr(loader, attr, None)
    loader.num_workers = 1  # not frozen, as in torch
    assert [b[1].tolist() for b in loader] == [[0, 1], [4, 9]]


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


# ---- torch as the oracle ----------------------------------------------------------------

def _same(e, t, torch):
    """ember's collated structure equals torch's: types, dtypes, values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor)
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(t, dict):
        assert type(e) is type(t) and list(e) == list(t)
        for k in t:
            _same(e[k], t[k], torch)
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b, torch)
    else:
        assert e == t


def test_default_collate_matches_torch(torch):
    from torch.utils.data import default_collate as torch_collate

    def samples(lib):
        return [{"arr": np.arange(4, dtype=np.float32) + i,
                 "tensor": lib.from_numpy(np.full((2, 2), i, dtype=np.int32)),
                 "num": (float(i), i, bool(i % 2), np.float32(i), np.int64(i)),
                 "text": f"s{i}",
                 "point": Point([i, i + 1], {"k": np.int16(i)}),
                 "nested": [[i, -i], (f"a{i}", 2.5 * i)]}
                for i in range(3)]

    _same(default_collate(samples(ember)), torch_collate(samples(torch)), torch)
    _same(default_convert(samples(ember)[0]),
          torch.utils.data.default_convert(samples(torch)[0]), torch)


def test_dataloader_order_matches_torch(torch):
    for n, bs, drop in ((10, 3, False), (10, 3, True), (8, 4, False)):
        e = DataLoader(TensorDataset(ember.arange(n)), batch_size=bs, drop_last=drop)
        t = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(n)),
                                        batch_size=bs, drop_last=drop)
        assert len(e) == len(t)
        assert [b[0].tolist() for b in e] == [b[0].tolist() for b in t]
