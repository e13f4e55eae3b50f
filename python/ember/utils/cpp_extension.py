"""Build C++/CUDA extensions that take and return ember tensors
(torch.utils.cpp_extension's ``load_inline`` and ``load``).

.. code-block:: python

    from ember.utils.cpp_extension import load_inline
    ext = load_inline("scale_ext", cpp_sources='''
    void scale_(ember::Tensor x, double a) {
        EMBER_CHECK_TYPE(x.dtype() == ember::kFloat32 && x.is_cpu() && x.is_contiguous(),
                         "scale_ takes a contiguous float32 CPU tensor");
        float* p = x.data_ptr<float>();
        for (int64_t i = 0; i < x.numel(); ++i) p[i] *= a;
    }''', functions=["scale_"])
    ext.scale_(t)

- Sources compile with the host C++ compiler (``$CXX``, else ``c++``) and, for CUDA
  sources, ``nvcc`` (``$CUDA_HOME/bin``, else on ``PATH``), against ember's public
  headers (``<ember/extension.h>``: ``ember::Tensor``, ``ember::empty``,
  ``ember::cuda::current_stream()``, error macros; docs/extensions.md) and the
  pybind11 headers ember was built with. The module links nothing of ember: it
  finds ember's C API table (``ember._C._C_API``) when imported.
- Builds are cached by content: the directory
  ``<cache>/extensions/<name>_<hash>`` (``EMBER_CACHE_DIR``, else
  ``~/.cache/ember``; ``EMBER_EXTENSIONS_DIR`` replaces ``<cache>/extensions``)
  is named after a SHA-256 of the sources, the headers beside them, the flags,
  the compilers, ember's headers and version, Python's ABI and, with CUDA sources,
  the GPU architectures. Unchanged sources and flags import the built module
  without compiling. Concurrent builders of one extension (processes) take a file
  lock, and the module is renamed into place only once linked. A cached module that
  no longer imports is rebuilt once. Python imports one extension module per name
  and process: a changed extension loaded again in the same process is built as
  ``<name>_v<k>`` (as torch does).
- A compiler error raises RuntimeError with the compiler's output.
- CUDA architectures: ``$EMBER_CUDA_ARCH_LIST`` (``"8.0;9.0+PTX"``, torch's
  ``TORCH_CUDA_ARCH_LIST`` syntax), else the current GPU's, else 8.0 and 9.0+PTX.
"""
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor

__all__ = ["load", "load_inline", "include_paths", "library_paths", "get_build_directory",
           "CUDA_HOME"]

_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".cuh", ".inl", ".inc")
_CUDA_SUFFIXES = (".cu",)


def _find_cuda_home():
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home and os.path.isdir(home):
            return home
    nvcc = shutil.which("nvcc")
    if nvcc:
        return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    return "/usr/local/cuda" if os.path.isdir("/usr/local/cuda") else None


CUDA_HOME = _find_cuda_home()


def include_paths(cuda=False):
    """The include directories an extension compiles with: ember's public headers,
    pybind11's, Python's, and with ``cuda=True`` the CUDA toolkit's."""
    paths = [os.path.join(_EMBER_DIR, "include")]
    vendored = os.path.join(_EMBER_DIR, "include", "third_party")
    if os.path.isfile(os.path.join(vendored, "pybind11", "pybind11.h")):
        paths.append(vendored)
    else:
        try:
            import pybind11
        except ImportError as e:
            raise RuntimeError("building an ember extension needs pybind11's headers: this "
                               "ember has none installed; pip install pybind11") from e
        paths.append(pybind11.get_include())
    paths.append(sysconfig.get_paths()["include"])
    if cuda:
        paths.append(os.path.join(_cuda_home(), "include"))
    return paths


def library_paths(cuda=False):
    """The library directories an extension links with (the CUDA toolkit's)."""
    if not cuda:
        return []
    home = _cuda_home()
    for sub in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib")):
        if os.path.isdir(os.path.join(home, sub)):
            return [os.path.join(home, sub)]
    return [os.path.join(home, "lib64")]


