"""Runtime-compiled kernels on the GPU: RawKernel/RawModule results against NumPy, every
argument and launch check, a faulting kernel, objects with __cuda_array_interface__ /
DLPack, the jiterator against NumPy and torch's jiterator, autograd through a custom
kernel, the disk cache in a new process, and load_inline with CUDA sources.
(The CPU half is test_jit_compile.py, test_jit_cache.py and test_cpp_extension.py.)

Run under compute-sanitizer too:
    compute-sanitizer --tool memcheck python -m pytest tests/test_jit_gpu.py -k "not fault"
"""
import functools
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember

pytestmark = pytest.mark.gpu
cuda = ember.cuda

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''


def gpu(a):
    return ember.from_numpy(np.ascontiguousarray(a)).to("cuda")


@pytest.fixture(scope="module")
def saxpy():
    return cuda.RawKernel(SAXPY, "saxpy")


# ---- RawKernel / RawModule results -----------------------------------------------------

@pytest.mark.parametrize("n", [1, 1000, 1 << 20])
def test_raw_kernel_matches_numpy(saxpy, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    xg, yg = gpu(x), gpu(y)
    saxpy(((n + 255) // 256,), (256,), (2.5, xg, yg, n))
    np.testing.assert_allclose(yg.cpu().numpy(), 2.5 * x + y, rtol=1e-6, atol=1e-6)


def test_grid_and_block_as_ints_and_numpy_scalars(saxpy):
    x, y = gpu(np.ones(300, np.float32)), gpu(np.zeros(300, np.float32))
    saxpy(2, 256, (np.float32(3.0), x, y, np.int32(300)))
    assert y.cpu().numpy().tolist() == [3.0] * 300


def test_launch_on_a_given_stream(saxpy):
    s = cuda.Stream()
    x, y = gpu(np.ones(1024, np.float32)), gpu(np.zeros(1024, np.float32))
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        cuda._sleep(50_000_000)  # tens of ms: the launch below queues behind it
    saxpy((4,), (256,), (1.0, x, y, 1024), stream=s)
    assert not s.query()
    s.synchronize()
    assert float(y.sum().item()) == 1024.0


def test_dynamic_shared_memory_reduction():
    k = cuda.RawKernel(r'''
extern "C" __global__ void block_sum(const double* x, double* out, int n) {
  extern __shared__ double buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}''', "block_sum")
    x = np.random.default_rng(0).standard_normal(4096)
    out = ember.zeros(16, dtype=ember.float64, device="cuda")
    k((16,), (256,), (gpu(x), out, 4096), shared_mem=256 * 8)
    np.testing.assert_allclose(out.cpu().numpy(), x.reshape(16, 256).sum(1), rtol=1e-12)


def test_raw_module_with_templates_and_several_kernels():
    mod = cuda.RawModule(code=r'''
template <typename T> __global__ void fill(T* x, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
extern "C" __global__ void twice(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}''', options=("-std=c++17",), name_expressions=["fill<float>", "fill<double>"])
    f32 = ember.zeros(100, device="cuda")
    f64 = ember.zeros(100, dtype=ember.float64, device="cuda")
    mod.get_function("fill<float>")((1,), (128,), (f32, 1.5, 100))
    mod.get_function("fill<double>")((1,), (128,), (f64, 0.25, 100))
    mod.get_function("twice")((1,), (128,), (f32, 100))
    assert f32.cpu().numpy().tolist() == [3.0] * 100
    assert f64.cpu().numpy().tolist() == [0.25] * 100
    with pytest.raises(TypeError, match="float64"):
        mod.get_function("fill<float>")((1,), (128,), (f64, 1.0, 100))
    with pytest.raises(cuda.CudaError, match="no kernel named 'fill'"):
        mod.get_function("fill")((1,), (1,), ())


def test_raw_module_from_a_cubin_file(tmp_path):
    nvcc = os.path.join(ember.utils.cpp_extension.CUDA_HOME or "", "bin", "nvcc")
    if not os.path.isfile(nvcc):
        pytest.skip("needs nvcc")
    major, minor = cuda.get_device_capability()
    (tmp_path / "k.cu").write_text(SAXPY)
    subprocess.run([nvcc, "-cubin", f"-arch=sm_{major}{minor}", "-o", str(tmp_path / "k.cubin"),
                    str(tmp_path / "k.cu")], check=True)
    k = cuda.RawModule(path=str(tmp_path / "k.cubin")).get_function("saxpy")
    x, y = gpu(np.ones(10, np.float32)), gpu(np.ones(10, np.float32))
    # A cubin has no source: parameters are known by size only, so the float goes as a
    # NumPy scalar of the right size; an 8-byte parameter takes a tensor, ints are packed
    # at the parameter's size.
    k((1,), (32,), (np.float32(2.0), x, y, 10))
    with pytest.raises(TypeError, match="NumPy scalar of 4 bytes"):
        k((1,), (32,), (2.0, x, y, 10))
    assert y.cpu().numpy().tolist() == [3.0] * 10


def test_half_and_bfloat16_parameters_and_headers():
    k = cuda.RawKernel(r'''
#include <cuda_fp16.h>
#include <ember/device/half.cuh>
extern "C" __global__ void axpy_h(__half a, const ember::Half* x, ember::Half* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  ember::Half ah = *reinterpret_cast<ember::Half*>(&a);
  if (i < n) y[i] = ah * x[i] + y[i];
}''', "axpy_h")
    x = gpu(np.arange(8, dtype=np.float16))
    y = gpu(np.ones(8, dtype=np.float16))
    k((1,), (32,), (0.5, x, y, 8))
    np.testing.assert_array_equal(y.cpu().numpy(), (np.float16(0.5) * np.arange(8, dtype=np.float16)
                                                    + np.float16(1)))


def test_attributes(saxpy):
    a = saxpy.attributes
    assert 0 < a["max_threads_per_block"] <= 1024 and a["num_regs"] > 0
    assert saxpy.max_threads_per_block == a["max_threads_per_block"]
    assert saxpy.max_dynamic_shared_size_bytes == a["max_dynamic_shared_size_bytes"]
    assert [k for k, _, _ in saxpy.param_types] == ["float32", "pointer", "pointer", "int32"]


# ---- argument checks ----------------------------------------------------------------

def test_argument_count_is_a_type_error(saxpy):
    x = ember.zeros(4, device="cuda")
    with pytest.raises(TypeError, match=r"takes 4 arguments \(float a, const float\* x, float\* y, "
                                        r"int n\), got 3"):
        saxpy((1,), (32,), (1.0, x, x))


@pytest.mark.parametrize("args,exc,match", [
    ((1.0, 5, "Y", 4), TypeError, "argument 1 .*expected a CUDA tensor"),
    (("a", "X", "Y", 4), TypeError, "argument 0 .*expected a float, got str"),
    ((1.0, "X", "Y", 2.5), TypeError, "argument 3 .*expected an int, got float"),
    ((1.0, "X", "Y", 2 ** 40), OverflowError, "does not fit in int32"),
    ((1.0, "CPU", "Y", 4), ValueError, "on cpu but the kernel runs on cuda"),
    ((1.0, "I32", "Y", 4), TypeError, "dtype int32"),
    ((1.0, "X", "Y", "ZERO_D"), TypeError, r"\.item\(\)"),
    ((1.0, "X", "Y", np.float32(1)), TypeError, "expected an int"),
])
def test_wrong_arguments_are_refused_before_launch(saxpy, args, exc, match):
    named = {"X": ember.ones(4, device="cuda"), "Y": ember.zeros(4, device="cuda"),
             "CPU": ember.ones(4), "I32": ember.ones(4, dtype=ember.int32, device="cuda"),
             "ZERO_D": ember.tensor(4, device="cuda")}
    y = named["Y"]
    call = tuple(named[a] if isinstance(a, str) and a in named else a for a in args)
    with pytest.raises(exc, match=match):
        saxpy((1,), (32,), call)
    cuda.synchronize()
    assert y.cpu().numpy().tolist() == [0.0] * 4  # nothing ran


def test_args_must_be_a_sequence(saxpy):
    with pytest.raises(TypeError, match="args must be a tuple"):
        saxpy((1,), (32,), 5)


def test_bool_and_struct_parameters():
    k = cuda.RawKernel(r'''
struct Pair { int a; float b; };
extern "C" __global__ void pick(bool first, Pair p, float* out) {
  out[0] = first ? (float)p.a : p.b;
}''', "pick")
    out = ember.zeros(1, device="cuda")
    pair = np.zeros((), dtype=[("a", np.int32), ("b", np.float32)])
    pair["a"], pair["b"] = 7, 2.5
    k((1,), (1,), (True, pair[()], out))
    assert out.item() == 7.0
    k((1,), (1,), (np.bool_(False), pair.tobytes(), out))
    assert out.item() == 2.5
    with pytest.raises(TypeError, match="expected a bool"):
        k((1,), (1,), (1, pair[()], out))
    with pytest.raises(TypeError, match="NumPy scalar of 8 bytes"):
        k((1,), (1,), (True, 3.0, out))
    with pytest.raises(TypeError, match="got 4 bytes"):
        k((1,), (1,), (True, b"1234", out))


def test_pointer_accepts_none_and_foreign_arrays(torch):
    k = cuda.RawKernel(r'''
extern "C" __global__ void copy_or_zero(const float* src, float* dst, int n) {
  int i = threadIdx.x;
  if (i < n) dst[i] = src ? src[i] : 0.0f;
}''', "copy_or_zero")
    src = torch.arange(8, dtype=torch.float32, device="cuda")
    dst = torch.full((8,), -1.0, device="cuda")
    k((1,), (32,), (src, dst, 8))  # torch tensors: __cuda_array_interface__
    torch.cuda.synchronize()
    assert dst.tolist() == list(range(8))
    out = ember.ones(8, device="cuda")
    k((1,), (32,), (None, out, 8))
    assert out.cpu().numpy().tolist() == [0.0] * 8


def test_cupy_arrays_as_arguments(saxpy):
    cp = pytest.importorskip("cupy")
    x = cp.arange(16, dtype=cp.float32)
    y = cp.ones(16, dtype=cp.float32)
    saxpy((1,), (32,), (2.0, x, y, 16))
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(cp.asnumpy(y), 2 * np.arange(16, dtype=np.float32) + 1)


# ---- launch errors -----------------------------------------------------------------

def test_too_many_threads_is_a_value_error(saxpy):
    x = ember.zeros(4, device="cuda")
    with pytest.raises(ValueError, match=r"block \(2048, 1, 1\) exceeds"):
        saxpy((1,), (2048,), (1.0, x, x, 4))
    with pytest.raises(ValueError, match="2048 threads per block"):
        saxpy((1,), (1024, 2), (1.0, x, x, 4))
    with pytest.raises(ValueError, match="must be positive"):
        saxpy((0,), (32,), (1.0, x, x, 4))
    with pytest.raises(TypeError, match="1 to 3 dimensions"):
        saxpy((1, 1, 1, 1), (32,), (1.0, x, x, 4))


def test_too_much_shared_memory_says_what_to_do():
    k = cuda.RawKernel(r'''
extern "C" __global__ void use_smem(float* out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}''', "use_smem")
    out = ember.zeros(32, device="cuda")
    optin = cuda.get_device_properties(cuda.current_device()).shared_memory_per_block_optin
    with pytest.raises(ValueError, match="max_dynamic_shared_size_bytes"):
        k((1,), (32,), (out,), shared_mem=64 * 1024)
    with pytest.raises(ValueError, match="use less shared memory"):
        k((1,), (32,), (out,), shared_mem=optin + 1024)
    k.max_dynamic_shared_size_bytes = 64 * 1024
    k((1,), (32,), (out,), shared_mem=64 * 1024)
    assert out.cpu().numpy().tolist() == list(range(31, -1, -1))
    with pytest.raises(ValueError, match="must be in"):
        k.max_dynamic_shared_size_bytes = optin + 4096


def test_compile_error_raises_with_the_log():
    k = cuda.RawKernel('extern "C" __global__ void f(float* x) {\n  x[0] = oops;\n}', "f")
    with pytest.raises(cuda.CompileError) as info:
        k((1,), (1,), (ember.zeros(1, device="cuda"),))
    assert "f.cu(2)" in info.value.log and "oops" in info.value.log


FAULT = textwrap.dedent(r'''
    import ember
    k = ember.cuda.RawKernel('extern "C" __global__ void bad(float* p) { p[1 << 30] = 1.0f; }',
                             "bad")
    k((1,), (1,), (ember.zeros(1, device="cuda"),))
    try:
        ember.cuda.synchronize()
    except ember.cuda.CudaError as e:
        print("CudaError:", e)
    try:
        ember.zeros(1, device="cuda").sum().item()
    except ember.cuda.CudaError as e:
        print("after:", e.error_name)
''')


def test_a_faulting_kernel_raises_cuda_error_and_the_context_is_lost():
    """A fault is a sticky error: the launch itself succeeds, the next synchronising call
    raises CudaError saying the process must restart, and every CUDA call after it fails
    too (so this runs in a subprocess)."""
    out = subprocess.run([sys.executable, "-c", FAULT], capture_output=True, text=True,
                         timeout=120)
    assert "CudaError:" in out.stdout, out.stdout + out.stderr
    line = out.stdout.splitlines()[0]
    # the code depends on the GPU: Hopper reports an access 4 GiB past the buffer as
    # cudaErrorInvalidAddressSpace, older GPUs as cudaErrorIllegalAddress
    assert ("illegal memory access" in line or "cudaErrorIllegalAddress" in line
            or "cudaErrorInvalidAddressSpace" in line)
    assert "process must restart" in line
    assert "after:" in out.stdout


# ---- the disk cache in a new process ---------------------------------------------------

def test_warm_load_from_disk_in_a_new_process(tmp_path):
    script = textwrap.dedent('''
        import json, sys, time
        import ember
        x = ember.ones(1024, device="cuda"); y = ember.zeros(1024, device="cuda")
        ember.cuda.synchronize()
        k = ember.cuda.RawKernel(sys.argv[1], "saxpy")
        t = time.perf_counter()
        k((4,), (256,), (1.0, x, y, 1024))
        first = time.perf_counter() - t
        ember.cuda.synchronize()
        t = ember._C._jit_testing
        print(json.dumps({"first": first, "counts": t.cache_counts(),
                          "nvrtc": t.nvrtc_loaded(), "sum": y.sum().item()}))
    ''')
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path))
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", script, SAXPY], capture_output=True,
                             text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout))
    cold, warm = runs
    assert cold["counts"]["compiled"] == 1 and cold["nvrtc"]
    assert warm["counts"]["compiled"] == 0 and warm["counts"]["disk"] == 1
    assert not warm["nvrtc"]  # a warm load never opens NVRTC
    assert cold["sum"] == warm["sum"] == 1024.0
    print(f"first launch: cold {cold['first'] * 1e3:.1f} ms, warm {warm['first'] * 1e3:.2f} ms")
    assert warm["first"] < 0.05  # the target is 5 ms; loose against a busy machine


