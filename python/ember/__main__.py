"""``python -m ember``: what ember sees on this machine, then a short
end-to-end run on the GPU (or on the CPU when there is none)."""
import sys

import ember
from ember import _C


def _gib(n):
    return f"{n / 2**30:.1f} GiB"


def report(out=sys.stdout):
    cuda = ember.cuda
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"ember {ember.__version__}  (Python {sys.version.split()[0]})")
    if not _C._compiled_with_cuda:
        p("CUDA: not built (CPU-only build: no CUDA compiler was found when ember was built)")
    else:
        p(f"CUDA: built with runtime {ember.version.cuda}")
        drv = _C.cuda._driver_version()
        drv_str = _C.cuda._driver_version_string()
        if drv:
            p(f"driver: {drv_str or 'unknown version'} (supports CUDA {drv // 1000}.{drv % 1000 // 10})")
        else:
            p("driver: none found (no NVIDIA driver on this machine)")
    n = cuda.device_count()
    p(f"GPUs: {n}")
    for i in range(n):
        props = cuda.get_device_properties(i)
        free, total = cuda.mem_get_info(i)
        p(f"  cuda:{i}  {props.name}  compute {props.major}.{props.minor}  "
          f"{props.multi_processor_count} SMs  memory {_gib(free)} free of {_gib(total)}")
    return n


def demo(n_gpus, out=sys.stdout):
    device = 0 if n_gpus else -1
    where = "cuda:0" if n_gpus else "cpu"
    r = _C._saxpy_demo(device, 1 << 24)
    ok = r["max_abs_error"] < 1e-5
    print(f"demo on {where}: y = 2.5*x + y over {r['n']:,} floats: "
          f"{r['kernel_ms']:.3f} ms ({r['gbps']:.0f} GB/s), max error vs float64 "
          f"{r['max_abs_error']:.1e} -> {'OK' if ok else 'WRONG'}", file=out)
    return ok


def main():
    n = report()
    return 0 if demo(n) else 1


if __name__ == "__main__":
    sys.exit(main())
