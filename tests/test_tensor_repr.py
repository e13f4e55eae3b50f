"""repr like torch's: formats, summarisation, device= and dtype= suffixes."""
import pytest

import ember


@pytest.mark.parametrize("make, text", [
    (lambda: ember.tensor([1.0, 2.0, 3.0]), "tensor([1., 2., 3.])"),
    (lambda: ember.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: ember.tensor([1.5, 2.25]), "tensor([1.5000, 2.2500])"),
    (lambda: ember.tensor([-1.0, 2.0]), "tensor([-1.,  2.])"),
    (lambda: ember.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (lambda: ember.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: ember.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: ember.tensor([100000.0, 1.0]), "tensor([1.0000e+05, 1.0000e+00])"),
    (lambda: ember.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
    (lambda: ember.tensor([0.0, 0.0]), "tensor([0., 0.])"),
    (lambda: ember.tensor([True, False]), "tensor([ True, False])"),
    (lambda: ember.tensor(3.5), "tensor(3.5000)"),
    (lambda: ember.tensor(7), "tensor(7)"),
    (lambda: ember.tensor([1, 2], dtype=ember.int32), "tensor([1, 2], dtype=ember.int32)"),
    (lambda: ember.zeros(2, dtype=ember.float16), "tensor([0., 0.], dtype=ember.float16)"),
    (lambda: ember.tensor([1.5], dtype=ember.bfloat16), "tensor([1.5000], dtype=ember.bfloat16)"),
    (lambda: ember.tensor([1.0], dtype=ember.float64), "tensor([1.], dtype=ember.float64)"),
    (lambda: ember.tensor([]), "tensor([])"),
    (lambda: ember.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: ember.zeros(0, dtype=ember.int64), "tensor([], dtype=ember.int64)"),
    (lambda: ember.ones(2, 2, 2),
     "tensor([[[1., 1.],\n         [1., 1.]],\n\n        [[1., 1.],\n         [1., 1.]]])"),
    (lambda: ember.arange(10000), "tensor([   0,    1,    2,  ..., 9997, 9998, 9999])"),
])
def test_repr_matches_torch(make, text):
    assert repr(make()) == text
    assert str(make()) == text


def test_summarised_matrix():
    text = repr(ember.zeros(1000, 1000))
    row = "[0., 0., 0.,  ..., 0., 0., 0.]"
    expected = ("tensor([" + row + ",\n" + ",\n".join(["        " + row] * 2) + ",\n        ...,\n"
                + ",\n".join(["        " + row] * 3) + "])")
    assert text == expected


def test_long_vectors_wrap_at_80_columns():
    text = repr(ember.arange(30.0))
    lines = text.split("\n")
    assert lines[0] == ("tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., "
                        "13.,")
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("        14., 15.")


def test_printoptions():
    with ember.printoptions(precision=2):
        assert repr(ember.tensor([1.2345])) == "tensor([1.23])"
    assert repr(ember.tensor([1.2345])) == "tensor([1.2345])"
    with ember.printoptions(threshold=5, edgeitems=1):
        assert repr(ember.arange(10)) == "tensor([0,  ..., 9])"
    with ember.printoptions(sci_mode=True):
        assert repr(ember.tensor([1.5])) == "tensor([1.5000e+00])"


def test_repr_of_views_and_default_dtype_change():
    t = ember.arange(12.0).view(3, 4)
    assert repr(t[:, 1]) == "tensor([1., 5., 9.])"
    assert repr(t.t()[0]) == "tensor([0., 4., 8.])"
    before = ember.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        assert repr(ember.tensor([1.0])) == "tensor([1.])"
        assert repr(ember.tensor([1.0], dtype=ember.float32)) == "tensor([1.], dtype=ember.float32)"
    finally:
        ember.set_default_dtype(before)