# ---- the jiterator -------------------------------------------------------------------

jit = cuda.jiterator
ADD = "template <typename T> T my_kernel(T x, T y, T alpha) { return -x + alpha * y; }"


def test_jiterator_matches_numpy():
    fn = jit._create_jit_fn(ADD, alpha=1.0)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(1000, dtype=np.float32), rng.standard_normal(1000, dtype=np.float32)
    np.testing.assert_allclose(fn(gpu(a), gpu(b)).cpu().numpy(), -a + b, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fn(gpu(a), gpu(b), alpha=3.14).cpu().numpy(),
                               -a + np.float32(3.14) * b, rtol=1e-5, atol=1e-5)  # fma or not
    with pytest.raises(KeyError, match="beta is not declared"):
        fn(gpu(a), gpu(b), beta=1)


def test_jiterator_broadcasting_and_noncontiguous_inputs():
    fn = jit._create_jit_fn(ADD, alpha=2.0)
    a = np.random.default_rng(2).standard_normal((64, 48), dtype=np.float32)
    b = np.random.default_rng(3).standard_normal((48,), dtype=np.float32)
    ag = gpu(a)
    out = fn(ag.t(), gpu(b.reshape(48, 1)))
    np.testing.assert_allclose(out.cpu().numpy(), -a.T + 2 * b.reshape(48, 1), rtol=1e-5,
                               atol=1e-5)
    sl = ag[::2, 5:40:3]
    out = fn(sl, gpu(b)[None, :12])
    np.testing.assert_allclose(out.cpu().numpy(), -a[::2, 5:40:3] + 2 * b[None, :12], rtol=1e-5,
                               atol=1e-5)
    assert out.shape == (32, 12) and out.is_contiguous()


