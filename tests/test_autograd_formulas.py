"""Every backward formula against finite differences (ember.autograd.gradcheck, float64),
on the CPU and (marked gpu) on CUDA: views, copies, joins, indexing and matrix products.
The formulas of the math ops are checked in test_autograd_math.py."""
import warnings

import pytest

import ember
from autograd_util import leaf, const

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def _reversed_T(x):
    """x.T of 3 dims (deprecated there in torch 2.11: a UserWarning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return x.T


# name -> (function of the inputs, input shapes); every input requires grad.
VIEWS = {
    "view": (lambda x: x.view(3, 2), [(2, 3)]),
    "view_minus_one": (lambda x: x.view(-1), [(2, 3)]),
    "reshape_copy": (lambda x: x.t().reshape(6), [(2, 3)]),
    "flatten": (lambda x: x.flatten(1), [(2, 3, 2)]),
    "squeeze": (lambda x: x.squeeze(), [(2, 1, 3)]),
    "squeeze_dim": (lambda x: x.squeeze(1), [(2, 1, 3)]),
    "unsqueeze": (lambda x: x.unsqueeze(-1), [(2, 3)]),
    "permute": (lambda x: x.permute(2, 0, 1), [(2, 3, 4)]),
    "transpose": (lambda x: x.transpose(0, 2), [(2, 3, 4)]),
    "t": (lambda x: x.t(), [(2, 3)]),
    "T": (lambda x: _reversed_T(x), [(2, 3, 2)]),
    "mT": (lambda x: x.mT, [(2, 3, 2)]),
    "movedim": (lambda x: x.movedim(0, -1), [(2, 3, 4)]),
    "expand": (lambda x: x.expand(3, 2, 4), [(2, 1)]),
    "expand_as": (lambda x: x.expand_as(ember.zeros(4, 3)), [(3,)]),
    "narrow": (lambda x: x.narrow(1, 1, 2), [(2, 4)]),
    "slice_step": (lambda x: x[:, 1::2], [(3, 5)]),
    "select": (lambda x: x.select(1, 2), [(2, 4)]),
    "getitem_int": (lambda x: x[1], [(3, 2)]),
    "getitem_mixed": (lambda x: x[1:, None, ..., 0], [(3, 2, 2)]),
    "diagonal": (lambda x: x.diagonal(1), [(3, 4)]),
    "as_strided": (lambda x: x.as_strided((2, 2), (1, 3)), [(3, 3)]),
    "split": (lambda x: x.split(2, 1), [(2, 5)]),
    "split_sizes": (lambda x: x.split([1, 3], 0), [(4, 2)]),
    "chunk": (lambda x: x.chunk(3, 0), [(5, 2)]),
    "unbind": (lambda x: x.unbind(1), [(2, 3)]),
    "iter": (lambda x: tuple(x), [(3, 2)]),
}

COPIES = {
    "clone": (lambda x: x.clone(), [(2, 3)]),
    "contiguous": (lambda x: x.t().contiguous(), [(2, 3)]),
    "cat": (lambda a, b: ember.cat([a, b], 1), [(2, 3), (2, 1)]),
    "cat_negative_dim": (lambda a, b: ember.cat([a, b, a], -2), [(1, 3), (2, 3)]),
    "stack": (lambda a, b: ember.stack([a, b], 1), [(2, 3), (2, 3)]),
    "index": (lambda x: x[ember.tensor([2, 0, 2])], [(3, 2)]),
    "index_2d": (lambda x: x[ember.tensor([0, 1]), ember.tensor([2, 2])], [(2, 3)]),
    "index_mask": (lambda x: x[ember.tensor([True, False, True])], [(3, 2)]),
    "index_after_slice": (lambda x: x[:, ember.tensor([1, 0])], [(3, 2)]),
}


def setitem_copy(x, v):
    y = x.clone()
    y[1:, 0] = v
    return y


def setitem_advanced(x, v):
    y = x.clone()
    y[ember.tensor([0, 2])] = v
    return y


def copy_into_view(x, v):
    y = x.clone()
    y.t()[1].copy_(v)
    return y


def fill_view(x):
    y = x.clone()
    y[0].fill_(2.0)
    return y


INPLACE = {
    "setitem_copy": (setitem_copy, [(3, 2), (2,)]),
    "setitem_broadcast": (setitem_copy, [(3, 2), (1,)]),
    "setitem_advanced": (setitem_advanced, [(3, 2), (2,)]),
    "copy_into_view": (copy_into_view, [(3, 2), (3,)]),
    "fill_view": (fill_view, [(3, 2)]),
}

LINALG = {
    "mm": (lambda a, b: a.mm(b), [(2, 3), (3, 4)]),
    "mm_transposed": (lambda a, b: a.t().mm(b.t()), [(3, 2), (4, 3)]),
    "bmm": (lambda a, b: ember.bmm(a, b), [(2, 2, 3), (2, 3, 2)]),
    "matmul_2d": (lambda a, b: a @ b, [(2, 3), (3, 2)]),
    "matmul_vec_vec": (lambda a, b: ember.matmul(a, b), [(3,), (3,)]),
    "matmul_mat_vec": (lambda a, b: ember.matmul(a, b), [(2, 3), (3,)]),
    "matmul_vec_mat": (lambda a, b: ember.matmul(a, b), [(3,), (3, 2)]),
    "matmul_batched_broadcast": (lambda a, b: ember.matmul(a, b), [(2, 1, 2, 3), (3, 3, 2)]),
    "matmul_batched_vec": (lambda a, b: ember.matmul(a, b), [(2, 2, 3), (3,)]),
    "mv": (lambda m, v: ember.mv(m, v), [(2, 3), (3,)]),
    "dot": (lambda a, b: ember.dot(a, b), [(4,), (4,)]),
    "outer": (lambda a, b: ember.outer(a, b), [(2,), (3,)]),
    "addmm": (lambda s, a, b: ember.addmm(s, a, b), [(2, 4), (2, 3), (3, 4)]),
    "addmm_scaled_broadcast": (lambda s, a, b: ember.addmm(s, a, b, beta=0.5, alpha=-2.0),
                               [(4,), (2, 3), (3, 4)]),
    "addmv": (lambda s, m, v: ember.addmv(s, m, v, beta=2.0, alpha=0.5), [(2,), (2, 3), (3,)]),
    "baddbmm": (lambda s, a, b: ember.baddbmm(s, a, b, alpha=1.5), [(2, 2, 2), (2, 2, 3),
                                                                    (2, 3, 2)]),
    "linear": (lambda x, w, b: ember.nn.functional.linear(x, w, b), [(4, 3), (2, 3), (2,)]),
    "linear_3d": (lambda x, w, b: ember.nn.functional.linear(x, w, b), [(2, 2, 3), (2, 3),
                                                                        (2,)]),
    "linear_no_bias": (lambda x, w: ember.nn.functional.linear(x, w), [(4, 3), (2, 3)]),
    "linear_1d_input": (lambda x, w, b: ember.nn.functional.linear(x, w, b), [(3,), (2, 3),
                                                                              (2,)]),
    "einsum_matmul": (lambda a, b: ember.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)]),
    "einsum_implicit": (lambda a, b: ember.einsum("ij,jk", a, b), [(2, 3), (3, 2)]),
    "einsum_batch_ellipsis": (lambda a, b: ember.einsum("...ij,...jk->...ik", a, b),
                              [(2, 2, 3), (2, 3, 2)]),
    "einsum_outer_sum": (lambda a, b: ember.einsum("i,jk->ij", a, b), [(2,), (3, 2)]),
    "einsum_three": (lambda a, b, c: ember.einsum("ij,jk,k->i", a, b, c), [(2, 3), (3, 2),
                                                                          (2,)]),
}


def run(cases, name, device):
    fn, shapes = cases[name]
    inputs = [leaf(*s, device=device) for s in shapes]
    assert ember.autograd.gradcheck(fn, tuple(inputs))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views(name, device):
    run(VIEWS, name, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(COPIES))
def test_copies_joins_indexing(name, device):
    run(COPIES, name, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_writes(name, device):
    run(INPLACE, name, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(LINALG))
def test_matrix_products(name, device):
    run(LINALG, name, device)


@pytest.mark.parametrize("device", DEVICES)
def test_second_derivatives_of_products(device):
    a, b = leaf(2, 3, device=device), leaf(3, 2, device=device)
    assert ember.autograd.gradgradcheck(lambda x, y: ember.matmul(x, y), (a, b))
    assert ember.autograd.gradgradcheck(lambda x, y: x.t().mm(y.t()), (leaf(3, 2, device=device),
                                                                       leaf(2, 3, device=device)))


@pytest.mark.parametrize("device", DEVICES)
def test_dtype_round_trip(device):
    # float32 in the middle: finite differences need a larger step
    assert ember.autograd.gradcheck(lambda x: x.float().double(), (leaf(2, 3, device=device),),
                                    eps=1e-3)


@pytest.mark.gpu
def test_to_device_gradient_comes_back_to_the_cpu():
    x = leaf(2, 3)
    assert ember.autograd.gradcheck(lambda t: t.cuda().t().cpu(), (x,))
    y = x.to("cuda")
    assert y.grad_fn.name() == "ToCopyBackward0"
    y.backward(ember.ones(2, 3, dtype=ember.float64, device="cuda"))
    assert x.grad.device.type == "cpu"


def test_out_forms_refuse_inputs_that_require_grad():
    a, b = leaf(2, 2), leaf(2, 2)
    out = ember.empty(2, 2, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic "
                                           "differentiation, but one of the arguments requires "
                                           "grad"):
        ember.mm(a, b, out=out)
    with ember.no_grad():
        ember.mm(a, b, out=out)
    ember.mm(a.detach(), b.detach(), out=out)


def test_einsum_with_repeated_subscript_is_refused_for_grad():
    x = leaf(3, 3)
    with pytest.raises(RuntimeError, match="repeats a subscript"):
        ember.einsum("ii->i", x)
    assert ember.einsum("ii->i", x.detach()).shape == (3,)
