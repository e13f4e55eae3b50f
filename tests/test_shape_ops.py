"""The shape composites (python/ember/_composite_shape.py): flip/roll/rot90, diag*,
tril/triu_indices, stacks and splits, atleast_*d, broadcasting, meshgrid,
cartesian_prod, combinations, block_diag, moveaxis, unfold/repeat/tile,
repeat_interleave. Values against NumPy on random data (empty, 0-d, non-contiguous,
integer and bool cases), gradients against the adjoint of each linear map, errors'
types and messages as torch's. tests/test_shape_ops_torch.py compares with torch."""
import itertools

import numpy as np
import pytest

import ember
from cuda_util import gpu
from math_util import to_np

DEVICES = ["cpu", pytest.param("cuda", marks=gpu)]
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4), (1, 4, 1, 3)]
DTYPES = [ember.float32, ember.float64, ember.int64, ember.int32, ember.uint8, ember.bool,
          ember.float16]


def _arr(rng, shape, dtype=ember.float32):
    if dtype == ember.bool:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in (ember.int64, ember.int32, ember.uint8):
        return rng.integers(0, 100, shape).astype(to_np(ember.zeros(1, dtype=dtype)).dtype)
    return rng.standard_normal(shape).astype(to_np(ember.zeros(1, dtype=dtype)).dtype)


def _both(rng, shape, dtype=ember.float32, device="cpu", noncontig=False):
    """A NumPy array and an ember tensor of the same values (a transposed view where
    noncontig and the tensor has 2+ dims)."""
    a = _arr(rng, shape, dtype)
    if noncontig and len(shape) >= 2:
        t = ember.from_numpy(np.ascontiguousarray(a.swapaxes(0, 1))).to(device).transpose(0, 1)
        assert not t.is_contiguous() or 0 in shape or 1 in shape[:2]
    else:
        t = ember.from_numpy(a.copy()).to(device)
    return a, t


def _eq(t, ref):
    assert isinstance(t, ember.Tensor)
    got = to_np(t)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    np.testing.assert_array_equal(got, ref.astype(got.dtype))


def _index_grad(fn, shape, device="cpu", w_seed=0):
    """Checks x's gradient through fn (a map that copies elements) against its adjoint:
    fn applied to the elements' flat indices says where each output came from."""
    n = int(np.prod(shape))
    x = ember.from_numpy(np.random.default_rng(3).standard_normal(shape)).to(device)
    x.requires_grad_()
    out = fn(x)
    outs = out if isinstance(out, tuple) else (out,)
    src = fn(ember.arange(n, device=device).reshape(shape))
    srcs = src if isinstance(src, tuple) else (src,)
    rng = np.random.default_rng(w_seed)
    loss, ref = None, np.zeros(n)
    for o, s in zip(outs, srcs):
        w = rng.standard_normal(tuple(o.shape))
        term = (o * ember.from_numpy(w).to(device)).sum()
        loss = term if loss is None else loss + term
        np.add.at(ref, to_np(s).reshape(-1).astype(np.int64), w.reshape(-1))
    loss.backward()
    np.testing.assert_allclose(to_np(x.grad).reshape(-1), ref, rtol=1e-12, atol=1e-12)


# ---- flip, roll, rot90 --------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_flip_matches_numpy(device, shape, dtype):
    rng = np.random.default_rng(1)
    a, t = _both(rng, shape, dtype, device, noncontig=True)
    nd = len(shape)
    for r in range(nd + 1):
        for dims in itertools.combinations(range(nd), r):
            neg = tuple(d - nd for d in dims)
            _eq(ember.flip(t, dims), np.flip(a, dims) if dims else a)
            _eq(t.flip(*neg) if neg else t.flip(()), np.flip(a, dims) if dims else a)
    if nd == 0:
        _eq(ember.flip(t, (0,)), a)
    out = ember.flip(t, tuple(range(nd)))
    assert out.data_ptr() != t.data_ptr() or t.numel() == 0  # a copy, as torch's
    if nd >= 2:
        _eq(ember.fliplr(t), np.fliplr(a))
        _eq(t.fliplr(), np.fliplr(a))
    if nd >= 1:
        _eq(ember.flipud(t), np.flipud(a))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