@pytest.mark.parametrize("da,db,expect", [
    (np.int32, np.float32, np.float32), (np.int32, np.int64, np.int64),
    (np.float16, np.float16, np.float16), (np.float32, np.float64, np.float64),
    (np.uint8, np.int8, np.int16), (np.bool_, np.int32, np.int32),
])
def test_jiterator_type_promotion(da, db, expect):
    fn = jit._create_jit_fn("template <typename T> T f(T x, T y) { return x + y; }")
    a, b = np.arange(6).astype(da), (np.arange(6) % 3).astype(db)
    out = fn(gpu(a), gpu(b))
    assert out.dtype == ember.from_numpy(np.zeros(1, expect)).dtype
    np.testing.assert_array_equal(out.cpu().numpy(), a.astype(expect) + b.astype(expect))


def test_jiterator_scalars():
    fn = jit._create_jit_fn("template <typename T> T f(T x, T y) { return x * y; }")
    x = gpu(np.arange(5, dtype=np.int32))
    assert fn(x, 3).dtype == ember.int32                     # a Python int keeps int32
    assert fn(x, 2.5).dtype == ember.float32                 # a Python float: default dtype
    np.testing.assert_allclose(fn(x, 2.5).cpu().numpy(), np.arange(5) * 2.5)
    zero_d = ember.tensor(4.0)                               # a 0-d CPU tensor beside CUDA
    np.testing.assert_allclose(fn(gpu(np.ones(3, np.float32)), zero_d).cpu().numpy(), [4.0] * 3)
    assert fn(gpu(np.ones(3, np.float16)), 2.0).dtype == ember.float16
    with pytest.raises(RuntimeError, match="at least one tensor on a CUDA device"):
        fn(ember.ones(3), 2.0)
    with pytest.raises(RuntimeError, match="same device"):
        fn(gpu(np.ones(3, np.float32)), ember.ones(3))