def _cuda_home():
    if CUDA_HOME is None:
        raise RuntimeError("CUDA sources need the CUDA toolkit: set CUDA_HOME to its directory "
                           "or put nvcc on PATH")
    return CUDA_HOME


def get_build_directory():
    """Where extensions are built: ``$EMBER_EXTENSIONS_DIR``, else
    ``<cache root>/extensions`` (``$EMBER_CACHE_DIR``, else ``~/.cache/ember``)."""
    explicit = os.environ.get("EMBER_EXTENSIONS_DIR")
    if explicit:
        return explicit
    root = os.environ.get("EMBER_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = os.path.join(xdg, "ember") if xdg else os.path.join(os.path.expanduser("~"),
                                                                   ".cache", "ember")
    return os.path.join(root, "extensions")


def _as_list(x):
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


def _cxx():
    return os.environ.get("CXX") or "c++"


def _nvcc():
    return os.path.join(_cuda_home(), "bin", "nvcc")


def _arch_flags():
    spec = os.environ.get("EMBER_CUDA_ARCH_LIST") or os.environ.get("TORCH_CUDA_ARCH_LIST")
    if not spec:
        import ember
        if ember.cuda.is_available():
            major, minor = ember.cuda.get_device_capability()
            spec = f"{major}.{minor}"
        else:
            spec = "8.0;9.0+PTX"
    flags = []
    for item in spec.replace(",", ";").replace(" ", ";").split(";"):
        if not item:
            continue
        ptx = item.endswith("+PTX")
        num = item[:-4] if ptx else item
        sm = num.replace(".", "")
        flags.append(f"-gencode=arch=compute_{sm},code=sm_{sm}")
        if ptx:
            flags.append(f"-gencode=arch=compute_{sm},code=compute_{sm}")
    return flags


def _tool_identity(path):
    """A compiler's path, size and modification time (cheaper than running it)."""
    full = shutil.which(path) or path
    try:
        st = os.stat(full)
        return f"{os.path.realpath(full)}:{st.st_size}:{int(st.st_mtime)}"
    except OSError:
        return full


def _headers_near(paths):
    """Header files in the given directories (not recursive), sorted."""
    found = []
    for d in sorted(set(paths)):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        found += [os.path.join(d, n) for n in names if n.endswith(_HEADER_SUFFIXES)]
    return found


_ember_headers_digest = None


def _ember_headers():
    global _ember_headers_digest
    if _ember_headers_digest is None:
        h = hashlib.sha256()
        root = os.path.join(_EMBER_DIR, "include", "ember")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
        _ember_headers_digest = h.hexdigest()
    return _ember_headers_digest


def _build_key(name, sources, with_cuda, cflags, cuda_cflags, ldflags, include_dirs):
    import ember
    h = hashlib.sha256()

    def field(x):
        b = x if isinstance(x, bytes) else str(x).encode()
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)

    for part in ("ember-extension-1", name, ember.__version__, ember._C._C_API_VERSION,
                 _ember_headers(), sys.version, sysconfig.get_config_var("EXT_SUFFIX"),
                 _tool_identity(_cxx()), with_cuda, cflags, cuda_cflags, ldflags, include_dirs):
        field(repr(part) if isinstance(part, (list, bool, int)) else part)
    if with_cuda:
        field(_tool_identity(_nvcc()))
        field(repr(_arch_flags()))
    dirs = [os.path.dirname(os.path.abspath(s)) for s in sources] + list(include_dirs)
    for path in [os.path.abspath(s) for s in sources] + _headers_near(dirs):
        field(os.path.basename(path))
        with open(path, "rb") as f:
            field(f.read())
    return h.hexdigest()