def test_roll_matches_numpy(device, shape):
    rng = np.random.default_rng(2)
    a, t = _both(rng, shape, ember.int64, device, noncontig=True)
    for s in (0, 1, -1, 3, -7, 11):
        _eq(ember.roll(t, s), np.roll(a, s))
        _eq(t.roll(s), np.roll(a, s))
        for d in range(len(shape)):
            _eq(ember.roll(t, s, d), np.roll(a, s, d))
            _eq(ember.roll(t, (s,), (d - len(shape),)), np.roll(a, s, d))
    if len(shape) >= 2:
        _eq(ember.roll(t, (2, -3), (0, 1)), np.roll(a, (2, -3), (0, 1)))
        _eq(t.roll((1, 1), (1, 1)), np.roll(a, (1, 1), (1, 1)))


@gpu
@pytest.mark.parametrize("dtype", DTYPES + [ember.bfloat16, ember.int16])
@pytest.mark.parametrize("shape", [(64, 128), (33, 40), (17, 3, 24), (5, 48), (4, 1000),
                                   (3, 2, 64), (4099,)])
def test_flip_roll_rows_gpu(dtype, shape):
    # CUDA flips and rolls copy rows (ops/copy/copy.cu copy_rows): 16-byte units where
    # every row start is 16-byte aligned, element units otherwise; the innermost dim
    # flipped reverses the units. Views at odd offsets take the element path.
    rng = np.random.default_rng(7)
    a = _arr(rng, shape, ember.float32 if dtype == ember.bfloat16 else dtype)
    t = ember.from_numpy(a.copy()).to("cuda").to(dtype)
    a = to_np(t.cpu())
    nd = len(shape)
    for r in range(1, nd + 1):
        for dims in itertools.combinations(range(nd), r):
            _eq(t.flip(dims), np.flip(a, dims))
    for s in (1, -3, 8, 16, 1000):
        for d in range(nd):
            _eq(t.roll(s, d), np.roll(a, s, d))
    if nd >= 2:  # a view at an odd offset, and a non-contiguous one
        _eq(t[:, 1:].flip(0), np.flip(a[:, 1:], 0))
        _eq(t[:, 1:].flip(-1), np.flip(a[:, 1:], -1))
        _eq(t[1:].roll(5, -1), np.roll(a[1:], 5, -1))
        _eq(t.transpose(0, 1).flip(0), np.flip(a.swapaxes(0, 1), 0))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (0, 3), (1, 1)])
def test_rot90_matches_numpy(device, shape):
    rng = np.random.default_rng(3)
    a, t = _both(rng, shape, ember.float64, device, noncontig=True)
    nd = len(shape)
    for k in range(-5, 6):
        for dims in itertools.permutations(range(nd), 2):
            _eq(ember.rot90(t, k, dims), np.rot90(a, k, dims))
        _eq(t.rot90(k, (-1, 0)), np.rot90(a, k, (-1, 0)))
    _eq(ember.rot90(t), np.rot90(a))


def test_flip_roll_rot90_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        ember.flip(x, (0, -2))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                       r"\[-2, 1\], but got 2\)"):
        x.flip(2)
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        ember.flip(x, 0)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        ember.fliplr(ember.zeros(3))
    with pytest.raises(RuntimeError, match="Input must be >= 1-d."):
        ember.flipud(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        ember.roll(x, (1, 2), 0)
    with pytest.raises(RuntimeError, match="`shifts` required"):
        ember.roll(x, (), ())
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        ember.roll(ember.tensor(1.0), 1, 0)
    assert ember.roll(ember.zeros(0, 2), 1, 5).shape == (0, 2)  # torch checks no dims when empty
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 3"):
        ember.rot90(x, 1, (0, 1, 0))
    with pytest.raises(RuntimeError, match="expected total dims >= 2, but got total dims = 1"):
        ember.rot90(ember.zeros(3))
    with pytest.raises(RuntimeError, match="expected rotation dims to be different, but got "
                       "dim0 = 0 and dim1 = -2"):
        ember.rot90(x, 1, (0, -2))
    with pytest.raises(RuntimeError, match="Rotation dim1 out of range, dim1 = 5"):
        ember.rot90(ember.zeros(2, 2, 2), 1, (0, 5))


# ---- diagonals ----------------------------------------------------------------------------

def _np_diag_embed(a, offset, dim1, dim2):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    for i in range(a.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., r, c] = a[..., i]
    nd = out.ndim
    return np.moveaxis(out, (-2, -1), (dim1 % nd, dim2 % nd))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.int64, ember.bool])
