"""runtime/library_loader: the libraries ember opens at first use (cuSOLVER, cuFFT, NVRTC)
through one loader. dlopen and dlsym only, so these run without a GPU wherever the CUDA
toolkit's libraries are installed: nothing is opened at import, every entry point ember uses
resolves (a missing one raises naming the library), and the file it came from is reported."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember

pytestmark = pytest.mark.skipif(not ember._C._compiled_with_cuda,
                                reason="a CPU-only build opens no CUDA library")


def run_py(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ), timeout=120)


def test_cusolver_loader_resolves_every_entry_point():
    r = run_py("""
        import os
        import ember
        maps = lambda: open('/proc/self/maps').read()
        L = ember._C._linalg
        assert not L.cusolver_loaded() and 'libcusolver' not in maps()
        try:
            path = L.cusolver_load()
        except RuntimeError as exc:
            assert 'could not open cuSOLVER' in str(exc), exc  # not 'lacks ...'
            assert not L.cusolver_loaded() and L.geev_on_device() is False
            print('missing')
        else:
            # maps() names the file a symlinked soname resolves to
            real = os.path.realpath(path)
            assert 'libcusolver.so' in path and real in maps() and L.cusolver_loaded()
            assert L.cusolver_load() == path  # opened once
            geev = L.geev_on_device()
            assert geev in (True, False)
            print('ok', geev)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] in ("ok", "missing"), r.stdout


def test_cufft_loader_resolves_every_entry_point():
    r = run_py("""
        import os
        import ember
        maps = lambda: open('/proc/self/maps').read()
        F = ember._C._fft
        assert not F.cufft_loaded() and 'libcufft' not in maps()
        try:
            path = F.cufft_load()
        except RuntimeError as exc:
            assert 'could not open cuFFT' in str(exc), exc
            print('missing')
        else:
            real = os.path.realpath(path)
            assert 'libcufft.so' in path and real in maps() and F.cufft_loaded()
            print('ok')
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() in ("ok", "missing"), r.stdout
