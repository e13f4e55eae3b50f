"""The shape composites (python/ember/_composite_shape.py) against torch, where it is
installed: the same calls (flip/roll/rot90, diag*, tril/triu_indices, stacks and splits,
atleast_*d, broadcasting, meshgrid, products, unfold/repeat/tile, repeat_interleave) on
random data and on edge shapes (0-d, empty, size 1), values, dtypes, shapes and the
errors' types. tests/test_shape_ops.py checks them against NumPy."""
import warnings

import numpy as np
import pytest

import ember

def _torch_cases(mod, x, i):
    """The same calls on ember or torch (mod): x a float (3, 4, 5) tensor, i an int64 one."""
    return {
        "flip": lambda: mod.flip(x, (0, 2)),
        "fliplr": lambda: mod.fliplr(i),
        "roll": lambda: mod.roll(x, (1, -7), (0, 2)),
        "roll_flat": lambda: mod.roll(i, 13),
        "rot90": lambda: mod.rot90(x, -3, (2, 1)),
        "diag": lambda: mod.diag(x[0], 2),
        "diag_embed": lambda: mod.diag_embed(i, -1, 0, 2),
        "diagflat": lambda: mod.diagflat(i[0], 1),
        "tril_indices": lambda: mod.tril_indices(4, 6, -1),
        "triu_indices": lambda: mod.triu_indices(5, 3, 1, dtype=mod.int32),
        "hstack": lambda: mod.hstack([i, i]),
        "vstack": lambda: mod.vstack([x[0, 0], x[1, 1]]),
        "dstack": lambda: mod.dstack([i[0], i[1]]),
        "column_stack": lambda: mod.column_stack([x[0, 0], x[1].T]),
        "tensor_split": lambda: mod.tensor_split(x, 3, 2),
        "tensor_split_idx": lambda: mod.tensor_split(x, [-1, 2, 10], 1),
        "hsplit": lambda: mod.hsplit(i, [1, 3]),
        "atleast_3d": lambda: mod.atleast_3d(x[0, 0]),
        "broadcast_tensors": lambda: mod.broadcast_tensors(x[:, :1], i[0]),
        "meshgrid": lambda: mod.meshgrid(x[0, 0], x[1, 1, :3], indexing="xy"),
        "cartesian_prod": lambda: mod.cartesian_prod(i[0, 0], i[1, 1], i[2, 2]),
        "combinations": lambda: mod.combinations(i[0, 0], 3, True),
        "block_diag": lambda: mod.block_diag(x[0], i[1, 1], i[2, 2, 0]),
        "unfold": lambda: x.unfold(1, 2, 1),
        "repeat": lambda: i.repeat(2, 1, 1, 3),
        "tile": lambda: mod.tile(x, (2,)),
        "repeat_interleave": lambda: mod.repeat_interleave(i, 2, 1),
        "repeat_interleave_t": lambda: i.repeat_interleave(i[0, :, 0] % 3, 1),
        "moveaxis": lambda: mod.moveaxis(x, (0, 1), (2, 0)),
    }


def _errors(mod, x):
    return {
        "flip_dup": lambda: mod.flip(x, (0, 0)),
        "flip_oob": lambda: x.flip(3),
        "roll_align": lambda: mod.roll(x, (1, 2), 0),
        "rot90_same": lambda: mod.rot90(x, 1, (0, 3)),
        "diag_3d": lambda: mod.diag(x),
        "tensor_split_0": lambda: mod.tensor_split(x, 0),
        "hsplit": lambda: mod.hsplit(x, 3),
        "broadcast_shapes": lambda: mod.broadcast_shapes((3,), (2,)),
        "block_diag": lambda: mod.block_diag(x),
        "unfold": lambda: x.unfold(1, 5, 1),
        "repeat": lambda: x.repeat(2),
        "ri": lambda: mod.repeat_interleave(x, mod.tensor([1, 2]), 0),
        "comb": lambda: mod.combinations(x),
        "tril": lambda: mod.tril_indices(-1, 3),
        "meshgrid": lambda: mod.meshgrid(x, indexing="ij"),
    }


def _to_np(v):
    return v.detach().cpu().numpy() if hasattr(v, "detach") else v


def test_against_torch(torch):
    rng = np.random.default_rng(21)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    ia = rng.integers(-9, 9, (3, 4, 5))
    e = _torch_cases(ember, ember.from_numpy(a), ember.from_numpy(ia))
    t = _torch_cases(torch, torch.from_numpy(a), torch.from_numpy(ia))
    for name in e:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, ref = e[name](), t[name]()
        got = got if isinstance(got, tuple) else (got,)
        ref = ref if isinstance(ref, tuple) else (ref,)
        assert len(got) == len(ref), name
        for g, r in zip(got, ref):
            assert str(g.dtype).split(".")[-1] == str(r.dtype).split(".")[-1], name
            assert tuple(g.shape) == tuple(r.shape), name
            np.testing.assert_array_equal(_to_np(g), _to_np(r), err_msg=name)
    e = _errors(ember, ember.from_numpy(a))
    t = _errors(torch, torch.from_numpy(a))
    for name in e:
        with pytest.raises(Exception) as ref:
            t[name]()
        with pytest.raises(type(ref.value)) as got:
            e[name]()
        # meshgrid's message ends with the tensor, printed (in torch's C++ format there)
        cut = "but got: " if name == "meshgrid" else "\n"
        assert str(got.value).split(cut)[0] == str(ref.value).split(cut)[0], name