def test_diag_family_matches_numpy(device, dtype):
    rng = np.random.default_rng(4)
    for shape in [(0,), (1,), (4,)]:
        a, t = _both(rng, shape, dtype, device)
        for k in (-2, 0, 1, 3):
            _eq(ember.diag(t, k), np.diag(a, k))
            _eq(t.diagflat(k), np.diagflat(a, k))
    for shape in [(3, 4), (4, 3), (0, 2)]:
        a, t = _both(rng, shape, dtype, device, noncontig=True)
        for k in (-3, -1, 0, 2, 5):
            _eq(ember.diag(t, k), np.diag(a, k))
            _eq(ember.diagflat(t, k), np.diagflat(a, k))
        assert ember.diag(t).is_contiguous()
    for shape in [(3,), (2, 3), (2, 0, 3), (2, 3, 2)]:
        a, t = _both(rng, shape, dtype, device)
        nd = len(shape) + 1
        for k in (-1, 0, 2):
            for d1, d2 in [(-2, -1), (0, 1), (-1, 0), (0, -1), (1, 0)]:
                if d1 % nd == d2 % nd:
                    continue
                _eq(ember.diag_embed(t, k, d1, d2), _np_diag_embed(a, k, d1, d2))
                _eq(t.diag_embed(offset=k, dim1=d1, dim2=d2), _np_diag_embed(a, k, d1, d2))
    _eq(ember.diagflat(ember.tensor(2.0)), [[2.0]])


def test_diag_gradients():
    x = ember.from_numpy(np.random.default_rng(5).standard_normal((2, 3))).requires_grad_()
    w = np.random.default_rng(6).standard_normal((2, 4, 4))
    (ember.diag_embed(x, -1) * ember.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), np.diagonal(w, -1, -2, -1))
    m = ember.from_numpy(np.random.default_rng(7).standard_normal((3, 4))).requires_grad_()
    (ember.diag(m, 1) * ember.arange(3.0, dtype=ember.float64)).sum().backward()
    ref = np.zeros((3, 4))
    ref[[0, 1, 2], [1, 2, 3]] = [0, 1, 2]
    np.testing.assert_allclose(to_np(m.grad), ref)


