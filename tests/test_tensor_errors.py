"""Bad input raises a clear Python exception, leaves its inputs untouched, and the
process keeps working."""
import re

import numpy as np
import pytest

import ember


def test_bad_view_and_reshape_shapes():
    t = ember.arange(12)
    with pytest.raises(RuntimeError, match=r"shape '\[3, 5\]' is invalid for input of size 12"):
        t.view(3, 5)
    with pytest.raises(RuntimeError, match=r"shape '\[5, -1\]' is invalid for input of size 12"):
        t.reshape(5, -1)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.view(-1, -1)
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        t.view(-2, 6)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        t.view(2.0, 6)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        t.view("a")
    assert t.tolist() == list(range(12)) and t.shape == (12,)


def test_dimension_out_of_range():
    t = ember.zeros(2, 3)
    for call in (lambda: t.size(2), lambda: t.transpose(0, 2),
                 lambda: t.select(-3, 0), lambda: t.squeeze(5), lambda: t.flatten(0, 4)):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                                             r"of \[-2, 1\]"):
            call()
    with pytest.raises(IndexError, match=r"\[-3, 2\], but got 3"):
        t.unsqueeze(3)
    with pytest.raises(IndexError, match=re.escape("select(): index 3 out of range for tensor of "
                                                   "size [2, 3] at dimension 1")):
        t.select(1, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        t[:, 3]


def test_negative_sizes():
    for fn in (ember.empty, ember.zeros, ember.ones):
        with pytest.raises(RuntimeError, match=r"negative dimension -1: \[2, -1\]"):
            fn(2, -1)
    with pytest.raises(RuntimeError, match="negative dimension"):
        ember.full((-3,), 1.0)
    with pytest.raises(RuntimeError, match="greater or equal to 0"):
        ember.eye(-1)


@pytest.mark.parametrize("size", [(2**62,), (2**31, 2**31, 4), (2**62, 2**62), (2**63 - 1, 2)])
def test_sizes_that_overflow_raise(size):
    with pytest.raises(RuntimeError, match="overflow"):
        ember.empty(*size)


def test_huge_allocations_raise_instead_of_crashing():
    with pytest.raises(RuntimeError):
        ember.empty(2**62, dtype=ember.uint8)  # 4 EiB: more than any machine
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        ember.empty(2**64)
    with pytest.raises(RuntimeError, match="overflow"):
        ember.zeros(1).expand(2**40, 2**40).contiguous()  # 2**80 elements
    assert ember.zeros(3).tolist() == [0.0] * 3


def test_unsupported_dtypes_and_non_numeric_data():
    with pytest.raises(TypeError, match="Expected a dtype"):
        ember.zeros(2, dtype="float32")
    with pytest.raises(TypeError, match="Expected a dtype"):
        ember.zeros(2, dtype=np.float32)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        ember.tensor("abc")
    with pytest.raises(TypeError, match="Could not infer dtype of str"):
        ember.tensor([1, "a"])
    with pytest.raises(TypeError, match="Could not infer dtype of NoneType"):
        ember.tensor(None)
    with pytest.raises(TypeError, match="Could not infer dtype of dict"):
        ember.tensor([{}])
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 3\)"):
        ember.tensor([[1, 2], [3, 4, 5]])
    with pytest.raises(ValueError, match="ragged"):
        ember.tensor([[1, 2], 3])
    with pytest.raises(ValueError, match="ragged"):
        ember.tensor([1, [2, 3]])
    with pytest.raises(RuntimeError, match="Overflow"):
        ember.tensor([2**64])
    with pytest.raises(TypeError, match="must be a Number"):
        ember.full((2,), "x")
    with pytest.raises(TypeError, match="must be a Number"):
        ember.zeros(2).fill_(None)


def test_bad_devices():
    with pytest.raises(RuntimeError, match="Invalid device string"):
        ember.zeros(2, device="gpu")
    with pytest.raises(TypeError, match="Expected a device"):
        ember.zeros(2, device=1.5)
    with pytest.raises(RuntimeError, match="Invalid device string"):
        ember.zeros(2).to("tpu")
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError):
            ember.zeros(2, device="cuda")
        with pytest.raises(RuntimeError):
            ember.zeros(2).cuda()


def test_failed_operations_leave_inputs_untouched():
    a = ember.arange(6, dtype=ember.float32).view(2, 3)
    before = a.tolist()
    for bad in (lambda: a.copy_(ember.zeros(4)), lambda: a.view(4, 2),
                lambda: a.expand(3, 3), lambda: a.narrow(1, 2, 5),
                lambda: a.__setitem__((0, 5), 1.0), lambda: a.__setitem__([0, 9], 1.0),
                lambda: a.__setitem__(0, ember.zeros(5)),
                lambda: ember.cat([a, ember.zeros(2, 2)]),
                lambda: a.fill_("x"), lambda: a.permute(0, 0)):
        with pytest.raises((RuntimeError, IndexError, TypeError, ValueError)):
            bad()
        assert a.tolist() == before and a.shape == (2, 3) and a.stride() == (3, 1)


def test_legacy_constructor_and_method_argument_errors():
    with pytest.raises(TypeError):
        ember.Tensor("abc")
    with pytest.raises(TypeError, match="dim"):
        ember.zeros(2).size("a")
    with pytest.raises(TypeError):
        ember.zeros(2).to(3.5)


def test_too_many_dimensions_and_self_nested_lists():
    deep = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(ValueError, match="too many dimensions"):
        ember.tensor(deep)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="too many dimensions"):
        ember.tensor(loop)
    with pytest.raises(RuntimeError, match="at most 64 dimensions"):
        ember.zeros(1)[(None,) * 64]
    assert ember.zeros(1)[(None,) * 63].dim() == 64
