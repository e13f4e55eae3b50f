"""Random numbers on the CPU: the Philox generator against the published known-answer
vectors, determinism (runs, draw sizes, layouts of the target, threads), the stream
layout rule, state save/restore, generators, distributions (moments and
Kolmogorov-Smirnov tests on large samples), the shared math's accuracy, and errors."""
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember import _C

FLOATS = ["float32", "float64", "float16", "bfloat16"]


def host(t):
    return t.to(ember.float64).numpy() if t.dtype in (ember.float16, ember.bfloat16) else t.numpy()


def bits(t):
    """The raw bytes of a tensor, for bit-exact comparisons."""
    t = t.contiguous()
    if t.dtype == ember.bfloat16:
        t = t.view(ember.int16)
    return t.numpy().tobytes()


# ---- the generator ------------------------------------------------------------------

# Random123's kat_vectors for philox4x32 with 10 rounds.
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


@pytest.mark.parametrize("counter, key, expected", KAT)
def test_philox_known_answers(counter, key, expected):
    assert _C._philox4x32_10(counter, key) == expected


def test_stream_layout_rule():
    # float32 uniforms: element i is the top 24 bits of word i % 4 of block offset + i // 4.
    g = ember.Generator().manual_seed(0x1234_5678_9abc)
    g.set_offset(7)
    x = ember.rand(9, generator=g)
    assert g.get_offset() == 7 + 3
    seed = 0x1234_5678_9abc
    words = [w for b in range(7, 10)
             for w in _C._philox4x32_10((b, 0, 0, 0), (seed & 0xffffffff, seed >> 32))]
    expected = np.array([(w >> 8) * 2.0 ** -24 for w in words[:9]], dtype=np.float32)
    np.testing.assert_array_equal(x.numpy(), expected)
    # float64: two words per value, two values per block
    g.set_offset(0)
    y = ember.rand(3, generator=g, dtype=ember.float64)
    assert g.get_offset() == 2
    w = [v for b in range(2) for v in _C._philox4x32_10((b, 0, 0, 0), (seed & 0xffffffff, seed >> 32))]
    exp64 = [(((w[2 * i] << 32) | w[2 * i + 1]) >> 11) * 2.0 ** -53 for i in range(3)]
    np.testing.assert_array_equal(y.numpy(), np.array(exp64))


def test_offsets_advance_by_rounded_blocks():
    ember.manual_seed(1)
    z = ember.rand(12)
    ember.manual_seed(1)
    a, b = ember.rand(5), ember.rand(3)  # 5 values use 2 blocks: b starts at element 8
    np.testing.assert_array_equal(a.numpy(), z.numpy()[:5])
    np.testing.assert_array_equal(b.numpy(), z.numpy()[8:11])


def run_py(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ), timeout=300)


def test_same_seed_same_numbers_across_processes():
    code = """
        import ember, hashlib
        ember.manual_seed(2024)
        parts = [ember.rand(1000), ember.randn(1001), ember.randint(-5, 7, (999,)),
                 ember.randn(77, dtype=ember.float64), ember.randperm(50),
                 ember.rand(33, dtype=ember.float16), ember.empty(64).exponential_(),
                 ember.multinomial(ember.rand(5, 10), 4), ember.bernoulli(ember.rand(100))]
        h = hashlib.sha256()
        for p in parts:
            h.update(p.contiguous().to(ember.float64).numpy().tobytes())
        print(h.hexdigest())
    """
    r1, r2 = run_py(code), run_py(code)
    assert r1.returncode == 0, r1.stderr
    assert r1.stdout == r2.stdout and len(r1.stdout.strip()) == 64


def test_default_seed_is_torchs():
    r = run_py("import ember; print(ember.initial_seed(), ember.cuda.initial_seed())")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["67280421310721", "67280421310721"]