def test_diag_errors():
    with pytest.raises(RuntimeError, match="diag\\(\\): Supports 1D or 2D tensors. Got 3D"):
        ember.diag(ember.zeros(2, 2, 2))
    with pytest.raises(RuntimeError, match="Got 0D"):
        ember.diag(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, 1"):
        ember.diag_embed(ember.zeros(3, 4), 0, 1, 1)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got -2"):
        ember.diag_embed(ember.tensor(1.0))


@pytest.mark.parametrize("device", DEVICES)
def test_tri_indices_match_numpy(device):
    for row, col, k in itertools.product([0, 1, 3, 5], [0, 1, 4], [-6, -2, -1, 0, 1, 3, 7]):
        ref = np.stack(np.tril_indices(row, k, col)) if row and col else np.zeros((2, 0))
        got = ember.tril_indices(row, col, k, device=device)
        assert got.dtype == ember.int64 and got.device.type == device
        _eq(got, ref.reshape(2, -1))
        ref = np.stack(np.triu_indices(row, k, col)) if row and col else np.zeros((2, 0))
        _eq(ember.triu_indices(row, col, k, device=device), ref.reshape(2, -1))
    assert ember.tril_indices(3, 3, dtype=ember.int32).dtype == ember.int32
    with pytest.raises(RuntimeError, match="row must be non-negative, got-1"):
        ember.tril_indices(-1, 3)
    with pytest.raises(RuntimeError, match="col must be non-negative, got-1"):
        ember.triu_indices(3, -1)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        ember.tril_indices(3, 3, dtype=ember.float32)


# ---- stacks, splits, atleast --------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_stacks_match_numpy(device):
    rng = np.random.default_rng(8)
    groups = [[(), (), ()], [(3,), (3,)], [(0,), (2,)], [(2, 3), (2, 1)], [(2, 3, 1), (2, 3, 4)],
              [(4, 2), (4, 2)], [(1, 2), (2,)]]
    fns = [("hstack", np.hstack), ("vstack", np.vstack), ("row_stack", np.vstack),
           ("dstack", np.dstack), ("column_stack", np.column_stack)]
    for shapes in groups:
        pairs = [_both(rng, s, ember.float64, device, noncontig=True) for s in shapes]
        arrays, tensors = [p[0] for p in pairs], [p[1] for p in pairs]
        for name, ref_fn in fns:
            try:
                ref = ref_fn(arrays)
            except ValueError:
                with pytest.raises(RuntimeError):
                    getattr(ember, name)(tensors)
                continue
            _eq(getattr(ember, name)(tensors), ref)
            _eq(getattr(ember, name)(tuple(tensors)), ref)
    mixed = ember.hstack([ember.tensor([1, 2]), ember.tensor([0.5])])
    assert mixed.dtype == ember.float32
    for name, ref_fn in fns:
        with pytest.raises(RuntimeError, match=f"{name} expects a non-empty TensorList"):
            getattr(ember, name)([])
        a, t = _both(rng, (2, 3), ember.float32, device)
        out = ember.empty(0, dtype=ember.float64, device=device)
        assert getattr(ember, name)([t, t], out=out) is out
        _eq(out, ref_fn([a, a]))
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            getattr(ember, name)([t, t], out=ember.empty(0, dtype=ember.int64, device=device))
    out = ember.empty(0, dtype=ember.int64, device=device)
    ember.diag(ember.tensor([1, 2], device=device), 1, out=out)
    _eq(out, np.diag([1, 2], 1))


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_split_matches_numpy(device):
    rng = np.random.default_rng(9)
    for shape in [(7,), (0,), (5, 6), (2, 9, 3), (3, 0, 2)]:
        a, t = _both(rng, shape, ember.int64, device, noncontig=True)
        for dim in range(-len(shape), len(shape)):
            for sections in (1, 2, 3, 4, 10):
                got = ember.tensor_split(t, sections, dim)
                ref = np.array_split(a, sections, dim)
                assert isinstance(got, tuple) and len(got) == len(ref)
                for g, r in zip(got, ref):
                    _eq(g, r)
                _eq(t.tensor_split(ember.tensor(sections), dim)[0], ref[0])
            for idx in ([], [2], [1, 3], [3, 1], [-1, 2, 10], [0, 0, 5]):
                got = ember.tensor_split(t, idx, dim)
                n = shape[dim]
                cuts = [0] + [slice(i, None).indices(n)[0] for i in idx] + [n]
                ref = [np.take(a, range(s, max(s, e)), dim) for s, e in zip(cuts, cuts[1:])]
                assert len(got) == len(idx) + 1
                for g, r in zip(got, ref):
                    _eq(g, r)
                for g, r in zip(t.tensor_split(ember.tensor(idx, dtype=ember.int64), dim), ref):
                    _eq(g, r)
    for g, r in zip(ember.tensor_split(t, sections=2, dim=-1), np.array_split(a, 2, -1)):
        _eq(g, r)
    for g, r in zip(ember.tensor_split(t, indices=[1], dim=0), np.split(a, [1], 0)):
        _eq(g, r)
    x = ember.zeros(4, 6, device=device)
    parts = ember.tensor_split(x, 2, 1)
    parts[1].fill_(1.0)  # views of x, as torch's
    assert x.sum().item() == 12.0


@pytest.mark.parametrize("device", DEVICES)
def test_hsplit_vsplit_dsplit_match_numpy(device):
    rng = np.random.default_rng(10)
    a, t = _both(rng, (4, 6, 2), ember.float32, device)
    for sections in (1, 2):
        for fn in ("hsplit", "vsplit", "dsplit"):
            got, ref = getattr(ember, fn)(t, sections), getattr(np, fn)(a, sections)
            assert len(got) == len(ref)
            for g, r in zip(got, ref):
                _eq(g, r)
    for g, r in zip(t.hsplit([1, 4]), np.hsplit(a, [1, 4])):
        _eq(g, r)
    for g, r in zip(ember.hsplit(t[0, :, 0], 3), np.hsplit(a[0, :, 0], 3)):
        _eq(g, r)
    with pytest.raises(RuntimeError, match="torch.hsplit attempted to split along dimension 1, "
                       "but the size of the dimension 6 is not divisible by the split_size 4!"):
        ember.hsplit(t, 4)
    with pytest.raises(RuntimeError, match="split_size 0!"):
        ember.vsplit(t, 0)
    with pytest.raises(RuntimeError, match="torch.hsplit requires a tensor with at least 1 "
                       "dimension, but got a tensor with 0 dimensions!"):
        ember.hsplit(ember.tensor(1.0), 1)
    with pytest.raises(RuntimeError, match="torch.vsplit requires a tensor with at least 2"):
        ember.vsplit(ember.zeros(4), 2)
    with pytest.raises(RuntimeError, match="torch.dsplit requires a tensor with at least 3"):
        t[0].dsplit(2)
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        ember.tensor_split(t, 0)
    with pytest.raises(RuntimeError, match="tensor_split expected at least a 1-dimensional"):
        ember.tensor_split(ember.tensor(1.0), 2)
    with pytest.raises(RuntimeError, match="to have dtype of long, but got Float"):
        ember.tensor_split(t, ember.tensor(2.0))
    with pytest.raises(RuntimeError, match="zero-dimensional or one-dimensional tensor, but got "
                       "a tensor with 2 dims"):
        ember.tensor_split(t, ember.tensor([[1]]))


@pytest.mark.parametrize("device", DEVICES)
def test_atleast_match_numpy(device):
    rng = np.random.default_rng(11)
    for shape in [(), (3,), (2, 3), (2, 3, 4), (0,)]:
        a, t = _both(rng, shape, ember.float32, device)
        for n in (1, 2, 3):
            fn, ref = getattr(ember, f"atleast_{n}d"), getattr(np, f"atleast_{n}d")
            _eq(fn(t), ref(a))
            got = fn(t, t)
            assert isinstance(got, tuple) and len(got) == 2
            _eq(got[1], ref(a))
            got = fn([t])
            assert isinstance(got, tuple) and len(got) == 1
            _eq(got[0], ref(a))
    assert ember.atleast_1d() == ()
    t = ember.zeros(3)
    v = ember.atleast_3d(t)
    v.fill_(2.0)  # a view
    assert t.sum().item() == 6.0


# ---- broadcasting, meshgrid, products -------------------------------------------------------

def test_broadcast_shapes_matches_numpy():
    cases = [[(3, 1), (2,)], [(2,), (3, 1), (1, 1, 1)], [(0,), (1,)], [(5, 0, 2), (0, 1)],
             [3, (2, 1)], [()], []]
    for shapes in cases:
        got = ember.broadcast_shapes(*shapes)
        assert isinstance(got, ember.Size)
        assert tuple(got) == np.broadcast_shapes(*shapes)
    with pytest.raises(RuntimeError, match=r"Attempting to broadcast a dimension of length 2 at "
                       r"-1! Mismatching argument at index 1 had \(2,\); but expected shape should "
                       r"be broadcastable to \[3\]"):
        ember.broadcast_shapes((3,), (2,))
    with pytest.raises(ValueError, match="Attempting to broadcast a dimension with negative "
                       "length!"):
        ember.broadcast_shapes((1,), (-1,))


@pytest.mark.parametrize("device", DEVICES)
def test_broadcast_to_and_tensors_match_numpy(device):
    rng = np.random.default_rng(12)
    a, t = _both(rng, (3, 1), ember.int64, device)
    b, u = _both(rng, (4,), ember.int64, device)
    _eq(ember.broadcast_to(t, (2, 3, 4)), np.broadcast_to(a, (2, 3, 4)))
    _eq(t.broadcast_to((3, -1)), a)
    got = ember.broadcast_tensors(t, u, ember.tensor(5, device=device))
    ref = np.broadcast_arrays(a, b, np.array(5))
    for g, r in zip(got, ref):
        _eq(g, r)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(4\) must match the size of "
                       r"tensor b \(3\) at non-singleton dimension 1"):
        ember.broadcast_tensors(ember.zeros(3, 4), ember.zeros(3))
    with pytest.raises(RuntimeError):
        ember.broadcast_to(ember.zeros(3, 4), (2, 4))