def test_jiterator_multiple_outputs():
    fn = jit._create_multi_output_jit_fn(
        "template <typename T> void f(T x, T y, T alpha, T& s, T& d) { s = x + alpha * y; d = x - y; }",
        num_outputs=2, alpha=1.0)
    a, b = np.arange(10, dtype=np.float32), np.ones(10, dtype=np.float32)
    s, d = fn(gpu(a), gpu(b), alpha=2.0)
    np.testing.assert_array_equal(s.cpu().numpy(), a + 2 * b)
    np.testing.assert_array_equal(d.cpu().numpy(), a - b)


def test_jiterator_limits_and_parsing():
    with pytest.raises(Exception, match="Couldn't parse code"):
        jit._create_jit_fn("not a template")
    fn = jit._create_jit_fn("template <typename T> T f(T a, T b, T c, T d, T e, T f_, T g, T h, T i) "
                            "{ return a; }")
    with pytest.raises(AssertionError, match="up to 8 tensor inputs"):
        fn(*[ember.ones(1, device="cuda")] * 9)


def test_jiterator_runs_on_the_current_stream():
    fn = jit._create_jit_fn("template <typename T> T f(T x) { return x + T(1); }")
    s = cuda.Stream()
    x = ember.zeros(1 << 20, device="cuda")
    fn(x)  # compiled now: the first call's NVRTC compile would outlast the sleep below
    cuda.synchronize()
    s.wait_stream(cuda.current_stream())
    with cuda.stream(s):
        cuda._sleep(50_000_000)
        y = fn(x)
    assert not s.query()  # queued behind the sleep on s
    s.synchronize()
    assert y.sum().item() == float(1 << 20)