@pytest.mark.parametrize("fill", ["normal_", "uniform_", "exponential_", "random_", "bernoulli_"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_layout_of_target_does_not_change_values(fill, dtype):
    d = getattr(ember, dtype)

    def draw(t):
        ember.manual_seed(99)
        getattr(t, fill)(*([0, 50] if fill == "random_" else []))
        return t

    ref = draw(ember.empty(300, 200, dtype=d))
    transposed = draw(ember.empty(200, 300, dtype=d).t())
    sliced = draw(ember.empty(300, 400, dtype=d)[:, ::2])
    offset = draw(ember.empty(301, 201, dtype=d)[1:, 1:])
    expanded_ok = draw(ember.empty(1, 300, 200, dtype=d)[0])
    for t in (transposed, sliced, offset, expanded_ok):
        np.testing.assert_array_equal(host(t), host(ref))


def test_threaded_cpu_draw_equals_serial_pieces():
    ember.manual_seed(7)
    big = ember.randn(4_000_000)  # large enough for the threaded CPU loop
    ember.manual_seed(7)
    pieces = [ember.randn(40_000) for _ in range(100)]  # serial loop, block-aligned pieces
    np.testing.assert_array_equal(big.numpy(), np.concatenate([p.numpy() for p in pieces]))


def test_state_save_restore_reproduces_the_stream():
    ember.manual_seed(3)
    ember.rand(10)
    s = ember.get_rng_state()
    assert s.dtype == ember.uint8 and s.shape == (16,) and s.device.type == "cpu"
    a = [ember.randn(17), ember.randint(0, 100, (5,)), ember.rand(3, dtype=ember.float64)]
    ember.set_rng_state(s)
    b = [ember.randn(17), ember.randint(0, 100, (5,)), ember.rand(3, dtype=ember.float64)]
    for x, y in zip(a, b):
        assert bits(x) == bits(y)
    raw = s.numpy().tobytes()
    assert int.from_bytes(raw[:8], "little") == 3
    assert int.from_bytes(raw[8:], "little") == 3  # rand(10) used ceil(10 / 4) blocks


def test_generators_are_independent_and_restorable():
    g1 = ember.Generator().manual_seed(5)
    g2 = ember.Generator(device="cpu")
    assert g2.initial_seed() == 67280421310721
    g2.manual_seed(5)
    assert g1.device == ember.device("cpu")
    a = ember.randn(10, generator=g1)
    st = g1.get_state()
    b = ember.randn(10, generator=g1)
    assert bits(ember.randn(10, generator=g2)) == bits(a)
    g2.set_state(st)
    assert bits(ember.randn(10, generator=g2)) == bits(b)
    s = g1.seed()
    assert g1.initial_seed() == s and g1.get_offset() == 0
    # the default generator is one object and manual_seed returns it
    assert ember.manual_seed(1) is ember.default_generator
    assert ember.default_generator.initial_seed() == 1


def test_seed_functions():
    s = ember.seed()
    assert isinstance(s, int) and ember.initial_seed() == s
    ember.manual_seed(-1)  # negative seeds wrap like torch's
    assert ember.initial_seed() == 2**64 - 1
    ember.manual_seed(2**64 - 1)
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        ember.manual_seed(2**64)
    ember.manual_seed(12.0)  # int(seed), as torch
    assert ember.initial_seed() == 12


def test_cuda_seed_functions_need_no_gpu():
    ember.cuda.manual_seed_all(11)
    assert ember.cuda.initial_seed() == 11
    st = ember.cuda.get_rng_state()
    assert st.shape == (16,) and int.from_bytes(st.numpy().tobytes()[:8], "little") == 11
    ember.cuda.manual_seed(12)
    assert ember.cuda.initial_seed() == 12
    ember.cuda.set_rng_state(st)
    assert ember.cuda.initial_seed() == 11
    s = ember.cuda.seed()
    assert ember.cuda.initial_seed() == s
    assert isinstance(ember.cuda.seed_all(), int)
    ember.manual_seed(13)  # seeds the CUDA default generators too
    assert ember.cuda.initial_seed() == 13


def test_same_seed_same_values_for_every_function():
    def all_draws():
        ember.manual_seed(321)
        return [ember.rand(5), ember.randn(5), ember.randint(3, (5,)), ember.randint(-3, 3, (5,)),
                ember.randperm(9), ember.normal(ember.zeros(5), ember.ones(5)),
                ember.normal(1.0, 2.0, size=(5,)), ember.rand_like(ember.empty(2, 3)),
                ember.randn_like(ember.empty(4, dtype=ember.float64)),
                ember.randint_like(ember.empty(3), 10), ember.randint_like(ember.empty(3), 2, 10),
                ember.bernoulli(ember.full((6,), 0.3)), ember.multinomial(ember.ones(8), 3),
                ember.multinomial(ember.ones(2, 8), 5, replacement=True),
                ember.empty(5).uniform_(-2, 3), ember.empty(5).normal_(1, 0.5),
                ember.empty(5).exponential_(3.0), ember.empty(5, dtype=ember.int32).random_(),
                ember.empty(5).bernoulli_(0.5), ember.empty(5).bernoulli_(ember.full((5,), 0.9))]
    a, b = all_draws(), all_draws()
    for x, y in zip(a, b):
        assert bits(x) == bits(y)
    ember.manual_seed(322)
    assert bits(ember.rand(5)) != bits(a[0])


# ---- distributions ------------------------------------------------------------------------

def ks_statistic(sample, cdf):
    x = np.sort(np.asarray(sample, dtype=np.float64))
    n = len(x)
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(0, n) / n))