@pytest.mark.parametrize("device", DEVICES)
def test_meshgrid_matches_numpy(device):
    rng = np.random.default_rng(13)
    pairs = [_both(rng, s, ember.float32, device) for s in [(3,), (4,), (), (2,), (0,)]]
    for r in (1, 2, 3, 4):
        for combo in itertools.combinations(pairs, r):
            arrays = [p[0].reshape(-1) for p in combo]
            tensors = [p[1] for p in combo]
            for indexing in ("ij", "xy"):
                got = ember.meshgrid(*tensors, indexing=indexing)
                ref = np.meshgrid(*arrays, indexing=indexing)
                assert len(got) == len(ref)
                for g, rr in zip(got, ref):
                    _eq(g, rr)
                got = ember.meshgrid(tensors, indexing=indexing)
                _eq(got[0], ref[0])
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        got = ember.meshgrid(ember.zeros(2), ember.zeros(3))
    assert got[0].shape == (2, 3)
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: '
                       'foo'):
        ember.meshgrid(ember.zeros(2), indexing="foo")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list"):
        ember.meshgrid(ember.zeros(2, 2), indexing="ij")
    with pytest.raises(RuntimeError, match="meshgrid expects all tensors to have the same dtype"):
        ember.meshgrid(ember.zeros(2), ember.zeros(2, dtype=ember.int64), indexing="ij")
    with pytest.raises(RuntimeError, match="meshgrid expects a non-empty TensorList"):
        ember.meshgrid([], indexing="ij")


