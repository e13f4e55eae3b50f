"""Random numbers on the GPU: the same bits as the CPU for the same seed (every
distribution and dtype), independent of the launch configuration (sizes around the
vector width and the grid) and of the target's layout, the CUDA default generators and
their states, streams, multinomial's checks, and the distributions on large samples."""
import math

import numpy as np
import pytest

import ember

pytestmark = pytest.mark.gpu


def bits(t):
    t = t.contiguous().cpu()
    if t.dtype == ember.bfloat16:
        t = t.view(ember.int16)
    return t.numpy().tobytes()


def on_both(fn, seed=1234):
    """fn(device) run with the same seed on the CPU and on the GPU."""
    ember.manual_seed(seed)
    a = fn("cpu")
    ember.manual_seed(seed)
    b = fn("cuda")
    assert b.device.type == "cuda"
    return a, b


DRAWS = {
    "rand": lambda d, dt, n: ember.rand(n, device=d, dtype=dt),
    "randn": lambda d, dt, n: ember.randn(n, device=d, dtype=dt),
    "uniform_": lambda d, dt, n: ember.empty(n, device=d, dtype=dt).uniform_(-3, 5),
    "normal_": lambda d, dt, n: ember.empty(n, device=d, dtype=dt).normal_(2, 0.5),
    "exponential_": lambda d, dt, n: ember.empty(n, device=d, dtype=dt).exponential_(0.7),
    "bernoulli_": lambda d, dt, n: ember.empty(n, device=d, dtype=dt).bernoulli_(0.3),
    # parameters made on the CPU and copied, so both sides read the same bits
    "bernoulli": lambda d, dt, n: ember.bernoulli(ember.linspace(0, 1, n, dtype=dt).to(d)),
    "normal_tensor": lambda d, dt, n: ember.normal(ember.linspace(-1, 1, n, dtype=dt).to(d),
                                                   ember.full((n,), 0.3, dtype=dt).to(d)),
    "randint": lambda d, dt, n: ember.randint(-20, 100, (n,), device=d, dtype=dt),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 1023, 100_003])
def test_cpu_and_gpu_give_identical_bits(name, dtype, n):
    dt = getattr(ember, dtype)
    a, b = on_both(lambda d: DRAWS[name](d, dt, n))
    assert bits(a) == bits(b)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
def test_randint_identical_for_integer_dtypes(dtype):
    dt = getattr(ember, dtype)
    high = 2 if dtype == "bool" else 100
    a, b = on_both(lambda d: ember.randint(0, high, (10_001,), device=d, dtype=dt))
    assert bits(a) == bits(b)
    wide = on_both(lambda d: ember.randint(-2**45, 2**45, (10_001,), device=d))
    assert bits(wide[0]) == bits(wide[1])


def test_randperm_and_multinomial_identical():
    a, b = on_both(lambda d: ember.randperm(100_000, device=d))
    assert bits(a) == bits(b)
    probs = ember.rand(7, 3000)
    for repl in (False, True):
        k = 50 if not repl else 5000
        a, b = on_both(lambda d: ember.multinomial(probs.to(d), k, replacement=repl))
        assert bits(a) == bits(b)


def test_large_draw_matches_pieces_and_views():
    # one launch of 10^7 values vs many small launches vs a strided view
    ember.manual_seed(5)
    big = ember.randn(10_000_000, device="cuda")
    ember.manual_seed(5)
    pieces = ember.cat([ember.randn(1_000_000, device="cuda") for _ in range(10)])
    assert bits(big) == bits(pieces)
    ember.manual_seed(5)
    host = ember.randn(10_000_000)
    assert bits(big) == bits(host)
    ember.manual_seed(5)
    t = ember.empty(2000, 5000, device="cuda").t()  # transposed target
    t.normal_()
    assert bits(t) == bits(big.view(5000, 2000))
    ember.manual_seed(5)
    s = ember.empty(5000, 4001, device="cuda")[:, 1::2]  # sliced, misaligned target
    s.normal_()
    assert bits(s) == bits(big.view(5000, 2000))


