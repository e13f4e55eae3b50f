"""The random numbers of ember.utils.data, all drawn here from ember's generators.

Samplers, ``random_split`` and the DataLoader's per-epoch worker seed call the
functions below and nothing else. Each is the torch call that torch.utils.data
makes, on ember:

- ``randperm``: ``ember.randperm(n, generator=generator)``;
- ``randint``: ``ember.randint(high, (size,), generator=generator)``;
- ``multinomial``: ``ember.multinomial(weights as float64, num_samples,
  replacement, generator=generator)``;
- ``random_seed``: ``ember.empty((), dtype=int64).random_(generator=generator)``,
  one 63-bit draw (the DataLoader's base seed, RandomSampler's seed when it has
  no generator);
- ``sampler_generator``: what RandomSampler iterates with: its own generator,
  or, without one, a fresh ``ember.Generator`` seeded with ``random_seed()``
  drawn from the default generator (so ``ember.manual_seed(s)`` makes unseeded
  shuffling reproducible, as ``torch.manual_seed`` does).

``generator=None`` means ember's default CPU generator. A seeded
``ember.Generator`` therefore gives the same sequence of epochs in every run and
a different order each epoch, its state advancing by the same draws as a
``torch.Generator``'s in torch's samplers (the numbers themselves are ember's
Philox stream, not torch's Mersenne Twister: the orders differ from torch's).
Anything else as ``generator`` raises a TypeError.
"""
import ember

__all__ = ["randperm", "randint", "multinomial", "random_seed", "sampler_generator"]


def _check(generator):
    if generator is not None and not isinstance(generator, ember.Generator):
        raise TypeError(f"generator must be an ember.Generator or None, got "
                        f"{type(generator).__name__}")
    return generator


def randperm(n, generator=None):
    """A random permutation of ``range(n)`` as a list of ints (torch.randperm(n).tolist())."""
    return ember.randperm(n, generator=_check(generator)).tolist()


def randint(high, size, generator=None):
    """``size`` ints drawn uniformly from ``[0, high)``, as a list."""
    return ember.randint(high, (size,), dtype=ember.int64, generator=_check(generator)).tolist()


def multinomial(weights, num_samples, replacement, generator=None):
    """``num_samples`` indices drawn with probability proportional to ``weights`` (a
    list of non-negative floats), with or without replacement, as a list."""
    w = ember.tensor(weights, dtype=ember.float64)
    return ember.multinomial(w, num_samples, replacement, generator=_check(generator)).tolist()


def random_seed(generator=None):
    """One non-negative 63-bit int (torch's ``empty((), int64).random_(generator=g).item()``)."""
    t = ember.empty((), dtype=ember.int64)
    return int(t.random_(generator=_check(generator)).item())


def sampler_generator(generator=None):
    """The generator a RandomSampler draws an epoch from: its own, or a fresh one
    seeded from the default generator (torch's RandomSampler.__iter__)."""
    if _check(generator) is not None:
        return generator
    g = ember.Generator()
    g.manual_seed(random_seed())
    return g
