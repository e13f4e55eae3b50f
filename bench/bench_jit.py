"""Issue 15's rows: kernels compiled at run time and extensions.

- RawKernel launch of a trivial (float*, int) kernel against the raw cuLaunchKernel
  floor (measured in-process by ember._C._jit_testing.launch_floor: a C++ loop of
  cuLaunchKernel on the same kernel with the same two arguments; the empty-kernel,
  no-argument floor is printed too) and CuPy's RawKernel; target floor + 1 us.
- A jiterator call on 1024 elements against torch's jiterator.
- A cold NVRTC compile of a small kernel (a new process, an empty cache: includes
  opening NVRTC), a warm load from the disk cache in a new process (ember's first
  launch, no NVRTC), and load_inline with a warm build cache in a new process (CPU
  too: a C++-only extension).
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap

from harness import gpu_pair, have, per_call

TRIVIAL = 'extern "C" __global__ void trivial(float* x, int n) { if (threadIdx.x == 0 && n < 0) x[0] = 1.0f; }'
SMALL = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''
ADD = "template <typename T> T my_kernel(T x, T y, T alpha) { return -x + alpha * y; }"


def _child(code, env):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load_inline_warm(table):
    """load_inline on an unchanged source in a new process (the build is cached)."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, EMBER_EXTENSIONS_DIR=d)
        code = '''
            import json, time
            import ember
            from ember.utils.cpp_extension import load_inline
            t = time.perf_counter()
            m = load_inline("bench_ext", "double twice(double x) { return 2 * x; }",
                            functions=["twice"])
            print(json.dumps(time.perf_counter() - t))
        '''
        cold = _child(code, env)
        warm = sorted(_child(code, env) for _ in range(5))[2]
    table.add("load_inline, cold build (C++ only)", cold, None, "s")
    table.add("load_inline, warm build cache (new process)", warm, None, "s",
              target="<= 0.2 s", met=warm <= 0.2)


def run(table):
    _load_inline_warm(table)
    pair = gpu_pair("the RawKernel/jiterator rows")
    if pair is None:
        return
    ember, torch = pair.ember, pair.torch
    us = 1e6

    # RawKernel launch vs the cuLaunchKernel floor and CuPy.
    x = ember.zeros(1, device="cuda")
    k = ember.cuda.RawKernel(TRIVIAL, "trivial")
    k((1,), (1,), (x, 1))
    ember.cuda.synchronize()
    floor_empty = ember._C._jit_testing.launch_floor(20000)
    # The floor of this very launch: the same trivial kernel, its two arguments.
    floor = ember._C._jit_testing.launch_floor(20000, with_args=True)
    e = per_call(lambda: k((1,), (1,), (x, 1)), sync=ember.cuda.synchronize) * us
    c = None
    if have("cupy"):
        import cupy
        ck = cupy.RawKernel(TRIVIAL, "trivial")
        cx = cupy.zeros(1, dtype=cupy.float32)
        c = per_call(lambda: ck((1,), (1,), (cx, cupy.int32(1))),
                     sync=cupy.cuda.Device().synchronize) * us
    table.add("raw cuLaunchKernel floor (empty kernel, no args)", floor_empty, None, "us")
    table.add("raw cuLaunchKernel floor (trivial kernel, 2 args)", floor, None, "us")
    old = table.ref_name
    table.ref_name = "cupy"
    table.add("RawKernel launch (trivial kernel, 2 args)", e, c, "us",
              target=f"<= floor + 1 us ({floor + 1:.2f})", met=e <= floor + 1.0)
    table.ref_name = old

    # jiterator per call, 1024 elements.
    fn = ember.cuda.jiterator._create_jit_fn(ADD, alpha=1.0)
    a, b = ember.rand(1024, device="cuda"), ember.rand(1024, device="cuda")
    fn(a, b)
    e = per_call(lambda: fn(a, b), sync=ember.cuda.synchronize) * us
    t = None
    if torch is not None:
        tf = torch.cuda.jiterator._create_jit_fn(ADD, alpha=1.0)
        ta, tb = torch.rand(1024, device="cuda"), torch.rand(1024, device="cuda")
        tf(ta, tb)
        t = per_call(lambda: tf(ta, tb), sync=torch.cuda.synchronize) * us
    table.add("jiterator call (1024 elements)", e, t, "us", target="<= torch",
              met=None if t is None else e <= t)

    # Cold compile and warm disk load, each in a new process.
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, EMBER_CACHE_DIR=d)
        code = '''
            import json, sys, time
            import ember
            x = ember.zeros(1024, device="cuda"); ember.cuda.synchronize()
            k = ember.cuda.RawKernel(%r, "saxpy")
            t = time.perf_counter()
            k.compile()
            compiled = time.perf_counter() - t
            k((4,), (256,), (1.0, x, x, 1024)); ember.cuda.synchronize()
            print(json.dumps([compiled, ember._C._jit_testing.cache_counts()]))
        ''' % SMALL
        cold, counts = _child(code, env)
        assert counts["compiled"] == 1, counts
        warm_runs = [_child(code, env) for _ in range(5)]
        assert all(c["disk"] == 1 and c["compiled"] == 0 for _, c in warm_runs)
        warm = sorted(w for w, _ in warm_runs)[2]
    table.add("cold NVRTC compile, small kernel (new process)", cold, None, "s",
              target="<= 0.3 s", met=cold <= 0.3)
    table.add("warm load from the disk cache (new process)", warm * 1e3, None, "ms",
              target="<= 5 ms", met=warm * 1e3 <= 5)
