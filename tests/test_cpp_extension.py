"""ember.utils.cpp_extension on the CPU: load_inline really compiles (the host C++
compiler, ember's public headers, pybind11) and imports a module whose functions take
and return ember tensors; the build cache; compiler errors; ember's exceptions from C++;
and the ahead-of-time CMake path (emberConfig.cmake). CUDA sources are in
test_jit_gpu.py."""
import os
import shutil
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ember
from ember.utils import cpp_extension

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCE = r'''
// Adds `value` to every element of a contiguous float32 CPU tensor, in place.
void add_(ember::Tensor x, double value) {
  EMBER_CHECK_TYPE(x.dtype() == ember::kFloat32, "add_ takes float32, got ",
                   ember::dtype_name(x.dtype()));
  EMBER_CHECK_VALUE(x.is_cpu() && x.is_contiguous(), "add_ takes a contiguous CPU tensor");
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) p[i] += static_cast<float>(value);
  x.bump_version();
}

// A new tensor: the row sums of a contiguous float64 matrix.
ember::Tensor row_sums(ember::Tensor m) {
  EMBER_CHECK(m.dim() == 2, "row_sums takes a matrix, got ", m.dim(), " dims");
  ember::Tensor out = ember::zeros({m.size(0)}, ember::kFloat64);
  const double* a = m.data_ptr<double>();
  double* o = out.data_ptr<double>();
  for (int64_t i = 0; i < m.size(0); ++i)
    for (int64_t j = 0; j < m.size(1); ++j) o[i] += a[i * m.stride(0) + j * m.stride(1)];
  return out;
}

// Metadata as ember sees it.
pybind11::tuple describe(ember::Tensor t) {
  return pybind11::make_tuple(t.sizes(), t.strides(), ember::dtype_name(t.dtype()),
                              t.is_contiguous(), t.numel(), t.element_size());
}

ember::Tensor same(ember::Tensor t) { return t; }

void index_error(ember::Tensor t) { (void)t.size(5); }
'''

FUNCTIONS = ["add_", "row_sums", "describe", "same", "index_error"]


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("extensions")
    old = os.environ.get("EMBER_EXTENSIONS_DIR")
    os.environ["EMBER_EXTENSIONS_DIR"] = str(root)
    yield root
    if old is None:
        del os.environ["EMBER_EXTENSIONS_DIR"]
    else:
        os.environ["EMBER_EXTENSIONS_DIR"] = old


@pytest.fixture(scope="module")
def ext(build_root):
    return cpp_extension.load_inline("ember_test_ext", SOURCE, functions=FUNCTIONS)


def test_function_modifies_a_tensor_in_place(ext):
    x = ember.arange(6, dtype=ember.float32)
    version = x._version
    assert ext.add_(x, 1.5) is None
    np.testing.assert_array_equal(x.numpy(), np.arange(6, dtype=np.float32) + 1.5)
    assert x._version > version


