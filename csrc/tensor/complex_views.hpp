// Views between complex tensors and their real parts (metadata only, as
// torch): a complex tensor of shape S is, viewed as real, a tensor of its
// parts' dtype with shape S + [2] (strides doubled, a last dim of stride 1),
// and its real and imaginary parts are views with doubled strides at offset
// 2k and 2k + 1 of that storage. Writing through them writes the complex
// tensor. Errors use torch's wording.
#pragma once

#include "tensor/tensor.hpp"

namespace ember {

// torch.view_as_real: complex [..] -> real [.., 2]; RuntimeError otherwise.
Tensor view_as_real(const Tensor& t);
// torch.view_as_complex: float16/float32/float64 [.., 2] with a unit last
// stride, even strides and an even storage offset -> complex [..].
Tensor view_as_complex(const Tensor& t);
// Tensor.real: the real parts of a complex tensor; t itself for real dtypes.
Tensor real_part(const Tensor& t);
// Tensor.imag: the imaginary parts; RuntimeError for real dtypes (torch).
Tensor imag_part(const Tensor& t);

}  // namespace ember