@pytest.mark.parametrize("device", DEVICES)
def test_cartesian_prod_and_combinations_match_itertools(device):
    rng = np.random.default_rng(14)
    a, t = _both(rng, (4,), ember.int64, device)
    b, u = _both(rng, (3,), ember.int64, device)
    _eq(ember.cartesian_prod(t, u), list(itertools.product(a, b)))
    _eq(ember.cartesian_prod(t, u, t), list(itertools.product(a, b, a)))
    assert ember.cartesian_prod(t) is t
    e = ember.zeros(0, dtype=ember.int64, device=device)
    assert ember.cartesian_prod(t, e).shape == (0, 2)
    for r in range(0, 6):
        for rep in (False, True):
            got = ember.combinations(t, r, with_replacement=rep)
            fn = itertools.combinations_with_replacement if rep else itertools.combinations
            if r == 0:
                ref = np.zeros((0,), np.int64)
            else:
                ref = np.array(list(fn(a, r)), dtype=np.int64).reshape(-1, r)
            _eq(got, ref)
    _eq(ember.combinations(t), list(itertools.combinations(a, 2)))
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        ember.combinations(ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="Expect a non-negative number, but got -1"):
        ember.combinations(t, -1)
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        ember.cartesian_prod(ember.zeros(2, 2))


def _np_block_diag(*arrays):
    arrays = [np.atleast_2d(a) for a in arrays]
    dtype = np.result_type(*arrays)
    out = np.zeros((sum(a.shape[0] for a in arrays), sum(a.shape[1] for a in arrays)), dtype)
    r = c = 0
    for a in arrays:
        out[r:r + a.shape[0], c:c + a.shape[1]] = a
        r, c = r + a.shape[0], c + a.shape[1]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_block_diag_matches_numpy(device):
    rng = np.random.default_rng(15)
    parts = [_both(rng, s, ember.float64, device, noncontig=True)
             for s in [(2, 3), (), (4,), (0, 2), (3, 0), (1, 1)]]
    for r in range(1, 4):
        for combo in itertools.permutations(parts, r):
            _eq(ember.block_diag(*[p[1] for p in combo]), _np_block_diag(*[p[0] for p in combo]))
    mixed = ember.block_diag(ember.ones(2, dtype=ember.int32, device=device),
                             ember.ones(2, 2, device=device))
    assert mixed.dtype == ember.float32 and mixed.shape == (3, 4)
    assert ember.block_diag().shape == (1, 0)
    with pytest.raises(RuntimeError, match="torch.block_diag: Input tensors must have 2 or fewer "
                       "dimensions. Input 1 has 3 dimensions"):
        ember.block_diag(ember.ones(2), ember.ones(2, 2, 2))
    x = ember.from_numpy(rng.standard_normal((2, 3))).requires_grad_()
    y = ember.from_numpy(rng.standard_normal(2)).requires_grad_()
    w = rng.standard_normal((3, 5))
    (ember.block_diag(x, y) * ember.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), w[:2, :3])
    np.testing.assert_allclose(to_np(y.grad), w[2, 3:])