def test_function_returns_a_new_tensor(ext):
    m = ember.from_numpy(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(ext.row_sums(m).numpy(), np.arange(12.0).reshape(3, 4).sum(1))
    np.testing.assert_array_equal(ext.row_sums(m.t()).numpy(), np.arange(12.0).reshape(3, 4).sum(0))


def test_metadata_and_identity(ext):
    x = ember.zeros(2, 3, 4, dtype=ember.int16).permute(2, 0, 1)
    assert ext.describe(x) == ([4, 2, 3], [1, 12, 4], "int16", False, 24, 2)
    y = ext.same(x)  # the same tensor (a new Python object, as ember's own functions give)
    assert type(y) is ember.Tensor and y.data_ptr() == x.data_ptr()
    assert y.shape == x.shape and y.stride() == x.stride()
    y.fill_(3)
    assert x.sum().item() == 72


def test_errors_become_ember_exceptions(ext):
    with pytest.raises(TypeError, match="add_ takes float32, got int64"):
        ext.add_(ember.arange(3), 1.0)
    with pytest.raises(ValueError, match="contiguous CPU tensor"):
        ext.add_(ember.zeros(4, 4).t(), 1.0)
    with pytest.raises(RuntimeError, match="row_sums takes a matrix, got 1 dims"):
        ext.row_sums(ember.zeros(3, dtype=ember.float64))
    with pytest.raises(TypeError, match=r"data_ptr<float64>\(\) called on a tensor of dtype float32"):
        ext.row_sums(ember.zeros(2, 2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        ext.index_error(ember.zeros(2))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        ext.add_(np.zeros(3, np.float32), 1.0)


def test_build_is_cached_by_content(build_root, ext):
    built = [d for d in os.listdir(build_root) if d.startswith("ember_test_ext_")
             and "_src_" not in d]
    assert len(built) == 1
    so = [f for f in os.listdir(build_root / built[0]) if f.endswith(".so")][0]
    mtime = os.stat(build_root / built[0] / so).st_mtime_ns
    start = time.perf_counter()
    again = cpp_extension.load_inline("ember_test_ext", SOURCE, functions=FUNCTIONS)
    warm = time.perf_counter() - start
    assert os.stat(build_root / built[0] / so).st_mtime_ns == mtime
    assert warm < 1.0, f"a warm load_inline took {warm:.3f} s"
    x = ember.zeros(2)
    again.add_(x, 2.0)
    assert x.tolist() == [2.0, 2.0]
    # A flag changes the build: a new folder, a new module.
    cpp_extension.load_inline("ember_test_ext", SOURCE, functions=FUNCTIONS,
                              extra_cflags=["-DEMBER_TEST_FLAG=1"])
    built = [d for d in os.listdir(build_root) if d.startswith("ember_test_ext_")
             and "_src_" not in d]
    assert len(built) == 2


def test_warm_load_in_a_new_process_does_not_compile(build_root, ext):
    script = textwrap.dedent(f"""
        import os, subprocess, time
        calls = []
        real = subprocess.run
        subprocess.run = lambda *a, **k: calls.append(a) or real(*a, **k)
        import ember
        from ember.utils.cpp_extension import load_inline
        t = time.perf_counter()
        m = load_inline("ember_test_ext", {SOURCE!r}, functions={FUNCTIONS!r})
        print(len(calls), time.perf_counter() - t)
    """)
    env = dict(os.environ, EMBER_EXTENSIONS_DIR=str(build_root))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    calls, seconds = out.stdout.split()
    assert calls == "0"
    assert float(seconds) < 1.0


def test_compiler_error_shows_the_compiler_output(build_root):
    with pytest.raises(RuntimeError) as info:
        cpp_extension.load_inline("ember_bad_ext", "int broken( { return nope; }",
                                  functions=["broken"])
    msg = str(info.value)
    assert "Error building extension 'ember_bad_ext'" in msg
    assert "main.cpp" in msg and "error" in msg


def test_load_with_source_files(build_root, tmp_path):
    src = tmp_path / "twice.cpp"
    header = tmp_path / "factor.h"
    header.write_text("constexpr double kFactor = 2.0;\n")
    src.write_text(textwrap.dedent("""
        #include <ember/extension.h>
        #include "factor.h"
        double twice(double x) { return kFactor * x; }
        PYBIND11_MODULE(EMBER_EXTENSION_NAME, m) {
          ember::init_extension(m);
          m.def("twice", &twice);
        }
    """))
    mod = cpp_extension.load("ember_twice_ext", [str(src)])
    assert mod.twice(2.5) == 5.0
    assert mod.__ember_c_api_version__ == ember._C._C_API_VERSION
    header.write_text("constexpr double kFactor = 3.0;\n")  # a header change rebuilds
    assert cpp_extension.load("ember_twice_ext", [str(src)]).twice(2.0) == 6.0


def test_c_api_capsule():
    capsule = ember._C._C_API
    assert type(capsule).__name__ == "PyCapsule"
    assert "ember._C._C_API" in repr(capsule)
    assert ember._C._C_API_VERSION == 1


def test_cmake_prefix_path_has_ember_config():
    path = ember.utils.cmake_prefix_path
    assert os.path.isfile(os.path.join(path, "ember", "emberConfig.cmake"))
    assert os.path.isfile(os.path.join(path, "ember", "emberConfigVersion.cmake"))
    inc = os.path.join(os.path.dirname(os.path.dirname(path)), "include")
    for header in ["extension.h", "c_api.h", "tensor.h", "cuda.h", "errors.h", "pybind.h",
                   "device/half.cuh", "device/jiterator.cuh"]:
        assert os.path.isfile(os.path.join(inc, "ember", header)), header


@pytest.mark.slow
def test_ahead_of_time_cmake_build(tmp_path):
    """examples/cpp_extension/'s CMake project builds against the installed ember and its
    module works (the C++ part: CUDA is left off on purpose, as on CI)."""
    if shutil.which("cmake") is None:
        pytest.skip("needs cmake")
    pybind11 = pytest.importorskip("pybind11")
    src = os.path.join(ROOT, "examples", "cpp_extension")
    build = tmp_path / "build"
    cfg = subprocess.run(
        ["cmake", "-S", src, "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
         "-DEMBER_EXAMPLE_CUDA=OFF", f"-DPython_EXECUTABLE={sys.executable}",
         f"-DCMAKE_PREFIX_PATH={ember.utils.cmake_prefix_path};{pybind11.get_cmake_dir()}"],
        capture_output=True, text=True)
    assert cfg.returncode == 0, cfg.stdout + cfg.stderr
    b = subprocess.run(["cmake", "--build", str(build), "-j2"], capture_output=True, text=True)
    assert b.returncode == 0, b.stdout + b.stderr
    script = ("import ember, ember_ops_aot as m; x = ember.ones(4); m.scale_(x, 3.0); "
              "print(x.tolist())")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(build)] + sys.path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[3.0, 3.0, 3.0, 3.0]"


def test_load_inline_example_runs(tmp_path):
    env = dict(os.environ, EMBER_EXTENSIONS_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "cpp_extension",
                                                       "load_inline.py"), "--n", "1000"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"using {'cuda' if ember.cuda.is_available() else 'cpu'}" in out.stdout
    assert "axpy_cpu matches NumPy: True" in out.stdout
    if ember.cuda.is_available():
        assert "axpy_cuda matches NumPy: True" in out.stdout


def test_a_damaged_cached_module_is_rebuilt(tmp_path):
    script = textwrap.dedent("""
        import ember
        from ember.utils.cpp_extension import load_inline
        m = load_inline("ember_damaged_ext", "int three() { return 3; }", functions=["three"])
        print(m.three(), m.__file__)
    """)
    env = dict(os.environ, EMBER_EXTENSIONS_DIR=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    value, path = first.stdout.split()
    assert value == "3"
    with open(path, "r+b") as f:
        f.truncate(100)  # what a full disk or a crash mid-copy could leave
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["3", path]


@pytest.mark.slow
def test_load_inline_with_cuda_sources_builds_without_a_gpu(build_root, monkeypatch):
    """nvcc compiles the CUDA half against ember's headers and the module imports on any
    machine with the toolkit; the CUDA function's own checks run before any CUDA call."""
    if cpp_extension.CUDA_HOME is None or not os.path.isfile(
            os.path.join(cpp_extension.CUDA_HOME, "bin", "nvcc")):
        pytest.skip("needs nvcc")
    monkeypatch.setenv("EMBER_CUDA_ARCH_LIST", "9.0")
    cu = r'''
__global__ void negate_kernel(float* x, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}
void negate_(ember::Tensor x) {
  EMBER_CHECK_VALUE(x.is_cuda() && x.dtype() == ember::kFloat32 && x.is_contiguous(),
                    "negate_ takes a contiguous float32 CUDA tensor");
  ember::cuda::DeviceGuard guard(x.device().index);
  const long long n = x.numel();
  negate_kernel<<<(unsigned)((n + 255) / 256), 256, 0, ember::cuda::current_stream()>>>(
      x.data_ptr<float>(), n);
  EMBER_CUDA_CHECK(cudaGetLastError());
  x.bump_version();
}'''
    ext = cpp_extension.load_inline("ember_test_cuda_ext", "void negate_(ember::Tensor x);",
                                    cuda_sources=cu, functions=["negate_"])
    with pytest.raises(ValueError, match="contiguous float32 CUDA tensor"):
        ext.negate_(ember.ones(3))
    if ember.cuda.is_available():
        x = ember.arange(4, dtype=ember.float32, device="cuda")
        ext.negate_(x)
        assert x.tolist() == [0.0, -1.0, -2.0, -3.0]