def test_jiterator_empty_input():
    fn = jit._create_jit_fn("template <typename T> T f(T x) { return x; }")
    assert fn(ember.zeros(0, 3, device="cuda")).shape == (0, 3)


def test_jiterator_compile_error_points_into_the_code():
    fn = jit._create_jit_fn("template <typename T>\nT f(T x) {\n  return x + nope;\n}")
    with pytest.raises(cuda.CompileError) as info:
        fn(ember.ones(2, device="cuda"))
    assert "jiterator_code(3)" in info.value.log


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int32"])
def test_jiterator_against_torch(torch, dtype):
    code = ("template <typename T> T my_kernel(T x, T y, T alpha) "
            "{ return x > y ? -x + alpha * y : x * y; }")
    ours = jit._create_jit_fn(code, alpha=1.0)
    theirs = torch.cuda.jiterator._create_jit_fn(code, alpha=1.0)
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((33, 17)) * 4).astype(dtype)
    b = (rng.standard_normal((17,)) * 4).astype(dtype)
    got = ours(gpu(a).t().t(), gpu(b), alpha=0.5).cpu().numpy()
    want = theirs(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), alpha=0.5).cpu().numpy()
    assert got.dtype == want.dtype
    # Same formula, same compute type (float for float16): equal up to how NVRTC
    # contracts a * b + c into an fma in each generated kernel.
    tol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-12}.get(dtype, 0)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                               atol=tol)


