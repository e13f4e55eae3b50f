// GradScaler's device-side steps (torch._amp_foreach_non_finite_check_and_unscale_
// and torch._amp_update_scale_): no host synchronisation, the flags and the
// scale stay in device memory.
//
// non_finite_check_and_unscale_: every tensor of `grads` is multiplied in
// place by inv_scale[0] (skipped when it is 1) and found_inf[0] is set to 1.0
// when any element was inf or NaN (it is never cleared here). On the GPU the
// tensors of one dtype go through the multi-tensor launch of the optimisers
// (optim_multi_tensor.cuh): one launch for up to 110 tensors / 320 chunks.
// found_inf and inv_scale are 1-element float32 tensors on the grads' device;
// grads must be floating and contiguous (the binding passes stand-ins for the
// others). Work is queued on the current stream.
//
// update_scale_: torch's rule, on the device: if found_inf[0] != 0 the scale is
// multiplied by backoff_factor and the growth tracker reset; otherwise the
// tracker counts up and at growth_interval the scale is multiplied by
// growth_factor (kept only if finite) and the tracker reset. scale: 1-element
// float32; growth_tracker: 1-element int32; found_inf: 1-element float32.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops {

void amp_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                       const Tensor& inv_scale);

void amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                       double growth_factor, double backoff_factor, int64_t growth_interval);

namespace internal {
#if EMBER_WITH_CUDA
// One dtype, one device, every tensor contiguous and non-empty.
void amp_unscale_cuda(const std::vector<Tensor>& grads, float* found_inf, const float* inv_scale);
void amp_update_scale_cuda(float* scale, int32_t* growth_tracker, const float* found_inf,
                           double growth_factor, double backoff_factor, int64_t growth_interval,
                           int device);
#endif
}  // namespace internal

}  // namespace ember::ops
