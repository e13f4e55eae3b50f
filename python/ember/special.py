"""ember.special: torch.special's functions. The special functions are bound C++
(csrc/ops/pointwise/special.hpp: lgamma, digamma, polygamma, erfinv, i0/i0e/i1/i1e,
ndtr, ndtri, log_ndtr, erfcx, bessel_j0/j1, entr, logit, gammainc/gammaincc, zeta,
xlog1py); airy_ai, bessel_y0/y1, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, spherical_bessel_j0 and the orthogonal polynomials
(chebyshev_polynomial_t/u/v/w, shifted_chebyshev_polynomial_t/u/v/w,
hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p) are bound C++
whose GPU kernels are compiled at first use (csrc/ops/pointwise/special_jit.hpp); the
rest are ember's functions under torch.special's names (expit is sigmoid, psi is
digamma, gammaln is lgamma, multigammaln is mvlgamma, ...)."""
from ember import _C
from ember._composite_math import sinc, xlogy
from ember._composite_special import mvlgamma as multigammaln

digamma = psi = _C.digamma
gammaln = _C.lgamma
polygamma = _C.polygamma
erf = _C.erf
erfc = _C.erfc
erfinv = _C.erfinv
erfcx = _C.special_erfcx
expit = _C.sigmoid
exp2 = _C.exp2
expm1 = _C.expm1
log1p = _C.log1p
i0 = _C.i0
i0e = _C.special_i0e
i1 = _C.special_i1
i1e = _C.special_i1e
ndtr = _C.special_ndtr
ndtri = _C.special_ndtri
log_ndtr = _C.special_log_ndtr
bessel_j0 = _C.special_bessel_j0
bessel_j1 = _C.special_bessel_j1
entr = _C.special_entr
logit = _C.logit
gammainc = _C.igamma
gammaincc = _C.igammac
zeta = _C.special_zeta
xlog1py = _C.special_xlog1py
airy_ai = _C.special_airy_ai
bessel_y0 = _C.special_bessel_y0
bessel_y1 = _C.special_bessel_y1
modified_bessel_i0 = _C.special_modified_bessel_i0
modified_bessel_i1 = _C.special_modified_bessel_i1
modified_bessel_k0 = _C.special_modified_bessel_k0
modified_bessel_k1 = _C.special_modified_bessel_k1
scaled_modified_bessel_k0 = _C.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _C.special_scaled_modified_bessel_k1
spherical_bessel_j0 = _C.special_spherical_bessel_j0
chebyshev_polynomial_t = _C.special_chebyshev_polynomial_t
chebyshev_polynomial_u = _C.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _C.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _C.special_chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _C.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _C.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _C.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _C.special_shifted_chebyshev_polynomial_w
hermite_polynomial_h = _C.special_hermite_polynomial_h
hermite_polynomial_he = _C.special_hermite_polynomial_he
laguerre_polynomial_l = _C.special_laguerre_polynomial_l
legendre_polynomial_p = _C.special_legendre_polynomial_p
round = _C.round
logsumexp = _C.logsumexp
softmax = _C.softmax
log_softmax = _C.log_softmax

__all__ = ["digamma", "psi", "gammaln", "polygamma", "multigammaln", "erf", "erfc", "erfinv",
           "erfcx", "expit", "exp2", "expm1", "log1p", "i0", "i0e", "i1", "i1e", "ndtr",
           "ndtri", "log_ndtr", "bessel_j0", "bessel_j1", "entr", "logit", "gammainc",
           "gammaincc", "zeta", "xlog1py", "xlogy", "sinc", "round", "logsumexp", "softmax",
           "log_softmax", "airy_ai", "bessel_y0", "bessel_y1", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]
