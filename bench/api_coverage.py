"""How much of torch's public API ember implements, namespace by namespace.

Run it where torch is installed (the oracle)::

    python3 bench/api_coverage.py                 # the table and the missing names
    python3 bench/api_coverage.py --json out.json # every name with its verdict
    python3 bench/api_coverage.py --write-docs    # regenerate docs/compat.md

**What is counted.** For each namespace (``NAMESPACES``) the public names of torch's module:
its ``__all__`` plus the public attributes defined in torch (C functions included), less
submodules, names imported from elsewhere (``typing``, ``Tensor`` re-exported...) and the
excluded families (``EXCLUDED``: quantization, sparse layouts, backend internals,
TorchScript, removed and deprecated names; each with its reason, written into
docs/compat.md). ``torch`` is split into functions and classes; ``Tensor`` into methods and
properties.

**A name counts only when it works.** A name present in ember is *probed*
(bench/api_probes.py): called in torch and in ember with the same small arguments (a hand
probe, or the first generated argument set torch accepts) and compared. Verdicts: works,
differs (another shape, dtype or value than torch), stub (NotImplementedError), error (an
exception where torch returns), unprobed (present, not called: no argument set found, or
a side effect with no hand probe), missing. ``covered`` is the number that works; a probe
proves one call on small CPU inputs, not every argument form, dtype or device. Run on a
GPU machine, the ``torch.cuda`` names are probed too; here they mostly stay unprobed.

The counting (``count``) takes any module-like objects, so tests/test_api_coverage.py
checks it on fake namespaces without torch.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pathlib
import re
import sys
import types
import warnings

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import api_probes  # noqa: E402

# (label, torch's module path, what is counted): functions, classes, methods, properties, all
NAMESPACES = [
    ("torch", "torch", "functions"),
    ("torch (classes)", "torch", "classes"),
    ("Tensor", "torch.Tensor", "methods"),
    ("Tensor (properties)", "torch.Tensor", "properties"),
    ("torch.nn", "torch.nn", "all"),
    ("torch.nn.functional", "torch.nn.functional", "all"),
    ("torch.optim", "torch.optim", "all"),
    ("torch.optim.lr_scheduler", "torch.optim.lr_scheduler", "all"),
    ("torch.optim.swa_utils", "torch.optim.swa_utils", "all"),
    ("torch.linalg", "torch.linalg", "all"),
    ("torch.fft", "torch.fft", "all"),
    ("torch.special", "torch.special", "all"),
    ("torch.cuda", "torch.cuda", "all"),
    ("torch.autograd", "torch.autograd", "all"),
    ("torch.autograd.functional", "torch.autograd.functional", "all"),
    ("torch.autograd.graph", "torch.autograd.graph", "all"),
    ("torch.utils.data", "torch.utils.data", "all"),
    ("torch.utils.checkpoint", "torch.utils.checkpoint", "all"),
    ("torch.testing", "torch.testing", "all"),
    ("torch.distributed", "torch.distributed", "all"),
    ("torch.profiler", "torch.profiler", "all"),
    ("torch.amp", "torch.amp", "all"),
    ("torch.accelerator", "torch.accelerator", "all"),
    ("torch.backends", "torch.backends", "backends"),
]

# The families that do not count (in the denominator or anywhere): (name, pattern, why).
# Patterns match the name inside its namespace.
EXCLUDED = [
    ("quantization", r"quantiz|(^|_)q_|^q(int|uint|scheme|_)|qparams|^int_repr$|^dequantize$|"
     r"^is_quantized$|^quantized_|^qscheme$|fake_quant",
     "quantized tensors are a separate backend ember does not have (torch.ao)"),
    ("sparse layouts", r"sparse|(^|_)(coo|csr|csc|bsr|bsc)($|_)|^to_dense$|^(s|h)spmm$|^saddmm$|"
     r"^sspaddmm$|^smm$|^(crow|ccol|col|row)_indices$|^(indices|values)$|coalesce|^_?nnz$|"
     r"^dense_dim$|^sparse_dim$|^is_sparse",
     "sparse layouts (COO, CSR, CSC, BSR, BSC) are not part of ember's strided tensors"),
    ("backend internals", r"mkldnn|fbgemm|xla|(^|_)ipu|(^|_)mps($|_)|nested|mtia|(^|_)hpu|xpu|"
     r"vulkan|metal|miopen|^cudnn_|^is_ort$|maia|privateuse|^is_inference$_never|nnpack|xnnpack|"
     r"^is_nested$|jagged|^fused_moving_avg|^(cusparselt|kleidiai|nnpack|mkldnn|quantized|xeon|"
     r"mha)\\.|\\.(cuFFTPlanCache\\w*|cufft_plan_cache|preferred_rocm_fa_library)$",
     "other backends' entry points (oneDNN, FBGEMM, XLA, IPU, MPS, MTIA, HPU, XPU, Vulkan, "
     "Metal, MIOpen) and cuDNN's direct calls"),
    ("TorchScript and compiler internals",
     r"Type$|^Script|^(AliasDb|Argument|ArgumentSpec|BenchmarkConfig|BenchmarkExecutionStats|"
     r"Block|BufferDict|CallStack|Capsule|Code|CompilationUnit|CompleteArgumentSpec|"
     r"ConcreteModuleType|ConcreteModuleTypeBuilder|DeepCopyMemoTable|"
     r"DeserializationStorageContext|DispatchKey|DispatchKeySet|ErrorReport|"
     r"ExcludeDispatchKeyGuard|ExecutionPlan|FatalError|FileCheck|FunctionSchema|Future|"
     r"Gradient|Graph|GraphExecutorState|IODescriptor|InferredType|JITException|"
     r"LiteScriptModule|LockingLogger|ModuleDict|Node|NoopLogger|OperatorInfo|ParameterDict|"
     r"PyTorchFileReader|PyTorchFileWriter|SerializationStorageContext|StaticModule|"
     r"ThroughputBenchmark|TracingState|Use|Value|AggregationType|DisableTorchFunction|"
     r"DisableTorchFunctionSubclass|Tag|AVG|SUM)$|^Sym(Int|Float|Bool)$|^sym_|^fork$|^wait$|"
     r"^import_ir_module|^merge_type_from_type_comment|^parse_ir$|^parse_schema$|"
     r"^parse_type_comment$|^unify_type_list$|^read_vitals$|^set_vital|^vitals_enabled$|"
     r"^is_anomaly|^compiled_with_cxx11_abi$|^get_file_path$|^classproperty$|"
     r"^prepare_multiprocessing_environment$|^(USE_|TYPE_CHECKING|PRIVATE_OPS)|"
     r"^has_(lapack|mkl|openmp|spectral)$|^cond$|^while_loop$|^get_device_module$|"
     r"^typename$|^is_storage$|^storage$|^untyped_storage$|^_?storage_type$",
     "TorchScript IR classes, symbolic shapes and torch.compile's control flow: internals "
     "of torch's compilers, not tensor library API"),
    ("typed storages", r"^(Bool|Byte|Char|Double|Float|Half|BFloat16|Int|Long|Short|ComplexDouble|"
     r"ComplexFloat|QInt8|QInt32|QUInt8|QUInt2x4|QUInt4x2)?Storage(Base)?$|^TypedStorage$|"
     r"^UntypedStorage$|^LoggerBase$",
     "storages are deprecated as public API since torch 2.0 (torch.TypedStorage warns); "
     "ember's tensors own their memory"),
    ("removed or deprecated", r"^(eig|lstsq|symeig|solve|matrix_rank|lu|chain_matmul|"
     r"set_default_tensor_type|pca_lowrank|svd_lowrank|segment_reduce|quantized_gru|"
     r"quantized_lstm|reduce_op|is_bf16_supported_never|register_hook_never|"
     r"assert_allclose|resize_as_|resize_|is_set_to|storage_offset_never|prepare_|"
     r"map2_|map_|apply_|data_ptr_never|new|has_names|align_as|align_to|refine_names|"
     r"rename_?|names|unflatten_never|dim_order_never)$",
     "removed from torch (its names only raise), deprecated with a replacement, or the "
     "experimental named tensors"),
]
EXCLUDED_RE = [(fam, re.compile(pat), why) for fam, pat, why in EXCLUDED]

# Names that are public in torch but not API at all: helpers left in module namespaces.
NOT_API = {"has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "boolean_dispatch", "BroadcastingList1",
           "BroadcastingList2", "BroadcastingList3", "is_tensor_like", "reproducibility_notes",
           "common_args", "factory_common_args", "multi_dim_common", "common_notes"}


def excluded(name):
    """(family, why) of an excluded name, or None."""
    for fam, rx, why in EXCLUDED_RE:
        if rx.search(name):
            return fam, why
    return None


def _defined_in(obj, prefix):
    mod = getattr(obj, "__module__", None)
    if not isinstance(mod, str):
        mod = type(obj).__module__ or ""
    return mod.startswith(prefix)


def public_names(mod, path, what):
    """The public names of torch's namespace `mod` (a module or class) for `what`."""
    names = set()
    if what in ("methods", "properties"):
        for n in dir(mod):
            if n.startswith("_"):
                continue
            attr = inspect.getattr_static(mod, n)
            is_method = callable(attr) and not isinstance(attr, property)
            if (what == "methods") == is_method:
                names.add(n)
        return sorted(names)
    declared = set(getattr(mod, "__all__", None) or ())
    for n in set(dir(mod)) | declared:
        if n.startswith("_") or n in NOT_API:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                obj = getattr(mod, n)
        except AttributeError:
            continue
        if isinstance(obj, types.ModuleType):
            continue
        builtin = isinstance(obj, types.BuiltinFunctionType) and _defined_in(obj, "torch")
        if not (n in declared or _defined_in(obj, path) or builtin):
            continue
        if what == "functions" and (inspect.isclass(obj) or not callable(obj)):
            continue
        if what == "classes" and not inspect.isclass(obj):
            continue
        names.add(n)
    return sorted(names)


