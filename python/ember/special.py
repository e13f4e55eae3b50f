"""ember.special: torch.special's functions. The special functions are bound C++
(csrc/ops/pointwise/special.hpp: lgamma, digamma, polygamma, erfinv, i0/i0e/i1/i1e,
ndtr, ndtri, log_ndtr, erfcx, bessel_j0/j1, entr, logit, gammainc/gammaincc, zeta,
xlog1py); the rest are ember's functions under torch.special's names (expit is
sigmoid, psi is digamma, gammaln is lgamma, multigammaln is mvlgamma, ...)."""
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
round = _C.round
logsumexp = _C.logsumexp
softmax = _C.softmax
log_softmax = _C.log_softmax

__all__ = ["digamma", "psi", "gammaln", "polygamma", "multigammaln", "erf", "erfc", "erfinv",
           "erfcx", "expit", "exp2", "expm1", "log1p", "i0", "i0e", "i1", "i1e", "ndtr",
           "ndtri", "log_ndtr", "bessel_j0", "bessel_j1", "entr", "logit", "gammainc",
           "gammaincc", "zeta", "xlog1py", "xlogy", "sinc", "round", "logsumexp", "softmax",
           "log_softmax"]
