"""ember.utils.data.DataLoader: order, batching and length, iterable datasets,
shuffling, argument errors; torch's DataLoader as the oracle of the order where it is
installed."""
import pytest

import ember
from data_util import Range, Squares, generator
from ember.utils.data import DataLoader, TensorDataset, default_collate

pytestmark = pytest.mark.usefixtures("no_worker_thread_outlives_its_test")


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


# ---- torch as the oracle ----------------------------------------------------------------

def test_dataloader_order_matches_torch(torch):
    for n, bs, drop in ((10, 3, False), (10, 3, True), (8, 4, False)):
        e = DataLoader(TensorDataset(ember.arange(n)), batch_size=bs, drop_last=drop)
        t = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(n)),
                                        batch_size=bs, drop_last=drop)
        assert len(e) == len(t)
        assert [b[0].tolist() for b in e] == [b[0].tolist() for b in t]