def backends_names(torch_backends):
    """torch.backends has only submodules: count their public names as `sub.name`."""
    out = []
    for sub in sorted(dir(torch_backends)):
        m = getattr(torch_backends, sub)
        if sub.startswith("_") or not isinstance(m, types.ModuleType):
            continue
        if not m.__name__.startswith("torch.backends."):
            continue
        for n in public_names(m, m.__name__, "all"):
            out.append(f"{sub}.{n}")
    return out


def resolve(root, path):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def lookup(lib, path):
    """lib.<path> or None (path relative to lib: 'nn.Linear', 'Tensor.add')."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, resolve(lib, path)
    except (AttributeError, ImportError):
        return False, None


def count(torch_lib, ember_lib, namespaces=NAMESPACES, probe=api_probes.probe):
    """Every counted name of each namespace with its verdict: {label: [(name, verdict,
    detail)]}, plus the excluded names {label: [(name, family)]}."""
    results, excl = {}, {}
    for label, path, what in namespaces:
        rel = path.split(".", 1)[1] if "." in path else ""
        found, mod = lookup(torch_lib, rel) if rel else (True, torch_lib)
        if not found:
            continue
        names = backends_names(mod) if what == "backends" else public_names(mod, path, what)
        rows, ex = [], []
        for n in names:
            fam = excluded(n if what == "backends" else n.rsplit(".", 1)[-1])
            if fam:
                ex.append((n, fam[0]))
                continue
            full = f"{rel}.{n}" if rel else n
            present, eobj = lookup(ember_lib, full)
            if not present:
                rows.append((n, "missing", ""))
                continue
            tobj = resolve(torch_lib, full)
            method = n if what in ("methods", "properties") else None
            verdict, detail = probe(f"{path}.{n}", tobj, eobj, torch_lib, ember_lib, method=method)
            rows.append((n, verdict, detail))
        results[label], excl[label] = rows, ex
    return results, excl


def summary(results):
    """[(label, covered, total, unprobed, present)] per namespace, and the totals."""
    out = []
    for label, rows in results.items():
        covered = sum(v == "works" for _, v, _ in rows)
        unprobed = sum(v == "unprobed" for _, v, _ in rows)
        present = sum(v != "missing" for _, v, _ in rows)
        out.append((label, covered, len(rows), unprobed, present))
    return out


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def table(results):
    lines = ["| namespace | covered | total | % | present | unprobed | not working |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label, cov, total, unp, present in summary(results):
        bad = present - cov - unp
        lines.append(f"| `{label}` | {cov} | {total} | {pct(cov, total)} | {present} | {unp} | {bad} |")
    return "\n".join(lines)


def _names(rows, verdicts):
    return [n for n, v, _ in rows if v in verdicts]


def report(results, excl):
    parts = [table(results), ""]
    for label, rows in results.items():
        missing = _names(rows, {"missing"})
        broken = [f"{n} ({v}: {d})" for n, v, d in rows if v in ("stub", "error", "differs")]
        unprobed = _names(rows, {"unprobed"})
        parts.append(f"## {label}: {len(missing)} missing")
        if missing:
            parts.append(", ".join(missing))
        if broken:
            parts.append(f"not working ({len(broken)}): " + "; ".join(broken))
        if unprobed:
            parts.append(f"present, unprobed ({len(unprobed)}): " + ", ".join(unprobed))
        parts.append("")
    return "\n".join(parts)


def write_docs(results, excl, torch_version, path):
    lines = [
        "# Compatibility with torch's API",
        "",
        f"Generated by `bench/api_coverage.py --write-docs` against torch {torch_version};",
        "do not edit by hand (tests/test_api_coverage.py checks it is current where torch is",
        "installed).",
        "",
        "A name counts as **covered** only when it works: ember's function is called with the",
        "same small arguments as torch's (a hand-written probe, or the first generated argument",
        "set torch accepts) and returns what torch returns (shape, dtype and values where",
        "torch's result is deterministic). **present** counts every name ember has; of those,",
        "**unprobed** names were not called (torch accepted no generated arguments, or the name",
        "has side effects and no hand probe), and **not working** names raised",
        "NotImplementedError (stubs), raised where torch returns, or returned something else.",
        "A probe is one call on the CPU: it does not prove every argument form, dtype or",
        "device. The `torch.cuda` names are probed only where a GPU is present.",
        "",
        table(results),
        "",
        "## Excluded families",
        "",
        "These names are not counted (neither covered nor missing):",
        "",
    ]
    fam_names = {}
    for label, ex in excl.items():
        for n, fam in ex:
            fam_names.setdefault(fam, []).append(f"{label}.{n}" if label != "torch" else n)
    for fam, _, why in EXCLUDED:
        names = fam_names.get(fam, [])
        lines.append(f"- **{fam}** ({len(names)} names): {why}.")
    lines.append("")
    lines.append("## Per namespace")
    lines.append("")
    for label, rows in results.items():
        missing = _names(rows, {"missing"})
        broken = [f"`{n}` ({v}: {d})" for n, v, d in rows if v in ("stub", "error", "differs")]
        unprobed = _names(rows, {"unprobed"})
        lines.append(f"### `{label}`")
        lines.append("")
        lines.append("Missing: " + (", ".join(f"`{n}`" for n in missing) or "none") + ".")
        lines.append("")
        if broken:
            lines.append("Present but not working: " + "; ".join(broken) + ".")
            lines.append("")
        if unprobed:
            lines.append("Present, unprobed: " + ", ".join(f"`{n}`" for n in unprobed) + ".")
            lines.append("")
        ex = [n for n, _ in excl.get(label, [])]
        if ex:
            lines.append(f"Excluded ({len(ex)}): " + ", ".join(f"`{n}`" for n in ex) + ".")
            lines.append("")
    text = "\n".join(lines).rstrip() + "\n"
    pathlib.Path(path).write_text(text)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", metavar="PATH", help="write every name's verdict as JSON")
    ap.add_argument("--write-docs", action="store_true", help="regenerate docs/compat.md")
    ap.add_argument("--docs-path", default=str(ROOT / "docs" / "compat.md"))
    ap.add_argument("--namespace", action="append", help="only these labels")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("bench/api_coverage.py needs torch (the oracle): it is not installed here")
        return 2
    import ember
    # the probes reach these through attributes
    for m in ("nn", "nn.functional", "optim", "optim.lr_scheduler", "optim.swa_utils",
              "utils.data", "utils.checkpoint", "testing", "amp", "autograd",
              "autograd.functional", "autograd.graph"):
        for lib in ("torch", "ember"):
            try:
                importlib.import_module(f"{lib}.{m}")
            except ImportError:
                pass
    spaces = [ns for ns in NAMESPACES if not args.namespace or ns[0] in args.namespace]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, excl = count(torch, ember, spaces)
    print(report(results, excl))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"torch_version": torch.__version__, "ember_version": ember.__version__,
             "namespaces": {label: [{"name": n, "verdict": v, "detail": d} for n, v, d in rows]
                            for label, rows in results.items()},
             "excluded": {label: [{"name": n, "family": f} for n, f in ex]
                          for label, ex in excl.items()}}, indent=1))
    if args.write_docs:
        write_docs(results, excl, torch.__version__.split("+")[0], args.docs_path)
        print(f"wrote {args.docs_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
