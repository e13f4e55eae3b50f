"""The status checks of the CUDA libraries ember opens at run time
(csrc/runtime/library_errors.hpp): what a failed cuBLAS call raises. The
messages are built from the library's header alone, so they are tested here
without a GPU through ember._C._raise_library_error."""
import pytest

import ember

needs_cuda_build = pytest.mark.skipif(
    not ember._C._compiled_with_cuda, reason="a CPU-only build has no CUDA libraries"
)


@needs_cuda_build
def test_success_raises_nothing():
    ember._C._raise_library_error("cuBLAS", 0)


@needs_cuda_build
def test_a_failed_call_names_library_function_status_and_what_to_do():
    with pytest.raises(ember.cuda.CudaError) as info:
        ember._C._raise_library_error("cuBLAS", 15)  # CUBLAS_STATUS_NOT_SUPPORTED
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.code == 15 and e.error_name == "CUBLAS_STATUS_NOT_SUPPORTED"
    msg = str(e)
    assert msg.startswith("cuBLAS error: CUBLAS_STATUS_NOT_SUPPORTED (")
    assert " in cublasTestCall. " in msg  # the function, not the whole call
    assert "try float32" in msg


@needs_cuda_build
def test_an_allocation_failure_is_an_out_of_memory_error():
    with pytest.raises(ember.cuda.OutOfMemoryError, match="CUDA out of memory. cuBLAS error: "
                       "CUBLAS_STATUS_ALLOC_FAILED"):
        ember._C._raise_library_error("cuBLAS", 3)


@needs_cuda_build
def test_an_unknown_status_still_gives_a_message():
    with pytest.raises(ember.cuda.CudaError, match="CUBLAS_STATUS_UNKNOWN") as info:
        ember._C._raise_library_error("cuBLAS", 12345)
    assert info.value.code == 12345


def test_unknown_library_is_a_value_error():
    if not ember._C._compiled_with_cuda:
        pytest.skip("a CPU-only build has no CUDA libraries")
    with pytest.raises(ValueError, match="unknown library 'cuFOO'"):
        ember._C._raise_library_error("cuFOO", 1)


@needs_cuda_build
def test_cufft_statuses():
    ember._C._raise_library_error("cuFFT", 0)
    with pytest.raises(ember.cuda.CudaError) as info:
        ember._C._raise_library_error("cuFFT", 8)  # CUFFT_INVALID_SIZE
    assert info.value.error_name == "CUFFT_INVALID_SIZE"
    assert str(info.value).startswith("cuFFT error: CUFFT_INVALID_SIZE (")
    assert " in cufftTestCall. " in str(info.value)
    with pytest.raises(ember.cuda.OutOfMemoryError, match="CUDA out of memory. cuFFT error: "
                       "CUFFT_ALLOC_FAILED"):
        ember._C._raise_library_error("cuFFT", 2)
    with pytest.raises(ember.cuda.CudaError, match="CUFFT_UNKNOWN"):
        ember._C._raise_library_error("cuFFT", 4242)