def _run(cmd, name, verbose):
    if verbose:
        print(" ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if verbose and r.stdout:
        print(r.stdout, flush=True)
    if r.returncode != 0:
        raise RuntimeError(f"Error building extension '{name}': the command\n  {' '.join(cmd)}\n"
                           f"failed with exit status {r.returncode}:\n{r.stdout}")


class _FileLock:
    """An exclusive lock held on ``path`` (fcntl.flock) while in the block."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def __enter__(self):
        import fcntl
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        import fcntl
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _compile_and_link(name, sources, build_dir, target, with_cuda, cflags, cuda_cflags, ldflags,
                      include_dirs, verbose):
    incs = [f"-I{d}" for d in list(include_dirs) + include_paths(cuda=with_cuda)]
    defines = [f"-DEMBER_EXTENSION_NAME={name}", f"-DTORCH_EXTENSION_NAME={name}"]
    jobs = []
    objects = []
    for i, src in enumerate(sources):
        obj = os.path.join(build_dir, f"{i}_{os.path.basename(src)}.o")
        objects.append(obj)
        if src.endswith(_CUDA_SUFFIXES):
            cmd = [_nvcc(), "-c", src, "-o", obj, "-std=c++17", "-O2", "--expt-relaxed-constexpr",
                   "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden",
                   *_arch_flags(), *defines, *incs, *cuda_cflags]
        else:
            cmd = [_cxx(), "-c", src, "-o", obj, "-std=c++17", "-O2", "-fPIC",
                   "-fvisibility=hidden", *defines, *incs, *cflags]
        jobs.append(cmd)
    workers = max(1, min(len(jobs), int(os.environ.get("MAX_JOBS", os.cpu_count() or 1))))
    with ThreadPoolExecutor(workers) as pool:
        for f in [pool.submit(_run, cmd, name, verbose) for cmd in jobs]:
            f.result()
    libs = []
    if with_cuda:
        libs = [f"-L{d}" for d in library_paths(cuda=True)] + ["-lcudart_static", "-lrt",
                                                               "-lpthread"]
    temp = f"{target}.tmp{os.getpid()}"
    _run([_cxx(), "-shared", *objects, "-o", temp, *libs, "-ldl", *ldflags], name, verbose)
    os.replace(temp, target)  # atomic: a concurrent importer sees the old file or this one


def _import(name, path, is_python_module):
    if not is_python_module:
        import ctypes
        ctypes.CDLL(path)
        return path
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# name -> {build key: (module name, module)} of the extensions imported by this process.
# Python cannot import a second extension module of one name in a process, so a
# changed extension imported again gets the name <name>_v<k> (torch does the same).
_imported = {}


def _module_name(name, key):
    versions = _imported.setdefault(name, {})
    if key in versions:
        return versions[key][0]
    return name if not versions else f"{name}_v{len(versions)}"


def _jit_compile(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags,
                 extra_include_paths, build_directory, verbose, with_cuda, is_python_module):
    sources = [os.path.abspath(s) for s in sources]
    if with_cuda is None:
        with_cuda = any(s.endswith(_CUDA_SUFFIXES) for s in sources)
    cflags, cuda_cflags = _as_list(extra_cflags), _as_list(extra_cuda_cflags)
    ldflags, include_dirs = _as_list(extra_ldflags), [os.path.abspath(p) for p in
                                                      _as_list(extra_include_paths)]
    content = _build_key(name, sources, with_cuda, cflags, cuda_cflags, ldflags, include_dirs)
    if content in _imported.get(name, {}):
        return _imported[name][content][1]
    module_name = _module_name(name, content)
    key = content if module_name == name else hashlib.sha256(
        (content + module_name).encode()).hexdigest()
    build_dir = build_directory or os.path.join(get_build_directory(),
                                                f"{module_name}_{key[:16]}")
    os.makedirs(build_dir, exist_ok=True)
    target = os.path.join(build_dir, module_name + sysconfig.get_config_var("EXT_SUFFIX"))
    stamp = os.path.join(build_dir, "ember_build_key")

    def built():
        try:
            with open(stamp) as f:
                return f.read().strip() == key and os.path.isfile(target)
        except OSError:
            return False

    def build(force=False):
        with _FileLock(os.path.join(build_dir, "ember_build.lock")):
            if force or not built():  # another process may have built it while we waited
                if verbose:
                    print(f"ember: building extension '{name}' in {build_dir}", flush=True)
                _compile_and_link(module_name, sources, build_dir, target, with_cuda, cflags,
                                  cuda_cflags, ldflags, include_dirs, verbose)
                with open(stamp + ".tmp", "w") as f:
                    f.write(key)
                os.replace(stamp + ".tmp", stamp)

    cached = built()
    if not cached:
        build()
    elif verbose:
        print(f"ember: extension '{name}' is up to date in {build_dir}", flush=True)
    try:
        module = _import(module_name, target, is_python_module)
    except ImportError:
        if not cached:
            raise
        build(force=True)  # a damaged cached module is rebuilt, once
        module = _import(module_name, target, is_python_module)
    _imported[name][content] = (module_name, module)
    return module


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
         extra_include_paths=None, build_directory=None, verbose=False, with_cuda=None,
         is_python_module=True, **unused):
    """Compiles ``sources`` (``.cpp`` with the C++ compiler, ``.cu`` with nvcc) into the
    Python module ``name`` and imports it (``is_python_module=False``: loads it as a
    plain library and returns its path). The sources must define
    ``PYBIND11_MODULE(EMBER_EXTENSION_NAME, m)`` (``TORCH_EXTENSION_NAME`` is defined
    too) and should call ``ember::init_extension(m)`` in it. Rebuilds only when a
    source, a header beside the sources or in ``extra_include_paths``, or a flag
    changes."""
    return _jit_compile(name, _as_list(sources), extra_cflags, extra_cuda_cflags, extra_ldflags,
                        extra_include_paths, build_directory, verbose, with_cuda,
                        is_python_module)


def _write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    temp = f"{path}.tmp{os.getpid()}"
    with open(temp, "w") as f:
        f.write(text)
    os.replace(temp, path)


def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
                build_directory=None, verbose=False, with_cuda=None, is_python_module=True,
                **unused):
    """Builds the module ``name`` from source strings, as torch's ``load_inline``:
    ``cpp_sources`` (a string or a list) get ``#include <ember/extension.h>`` in front;
    ``cuda_sources`` get ``<ember/tensor.h>``, ``<ember/cuda.h>`` and
    ``<cuda_runtime.h>``; ``functions`` (a name, a list of names, or a dict of name
    to docstring) are bound with pybind11 in a generated ``PYBIND11_MODULE`` that
    calls ``ember::init_extension``. Functions defined in the CUDA sources must be
    declared in the C++ sources."""
    cpp = "#include <ember/extension.h>\n\n" + "\n".join(_as_list(cpp_sources))
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        if isinstance(functions, list):
            functions = {f: f"{f}" for f in functions}
        defs = "".join(f'  m.def("{f}", &{f}, {json.dumps(doc)});\n'
                       for f, doc in functions.items())
        cpp += ("\n\nPYBIND11_MODULE(EMBER_EXTENSION_NAME, m) {\n  ember::init_extension(m);\n"
                f"{defs}}}\n")
    cuda_list = _as_list(cuda_sources)
    texts = {"main.cpp": cpp}
    if cuda_list:
        texts["cuda.cu"] = ("#include <cuda_runtime.h>\n#include <ember/tensor.h>\n"
                            "#include <ember/cuda.h>\n\n" + "\n".join(cuda_list))
    # The sources live in a folder named after their contents, so that two
    # processes building different versions of `name` never write one file.
    digest = hashlib.sha256(repr(sorted(texts.items())).encode()).hexdigest()[:16]
    src_dir = build_directory or os.path.join(get_build_directory(), f"{name}_src_{digest}")
    os.makedirs(src_dir, exist_ok=True)
    sources = []
    for file_name, text in texts.items():
        sources.append(os.path.join(src_dir, file_name))
        _write_if_changed(sources[-1], text)
    if with_cuda is None:
        with_cuda = bool(cuda_list)
    return _jit_compile(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags,
                        extra_include_paths, build_directory, verbose, with_cuda,
                        is_python_module)