def normal_cdf(x):
    erf = np.frompyfunc(math.erf, 1, 1)
    return 0.5 * (1 + erf(x / math.sqrt(2)).astype(np.float64))


N = 400_000
KS_LIMIT = 1.95 / math.sqrt(N)  # alpha = 0.001


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_moments_and_ks(dtype):
    g = ember.Generator().manual_seed(17)
    x = ember.empty(N, dtype=getattr(ember, dtype)).uniform_(-1, 3, generator=g).numpy()
    assert x.min() >= -1 and x.max() < 3
    assert abs(x.mean() - 1) < 5 * math.sqrt(16 / 12 / N)
    assert abs(x.var() - 16 / 12) < 0.01
    assert ks_statistic(x, lambda v: (v + 1) / 4) < KS_LIMIT


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_moments_and_ks(dtype):
    g = ember.Generator().manual_seed(18)
    x = ember.randn(N, generator=g, dtype=getattr(ember, dtype)).numpy().astype(np.float64)
    assert abs(x.mean()) < 5 / math.sqrt(N)
    assert abs(x.std() - 1) < 0.005
    assert abs(np.mean(x ** 3)) < 0.02 and abs(np.mean(x ** 4) - 3) < 0.05
    assert ks_statistic(x, normal_cdf) < KS_LIMIT
    y = ember.empty(N, dtype=getattr(ember, dtype)).normal_(5, 0.25, generator=g).numpy()
    assert abs(y.mean() - 5) < 5 * 0.25 / math.sqrt(N) and abs(y.std() - 0.25) < 0.002


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_draws(dtype):
    d = getattr(ember, dtype)
    g = ember.Generator().manual_seed(19)
    u = host(ember.rand(N, generator=g, dtype=d))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.003
    z = host(ember.randn(N, generator=g, dtype=d))
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    e = host(ember.empty(N, dtype=d).exponential_(2.0, generator=g))
    assert e.min() > 0 and abs(e.mean() - 0.5) < 0.01


def test_exponential_ks():
    g = ember.Generator().manual_seed(20)
    x = ember.empty(N, dtype=ember.float64).exponential_(1.5, generator=g).numpy()
    assert x.min() > 0
    assert ks_statistic(x, lambda v: 1 - np.exp(-1.5 * v)) < KS_LIMIT
    y = ember.empty(N).exponential_(generator=g).numpy()
    assert y.min() > 0 and abs(y.mean() - 1) < 0.01


@pytest.mark.parametrize("low, high, dtype", [(0, 10, "int64"), (-7, 3, "int32"),
                                              (0, 256, "uint8"), (-128, 128, "int8"),
                                              (0, 2, "bool"), (0, 1000, "float32"),
                                              (-2**40, 2**40, "int64"), (0, 2**33, "float64")])
def test_randint_range_and_uniformity(low, high, dtype):
    g = ember.Generator().manual_seed(21)
    x = ember.randint(low, high, (N,), generator=g, dtype=getattr(ember, dtype)).numpy()
    x = x.astype(np.int64) if dtype != "bool" else x.astype(np.int64)
    assert x.min() >= low and x.max() < high
    span = high - low
    if span <= 1000:
        counts = np.bincount(x - low, minlength=span)
        expected = N / span
        chi2 = np.sum((counts - expected) ** 2 / expected)
        assert chi2 < span + 6 * math.sqrt(2 * span) + 10  # far tail of chi2(span - 1)
    else:
        assert abs((x.astype(np.float64) - low).mean() / span - 0.5) < 0.005


def test_randint_forms_and_dtype():
    ember.manual_seed(0)
    x = ember.randint(5, (3, 4))
    assert x.dtype == ember.int64 and x.shape == (3, 4) and x.numpy().max() < 5
    y = ember.randint(2, 6, size=(10,))
    assert y.numpy().min() >= 2 and y.numpy().max() < 6
    z = ember.randint(0, 3, (2,), dtype=ember.float32)
    assert z.dtype == ember.float32
    w = ember.randint_like(ember.empty(2, 2, dtype=ember.int16), 4)
    assert w.dtype == ember.int16 and w.numpy().max() < 4