def test_moveaxis_matches_numpy():
    a, t = _both(np.random.default_rng(16), (2, 3, 4), ember.float32)
    for src, dst in [(0, 2), (-1, 0), ((0, 1), (2, 0))]:
        _eq(ember.moveaxis(t, src, dst), np.moveaxis(a, src, dst))
        _eq(t.moveaxis(src, dst), np.moveaxis(a, src, dst))


# ---- unfold, repeat, tile, repeat_interleave ----------------------------------------------

def _np_unfold(a, dim, size, step):
    if a.ndim == 0:
        return a.reshape(1)[:size]
    dim %= a.ndim
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    return np.take(w, range(0, w.shape[dim], step), axis=dim)


@pytest.mark.parametrize("device", DEVICES)
def test_unfold_matches_numpy(device):
    rng = np.random.default_rng(17)
    for shape in [(7,), (3, 5), (4, 0, 6), ()]:
        a, t = _both(rng, shape, ember.float32, device, noncontig=True)
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            n = shape[dim] if shape else 1
            for size in range(0, n + 1):
                for step in (1, 2, 3):
                    got = t.unfold(dim, size, step)
                    _eq(got, _np_unfold(a, dim, size, step))
    t = ember.arange(10.0, device=device)
    v = t.unfold(0, 4, 2)
    assert v._is_view()  # a view, as torch's
    v[0, 0] = 100.0
    assert t[0].item() == 100.0
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 0 is 10 but size "
                       "is 11"):
        t.unfold(0, 11, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        t.unfold(0, 2, 0)
    with pytest.raises(RuntimeError, match="size is -1 but must be >= 0"):
        t.unfold(0, -1, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.unfold(1, 1, 1)


@pytest.mark.parametrize("size,step", [(3, 1), (2, 2), (3, 4), (1, 1)])
def test_unfold_gradient(size, step):
    _index_grad(lambda x: x.unfold(1, size, step), (2, 7))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.int64, ember.bool])
def test_repeat_and_tile_match_numpy(device, dtype):
    rng = np.random.default_rng(18)
    for shape in [(), (3,), (2, 3), (0, 2), (2, 1, 3)]:
        a, t = _both(rng, shape, dtype, device, noncontig=True)
        for reps in [(), (2,), (1, 3), (2, 0, 2), (3, 1, 1, 2), (1, 1, 1)]:
            if len(reps) >= len(shape):
                _eq(t.repeat(*reps), np.tile(a, reps) if reps else a)
                if reps:
                    _eq(t.repeat(reps), np.tile(a, reps))
            else:
                with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can "
                                   "not be smaller than number of dimensions of tensor"):
                    t.repeat(*reps)
            _eq(ember.tile(t, reps), np.tile(a, reps) if reps else a)
            if reps:
                _eq(t.tile(*reps), np.tile(a, reps))
    x = ember.ones(2, device=device)
    r = x.repeat(1)
    r.fill_(3.0)  # a copy, also where nothing repeats
    assert x.sum().item() == 2.0
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -4: "
                       r"\[6, -4\]"):
        ember.zeros(3, 4).repeat(2, -1)


