"""Runtime compilation without a GPU: NVRTC compiles for a given architecture on the CPU
(csrc/runtime/nvrtc.*, csrc/ops/jit/kernel_cache.*), so the compile errors, the disk
cache across processes, the refusal of corrupt entries, the jiterator's generated
kernels and the kernel signature parser are all checked here. The launches are in
test_jit_gpu.py."""
import os
import pathlib
import subprocess
import sys

import pytest

import ember

T = ember._C._jit_testing
needs_nvrtc = pytest.mark.skipif(not ember._C._compiled_with_cuda,
                                 reason="a CPU-only build of ember has no NVRTC")

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''


def test_import_opens_no_nvrtc():
    code = ("import ember; t = ember._C._jit_testing; "
            "print(getattr(t, 'nvrtc_loaded', lambda: False)())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_constructing_kernels_compiles_nothing():
    code = ("import ember\n"
            "k = ember.cuda.RawKernel('extern \"C\" __global__ void f() {}', 'f')\n"
            "m = ember.cuda.RawModule(code='extern \"C\" __global__ void g() {}')\n"
            "j = ember.cuda.jiterator._create_jit_fn('template <typename T> T f(T x) { return x; }')\n"
            "print(ember._C._jit_testing.nvrtc_loaded())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


@needs_nvrtc
def test_compile_for_an_architecture_without_a_gpu(tmp_path):
    r = T.compile(SAXPY, "saxpy.cu", sm=90, cache_dir=str(tmp_path))
    assert r["origin"] == "compiled"
    assert r["target"] == "sm_90" and not r["is_ptx"] and r["size"] > 1000
    assert T.nvrtc_loaded()
    again = T.compile(SAXPY, "saxpy.cu", sm=90, cache_dir=str(tmp_path))
    assert again["origin"] == "memory" and again["key"] == r["key"]


@needs_nvrtc
def test_unknown_architecture_falls_back_to_ptx(tmp_path):
    newest = max(T.supported_archs())
    r = T.compile(SAXPY, "saxpy.cu", sm=newest + 1, cache_dir=str(tmp_path))
    assert r["is_ptx"] and r["target"] == f"compute_{newest}"


@needs_nvrtc
def test_key_depends_on_source_options_and_architecture(tmp_path):
    keys = {T.compile(SAXPY, "saxpy.cu", sm=90, cache_dir=str(tmp_path))["key"],
            T.compile(SAXPY + "\n", "saxpy.cu", sm=90, cache_dir=str(tmp_path))["key"],
            T.compile(SAXPY, "saxpy.cu", ["-DX=1"], sm=90, cache_dir=str(tmp_path))["key"],
            T.compile(SAXPY, "saxpy.cu", sm=80, cache_dir=str(tmp_path))["key"]}
    assert len(keys) == 4


@needs_nvrtc
def test_compile_error_carries_the_log_with_line_numbers(tmp_path):
    bad = 'extern "C" __global__ void f(float* x) {\n  x[0] = 1.0f;\n  undefined_name += 1;\n}\n'
    with pytest.raises(ember.cuda.CompileError) as info:
        T.compile(bad, "bad_kernel.cu", sm=90, cache_dir=str(tmp_path))
    e = info.value
    assert isinstance(e, RuntimeError)
    assert "bad_kernel.cu(3)" in e.log and "undefined_name" in e.log
    assert "NVRTC could not compile bad_kernel.cu for sm_90" in str(e)
    assert e.log in str(e)
    assert os.listdir(tmp_path) == []  # nothing cached


@needs_nvrtc
def test_invalid_option_is_a_compile_error(tmp_path):
    with pytest.raises(ember.cuda.CompileError, match="rejected the options"):
        T.compile(SAXPY, "saxpy.cu", ["--no-such-option"], sm=90, cache_dir=str(tmp_path))


@needs_nvrtc
def test_name_expressions_are_lowered(tmp_path):
    code = "template <typename T> __global__ void k(T* x) { x[0] = T(1); }"
    r = T.compile(code, "k.cu", [], ["k<float>", "k<double>"], sm=90, cache_dir=str(tmp_path))
    assert dict(r["lowered"]) == {"k<float>": "_Z1kIfEvPT_", "k<double>": "_Z1kIdEvPT_"}


@needs_nvrtc
def test_ember_device_headers_are_on_the_include_path(tmp_path):
    code = r'''
#include <ember/device/half.cuh>
#include <cuda_fp16.h>
extern "C" __global__ void h(ember::Half* x, ember::BFloat16* y, __half* z) {
  x[0] = x[0] * ember::Half(2.0f) + 1;
  y[0] = float(y[0]) + 1.5f;
  z[0] = __float2half(float(x[0]));
}'''
    assert T.compile(code, "h.cu", sm=90, cache_dir=str(tmp_path))["origin"] == "compiled"
    assert os.path.isfile(os.path.join(T.include_dir(), "ember", "device", "half.cuh"))


def _compile_in_subprocess(cache_dir, code=SAXPY):
    script = ("import ember, json, sys\n"
              "r = ember._C._jit_testing.compile(sys.argv[1], 'saxpy.cu', sm=90, cache_dir=sys.argv[2])\n"
              "print(json.dumps([r['origin'], r['refused'], r['key']]))\n")
    out = subprocess.run([sys.executable, "-c", script, code, cache_dir], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import json
    return json.loads(out.stdout)


@needs_nvrtc
def test_a_new_process_loads_from_disk(tmp_path):
    first = _compile_in_subprocess(str(tmp_path))
    second = _compile_in_subprocess(str(tmp_path))
    assert first[0] == "compiled" and second[0] == "disk" and first[2] == second[2]


@needs_nvrtc
@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_a_corrupt_entry_is_rebuilt_not_loaded(tmp_path, damage):
    key = _compile_in_subprocess(str(tmp_path))[2]
    path = os.path.join(str(tmp_path), key[:2], key + ".bin")
    data = bytearray(pathlib.Path(path).read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data = b""
    pathlib.Path(path).write_bytes(bytes(data))
    origin, refused, _ = _compile_in_subprocess(str(tmp_path))
    assert origin == "compiled" and refused
    assert _compile_in_subprocess(str(tmp_path))[0] == "disk"  # the rebuilt entry is good


@needs_nvrtc
def test_concurrent_processes_fill_one_cache(tmp_path):
    script = ("import ember, sys\n"
              "r = ember._C._jit_testing.compile(sys.argv[1], 'saxpy.cu', sm=90, cache_dir=sys.argv[2])\n"
              "print(r['origin'])\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, SAXPY, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    origins = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert set(origins) <= {"compiled", "disk"}
    assert _compile_in_subprocess(str(tmp_path))[0] == "disk"


@needs_nvrtc
def test_cache_counts_move():
    before = T.cache_counts()
    T.compile(SAXPY, "saxpy.cu", sm=90, cache_dir="-")
    after = T.cache_counts()
    assert sum(after.values()) > sum(before.values())


# ---- the jiterator's generated kernels -------------------------------------------------

ADD = "template <typename T> T my_kernel(T x, T y, T alpha) { return -x + alpha * y; }"


@needs_nvrtc
@pytest.mark.parametrize("common,inputs,by_value", [
    ("float32", ["float32", "float32"], [False, False]),
    ("float16", ["float16", "float16"], [False, True]),
    ("bfloat16", ["bfloat16", "bfloat16"], [False, False]),
    ("float64", ["float32", "int64"], [False, False]),
    ("int64", ["int32", "int64"], [False, True]),
    ("uint8", ["uint8", "uint8"], [False, False]),
    ("bool", ["bool", "bool"], [False, False]),
])
def test_jiterator_source_compiles(tmp_path, common, inputs, by_value):
    src = T.jiterator_source(ADD, "my_kernel", 1, common, inputs, by_value, "d")
    assert "ember_jiterator_flat" in src and "ember_jiterator_strided" in src
    r = T.compile(src, "jiterator_my_kernel.cu", ["-std=c++17", "-default-device"], sm=90,
                  cache_dir=str(tmp_path))
    assert r["origin"] == "compiled"


@needs_nvrtc
def test_jiterator_multi_output_source_compiles(tmp_path):
    code = "template <typename T> void f(T x, T y, T alpha, T& a, T& b) { a = x + y; b = alpha * x; }"
    src = T.jiterator_source(code, "f", 2, "float32", ["float32", "float16"], [False, False], "d")
    assert "f<ember_jit_c>(a0, a1, e0, r0, r1)" in src
    T.compile(src, "jiterator_f.cu", ["-std=c++17", "-default-device"], sm=90, cache_dir=str(tmp_path))


@needs_nvrtc
def test_jiterator_errors_point_into_the_code_string(tmp_path):
    code = "template <typename T>\nT f(T x) {\n  return x + nope;\n}"
    src = T.jiterator_source(code, "f", 1, "float32", ["float32"], [False], "")
    with pytest.raises(ember.cuda.CompileError) as info:
        T.compile(src, "jiterator_f.cu", ["-std=c++17", "-default-device"], sm=90,
                  cache_dir=str(tmp_path))
    assert "jiterator_code(3)" in info.value.log


@needs_nvrtc
@pytest.mark.parametrize("common,inputs", [("float32", ["float32"]), ("float16", ["float16"]),
                                           ("bfloat16", ["bfloat16"]), ("float64", ["float64"]),
                                           ("float32", ["int32"])])
def test_rare_unary_functions_compile(tmp_path, common, inputs):
    # The floating unary ops the GPU compiles at first use instead of ahead of time
    # (ops/pointwise/unary_jit.cpp): every one's source compiles for sm_90 here, so a
    # mistake in a code string fails on the CPU machine.
    ops = T.unary_math_jit()
    assert {"exp2", "expm1", "log2", "log10", "log1p", "tan", "asin", "acos", "atan", "sinh",
            "cosh", "asinh", "acosh", "atanh", "erfc", "frac"} == set(ops)
    for op, code in ops.items():
        name = f"ember_real_{op}"
        src = T.jiterator_source(code, name, 1, common, inputs, [False], "")
        r = T.compile(src, f"jiterator_{name}.cu", ["-std=c++17", "-default-device"], sm=90,
                      cache_dir=str(tmp_path))
        assert r["origin"] == "compiled", op


def test_rare_unary_functions_call_the_math_of_the_aot_functors():
    # The same CUDA math functions as unary_functors.hpp (math_functions.hpp): the float
    # version for float, the double one for double.
    if not ember._C._compiled_with_cuda:
        pytest.skip("a CPU-only build of ember compiles no GPU code")
    ops = T.unary_math_jit()
    code = ops["asinh"]
    assert "ember_real_asinh(T x)" in code and "asinhf(x)" in code and "asinh(x)" in code
    assert "truncf(x)" in ops["frac"]


# ---- kernel signatures ---------------------------------------------------------------

def test_parse_kernel_params():
    src = r'''
#define N 4
// __global__ void saxpy(int decoy)
extern "C" __global__ void __launch_bounds__(256)
saxpy(const float* __restrict__ x, float *y, float a, unsigned n, long long m, size_t k,
      std::int64_t q, __half h, MyStruct s, bool flag, double d[], void* raw) { }
template <typename T, int M = 2>
__global__ void tk(T* out, const T* in, T scale, int n) {}
extern "C" __global__ void none(void) {}
__device__ void dev(int x) {}
'''
    P = T.parse_kernel_params
    assert [k for k, _, _ in P(src, "saxpy")] == [
        "pointer", "pointer", "float32", "uint32", "int64", "uint64", "int64", "float16",
        "opaque", "bool", "pointer", "pointer"]
    assert [p for _, p, _ in P(src, "saxpy")][:2] == ["float32", "float32"]
    assert P(src, "saxpy")[-1][1] == "opaque"  # void*: any dtype
    assert P(src, "saxpy")[0][2] == "const float* __restrict__ x"
    assert [(k, p) for k, p, _ in P(src, "tk<double, 8>")] == [
        ("pointer", "float64"), ("pointer", "float64"), ("float64", "opaque"), ("int32", "opaque")]
    assert [k for k, _, _ in P(src, "tk")][2] == "opaque"  # T unknown without arguments
    assert P(src, "none") == []
    assert P(src, "dev") is None and P(src, "missing") is None


def test_library_error_messages():
    with pytest.raises(ember.cuda.CudaError) as info:
        ember._C._raise_library_error("NVRTC", 5)
    assert "NVRTC error: NVRTC_ERROR_INVALID_OPTION" in str(info.value)
    assert info.value.error_name == "NVRTC_ERROR_INVALID_OPTION"
    if ember._C._compiled_with_cuda:
        with pytest.raises(ember.cuda.CudaError) as info:
            ember._C._raise_library_error("CUDA driver", 701)
        assert "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" in str(info.value)
        assert "fewer threads per block" in str(info.value)
        with pytest.raises(ember.cuda.CudaError, match="process must restart"):
            ember._C._raise_library_error("CUDA driver", 700)
        with pytest.raises(ember.cuda.OutOfMemoryError):
            ember._C._raise_library_error("CUDA driver", 2)
    ember._C._raise_library_error("CUDA driver", 0)
    with pytest.raises(ValueError, match="known: cuBLAS, NVRTC, CUDA driver, cuFFT"):
        ember._C._raise_library_error("cuNOPE", 1)


def test_kernels_refuse_a_cpu_only_machine_clearly():
    if ember.cuda.is_available():
        pytest.skip("checks the errors raised where no GPU is usable")
    fn = ember.cuda.jiterator._create_jit_fn(ADD, alpha=1.0)
    with pytest.raises(AssertionError, match="none are available"):
        fn(ember.ones(3), ember.ones(3))
    if ember._C._compiled_with_cuda:
        k = ember.cuda.RawKernel(SAXPY, "saxpy")
        with pytest.raises(RuntimeError):
            k((1,), (32,), (1.0, ember.ones(3), ember.ones(3), 3))
