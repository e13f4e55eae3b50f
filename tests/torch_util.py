"""Helpers shared by the tests that compare with torch, the oracle (the `torch` and
`torch_fp32` fixtures are in conftest.py): the same values on both sides, ember tensors
seen from torch, parameters copied across, dtype names."""
import ember


def dtype_name(dtype):
    """'float32' for ember.float32 and for torch.float32."""
    return str(dtype).split(".")[-1]


def pair(torch, a, dtype, requires_grad=False, device="cuda"):
    """The same values a (NumPy) as an ember and a torch tensor of dtype (a name,
    'float32'): both made from a's values on the device, then converted there."""
    e = ember.tensor(a, device=device).to(getattr(ember, dtype))
    t = torch.tensor(a, device=device).to(getattr(torch, dtype))
    if requires_grad:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def to_torch(e, torch):
    """A torch view of an ember tensor (zero-copy, through DLPack)."""
    return torch.from_dlpack(e)


def copy_params(torch, src, dst):
    """Copies ember parameters src into torch parameters dst, in order."""
    with torch.no_grad():
        for ep, tp in zip(src, dst):
            tp.copy_(torch.from_numpy(ep.detach().cpu().numpy()))


def edge_outcome(module, fn):
    """fn(module)'s (shape, values), or (exception type, message) where it raises (its
    warnings ignored): one side of an edge-case table compared across ember and torch."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(module)
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        return type(e), str(e)
    return tuple(r.shape), r.tolist()


def assert_same_outcome(got, expected):
    """An edge_outcome against the table's: the exception type and the message's start,
    or the shape and values."""
    if isinstance(expected[0], type):
        assert got[0] is expected[0] and got[1].startswith(expected[1]), got
    else:
        assert got == expected
