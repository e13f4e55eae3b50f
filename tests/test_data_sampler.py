"""ember.utils.data's samplers (sequential, random, subset, weighted, batch) and
the generator draws they make: the same sequence of draws as torch's, with
torch.utils.data as the oracle where it is installed."""
import pytest

import ember
from conftest import import_torch
from data_util import generator
from ember.utils.data import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                              SubsetRandomSampler, WeightedRandomSampler, random_split)
from ember.utils.data._utils import rng

pytestmark = pytest.mark.usefixtures("no_worker_thread_outlives_its_test")


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
