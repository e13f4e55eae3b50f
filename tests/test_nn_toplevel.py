"""The nn composites (python/ember/nn/_functional_composite.py), their modules, and torch's
top-level spellings of nn functions (python/ember/_nn_toplevel.py): values, dtypes and
gradients against torch on the same data, deterministic paths only (eval-mode dropouts;
the training ones are checked for their statistics), plus NumPy references for pad and
pixel_shuffle."""
import numpy as np
import pytest

import ember
from composite_util import compare
from cuda_util import gpu

RNG = np.random.default_rng(5)


def _r(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _cases():
    x, img, seq = _r(3, 4), _r(2, 4, 3, 3), _r(2, 3, 8)
    tgt = np.array([1.0, -1.0, 1.0])
    F = "nn.functional."

    def f(name):
        def get(L):
            obj = L
            for part in (F + name).split("."):
                obj = getattr(obj, part)
            return obj
        return get
    return [
        ("celu", lambda L, a: f("celu")(L)(a, 0.7), [x * 30]),
        ("torch.celu_", lambda L, a: L.celu_(a * 1, 2.0), [x]),
        ("selu", lambda L, a: L.selu(a), [x * 30]),
        ("rrelu_eval", lambda L, a: f("rrelu")(L)(a), [x]),
        ("threshold", lambda L, a: L.threshold(a, 0.1, -2.0), [x]),
        ("threshold_int", lambda L, a: f("threshold")(L)(a, 0, 5), [RNG.integers(-3, 3, (4,))]),
        ("hardshrink", lambda L, a: L.hardshrink(a, 0.6), [x]),
        ("hardshrink_m", lambda L, a: a.hardshrink(), [x]),
        ("prelu_m", lambda L, a, w: a.prelu(w), [x, _r(4)]),
        ("prelu", lambda L, a, w: L.prelu(a, w), [img, _r(4)]),
        ("prelu_1", lambda L, a, w: f("prelu")(L)(a, w), [x, _r(1)]),
        ("prelu_bad", lambda L, a, w: L.prelu(a, w), [img, _r(3)]),
        ("pixel_shuffle", lambda L, a: L.pixel_shuffle(a, 2), [_r(2, 8, 2, 3)]),
        ("pixel_shuffle_bad", lambda L, a: L.pixel_shuffle(a, 2), [img]),
        ("pixel_unshuffle", lambda L, a: L.pixel_unshuffle(a, 3), [_r(1, 2, 3, 6)]),
        ("channel_shuffle", lambda L, a: L.channel_shuffle(a, 2), [img]),
        ("native_channel_shuffle", lambda L, a: L.native_channel_shuffle(a, 4), [img]),
        ("constant_pad_nd", lambda L, a: L.constant_pad_nd(a, (1, -1, 2, 0), 1.5), [img]),
        ("pad_reflect", lambda L, a: f("pad")(L)(a, (2, 1, 1, 2), mode="reflect"), [img]),
        ("pad_replicate", lambda L, a: f("pad")(L)(a, (0, 3), mode="replicate"), [seq]),
        ("pad_circular", lambda L, a: f("pad")(L)(a, (1, 2, 2, 1), mode="circular"), [img]),
        ("pad_bad", lambda L, a: f("pad")(L)(a, (1,)), [img]),
        ("bilinear", lambda L, a, b, w, c: L.bilinear(a, b, w, c),
         [x, _r(3, 2), _r(5, 4, 2), _r(5)]),
        ("conv1d", lambda L, a, w, b: L.conv1d(a, w, b, stride=2, padding=1), [seq, _r(4, 3, 3),
                                                                               _r(4)]),
        ("conv1d_groups", lambda L, a, w: f("conv1d")(L)(a, w, groups=3, dilation=2),
         [_r(2, 6, 9), _r(3, 2, 2)]),
        ("max_pool1d", lambda L, a: L.max_pool1d(a, 3, 2, 1), [seq]),
        ("max_pool1d_idx", lambda L, a: L.max_pool1d_with_indices(a, 2), [seq]),
        ("avg_pool1d", lambda L, a: L.avg_pool1d(a, 3, 1, 1, count_include_pad=False), [seq]),
        ("adaptive_avg_pool1d", lambda L, a: L.adaptive_avg_pool1d(a, 3), [seq]),
        ("max_pool2d", lambda L, a: L.max_pool2d(a, 2, 1), [img]),
        ("group_norm", lambda L, a, w, b: L.group_norm(a, 2, w, b), [img, _r(4), _r(4)]),
        ("group_norm_bad", lambda L, a: f("group_norm")(L)(a, 3), [img]),
        ("instance_norm", lambda L, a, w, b: f("instance_norm")(L)(a, weight=w, bias=b),
         [img, _r(4), _r(4)]),
        ("rms_norm", lambda L, a, w: L.rms_norm(a, (3, 3), w, 1e-3), [img, _r(3, 3)]),
        ("rms_norm_f32", lambda L, a: f("rms_norm")(L)(a, (3,)), [_r(2, 3, dtype=np.float32)]),
        ("layer_norm", lambda L, a, w: L.layer_norm(a, (4,), w), [x, _r(4)]),
        ("native_layer_norm", lambda L, a: L.native_layer_norm(a, (4,), None, None, 1e-5), [x]),
        ("batch_norm", lambda L, a: L.batch_norm(a, None, None, L.zeros(4, dtype=L.float64),
                                                 L.ones(4, dtype=L.float64), True, 0.1, 1e-5,
                                                 False), [img]),
        ("native_batch_norm", lambda L, a: L.native_batch_norm(a, None, None, None, None, True,
                                                               0.1, 1e-5), [img]),
        ("native_group_norm", lambda L, a: L.native_group_norm(a, None, None, 2, 4, 9, 2, 1e-5),
         [img]),
        ("embedding", lambda L, w: L.embedding(w, L.tensor([[0, 2], [1, 1]])), [x]),
        ("dropout_eval", lambda L, a: L.dropout(a, 0.3, False), [x]),
        ("alpha_dropout_eval", lambda L, a: f("alpha_dropout")(L)(a, 0.3), [x]),
        ("dropout_bad_p", lambda L, a: L.dropout(a, 1.5, True), [x]),
        ("feature_dropout_p1", lambda L, a: L.feature_dropout(a, 1.0, True), [img]),
        ("cosine_embedding_loss", lambda L, a, b, t: f("cosine_embedding_loss")(L)(a, b, t, 0.2),
         [x, _r(3, 4), tgt]),
        ("torch.cosine_embedding_loss", lambda L, a, b, t: L.cosine_embedding_loss(a, b, t),
         [x, _r(3, 4), tgt]),
        ("hinge_embedding_loss", lambda L, a, t: f("hinge_embedding_loss")(L)(a, t, 0.5),
         [_r(3), tgt]),
        ("torch.hinge_embedding_loss", lambda L, a, t: L.hinge_embedding_loss(a, t, 1.0, 2),
         [_r(3), tgt]),
        ("margin_ranking_loss", lambda L, a, b, t: f("margin_ranking_loss")(L)(a, b, t, 0.1),
         [_r(3), _r(3), tgt]),
        ("kl_div", lambda L, a, t: f("kl_div")(L)(a, t, reduction="batchmean"),
         [x, np.abs(_r(3, 4))]),
        ("kl_div_log", lambda L, a, t: f("kl_div")(L)(a, t, reduction="sum", log_target=True),
         [x, _r(3, 4)]),
        ("torch.kl_div", lambda L, a, t: L.kl_div(a, t), [x, np.abs(_r(3, 4))]),
        ("poisson_nll_loss", lambda L, a, t: f("poisson_nll_loss")(L)(a, t),
         [x, np.abs(_r(3, 4)) * 3]),
        ("poisson_nll_loss_full", lambda L, a, t: L.poisson_nll_loss(a.abs(), t, False, True,
                                                                     1e-8, 0),
         [x, np.abs(_r(3, 4)) * 3]),
        ("triplet_margin_loss", lambda L, a, p, n: f("triplet_margin_loss")(L)(a, p, n, swap=True),
         [x, _r(3, 4), _r(3, 4)]),
        ("torch.triplet_margin_loss", lambda L, a, p, n: L.triplet_margin_loss(a, p, n, 0.5, 1.0),
         [x, _r(3, 4), _r(3, 4)]),
        ("binary_cross_entropy_with_logits",
         lambda L, a, t: L.binary_cross_entropy_with_logits(a, t, None, None, 1),
         [x, np.abs(_r(3, 4)) % 1]),
        ("cosine_similarity", lambda L, a, b: f("cosine_similarity")(L)(a, b, -1), [x, _r(4)]),
        ("pairwise_distance", lambda L, a, b: f("pairwise_distance")(L)(a, b), [x, _r(3, 4)]),
        ("pdist", lambda L, a: f("pdist")(L)(a), [x]),
    ]


@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
def test_against_torch(torch, name, fn, arrays):
    compare(torch, fn, arrays, grad=True, rtol=1e-7, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
def test_against_torch_cuda(torch, name, fn, arrays):
    compare(torch, fn, arrays, device="cuda", grad=True, rtol=1e-7, atol=1e-9)


def test_numpy_references():
    import ember.nn.functional as F
    a = _r(2, 3, 4, 5)
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")):
        got = F.pad(ember.from_numpy(a), (1, 2, 3, 0), mode=mode).numpy()
        np.testing.assert_array_equal(got, np.pad(a, ((0, 0), (0, 0), (3, 0), (1, 2)), np_mode))
    got = F.pad(ember.from_numpy(a), (1, 1), value=2.5).numpy()
    np.testing.assert_array_equal(got, np.pad(a, ((0, 0),) * 3 + ((1, 1),),
                                              constant_values=2.5))
    b = _r(1, 8, 2, 3)
    ref = b.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    np.testing.assert_array_equal(F.pixel_shuffle(ember.from_numpy(b), 2).numpy(), ref)
    x = _r(3, 4)
    np.testing.assert_allclose(F.selu(ember.from_numpy(x)).numpy(),
                               1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 *
                                                             np.expm1(x)))


def test_training_dropouts_statistics():
    import ember.nn.functional as F
    ember.manual_seed(0)
    x = ember.ones(200, 64, 3, 3)
    y = F.dropout2d(x, 0.25, training=True)
    per_channel = y.reshape(200, 64, 9)
    assert bool(((per_channel == 0).all(-1) | (per_channel != 0).all(-1)).all())
    kept = (per_channel[:, :, 0] != 0).float().mean().item()
    assert abs(kept - 0.75) < 0.02 and abs(y.mean().item() - 1.0) < 0.03
    z = F.alpha_dropout(ember.randn(100000), 0.2, training=True)
    assert abs(z.mean().item()) < 0.02 and abs(z.std().item() - 1.0) < 0.02
    out, mask = ember.native_dropout(ember.ones(10000), 0.4, True)
    assert mask.dtype == ember.bool and abs(mask.float().mean().item() - 0.6) < 0.03
    assert bool(((out == 0) | ((out - 1 / 0.6).abs() < 1e-6)).all())
    r = F.rrelu(-ember.ones(10000), 0.1, 0.3, training=True)
    assert -0.3 <= r.min().item() and r.max().item() <= -0.1


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
def test_modules_match_functional(torch):
    cases = [("CELU", (0.5,), (3, 4)), ("SELU", (), (3, 4)), ("Hardshrink", (0.3,), (3, 4)),
             ("Threshold", (0.1, 2.0), (3, 4)), ("PReLU", (4,), (2, 4, 3)),
             ("PixelShuffle", (2,), (1, 8, 2, 2)), ("PixelUnshuffle", (2,), (1, 2, 4, 4)),
             ("ChannelShuffle", (2,), (1, 4, 2, 2)), ("MaxPool1d", (2,), (2, 3, 6)),
             ("AvgPool1d", (3, 1), (2, 3, 6)), ("AdaptiveAvgPool1d", (2,), (2, 3, 6)),
             ("GroupNorm", (2, 4), (2, 4, 5)), ("RMSNorm", (5,), (2, 4, 5)),
             ("ReflectionPad1d", (2,), (1, 2, 5)), ("ReplicationPad2d", ((1, 0, 2, 1),),
                                                    (1, 2, 3, 3)),
             ("CircularPad1d", (1,), (1, 2, 4)), ("ZeroPad2d", (1,), (1, 1, 2, 2)),
             ("ConstantPad3d", (1, 3.5), (1, 1, 2, 2, 2)), ("AlphaDropout", (0.5,), (3, 4)),
             ("Dropout1d", (0.5,), (2, 3, 4))]
    for name, args, shape in cases:
        a = _r(*shape, dtype=np.float32)
        e, t = getattr(ember.nn, name)(*args).eval(), getattr(torch.nn, name)(*args).eval()
        np.testing.assert_allclose(e(ember.from_numpy(a)).detach().numpy(),
                                   t(torch.from_numpy(a)).detach().numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    a, b, c = (_r(3, 4, dtype=np.float32) for _ in range(3))
    tg = np.array([1.0, -1.0, 1.0], np.float32)
    for name, inputs in [("CosineEmbeddingLoss", (a, b, tg)), ("MarginRankingLoss",
                                                              (a[:, 0], b[:, 0], tg)),
                         ("HingeEmbeddingLoss", (a[:, 0], tg)), ("KLDivLoss", (a, np.abs(b))),
                         ("PoissonNLLLoss", (a, np.abs(b))), ("TripletMarginLoss", (a, b, c)),
                         ("CosineSimilarity", (a, b)), ("PairwiseDistance", (a, b))]:
        e = getattr(ember.nn, name)()(*(ember.from_numpy(v) for v in inputs))
        t = getattr(torch.nn, name)()(*(torch.from_numpy(v) for v in inputs))
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    bl = ember.nn.Bilinear(4, 4, 2)
    tb = torch.nn.Bilinear(4, 4, 2)
    with torch.no_grad():
        tb.weight.copy_(torch.from_numpy(bl.weight.detach().numpy()))
        tb.bias.copy_(torch.from_numpy(bl.bias.detach().numpy()))
    np.testing.assert_allclose(bl(ember.from_numpy(a), ember.from_numpy(b)).detach().numpy(),
                               tb(torch.from_numpy(a), torch.from_numpy(b)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def _bf16_round(a):
    """float32 values rounded to bfloat16 (nearest even), as float32."""
    b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def test_selu_and_celu_of_half_dtypes_round_once():
    # computed in float32 and rounded once to bfloat16 (every intermediate in bfloat16
    # put selu(-0.75390625) at -0.9375, 2 ulps from -0.9296875)
    import ember.nn.functional as F
    x = np.array([-0.75390625, -3.0, -0.125, 2.5], np.float32)
    xb = ember.tensor(x).to(ember.bfloat16)
    a, s = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    ref = np.where(x > 0, s * x.astype(np.float64), s * a * np.expm1(x.astype(np.float64)))
    np.testing.assert_array_equal(F.selu(xb).float().numpy(), _bf16_round(ref))
    ref = np.where(x > 0, x.astype(np.float64), 0.7 * np.expm1(x.astype(np.float64) / 0.7))
    np.testing.assert_array_equal(F.celu(xb, 0.7).float().numpy(), _bf16_round(ref))
