"""The random numbers of ember.utils.data, all drawn here.

Samplers, ``random_split`` and the DataLoader's per-epoch worker seed call the
three functions below and nothing else, so that moving to ember's own random
numbers is a change to this file only.

Until ``ember.Generator`` / ``ember.randperm`` exist, the numbers come from
Python's ``random.Random``:

- with a ``generator`` (any object with ``initial_seed()``: ``ember.Generator``,
  and ``torch.Generator`` works too), a ``random.Random`` stream seeded with
  ``generator.initial_seed()`` is kept for that generator and advanced by every
  draw. A seeded generator thus gives the same sequence of permutations in every
  run, and each epoch a different one, as torch's stateful generators do.
  Seeding the generator with a different seed restarts its stream; seeding it
  again with the *same* seed does not (the seed is all this module can see):
  make a new generator to replay an epoch sequence.
- without one, a module-level stream seeded with torch's default seed
  (67280421310721), so runs are reproducible as with torch's default generator.

The switch, once ember has them (one line per function)::

    randperm:    return ember.randperm(n, generator=generator).tolist()
    randint:     return ember.randint(high, (size,), generator=generator).tolist()
    multinomial: return ember.multinomial(ember.as_tensor(weights, dtype=ember.float64),
                                          num_samples, replacement, generator=generator).tolist()
    random_seed: return int(ember.empty((), dtype=ember.int64).random_(generator=generator).item())

The permutations then follow ember's generator exactly (and torch's, if
ember's Philox/MT streams match torch's), instead of Python's Mersenne Twister.
"""
import random
import threading
import weakref

DEFAULT_SEED = 67280421310721  # torch's default CPU generator seed

_lock = threading.Lock()
_default = random.Random(DEFAULT_SEED)
# generator -> (seed it was created from, random.Random). Generators that cannot
# be weakly referenced are kept alive in _pinned (a few objects at most).
_streams = weakref.WeakKeyDictionary()
_pinned = {}


def _stream(generator):
    if generator is None:
        return _default
    seed_fn = getattr(generator, "initial_seed", None)
    if seed_fn is None:
        raise TypeError(
            f"generator must be an ember.Generator (an object with initial_seed()), "
            f"got {type(generator).__name__}")
    seed = int(seed_fn())
    with _lock:
        try:
            entry = _streams.get(generator)
            table, key = _streams, generator
        except TypeError:  # not weakly referenceable
            entry = _pinned.get(id(generator))
            entry = entry[1:] if entry is not None else None
            table, key = None, id(generator)
        if entry is None or entry[0] != seed:
            entry = (seed, random.Random(seed))
            if table is None:
                _pinned[key] = (generator, *entry)
            else:
                table[key] = entry
        return entry[1]


def randperm(n, generator=None):
    """A random permutation of ``range(n)`` as a list of ints (torch.randperm(n).tolist())."""
    perm = list(range(n))
    _stream(generator).shuffle(perm)
    return perm


def randint(high, size, generator=None):
    """``size`` ints drawn uniformly from ``[0, high)``, as a list."""
    r = _stream(generator)
    return [r.randrange(high) for _ in range(size)]


def multinomial(weights, num_samples, replacement, generator=None):
    """``num_samples`` indices drawn with probability proportional to ``weights`` (a
    list of non-negative floats), with or without replacement, as a list."""
    r = _stream(generator)
    if replacement:
        return r.choices(range(len(weights)), weights=weights, k=num_samples)
    # Without replacement: the num_samples largest keys u ** (1 / w) (Efraimidis and
    # Spirakis), i.e. successive draws proportional to the remaining weights.
    keys = [(r.random() ** (1.0 / w) if w > 0 else -1.0, i) for i, w in enumerate(weights)]
    keys.sort(reverse=True)
    return [i for _, i in keys[:num_samples]]


def random_seed(generator=None):
    """One non-negative 63-bit int (torch's ``empty((), int64).random_(generator=g).item()``)."""
    return _stream(generator).getrandbits(63)


def _seed_default(seed):
    """Reseed the stream used when no generator is given (tests)."""
    _default.seed(seed)