@pytest.mark.parametrize("device", DEVICES)
def test_repeat_interleave_matches_numpy(device):
    rng = np.random.default_rng(19)
    for shape in [(), (4,), (3, 2), (0, 3), (2, 3, 2)]:
        a, t = _both(rng, shape, ember.float32, device, noncontig=True)
        for reps in (0, 1, 3):
            _eq(ember.repeat_interleave(t, reps), np.repeat(a, reps))
            _eq(t.repeat_interleave(ember.tensor([reps], device=device)), np.repeat(a, reps))
            for dim in range(len(shape)):
                _eq(t.repeat_interleave(reps, dim), np.repeat(a, reps, dim))
        for dim in range(len(shape)):
            counts = rng.integers(0, 4, shape[dim])
            got = ember.repeat_interleave(t, ember.tensor(counts, device=device), dim=dim)
            _eq(got, np.repeat(a, counts, dim))
            got = t.repeat_interleave(ember.tensor(counts, dtype=ember.int32, device=device),
                                      dim - len(shape))
            _eq(got, np.repeat(a, counts, dim))
    counts = np.array([2, 0, 3, 1])
    got = ember.repeat_interleave(ember.tensor(counts, device=device))
    assert got.dtype == ember.int64
    _eq(got, np.repeat(np.arange(4), counts))
    _eq(ember.repeat_interleave(ember.tensor([], dtype=ember.int64)), np.zeros(0))
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1\)"):
        ember.repeat_interleave(ember.tensor(1.0), 2, 0)  # as torch's (it unsqueezes at dim + 1)
    with pytest.raises(RuntimeError, match="Repeats must be non-negative"):
        ember.repeat_interleave(ember.zeros(3), -1)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        ember.repeat_interleave(ember.zeros(3), ember.tensor([1, -1, 1]), 0)
    with pytest.raises(RuntimeError, match=r"repeats must have the same size as input along dim, "
                       r"but got repeats.size\(0\) = 2 and input.size\(0\) = 3"):
        ember.repeat_interleave(ember.zeros(3, 4), ember.tensor([1, 1]), 0)
    with pytest.raises(RuntimeError, match="repeats must be 0-dim or 1-dim tensor"):
        ember.repeat_interleave(ember.zeros(3), ember.tensor([[1]]), 0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        ember.repeat_interleave(ember.zeros(3), ember.tensor([1.0, 1.0, 1.0]), 0)
    with pytest.raises(RuntimeError, match="repeat_interleave only accept 1D vector as repeat"):
        ember.repeat_interleave(ember.tensor([[1, 2]]))


@pytest.mark.parametrize("name,fn", [
    ("flip", lambda x: x.flip(0, 2)),
    ("roll", lambda x: ember.roll(x, (1, -2), (1, 2))),
    ("roll_flat", lambda x: ember.roll(x, 5)),
    ("rot90", lambda x: ember.rot90(x, 3, (2, 0))),
    ("repeat", lambda x: x.repeat(2, 1, 1, 2)),
    ("tile", lambda x: x.tile((2,))),
    ("repeat_interleave", lambda x: x.repeat_interleave(2, 1)),
    ("repeat_interleave_t", lambda x: x.repeat_interleave(ember.tensor([2, 0, 1]), 1)),
    ("repeat_interleave_flat", lambda x: x.repeat_interleave(3)),
    ("tensor_split", lambda x: ember.tensor_split(x, [1, 3], 2)),
    ("hstack", lambda x: ember.hstack([x, x[:, :1]])),
    ("dstack", lambda x: ember.dstack([x, x])),
    ("broadcast_to", lambda x: ember.broadcast_to(x, (2, 2, 3, 4))),
    ("meshgrid", lambda x: ember.meshgrid(x[0, 0], x[1, 1], indexing="xy")),
    ("cartesian_prod", lambda x: ember.cartesian_prod(x[0, 0], x[1, 2])),
    ("combinations", lambda x: ember.combinations(x[0, 1], 3)),
    ("diag2d", lambda x: ember.diag(x[0], -1)),
    ("unfold", lambda x: x.unfold(2, 2, 1)),
])
def test_gradients_are_the_adjoint(name, fn):
    _index_grad(fn, (2, 3, 4))


@gpu
def test_composites_on_cuda_match_cpu():
    rng = np.random.default_rng(20)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    c, g = ember.from_numpy(a), ember.from_numpy(a).cuda()
    calls = [lambda x: x.flip(0, 2), lambda x: ember.roll(x, (2, -1), (0, 2)),
             lambda x: ember.rot90(x, 1, (1, 2)), lambda x: ember.diag_embed(x, 1),
             lambda x: x.unfold(2, 3, 1), lambda x: x.repeat_interleave(ember.tensor(
                 [1, 0, 2, 1], device=x.device), 1), lambda x: ember.block_diag(x[0], x[1]),
             lambda x: ember.combinations(x[0, 0], 2), lambda x: x.tile((2, 1, 1, 2))]
    for f in calls:
        got = f(g)
        assert got.device.type == "cuda"
        np.testing.assert_array_equal(to_np(got), to_np(f(c)))
    _eq(ember.tril_indices(4, 5, 1, device="cuda"), np.stack(np.tril_indices(4, 1, 5)))
