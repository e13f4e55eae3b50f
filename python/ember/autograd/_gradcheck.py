"""ember.autograd.gradcheck / gradgradcheck: backward formulas against finite
differences (torch.autograd.gradcheck's method, the slow mode).

For every input that requires grad and every element of it, the numerical
Jacobian column is (f(x + eps) - f(x - eps)) / (2 eps); the analytical rows come
from one ember.autograd.grad call per output element. Use float64 (complex128)
inputs: float32 differences are too coarse for the default tolerances.

Complex tensors count as pairs of reals: a complex input has a column for its
real part and one for its imaginary part, a complex output a row for each. The
analytical rows follow torch's convention (the gradient of z = a + ib for a real
loss L is dL/da + i dL/db): grad_output 1 gives the row of the output's real
part, grad_output 1j that of its imaginary part.
"""
import ember

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A backward formula disagrees with finite differences."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(outputs):
    return [o for o in outputs
            if ember.is_tensor(o) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _to_numpy(t):
    """The values as float64, complex ones as interleaved (real, imaginary) pairs."""
    import numpy as np
    t = t.detach().to("cpu")
    if t.dtype.is_complex:
        t = ember.view_as_real(t.to(ember.complex128))
    return np.array(t.to(ember.float64).numpy(), copy=True).reshape(-1)


def _parts(t):
    """Real numbers per element: 2 for complex tensors, 1 for real ones."""
    return 2 if t.dtype.is_complex else 1


def _numerical_jacobians(func, inputs, index, eps):
    """Columns d out_k / d inputs[index][j] for every output k. Each element is
    perturbed in place (under no_grad) and restored, so the function sees the
    same tensors -- requires_grad and all -- as in the analytical pass."""
    import numpy as np

    x = inputs[index]
    n = x.numel()
    parts = _parts(x)
    columns = None
    for j in range(n):
        pos = tuple(int(i) for i in np.unravel_index(j, tuple(x.shape))) if x.dim() else ()
        with ember.no_grad():
            orig = x[pos].item()
        for part in range(parts):  # the real part, then the imaginary one
            step = eps if part == 0 else eps * 1j
            values = []
            for delta in (step, -step):
                with ember.no_grad():
                    x[pos] = orig + delta
                outs = _differentiable_outputs(_as_tuple(func(*inputs)))
                values.append([_to_numpy(o) for o in outs])
            with ember.no_grad():
                x[pos] = orig
            if columns is None:
                columns = [np.zeros((o.size, n * parts)) for o in values[0]]
            for k, (plus, minus) in enumerate(zip(values[0], values[1])):
                columns[k][:, j * parts + part] = (plus - minus) / (2 * eps)
    return columns or []


def _analytical_jacobians(outputs, inputs, wrt):
    import numpy as np

    jac = [[np.zeros((o.numel() * _parts(o), inputs[i].numel() * _parts(inputs[i])))
            for i in wrt] for o in outputs]
    for k, out in enumerate(outputs):
        parts = _parts(out)
        for r in range(out.numel() * parts):
            onehot = ember.zeros(out.numel(), dtype=out.dtype, device=out.device)
            onehot[r // parts] = 1 if r % parts == 0 else 1j
            grads = ember.autograd.grad(out, [inputs[i] for i in wrt],
                                        grad_outputs=onehot.view(out.shape), retain_graph=True,
                                        allow_unused=True)
            for c, g in enumerate(grads):
                if g is not None:
                    jac[k][c][r, :] = _to_numpy(g)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when the gradients of ``func(*inputs)`` with respect to the inputs that
    require grad match finite differences; otherwise GradcheckError (or False with
    ``raise_exception=False``)."""
    import numpy as np

    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if ember.is_tensor(x) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    for o in outputs:
        if not o.requires_grad:
            raise GradcheckError("an output of the function does not require grad: it does not "
                                 "depend differentiably on the inputs")
    analytical = _analytical_jacobians(outputs, inputs, wrt)
    for c, i in enumerate(wrt):
        numerical = _numerical_jacobians(func, inputs, i, eps)
        for k in range(len(outputs)):
            a, n = analytical[k][c], numerical[k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                msg = (f"Jacobian mismatch for output {k} with respect to input {i},\n"
                       f"numerical:{n}\nanalytical:{a}\n")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the backward itself (create_graph=True): second derivatives."""
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if ember.is_tensor(x) and x.requires_grad]
    if grad_outputs is None:
        outs = _differentiable_outputs(_as_tuple(func(*inputs)))
        gen = ember.Generator().manual_seed(0) if hasattr(ember, "Generator") else None
        grad_outputs = tuple(
            # drawn on the CPU from a fixed seed, then moved: the same values on every device
            (ember.randn(o.shape, dtype=o.dtype, generator=gen).to(o.device)
             if gen is not None else ember.ones_like(o)).requires_grad_()
            for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(_as_tuple(func(*ins)))
        grads = ember.autograd.grad(outs, [ins[i] for i in wrt], gos, create_graph=True,
                                    allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
