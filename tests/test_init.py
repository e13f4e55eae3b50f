"""Lazy, fork-safe initialisation; CUDA_VISIBLE_DEVICES; what import loads."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember
from ember import _C

FORK_MESSAGE = ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                "multiprocessing, you must use the 'spawn' start method")


def run_py(code, env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=full_env, timeout=timeout)


def test_import_loads_no_cuda_library_and_is_available_initialises_nothing():
    r = run_py("""
        import ember
        maps = lambda: open('/proc/self/maps').read()
        for lib in ('libcuda.so', 'libcublas', 'libcudart.so', 'libnvidia-ml'):
            assert lib not in maps(), lib + ' was loaded by import'
        ember.cuda.is_available(); ember.cuda.device_count()
        # NVML may map libcuda, but nothing may initialise CUDA or load cuBLAS.
        assert not ember.cuda.is_initialized()
        assert 'libcublas' not in maps()
        print('ok')
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_import_does_not_pull_in_numpy():
    r = run_py("import sys, ember; print('numpy' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


@pytest.mark.parametrize(
    "env, nvml_count, uuids, expected",
    [
        (None, 4, [], 4),
        ("", 4, [], 0),
        ("0", 4, [], 1),
        ("0,1,2", 4, [], 3),
        ("2,0", 4, [], 2),
        ("0,5,1", 4, [], 1),    # an out-of-range ordinal ends the list
        ("1,x,0", 4, [], 1),    # so does garbage
        ("-1", 4, [], 0),
        ("0,-1,1", 4, [], 1),
        ("0,0", 4, [], 0),      # a repeated device exposes none
        (" 1 , 2 ", 4, [], 2),
        ("GPU-aaaa", 2, ["GPU-aaaa-1111", "GPU-bbbb-2222"], 1),
        ("GPU-b,GPU-a", 2, ["GPU-aaaa-1111", "GPU-bbbb-2222"], 2),
        ("GPU-", 2, ["GPU-aaaa-1111", "GPU-bbbb-2222"], 0),   # ambiguous prefix
        ("GPU-zzzz", 2, ["GPU-aaaa-1111", "GPU-bbbb-2222"], 0),
        ("GPU-a,0", 2, ["GPU-aaaa-1111", "GPU-bbbb-2222"], 1),
        ("MIG-1234", 2, ["GPU-aaaa"], -1),  # MIG: only the runtime can tell
    ],
)
def test_visible_device_count_rules(env, nvml_count, uuids, expected):
    assert _C.cuda._visible_device_count(env, nvml_count, uuids) == expected


def test_empty_visible_devices_hides_all_gpus():
    r = run_py("import ember; print(ember.cuda.device_count(), ember.cuda.is_available())",
               env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "False"]


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the behaviour without a GPU")
def test_without_gpu_cuda_calls_raise_clear_errors():
    assert ember.cuda.device_count() == 0
    for call in (ember.cuda.current_device, ember.cuda.init, ember.cuda.synchronize,
                 ember.cuda.mem_get_info, ember.cuda.get_device_properties,
                 lambda: ember.cuda.set_device(0)):
        with pytest.raises(RuntimeError) as info:
            call()
        msg = str(info.value)
        assert "device='cpu'" in msg or "ember sees 0 CUDA devices" in msg, msg
    assert not ember.cuda.is_initialized()


def test_fork_before_init_then_cpu_work_in_child():
    r = run_py("""
        import os, ember
        ember.cuda.is_available()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if not ember._C.cuda._in_bad_fork() else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0"


@pytest.mark.gpu
def test_is_available_then_fork_then_cuda_in_child_works():
    r = run_py("""
        import os, ember
        assert ember.cuda.is_available()
        assert not ember.cuda.is_initialized()
        pid = os.fork()
        if pid == 0:
            try:
                ember.cuda.synchronize()
                free, total = ember.cuda.mem_get_info()
                ok = 0 < free <= total and ember.cuda.is_initialized()
                os._exit(0 if ok else 4)
            except BaseException as e:
                print('child failed:', e, flush=True)
                os._exit(5)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "0", r.stdout


@pytest.mark.gpu
def test_init_then_fork_then_cuda_in_child_raises():
    r = run_py("""
        import os, warnings, ember
        warnings.simplefilter('ignore')  # Python warns about forking a threaded process
        ember.cuda.init(); ember.cuda.synchronize()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                ember.cuda.synchronize()
                msg = 'no error'
            except RuntimeError as e:
                msg = str(e)
            os.write(w, msg.encode()); os._exit(0)
        os.close(w)
        data = b''
        while chunk := os.read(r, 4096):
            data += chunk
        os.waitpid(pid, 0)
        print(data.decode())
        ember.cuda.synchronize()   # the parent still works
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == FORK_MESSAGE


@pytest.mark.gpu
@pytest.mark.usefixtures("torch")
def test_visible_devices_agree_with_torch():
    n = ember.cuda.device_count()
    for value in ["0", str(n), "0,0", ""]:
        code = ("import ember, torch; print(ember.cuda.device_count(), torch.cuda.device_count());"
                "ember.cuda.init() if ember.cuda.device_count() else None;"
                "print(ember.cuda.device_count())")
        r = run_py(code, env={"CUDA_VISIBLE_DEVICES": value})
        assert r.returncode == 0, r.stderr
        before, torch_count, after = r.stdout.split()
        assert before == torch_count == after, (value, r.stdout)
