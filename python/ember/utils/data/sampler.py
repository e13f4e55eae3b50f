"""Samplers: the order in which a DataLoader visits a map-style dataset
(torch.utils.data.sampler's names, arguments and error messages).

Random samplers draw from ``generator`` (an ``ember.Generator``; None: ember's
default generator) through ``_utils.rng``, making torch's calls (``randperm``,
``randint``, ``multinomial``) in torch's order: each ``iter()`` of a sampler
draws a new permutation, so epochs differ, a seeded generator replays the same
sequence of epochs, and ``ember.manual_seed`` makes unseeded shuffling
reproducible.
"""
from typing import Generic, Iterator, TypeVar

from ember.utils.data._utils import rng

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class of samplers: subclasses implement ``__iter__`` over dataset
    indices (or keys) and usually ``__len__``."""

    def __init__(self, data_source=None):
        if data_source is not None:
            import warnings
            warnings.warn("`data_source` argument is not used and will be removed in 2.2.0."
                          "You may still have custom implementation that utilizes it.",
                          stacklevel=2)

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _check_positive_int(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class RandomSampler(Sampler[int]):
    """A random permutation of the indices (``replacement=False``; with
    ``num_samples`` > len, whole permutations follow each other), or
    ``num_samples`` indices drawn with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        _check_positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self):
        # the dataset's size may change at run time
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        # torch's draws, in torch's order, so that a generator's state advances alike:
        # without a generator, a fresh one seeded from the default generator; indices
        # with replacement in chunks of 32; whole permutations, then one more for the
        # remainder (drawn even when the remainder is empty).
        n = len(self.data_source)
        generator = rng.sampler_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from rng.randint(n, 32, generator)
            yield from rng.randint(n, self.num_samples % 32, generator)
            return
        for _ in range(self.num_samples // n):
            yield from rng.randperm(n, generator)
        yield from rng.randperm(n, generator)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in rng.randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices in ``[0, len(weights))`` drawn with probabilities
    proportional to ``weights``, with or without replacement."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_positive_int("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = weights.tolist() if hasattr(weights, "tolist") else list(weights)
        if any(isinstance(x, (list, tuple)) for x in w):
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{_shape(w)}")
        w = [float(x) for x in w]
        if any(x < 0 or x != x for x in w) or not any(x > 0 for x in w):
            raise RuntimeError("invalid multinomial distribution (weights must be finite, "
                               "non-negative, and not all zero)")
        if not replacement and num_samples > sum(1 for x in w if x > 0):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement (fewer non-zero weights than num_samples)")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from rng.multinomial(self.weights, self.num_samples, self.replacement,
                                   self.generator)

    def __len__(self):
        return self.num_samples


def _shape(nested):
    shape = []
    while isinstance(nested, (list, tuple)):
        shape.append(len(nested))
        nested = nested[0] if nested else None
    return tuple(shape)


class BatchSampler(Sampler[list]):
    """Lists of ``batch_size`` indices from ``sampler``; the last, shorter list
    is dropped when ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive_int("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        size = self.batch_size
        while True:
            batch = [idx for _, idx in zip(range(size), it)]
            if len(batch) < size:
                if batch and not self.drop_last:
                    yield batch
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