def test_jiterator_multi_output_against_torch(torch):
    code = "template <typename T> void f(T x, T y, T& a, T& b) { a = x * y; b = x / y; }"
    ours = jit._create_multi_output_jit_fn(code, num_outputs=2)
    theirs = torch.cuda.jiterator._create_multi_output_jit_fn(code, num_outputs=2)
    a = np.random.default_rng(6).standard_normal((8, 9)).astype(np.float32)
    b = np.random.default_rng(7).uniform(1, 2, (8, 9)).astype(np.float32)
    got = ours(gpu(a), gpu(b))
    want = theirs(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda())
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.cpu().numpy(), w.cpu().numpy())


# ---- autograd through a custom kernel ---------------------------------------------------

CUBE_CODE = (r'''
extern "C" __global__ void cube(const double* x, double* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i] * x[i];
}
extern "C" __global__ void cube_grad(const double* x, const double* dy, double* dx, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = 3.0 * x[i] * x[i] * dy[i];
}''')


@functools.lru_cache(maxsize=None)
def cube_module():
    return cuda.RawModule(code=CUBE_CODE)


class Cube(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        y = ember.empty_like(x)
        n = x.numel()
        cube_module().get_function("cube")(((n + 127) // 128,), (128,), (x, y, n))
        return y

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        dx = ember.empty_like(x)
        n = x.numel()
        cube_module().get_function("cube_grad")(((n + 127) // 128,), (128,),
                                                (x, dy.contiguous(), dx, n))
        return dx


def test_autograd_through_a_custom_kernel():
    x0 = np.random.default_rng(8).standard_normal(300)
    x = gpu(x0).requires_grad_(True)
    w = gpu(np.linspace(-1, 1, 300)).requires_grad_(True)
    loss = (Cube.apply(x * w) * 2).sum()
    loss.backward()
    ref_x = gpu(x0).requires_grad_(True)
    ref_w = gpu(np.linspace(-1, 1, 300)).requires_grad_(True)
    ((ref_x * ref_w) ** 3 * 2).sum().backward()
    np.testing.assert_allclose(loss.item(), ((x0 * np.linspace(-1, 1, 300)) ** 3 * 2).sum(),
                               rtol=1e-12)
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref_x.grad.cpu().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref_w.grad.cpu().numpy(), rtol=1e-12)


def test_custom_kernel_trains_inside_a_module():
    import ember.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4).double()

        def forward(self, x):
            return Cube.apply(self.fc(x)).sum(dim=1)

    ember.manual_seed(0)
    net = Net().to("cuda")
    opt = ember.optim.SGD(net.parameters(), lr=1e-3)
    x = gpu(np.random.default_rng(9).standard_normal((64, 4)))
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


# ---- load_inline with CUDA sources -----------------------------------------------------

def test_load_inline_with_a_cuda_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_EXTENSIONS_DIR", str(tmp_path))
    from ember.utils.cpp_extension import load_inline
    cpp = "ember::Tensor square(ember::Tensor x);"
    cu = r'''
__global__ void square_kernel(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}
ember::Tensor square(ember::Tensor x) {
  EMBER_CHECK_VALUE(x.is_cuda() && x.is_contiguous(), "square takes a contiguous CUDA tensor");
  ember::cuda::DeviceGuard guard(x.device().index);
  ember::Tensor y = ember::empty_like(x);
  long long n = x.numel();
  square_kernel<<<(unsigned)((n + 255) / 256), 256, 0, ember::cuda::current_stream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), n);
  EMBER_CUDA_CHECK(cudaGetLastError());
  return y;
}'''
    ext = load_inline("ember_test_square", cpp, cuda_sources=cu, functions=["square"])
    x = gpu(np.arange(1000, dtype=np.float32))
    np.testing.assert_array_equal(ext.square(x).cpu().numpy(), np.arange(1000, dtype=np.float32) ** 2)
    with pytest.raises(ValueError, match="contiguous CUDA tensor"):
        ext.square(ember.ones(3))
    s = cuda.Stream()
    with cuda.stream(s):  # the extension launches on ember's current stream
        y = ext.square(x)
    s.synchronize()
    assert y[3].item() == 9.0