def _outcome(mod, f):
    """('ok', [(dtype, shape, values)...]) or ('err', type name, first line of message)."""
    try:
        r = f(mod)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        # (torch's C++ warnings end with where they were triggered)
        return ("err", type(e).__name__, str(e).split("\n")[0].split(" (Triggered internally")[0])
    r = r if isinstance(r, (tuple, list)) else (r,)
    return ("ok", [(str(t.dtype).split(".")[-1], tuple(t.shape), t.detach().cpu().numpy())
                   for t in r])


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (2, 3), (0, 2), (3, 1), (2, 0, 3)])
def test_edges_against_torch(torch, shape):
    """Every dim (valid or not) of each function on empty, 0-d and small int tensors:
    the same values, dtypes and shapes as torch, or the same exception and message."""
    a = np.random.default_rng(22).integers(-5, 5, shape)
    nd = len(shape)
    cases = {}
    for d in range(-nd - 1, nd + 1):
        cases.update({
            f"flip{d}": lambda m, d=d: m.tensor(a).flip(d),
            f"roll{d}": lambda m, d=d: m.roll(m.tensor(a), 2, d),
            f"unfold{d}": lambda m, d=d: m.tensor(a).unfold(d, 2, 1),
            f"diff{d}": lambda m, d=d: m.diff(m.tensor(a), 1, d),
            f"repeat_interleave{d}": lambda m, d=d: m.repeat_interleave(m.tensor(a), 2, d),
            f"tensor_split{d}": lambda m, d=d: m.tensor_split(m.tensor(a), 2, d),
            f"aminmax{d}": lambda m, d=d: tuple(m.aminmax(m.tensor(a), dim=d)),
            f"cumulative_trapezoid{d}": lambda m, d=d: m.cumulative_trapezoid(m.tensor(a), dim=d),
            f"trapezoid{d}": lambda m, d=d: m.trapezoid(m.tensor(a), dim=d),
            f"gradient{d}": lambda m, d=d: m.gradient(m.tensor(a), dim=d),
        })
        for d2 in range(-nd - 1, nd + 1):
            cases.update({
                f"rot90{d},{d2}": lambda m, d=d, d2=d2: m.rot90(m.tensor(a), 1, (d, d2)),
                f"diag_embed{d},{d2}": lambda m, d=d, d2=d2: m.diag_embed(m.tensor(a), 1, d, d2),
                f"roll{d},{d2}": lambda m, d=d, d2=d2: m.roll(m.tensor(a), (1, -1), (d, d2)),
                f"flip{d},{d2}": lambda m, d=d, d2=d2: m.flip(m.tensor(a), (d, d2)),
            })
    cases.update({
        "diag": lambda m: m.diag(m.tensor(a)),
        "diagflat": lambda m: m.diagflat(m.tensor(a), -1),
        "atleast": lambda m: (m.atleast_1d(m.tensor(a)), m.atleast_2d(m.tensor(a)),
                              m.atleast_3d(m.tensor(a))),
        "stacks": lambda m: (m.hstack([m.tensor(a)] * 2), m.vstack([m.tensor(a)] * 2),
                             m.dstack([m.tensor(a)] * 2), m.column_stack([m.tensor(a)] * 2)),
        "hsplit": lambda m: m.hsplit(m.tensor(a), 1),
        "vsplit": lambda m: m.vsplit(m.tensor(a), [1]),
        "dsplit": lambda m: m.dsplit(m.tensor(a), 2),
        "block_diag": lambda m: m.block_diag(m.tensor(a), m.tensor(a)),
        "cartesian_prod": lambda m: m.cartesian_prod(m.tensor(a), m.tensor(a)),
        "combinations": lambda m: m.combinations(m.tensor(a), 2),
        "tile": lambda m: m.tile(m.tensor(a), (2, 1)),
        "repeat": lambda m: m.tensor(a).repeat(2, 1, 1),
        "gradient2": lambda m: m.gradient(m.tensor(a).double(), edge_order=2),
        "aminmax": lambda m: tuple(m.aminmax(m.tensor(a))),
        "std_mean": lambda m: m.std_mean(m.tensor(a).double(), 0),
        "cross": lambda m: m.cross(m.tensor(a), m.tensor(a), dim=0),
        "linalg.cross": lambda m: m.linalg.cross(m.tensor(a), m.tensor(a)),
        "signbit": lambda m: m.signbit(m.tensor(a)),
        "sinc": lambda m: m.sinc(m.tensor(a)),
        "xlogy": lambda m: m.xlogy(m.tensor(a), m.tensor(a)),
    })
    for name, f in cases.items():
        e, t = _outcome(ember, f), _outcome(torch, f)
        assert e[0] == t[0], (name, e[:3] if e[0] == "err" else "ok", t[:3] if t[0] == "err"
                              else "ok")
        if e[0] == "err":
            assert e[1:] == t[1:], name
            continue
        assert len(e[1]) == len(t[1]), name
        for (ed, es, ev), (td, ts, tv) in zip(e[1], t[1]):
            assert (ed, es) == (td, ts), name
            np.testing.assert_allclose(ev, tv, rtol=1e-6, atol=1e-12, equal_nan=True,
                                       err_msg=name)
