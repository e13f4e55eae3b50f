// Facts about this build that only one file is compiled with, so that changing
// them (the CUDA architectures) recompiles that file alone.
#pragma once

namespace ember::cuda {

// CMAKE_CUDA_ARCHITECTURES of this build, ';' replaced by ' ' ("" without CUDA):
// torch.cuda.get_arch_list()'s source.
const char* arch_flags() noexcept;

}  // namespace ember::cuda
