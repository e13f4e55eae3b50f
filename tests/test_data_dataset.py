"""ember.utils.data's datasets: Dataset, TensorDataset, Subset, ConcatDataset,
ChainDataset, StackDataset and random_split."""
import pytest

import ember
from data_util import Range, generator
from ember.utils.data import (ChainDataset, ConcatDataset, Dataset, StackDataset, Subset,
                              TensorDataset, random_split)

pytestmark = pytest.mark.usefixtures("no_worker_thread_outlives_its_test")


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
