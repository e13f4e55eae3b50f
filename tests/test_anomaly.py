"""Anomaly detection (ember.autograd.detect_anomaly / set_detect_anomaly): a node whose
gradient holds a NaN raises torch's "Function 'XBackward0' returned nan values in its
Nth output.", a node whose backward fails warns with the traceback of its forward call,
and the mode's switches (context manager, function, check_nan) as torch 2.11's."""
import warnings

import numpy as np
import pytest

import ember
from ember import autograd

RNG = np.random.default_rng()


@pytest.fixture(autouse=True)
def _anomaly_off_after():
    yield
    ember.set_anomaly_enabled(False)


def nan_graph():
    # sqrt'(0) * 0: SqrtBackward0 computes 0 / (2 * sqrt(0)) = nan
    x = ember.tensor(np.concatenate([[0.0], RNG.uniform(1, 2, 3)]), requires_grad=True)
    return x, (ember.sqrt(x) * ember.tensor([0.0, 1.0, 1.0, 1.0], dtype=ember.float64)).sum()


def test_nan_raises_naming_the_node():
    x, loss = nan_graph()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ctx = autograd.detect_anomaly()
    with ctx:
        assert ember.is_anomaly_enabled() and ember.is_anomaly_check_nan_enabled()
        x, loss = nan_graph()
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values "
                                               "in its 0th output."):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss.backward()
    assert not ember.is_anomaly_enabled()
    # outside the mode the NaN flows into .grad silently, as in torch
    x, loss = nan_graph()
    loss.backward()
    assert np.isnan(x.grad.numpy()[0]) and np.all(np.isfinite(x.grad.numpy()[1:]))


def test_nan_in_second_output_and_custom_function():
    class Halves(autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g * float("nan")

    a = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    b = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    with autograd.set_detect_anomaly(True):
        out = Halves.apply(a, b).sum()
        with pytest.raises(RuntimeError, match="Function 'HalvesBackward' returned nan values "
                                               "in its 1th output."):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.backward()
    # the process keeps working, and the same graph shape backs up fine without NaN
    c = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    (c * 2).sum().backward()
    np.testing.assert_array_equal(c.grad.numpy(), [2.0, 2.0, 2.0])


def test_check_nan_false_lets_nan_through():
    with autograd.set_detect_anomaly(True, check_nan=False):
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
        x, loss = nan_graph()
        loss.backward()
        assert np.isnan(x.grad.numpy()[0])
    assert not ember.is_anomaly_enabled() and ember.is_anomaly_check_nan_enabled()


def test_autograd_grad_and_gpu_free_paths_check_too():
    with autograd.set_detect_anomaly(True):
        x, loss = nan_graph()
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan values"):
            ember.autograd.grad(loss, x)
        # integer-free, finite graphs pass
        y = ember.tensor(RNG.uniform(1, 2, 4), requires_grad=True)
        (g,) = ember.autograd.grad((y.log() * y).sum(), y)
        np.testing.assert_allclose(g.numpy(), np.log(y.detach().numpy()) + 1, rtol=1e-12)


def forward_of_failing_function(a):
    class Fails(autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("Some error in backward")

    return Fails.apply(a).sum()


def test_failing_backward_warns_with_the_forward_traceback():
    a = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    with autograd.set_detect_anomaly(True):
        out = forward_of_failing_function(a)
        with pytest.warns(UserWarning) as record:
            with pytest.raises(ValueError, match="Some error in backward"):
                out.backward()
    msgs = [str(w.message) for w in record]
    hit = [m for m in msgs if m.startswith("Error detected in FailsBackward. Traceback of "
                                           "forward call that caused the error:")]
    assert hit, msgs
    assert "forward_of_failing_function" in hit[0] and "test_anomaly.py" in hit[0]
    # made outside the mode, run inside: no forward information
    out = forward_of_failing_function(a)
    with autograd.set_detect_anomaly(True):
        with pytest.warns(UserWarning, match="Error detected in FailsBackward. No forward pass "
                                             "information available."):
            with pytest.raises(ValueError):
                out.backward()
    # without anomaly mode: the error alone
    out = forward_of_failing_function(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="Some error in backward"):
            out.backward()


def test_set_detect_anomaly_as_function_and_nesting():
    autograd.set_detect_anomaly(True)
    assert ember.is_anomaly_enabled()
    with autograd.set_detect_anomaly(False):
        assert not ember.is_anomaly_enabled()
    assert ember.is_anomaly_enabled()
    autograd.set_detect_anomaly(False)
    assert not ember.is_anomaly_enabled()
    ember.set_anomaly_enabled(True, False)
    assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
    ember.set_anomaly_enabled(False)
    assert ember.is_anomaly_check_nan_enabled()