def test_bernoulli():
    g = ember.Generator().manual_seed(22)
    p = ember.rand(N, generator=g)
    x = ember.bernoulli(p, generator=g)
    assert x.dtype == p.dtype and set(np.unique(x.numpy())) <= {0.0, 1.0}
    assert abs(x.numpy().mean() - p.numpy().mean()) < 0.005
    # element-wise: high p gives ones
    q = ember.tensor([0.0, 1.0] * 1000)
    np.testing.assert_array_equal(ember.bernoulli(q).numpy(), q.numpy())
    y = ember.empty(N, dtype=ember.int64).bernoulli_(0.25, generator=g)
    assert abs(y.numpy().mean() - 0.25) < 0.005
    b = ember.empty(4, 1000, dtype=ember.bool).bernoulli_(ember.tensor([[0.0], [1.0], [0.5], [0.5]]))
    assert not b.numpy()[0].any() and b.numpy()[1].all() and 0.4 < b.numpy()[2:].mean() < 0.6
    c = ember.bernoulli(ember.empty(N), 0.75)
    assert abs(c.numpy().mean() - 0.75) < 0.005
    assert ember.rand(3).bernoulli().shape == (3,)


def test_normal_forms():
    ember.manual_seed(23)
    mean = ember.arange(4, dtype=ember.float32).reshape(4, 1)
    std = ember.full((1, N // 4), 0.5)
    x = ember.normal(mean, std)
    assert x.shape == (4, N // 4)
    xs = x.numpy()
    assert np.allclose(xs.mean(axis=1), [0, 1, 2, 3], atol=0.01)
    assert np.allclose(xs.std(axis=1), 0.5, atol=0.01)
    y = ember.normal(ember.full((N,), 3.0), 2.0)
    assert abs(y.numpy().mean() - 3) < 0.02 and abs(y.numpy().std() - 2) < 0.02
    z = ember.normal(-1.0, ember.full((N,), 0.1))
    assert abs(z.numpy().mean() + 1) < 0.002
    w = ember.normal(0.0, 1.0, size=(2, 3), dtype=ember.float64)
    assert w.dtype == ember.float64 and w.shape == (2, 3)
    out = ember.empty(5)
    assert ember.normal(0.0, 1.0, size=(5,), out=out) is out
    assert ember.randn(5, out=out) is out and ember.rand(5, out=out) is out


def test_randperm():
    ember.manual_seed(24)
    p = ember.randperm(1000).numpy()
    assert sorted(p.tolist()) == list(range(1000))
    assert ember.randperm(0).shape == (0,)
    assert ember.randperm(1).tolist() == [0]
    assert ember.randperm(5, dtype=ember.int32).dtype == ember.int32
    assert sorted(ember.randperm(7, dtype=ember.float32).tolist()) == list(range(7))
    # each element lands in each position about equally often
    g = ember.Generator().manual_seed(25)
    counts = np.zeros((5, 5))
    for _ in range(4000):
        q = ember.randperm(5, generator=g).numpy()
        counts[np.arange(5), q] += 1
    assert np.all(np.abs(counts - 800) < 150)


def test_multinomial():
    g = ember.Generator().manual_seed(26)
    probs = ember.tensor([0.1, 0.0, 0.6, 0.3])
    s = ember.multinomial(probs, N, replacement=True, generator=g).numpy()
    freq = np.bincount(s, minlength=4) / N
    assert freq[1] == 0 and np.allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.005)
    rows = ember.tensor([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 5.0, 1.0]])
    w = ember.multinomial(rows, 2, generator=g).numpy()
    assert w.shape == (2, 2)
    assert len(set(w[0])) == 2 and set(w[0]) <= {0, 1, 2}
    assert set(w[1]) == {2, 3}
    # without replacement: the first draw follows the distribution
    first = [ember.multinomial(probs, 3, generator=g).tolist()[0] for _ in range(3000)]
    f = np.bincount(first, minlength=4) / 3000
    assert f[1] == 0 and np.allclose(f, [0.1, 0.0, 0.6, 0.3], atol=0.04)
    full = ember.multinomial(ember.ones(6), 6, generator=g).numpy()
    assert sorted(full.tolist()) == list(range(6))
    assert ember.multinomial(ember.rand(3, 5, dtype=ember.float64), 2).dtype == ember.int64


# ---- the shared math -----------------------------------------------------------------------

def test_log_and_sincos_polynomials_are_accurate():
    xs32 = np.concatenate([np.linspace(2.0 ** -24, 1, 5001),
                           1 - np.arange(1, 500) * 2.0 ** -24]).astype(np.float32)
    for x in xs32:
        r, ref = _C._rnd_log(float(x)), math.log(float(x))
        assert abs(r - ref) <= 3 * np.spacing(np.float32(abs(ref)) or np.float32(1e-30)), x
    for x in np.linspace(2.0 ** -53, 1, 5001)[:-1]:
        r, ref = _C._rnd_log(float(x), True), math.log(float(x))
        assert abs(r - ref) <= 3 * np.spacing(abs(ref)), x
    for u in np.arange(0, 1, 1 / 1024):
        s, c = _C._rnd_sincos_2pi(float(u))
        assert abs(s - math.sin(2 * math.pi * u)) < 2e-7 and abs(c - math.cos(2 * math.pi * u)) < 2e-7
        s, c = _C._rnd_sincos_2pi(float(u), True)
        assert abs(s - math.sin(2 * math.pi * u)) < 1e-15 and abs(c - math.cos(2 * math.pi * u)) < 1e-15


# ---- errors ------------------------------------------------------------------------------

def test_errors():
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got "
                                           "from=5 >= to=3"):
        ember.randint(5, 3, (2,))
    with pytest.raises(RuntimeError, match="within the range of uint8"):
        ember.randint(-1, 3, (2,), dtype=ember.uint8)
    with pytest.raises(RuntimeError, match="within the range of int8"):
        ember.randint(0, 300, (2,), dtype=ember.int8)
    with pytest.raises(RuntimeError, match="n must be non-negative"):
        ember.randperm(-1)
    with pytest.raises(RuntimeError, match="negative dimension|must be non-negative|negative"):
        ember.rand(-2)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.rand(3, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.randn(3, dtype=ember.int32)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        ember.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        ember.normal(ember.zeros(3), ember.tensor([1.0, -1.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\]"):
        ember.empty(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match=r"in \[0, 1\]"):
        ember.bernoulli(ember.tensor([0.5, 2.0]))
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0"):
        ember.empty(3).exponential_(0)
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range"):
        ember.empty(3).uniform_(2, 1)
    with pytest.raises(RuntimeError, match="more than one element"):
        ember.empty(1).expand(3).normal_()
    with pytest.raises(TypeError, match="generator must be an ember.Generator"):
        ember.rand(3, generator=5)
    cuda_gen = ember.Generator(device="cuda")
    assert cuda_gen.device.type == "cuda"
    with pytest.raises(RuntimeError, match="expected a 'cpu' device type for generator but "
                                           "found 'cuda'"):
        ember.rand(3, generator=cuda_gen)
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        ember.set_rng_state(ember.zeros(8, dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="must be a uint8 CPU tensor"):
        ember.set_rng_state(ember.zeros(16))
    with pytest.raises(TypeError):
        ember.set_rng_state(b"0" * 16)
    # autograd (issue 8): floating draws may require grad, integer ones may not
    assert ember.randn(3, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        ember.randint(3, (2,), requires_grad=True)
    with pytest.raises(TypeError, match="size"):
        ember.randint(3)
    with pytest.raises(RuntimeError, match="shape"):
        ember.rand(3, out=ember.empty(4))
    # multinomial
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        ember.multinomial(ember.ones(2, 2, 2), 1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        ember.multinomial(ember.ones(3), 4)
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0"):
        ember.multinomial(ember.ones(3), 0)
    with pytest.raises(RuntimeError, match="`inf`, `nan` or element < 0"):
        ember.multinomial(ember.tensor([0.5, -0.1]), 1)
    with pytest.raises(RuntimeError, match="`inf`, `nan` or element < 0"):
        ember.multinomial(ember.tensor([0.5, float("nan")]), 1, True)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        ember.multinomial(ember.zeros(3), 1, True)
    with pytest.raises(RuntimeError, match="not enough non-negative category"):
        ember.multinomial(ember.tensor([1.0, 0.0, 0.0]), 2)
    with pytest.raises(RuntimeError, match="floating-point"):
        ember.multinomial(ember.ones(3, dtype=ember.int64), 1)
    # still usable
    assert ember.rand(2).shape == (2,)