@pytest.mark.parametrize("draw", ["uniform", "normal", "exponential", "bernoulli", "random",
                                  "log_normal", "geometric", "cauchy", "bernoulli_tensor",
                                  "normal_tensor"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_non_dense_targets_draw_the_dense_values(draw, dtype):
    # A target that is not contiguous and 16-byte aligned is drawn into a dense tensor
    # and copied (random.cu): the same values at the same logical indices, and the
    # generator advances as for a dense target.
    dt = getattr(ember, dtype)
    p = ember.rand(41, 300, device="cuda")
    mean = ember.linspace(-1, 1, 41 * 300, device="cuda", dtype=dt).view(41, 300)
    fills = {
        "uniform": lambda t: t.uniform_(-2, 3), "normal": lambda t: t.normal_(1, 2),
        "exponential": lambda t: t.exponential_(1.5), "bernoulli": lambda t: t.bernoulli_(0.3),
        "random": lambda t: t.random_(0, 50), "log_normal": lambda t: t.log_normal_(0, 0.5),
        "geometric": lambda t: t.geometric_(0.3), "cauchy": lambda t: t.cauchy_(0, 1),
        "bernoulli_tensor": lambda t: t.bernoulli_(p),
        "normal_tensor": lambda t: ember.normal(mean, 0.5, out=t),
    }
    targets = {
        "dense": lambda: ember.empty(41, 300, device="cuda", dtype=dt),
        "transposed": lambda: ember.empty(300, 41, device="cuda", dtype=dt).t(),
        "sliced": lambda: ember.empty(41, 601, device="cuda", dtype=dt)[:, 1::2],
        "misaligned": lambda: ember.empty(41 * 300 + 1, device="cuda", dtype=dt)[1:].view(41, 300),
    }
    got = {}
    for name, make_target in targets.items():
        t = make_target()
        ember.manual_seed(17)
        fills[draw](t)
        got[name] = (bits(t), bits(ember.rand(9, device="cuda")))
    for name in ("transposed", "sliced", "misaligned"):
        assert got[name] == got["dense"], name


def test_misaligned_and_odd_sized_targets():
    for dtype in (ember.float32, ember.float16, ember.float64, ember.int8):
        ember.manual_seed(6)
        ref = ember.randint(0, 50, (1001,), dtype=dtype, device="cuda")
        ember.manual_seed(6)
        buf = ember.empty(1003, dtype=dtype, device="cuda")
        view = buf[1:1002]
        view.random_(0, 50)
        assert bits(view) == bits(ref)


def test_cuda_generators_and_states():
    ember.cuda.manual_seed(77)
    s = ember.cuda.get_rng_state()
    a = ember.rand(1000, device="cuda")
    ember.cuda.set_rng_state(s)
    b = ember.rand(1000, device="cuda")
    assert bits(a) == bits(b)
    g = ember.Generator(device="cuda").manual_seed(77)
    assert g.device == ember.device("cuda", 0)
    assert bits(ember.rand(1000, device="cuda", generator=g)) == bits(a)
    cpu = ember.Generator().manual_seed(77)
    assert bits(ember.rand(1000, generator=cpu)) == bits(a)
    with pytest.raises(RuntimeError, match="expected a 'cuda' device type for generator but "
                                           "found 'cpu'"):
        ember.randn(3, device="cuda", generator=cpu)
    ember.cuda.manual_seed_all(78)
    states = ember.cuda.get_rng_state_all()
    assert len(states) == ember.cuda.device_count()
    ember.cuda.set_rng_state_all(states)


def test_draws_run_on_the_current_stream():
    x = ember.empty(1 << 20, device="cuda")
    x.normal_()  # warm up the kernel
    ember.cuda.synchronize()
    s = ember.cuda.Stream()
    with ember.cuda.stream(s):
        ember.cuda._sleep(2_000_000)
        x.normal_()
        assert not s.query()
    s.synchronize()
    assert np.isfinite(x.cpu().numpy()).all()


def test_multinomial_errors_on_gpu_keep_the_process_usable():
    bad = ember.tensor([0.5, -1.0], device="cuda")
    with pytest.raises(RuntimeError, match="`inf`, `nan` or element < 0"):
        ember.multinomial(bad, 1)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        ember.multinomial(ember.zeros(2, 3, device="cuda"), 1, True)
    with pytest.raises(RuntimeError, match="not enough non-negative category"):
        ember.multinomial(ember.tensor([1.0, 0.0, 0.0], device="cuda"), 2)
    r = ember.multinomial(ember.tensor([0.0, 1.0], device="cuda"), 3, True)
    assert r.cpu().tolist() == [1, 1, 1]


def test_large_gpu_sample_moments():
    g = ember.Generator(device="cuda").manual_seed(8)
    n = 20_000_000
    z = ember.randn(n, device="cuda", generator=g).cpu().numpy().astype(np.float64)
    assert abs(z.mean()) < 5 / math.sqrt(n) and abs(z.std() - 1) < 0.001
    u = ember.rand(n, device="cuda", generator=g).cpu().numpy()
    assert abs(u.mean() - 0.5) < 0.0005 and u.min() >= 0 and u.max() < 1
    hist = np.histogram(u, bins=100, range=(0, 1))[0]
    assert np.all(np.abs(hist - n / 100) < 6 * math.sqrt(n / 100))


def test_torch_agrees_on_distribution_not_bits(torch):
    n = 4_000_000
    a = ember.randn(n, device="cuda").cpu().numpy()
    b = torch.randn(n, device="cuda").cpu().numpy()
    assert abs(a.std() - b.std()) < 0.003 and abs(a.mean() - b.mean()) < 0.003
