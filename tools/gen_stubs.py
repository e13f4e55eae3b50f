"""Writes ember's type stubs: python/ember/_C/*.pyi (the extension module) and
python/ember/_exports.pyi (what ember/__init__.py binds dynamically).

``ember._C`` is C++ (pybind11 plus raw METH_FASTCALL functions that carry no
signature), so neither mypy nor an editor can see what it holds. The package ships
``py.typed`` and these stubs keep that promise: ``x.`` completes on a tensor and
mypy types ``ember.zeros(3) + 1`` as ``ember.Tensor``.

Run it after changing the bindings, with the built extension importable::

    PYTHONPATH=python python tools/gen_stubs.py          # rewrite the stubs
    PYTHONPATH=python python tools/gen_stubs.py --check  # exit 1 if a file would change

(``--check`` compares with what this build's pybind11 writes into docstrings, so
it belongs next to a build, not in the test suite.)

How a stub is put together, for ``ember._C`` and each submodule bound as an
attribute of it (``cuda``, ``_nn``, ``_memory``, ``return_types``):

1. The hand-written signatures in ``tools/stubs/<module>.pyi`` come first, as
   written: classes (Tensor, dtype, device, Size, Generator, Stream, Event, ...),
   the creation, random, linear algebra functions and everything irregular. A
   name there that the built module lacks is an error: the stub would lie.
2. The math families (unary, binary, comparison, bitwise, reductions) follow from
   the tables below: one template per family gives the function
   (``ember.exp(input, *, out=None)``), the method (``x.exp()``) and the in-place
   method (``x.exp_()``) of each name, for the forms the built module has.
3. Every other attribute of the built module (and every member of its classes)
   gets a fallback: the signature pybind11 wrote into its docstring, converted to
   stub syntax (``object`` results become ``Any``), or ``(*args: Any, **kwargs:
   Any) -> Any`` where there is none. So the stub lists every attribute that
   exists; the script prints how many fell back, to be promoted to step 1.

tests/test_typing.py checks that the committed stubs name every attribute of the
built module (a new binding without a stub entry fails CI) and runs mypy over a
typed user script.

Where the files live. ``ember._C`` is an extension module, and a stub-only
directory ``python/ember/_C/`` with ``__init__.pyi`` and ``cuda.pyi`` is what
lets mypy see its submodules (``ember._C.cuda.Stream``); it is torch's layout too
(``torch/_C/__init__.pyi`` next to ``torch/_C.*.so``). At run time the directory
changes nothing: it has no ``__init__.py``, and Python's path finder prefers the
extension module ``_C.*.so`` in the same folder over a namespace package. The
wheel gets the stubs because scikit-build-core's ``wheel.packages`` copies the
whole ``python/ember`` tree.

What mypy cannot see in ``ember/__init__.py`` (the math functions, dtypes and
functional views it binds in loops over ``_C._math_functions`` and the like, the
names ``__getattr__`` imports on first use, the names ``__all__`` gets through
``*tuple``) the script writes to the stub ``python/ember/_exports.pyi``, which
``__init__.py`` star-imports under ``if TYPE_CHECKING:`` where ``TYPE_CHECKING =
False`` is a plain constant: mypy and pyright take that branch, Python never runs
it. So ``import ember`` imports nothing more (not even ``typing``) and costs the
same: a few statements more, no code that runs.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import difflib
import importlib
import pathlib
import re
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
HAND_DIR = ROOT / "tools" / "stubs"
OUT_DIR = ROOT / "python" / "ember" / "_C"
EXPORTS = ROOT / "python" / "ember" / "_exports.pyi"

# ---- the math families: name lists and one template per form ----------------
# {n}: the name. A form is written only where the built module has it: the
# function where ember._C has the name, the method where Tensor has it, the
# in-place method where Tensor has name + "_". The templates use the aliases that
# tools/stubs/_C.pyi defines (_int, _bool, _dtype, _Dims, _TensorOrNumber, ...).

_UNARY = ("sqrt rsqrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin arcsin acos arccos atan "
          "arctan sinh cosh tanh asinh arcsinh acosh arccosh atanh arctanh sigmoid erf erfc "
          "reciprocal frac neg negative abs absolute sign square relu floor ceil trunc fix "
          "logical_not isnan isinf isfinite bitwise_not silu sgn lgamma digamma erfinv i0 "
          "special_i0e special_i1 special_i1e special_ndtr special_ndtri special_log_ndtr "
          "special_erfcx special_bessel_j0 special_bessel_j1 special_entr").split()
# ember.abs_(input), ...: torch's module-level in-place spellings (bound C++)
_MODULE_INPLACE = ("abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ "
                   "asinh_ atan_ atanh_ ceil_ cos_ cosh_ erf_ erfc_ exp2_ exp_ expm1_ fix_ "
                   "floor_ frac_ log10_ log1p_ log2_ log_ neg_ negative_ reciprocal_ relu_ "
                   "rsqrt_ sigmoid_ sin_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ i0_").split()
_SPECIAL_BINARY = "igamma igammac nextafter gcd lcm".split()
# torch.special's functions whose GPU kernels are jitted (bindings/math_special.cpp):
# one-operand ones by their argument's name, and the polynomials of (x, n)
_SPECIAL_JIT_INPUT = ("special_bessel_y0 special_bessel_y1 special_modified_bessel_i0 "
                      "special_modified_bessel_i1 special_modified_bessel_k0 "
                      "special_modified_bessel_k1").split()
_SPECIAL_JIT_X = ("special_airy_ai special_scaled_modified_bessel_k0 "
                  "special_scaled_modified_bessel_k1 special_spherical_bessel_j0").split()
_SPECIAL_POLYNOMIAL = [f"special_{p}" for p in (
    "chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v "
    "chebyshev_polynomial_w shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u "
    "shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w hermite_polynomial_h "
    "hermite_polynomial_he laguerre_polynomial_l legendre_polynomial_p").split()]
_BINARY = ("mul multiply true_divide floor_divide remainder fmod atan2 arctan2 hypot maximum "
           "minimum fmax fmin").split()
_BITWISE = "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split()
_COMPARE = ("eq ne not_equal lt less le less_equal gt greater ge greater_equal logical_and "
            "logical_or logical_xor").split()
_REDUCE_DTYPE = "sum mean prod".split()
_REDUCE = "amax amin all any logsumexp".split()
_ARG_REDUCE = "argmax argmin".split()

_OUT = "out: Tensor | None = None"
FAMILIES = [
    (_MODULE_INPLACE, "def {n}(input: Tensor) -> Tensor: ...", None, None),
    (["round_"], "def {n}(input: Tensor, decimals: _int = 0) -> Tensor: ...", None, None),
    (["nan_to_num_"],
     "def {n}(input: Tensor, nan: _float = 0.0, posinf: _float | None = None, "
     "neginf: _float | None = None) -> Tensor: ...", None, None),
    (["logit_"], "def {n}(input: Tensor, eps: _float | None = None) -> Tensor: ...", None, None),
    (["gcd_", "lcm_"], "def {n}(input: Tensor, other: Tensor) -> Tensor: ...", None, None),
    (["polygamma"],
     f"def {{n}}(n: _int, input: Tensor, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, n: _int) -> Tensor: ...",
     "def {n}_(self, n: _int) -> Self: ..."),
    (["logit"],
     f"def {{n}}(input: Tensor, eps: _float | None = None, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, eps: _float | None = None) -> Tensor: ...",
     "def {n}_(self, eps: _float | None = None) -> Self: ..."),
    (_SPECIAL_BINARY,
     f"def {{n}}(input: Tensor, other: Tensor, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, other: Tensor) -> Tensor: ...",
     "def {n}_(self, other: Tensor) -> Self: ..."),
    (["special_zeta", "special_xlog1py"],
     f"def {{n}}(input: _TensorOrNumber, other: _TensorOrNumber, *, {_OUT}) -> Tensor: ...",
     None, None),
    (_SPECIAL_JIT_INPUT, f"def {{n}}(input: Tensor, *, {_OUT}) -> Tensor: ...", None, None),
    (_SPECIAL_JIT_X, f"def {{n}}(x: Tensor, *, {_OUT}) -> Tensor: ...", None, None),
    (_SPECIAL_POLYNOMIAL,
     f"def {{n}}(x: _TensorOrNumber, n: _TensorOrNumber, *, {_OUT}) -> Tensor: ...",
     None, None),
    (["_frexp"],
     "def {n}(input: Tensor, mantissa: Tensor | None = None, "
     "exponent: Tensor | None = None) -> tuple[Tensor, Tensor]: ...", None, None),
    # (names, function, method, in-place method)
    (_UNARY,
     f"def {{n}}(input: Tensor, *, {_OUT}) -> Tensor: ...",
     "def {n}(self) -> Tensor: ...",
     "def {n}_(self) -> Self: ..."),
    (["round"],
     f"def {{n}}(input: Tensor, *, decimals: _int = 0, {_OUT}) -> Tensor: ...",
     "def {n}(self, *, decimals: _int = 0) -> Tensor: ...",
     "def {n}_(self, *, decimals: _int = 0) -> Self: ..."),
    (["nan_to_num"],
     "def {n}(input: Tensor, nan: _float = 0.0, posinf: _float | None = None, "
     f"neginf: _float | None = None, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, nan: _float = 0.0, posinf: _float | None = None, "
     "neginf: _float | None = None) -> Tensor: ...",
     "def {n}_(self, nan: _float = 0.0, posinf: _float | None = None, "
     "neginf: _float | None = None) -> Self: ..."),
    (["gelu"],
     "def {n}(input: Tensor, *, approximate: Literal['none', 'tanh'] = 'none', "
     f"{_OUT}) -> Tensor: ...",
     "def {n}(self, *, approximate: Literal['none', 'tanh'] = 'none') -> Tensor: ...",
     "def {n}_(self, *, approximate: Literal['none', 'tanh'] = 'none') -> Self: ..."),
    (_BINARY,
     f"def {{n}}(input: _TensorOrNumber, other: _TensorOrNumber, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, other: _TensorOrNumber) -> Tensor: ...",
     "def {n}_(self, other: _TensorOrNumber) -> Self: ..."),
    ("add sub subtract".split(),
     "def {n}(input: _TensorOrNumber, other: _TensorOrNumber, *, alpha: _Number = 1, "
     f"{_OUT}) -> Tensor: ...",
     "def {n}(self, other: _TensorOrNumber, *, alpha: _Number = 1) -> Tensor: ...",
     "def {n}_(self, other: _TensorOrNumber, *, alpha: _Number = 1) -> Self: ..."),
    ("div divide".split(),
     "def {n}(input: _TensorOrNumber, other: _TensorOrNumber, *, "
     f"rounding_mode: Literal['trunc', 'floor'] | None = None, {_OUT}) -> Tensor: ...",
     "def {n}(self, other: _TensorOrNumber, *, "
     "rounding_mode: Literal['trunc', 'floor'] | None = None) -> Tensor: ...",
     "def {n}_(self, other: _TensorOrNumber, *, "
     "rounding_mode: Literal['trunc', 'floor'] | None = None) -> Self: ..."),
    ("pow float_power".split(),
     f"def {{n}}(input: _TensorOrNumber, exponent: _TensorOrNumber, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, exponent: _TensorOrNumber) -> Tensor: ...",
     "def {n}_(self, exponent: _TensorOrNumber) -> Self: ..."),
    (_BITWISE,
     "def {n}(input: Tensor | _int | _bool, other: Tensor | _int | _bool, *, "
     f"{_OUT}) -> Tensor: ...",
     "def {n}(self, other: Tensor | _int | _bool) -> Tensor: ...",
     "def {n}_(self, other: Tensor | _int | _bool) -> Self: ..."),
    (_COMPARE,
     f"def {{n}}(input: Tensor, other: _TensorOrNumber, *, {_OUT}) -> Tensor: ...",
     "def {n}(self, other: _TensorOrNumber) -> Tensor: ...",
     "def {n}_(self, other: _TensorOrNumber) -> Self: ..."),
    (_REDUCE_DTYPE,
     "def {n}(input: Tensor, dim: _Dims | None = None, keepdim: _bool = False, *, "
     f"dtype: _dtype | None = None, {_OUT}) -> Tensor: ...",
     "def {n}(self, dim: _Dims | None = None, keepdim: _bool = False, *, "
     "dtype: _dtype | None = None) -> Tensor: ...",
     None),
    (_REDUCE,
     f"def {{n}}(input: Tensor, dim: _Dims | None = None, keepdim: _bool = False, *, "
     f"{_OUT}) -> Tensor: ...",
     "def {n}(self, dim: _Dims | None = None, keepdim: _bool = False) -> Tensor: ...",
     None),
    (_ARG_REDUCE,
     f"def {{n}}(input: Tensor, dim: _int | None = None, keepdim: _bool = False, *, "
     f"{_OUT}) -> Tensor: ...",
     "def {n}(self, dim: _int | None = None, keepdim: _bool = False) -> Tensor: ...",
     None),
]

# ---- what counts as an attribute ---------------------------------------------

# Members every class has, or pybind11's own: not part of ember's API.
_SKIP_MEMBERS = {"__doc__", "__module__", "__dict__", "__weakref__", "_pybind11_conduit_v1_"}
_SLOT_TYPES = (type(object.__init__), type(object().__init__))  # wrapper_descriptor, method-wrapper


def module_attributes(mod):
    """name -> object for what a stub of ``mod`` must list: all but module dunders."""
    return {n: getattr(mod, n) for n in sorted(dir(mod))
            if not (n.startswith("__") and n.endswith("__")) or n == "__version__"}


def class_attributes(cls):
    """name -> object defined on ``cls`` itself, without C slots it inherits in
    spirit (a structseq's __new__/__repr__, a pybind class without constructor's
    __init__) and pybind11's internals."""
    out = {}
    for n, v in cls.__dict__.items():
        if n in _SKIP_MEMBERS or isinstance(v, _SLOT_TYPES):
            continue
        if n == "__new__" and isinstance(v, types.BuiltinFunctionType):
            continue
        out[n] = v
    return dict(sorted(out.items()))


# ---- signatures pybind11 wrote into docstrings --------------------------------

_SIG_LINE = re.compile(r"^\s*(?:\d+\.\s+)?(\w+)\((.*)\)\s*->\s*(.+?)\s*$")
_PROPERTY_LINE = re.compile(r"^\(.*\)\s*->\s*(.+?)\s*$", re.M)
_EMBER_TYPE = re.compile(r"\bember(?:\.\w+)+")
_GENERIC_ARGS = {"list": "Any", "set": "Any", "frozenset": "Any", "dict": "Any, Any",
                 "tuple": "Any, ...", "type": "Any"}


def doc_signatures(obj):
    """[(params, result)] from pybind11's 'name(params) -> result' lines (several
    when overloaded); [] when the docstring has none."""
    doc = getattr(obj, "__doc__", None) or ""
    lines = doc.strip().splitlines()
    if not lines:
        return []
    if lines[0].strip().endswith("Overloaded function."):
        cand = [ln for ln in lines[1:] if re.match(r"^\s*\d+\.\s+\w+\(", ln)]
    else:
        cand = lines[:1]
    sigs = []
    for ln in cand:
        m = _SIG_LINE.match(ln)
        if not m:
            return []
        sigs.append((m.group(2), m.group(3)))
    return sigs


class _Annotations(ast.NodeTransformer):
    """Bare generics get their parameters (list -> list[Any]); builtins that the
    stub's own names shadow (ember._C.int is a dtype) are spelled builtins.int."""

    def __init__(self, shadowed):
        self.shadowed = shadowed
        self.uses_builtins = False

    def visit_Subscript(self, node):
        node.value = self.name(node.value) if isinstance(node.value, ast.Name) else node.value
        node.slice = self.visit(node.slice)
        return node

    def visit_Name(self, node):
        if node.id in _GENERIC_ARGS:
            node = ast.parse(f"{node.id}[{_GENERIC_ARGS[node.id]}]", mode="eval").body
            node.value = self.name(node.value)
            return node
        return self.name(node)

    def name(self, node):
        if node.id in self.shadowed and hasattr(builtins, node.id):
            self.uses_builtins = True
            return ast.parse(f"builtins.{node.id}", mode="eval").body
        return node


class StubModule:
    """The text of one stub module being put together."""

    def __init__(self, sub, classes, shadowed):
        self.sub = sub  # None for ember._C, else the submodule's name
        self.shadowed = shadowed  # the module's names: a builtin of the same name is builtins.X
        self.class_shadowed = set()  # the members of the class being written
        self.classes = classes  # id(class) -> (submodule or None, name): every class stubbed
        self.imports = set()  # import lines the fallbacks need
        self.from_docs = 0  # fallbacks from a docstring signature
        self.fallbacks = 0  # fallbacks without one: (*args, **kwargs) -> Any
        self.fallback_names = []

    # -- type expressions --
    def type_ref(self, sub, name):
        if sub == self.sub:
            return name
        mod = "ember._C" + (f".{sub}" if sub else "")
        self.imports.add(f"import {mod}")
        return f"{mod}.{name}"

    def class_ref(self, cls):
        where = self.classes.get(id(cls))
        if where is not None:
            return self.type_ref(*where)
        if cls.__module__ == "builtins":
            return cls.__name__
        return None

    def convert_type(self, text, result):
        def repl(m):
            # pybind11 names a class by its __module__ when the docstring was written:
            # ember.Tensor, ember._C.cuda.Event, ember.cuda.StreamContext, ...
            *path, name = m.group(0).split(".")
            hint = path[-1] if path[-1] not in ("ember", "_C") else None
            where = [w for w in self.classes.values() if w[1] == name]
            if len(where) > 1:
                where = [w for w in where if w[0] == hint]
            return self.type_ref(*where[0]) if len(where) == 1 else "Any"

        text = _EMBER_TYPE.sub(repl, text)
        if result and re.fullmatch(r"\s*object\s*", text):
            text = "Any"
        fix = _Annotations(self.shadowed | self.class_shadowed)
        try:
            node = fix.visit(ast.parse(text, mode="eval").body)
        except SyntaxError:
            return "Any"
        text = ast.unparse(node)
        if fix.uses_builtins:
            self.imports.add("import builtins")
        if "typing." in text:
            self.imports.add("import typing")
        if "collections.abc." in text:
            self.imports.add("import collections.abc")
        return text

    # -- functions --
    def function_lines(self, name, obj, method=False, static=False):
        """The stub lines of a function or method from its docstring signature(s)."""
        defs = []
        for params, result in doc_signatures(obj):
            d = self._def_from_doc(name, params, result, method and not static)
            if d is None:
                defs = []
                break
            defs.append(d)
        prefix = ["@staticmethod"] if static else []
        self.from_docs += bool(defs)
        if not defs:
            self.fallbacks += 1
            self.fallback_names.append(name)
            self_arg = "self, " if method and not static else ""
            return prefix + [f"def {name}({self_arg}*args: Any, **kwargs: Any) -> Any: ..."]
        if len(defs) == 1:
            return prefix + defs
        self.imports.add("from typing import overload")
        return [line for d in defs for line in (*prefix, "@overload", d)]

    def _def_from_doc(self, name, params, result, method):
        try:
            fn = ast.parse(f"def {name}({params}): ...").body[0]
        except SyntaxError:
            return None
        a = fn.args
        every = a.posonlyargs + a.args + a.kwonlyargs
        if method:
            if not (a.posonlyargs + a.args):
                return None
            first = (a.posonlyargs + a.args)[0]
            first.arg, first.annotation = "self", None
        for arg in every + [x for x in (a.vararg, a.kwarg) if x]:
            if method and arg is (a.posonlyargs + a.args)[0]:
                continue
            ann = ast.unparse(arg.annotation) if arg.annotation else "Any"
            arg.annotation = ast.parse(self.convert_type(ann, False), mode="eval").body
        a.defaults = [ast.Constant(...) for _ in a.defaults]
        a.kw_defaults = [None if d is None else ast.Constant(...) for d in a.kw_defaults]
        # pybind11's unnamed arguments (arg0, arg1, ...) take no keywords
        positional = a.posonlyargs + a.args
        start = 1 if method else 0
        unnamed = 0
        while start + unnamed < len(positional) and \
                re.fullmatch(r"arg\d+", positional[start + unnamed].arg):
            unnamed += 1
        if unnamed and not a.posonlyargs:
            a.posonlyargs, a.args = positional[:start + unnamed], positional[start + unnamed:]
        fn.returns = ast.parse(self.convert_type(result, True), mode="eval").body
        text = ast.unparse(fn).replace("\n    ...", " ...")
        text = re.sub(r"(?<=[\w\]])=\.\.\.", " = ...", text)
        return text if text.count("\n") == 0 else None

    # -- classes --
    def class_lines(self, name, cls, members):
        """A fallback class: its bases and a line group per member."""
        bases = [b for b in cls.__bases__ if b.__name__ not in ("pybind11_object", "object")]
        refs = [self.class_ref(b) for b in bases]
        bases_text = ", ".join(r for r in refs if r)
        head = f"class {name}({bases_text}):" if bases_text else f"class {name}:"
        self.class_shadowed = set(members)
        body = [line for n, v in members.items() for line in self.member_lines(n, v)]
        self.class_shadowed = set()
        return [head] + ["    " + line for line in (body or ["..."])]

    def member_lines(self, name, value):
        if isinstance(value, staticmethod):
            return self.function_lines(name, value.__func__, method=True, static=True)
        if isinstance(value, property):
            m = _PROPERTY_LINE.match((getattr(value.fget, "__doc__", None) or "").strip())
            result = self.convert_type(m.group(1), True) if m else "Any"
            if result == "Any":
                self.fallbacks += 1
                self.fallback_names.append(name)
            else:
                self.from_docs += 1
            lines = ["@property", f"def {name}(self) -> {result}: ..."]
            if value.fset is not None:
                lines += [f"@{name}.setter", f"def {name}(self, value: {result}) -> None: ..."]
            return lines
        if callable(value):
            return self.function_lines(name, value, method=True)
        return [f"{name}: {self.value_type(value)}"]

    def value_type(self, value):
        if isinstance(value, (bool, int, float, str, bytes)):
            return type(value).__name__
        if isinstance(value, tuple):
            return "tuple[Any, ...]"
        ref = self.class_ref(type(value))
        return ref or "Any"

    def attribute_lines(self, name, value):
        """A fallback for a module attribute."""
        if isinstance(value, types.ModuleType):
            return [f"from . import {name} as {name}"]
        if isinstance(value, type):
            return self.class_lines(name, value, class_attributes(value))
        if callable(value):
            return self.function_lines(name, value)
        return [f"{name}: {self.value_type(value)}"]


# ---- the hand-written file and the merge -------------------------------------

def _defined_names(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    return []


def _family_lines(mod_attrs, tensor_attrs):
    """(module-level lines, Tensor member lines) of the families, for the forms the
    built module has."""
    fns, methods = [], []
    for names, fn, method, inplace in FAMILIES:
        for n in names:
            if n in mod_attrs:
                fns.append(fn.format(n=n))
            if method and n in tensor_attrs:
                methods.append(method.format(n=n))
            if inplace and n + "_" in tensor_attrs:
                methods.append(inplace.format(n=n))
    return fns, methods


def build_module(mod, sub, classes, errors):
    """The text of the stub of ``mod`` (ember._C when sub is None)."""
    label = "ember._C" + (f".{sub}" if sub else "")
    attrs = module_attributes(mod)
    stub = StubModule(sub, classes, set(attrs))
    hand_path = HAND_DIR / f"{sub or '_C'}.pyi"
    hand = hand_path.read_text() if hand_path.exists() else ""
    tree = ast.parse(hand)
    lines = hand.splitlines()
    # The hand-written file's leading comment says what it is; the output says its own.
    skip_head = 0
    while skip_head < len(lines) and (lines[skip_head].startswith("#")
                                      or not lines[skip_head].strip()):
        skip_head += 1

    covered = set()
    inserts = {}  # line index after which to insert -> lines
    family_fns, family_methods = ([], [])
    if sub is None:
        family_fns, family_methods = _family_lines(attrs, class_attributes(mod.Tensor))
    for stmt in tree.body:
        names = _defined_names(stmt)
        for n in names:
            if n in attrs:
                covered.add(n)
            elif not n.startswith("_") and not isinstance(stmt, (ast.Import, ast.ImportFrom)):
                errors.append(f"{hand_path.relative_to(ROOT)}:{stmt.lineno}: {label} has no "
                              f"attribute {n!r}")
        if isinstance(stmt, ast.ClassDef) and stmt.name in attrs:
            cls = attrs[stmt.name]
            written = set()
            for member in stmt.body:
                for n in _defined_names(member):
                    written.add(n)
                    if isinstance(member, ast.FunctionDef) and not hasattr(cls, n):
                        errors.append(f"{hand_path.relative_to(ROOT)}:{member.lineno}: "
                                      f"{label}.{stmt.name} has no attribute {n!r}")
            extra = []
            if sub is None and stmt.name == "Tensor":
                fam = [m for m in family_methods if _def_name(m) not in written]
                if fam:
                    extra += ["", "# ---- math families (tools/gen_stubs.py FAMILIES) ----"] + fam
                    written.update(_def_name(m) for m in fam)
            missing = {n: v for n, v in class_attributes(cls).items() if n not in written}
            if missing:
                extra += ["", "# ---- no hand-written signature: from the docstrings ----"]
                stub.class_shadowed = written | set(class_attributes(cls))
                for n, v in missing.items():
                    extra += stub.member_lines(n, v)
                stub.class_shadowed = set()
            if extra:
                inserts[stmt.end_lineno - 1] = ["    " + e if e else "" for e in extra]

    out = []
    for i, line in enumerate(lines):
        if i < skip_head:
            continue
        out.append(line)
        out.extend(inserts.get(i, []))
    body = "\n".join(out).strip("\n")

    fam = [f for f in family_fns if _def_name(f) not in covered]
    covered.update(_def_name(f) for f in fam)
    tail = []
    if fam:
        tail += ["", "", "# ---- math families (tools/gen_stubs.py FAMILIES) ----"] + fam
    rest = [n for n in attrs if n not in covered]
    if rest:
        tail += ["", "", "# ---- no hand-written signature: from the docstrings, else generic ----"]
        for n in rest:
            block = stub.attribute_lines(n, attrs[n])
            if block[0].startswith("class "):
                tail += ["", ""] + block + [""]
            else:
                tail += block
    bound = {n for stmt in tree.body if isinstance(stmt, (ast.Import, ast.ImportFrom))
             for n in _defined_names(stmt)}
    imports = sorted((line for line in stub.imports | {"from typing import Any"}
                      if line.split()[-1].split(".")[0] not in bound),
                     key=lambda line: (line.startswith("from"), line))
    doc = (mod.__doc__ or "").strip().replace('"""', "'''")
    source = "tools/stubs/" + hand_path.name if hand else "no hand-written file"
    head = [f"# Generated by tools/gen_stubs.py from the built {label} and {source}.",
            "# Do not edit: edit the hand-written file (or the FAMILIES table) and rerun.",
            f'"""{doc}"""' if doc else None, *imports]
    text = "\n".join(h for h in head if h is not None) + "\n\n" + body + "\n".join(tail)
    return re.sub(r"\n{4,}", "\n\n\n", text).rstrip("\n") + "\n", stub


def _def_name(line):
    return re.match(r"def (\w+)", line).group(1)


def _wrap(items, width=99):
    """Comma-separated items in indented lines of at most width characters."""
    lines, line = [], "   "
    for item in items:
        if len(line) + len(item) + 2 > width:
            lines.append(line)
            line = "   "
        line += f" {item},"
    return lines + [line] if line.strip() else lines


def build_exports(errors):
    """The text of ember/_exports.pyi, which ember/__init__.py star-imports for type
    checkers only: every name of ember.__all__ that __init__.py does not define itself
    (with def or an assignment), imported from where it lives as ``x as x``. That
    covers the names bound in loops or by __getattr__ on first use, and exports those
    that __all__ gets through *tuples (type checkers do not expand them): the star
    import comes before __init__.py's plain imports of the same names."""
    ember = importlib.import_module("ember")
    C = ember._C
    init = ast.parse((ROOT / "python" / "ember" / "__init__.py").read_text())
    own = set()
    for stmt in init.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            own.update(_defined_names(stmt))
    imports, assigns, names = {}, [], []
    for name in ember.__all__:
        if name in own or name in names:
            continue
        value = getattr(ember, name)
        names.append(name)
        if name in getattr(ember, "_FUNCTIONAL", ()):  # ember.reshape(x, ...) is x.reshape(...)
            assigns.append(f"{name} = Tensor.{name}")
            continue
        if isinstance(value, types.ModuleType) and value.__name__.rpartition(".")[0] == "ember":
            home = "ember"
        elif getattr(C, name, None) is value:
            home = "ember._C"
        else:
            home = getattr(value, "__module__", None)
            if home is None or getattr(sys.modules.get(home), name, None) is not value:
                errors.append(f"ember.{name}: cannot tell where it is defined")
                continue
        imports.setdefault(home, []).append(name)
    lines = ["# Generated by tools/gen_stubs.py from the imported ember. Do not edit.",
             '"""ember\'s exports, for type checkers: ember/__init__.py star-imports this stub',
             "under `if TYPE_CHECKING:` and Python never imports it. Every name of ember.__all__",
             "that __init__.py does not define itself, imported from where it lives: also those",
             "bound there in loops or by __getattr__ on first use, or exported only through",
             '*tuples in __all__, which type checkers would not see."""',
             "from ember._C import Tensor"]
    for home, group in imports.items():
        lines += [f"from {home} import ("] + _wrap(f"{n} as {n}" for n in group) + [")"]
    lines += [""] + assigns
    return "\n".join(lines) + "\n"


def build_all():
    """{path: text} for every stub file, and the errors found."""
    C = importlib.import_module("ember._C")
    subs = {n: v for n, v in module_attributes(C).items() if isinstance(v, types.ModuleType)}
    classes = {}
    for sub, mod in [(None, C)] + list(subs.items()):
        for n, v in module_attributes(mod).items():
            if isinstance(v, type):
                classes[id(v)] = (sub, n)
    errors, files, report = [], {}, []
    for sub, mod in [(None, C)] + list(subs.items()):
        text, stub = build_module(mod, sub, classes, errors)
        path = OUT_DIR / ("__init__.pyi" if sub is None else f"{sub}.pyi")
        files[path] = text
        report.append(f"{path.relative_to(ROOT)}: {stub.from_docs} signatures from pybind11 "
                      f"docstrings, {stub.fallbacks} generic"
                      + (f" ({', '.join(stub.fallback_names)})" if stub.fallback_names else ""))
    files[EXPORTS] = build_exports(errors)
    return files, errors, report


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 if a stub file would change")
    args = p.parse_args(argv)
    files, errors, report = build_all()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 2
    for text in files.values():
        compile(text, "<stub>", "exec", flags=ast.PyCF_ONLY_AST)  # valid syntax or raise
    stale = []
    for path, text in files.items():
        old = path.read_text() if path.exists() else ""
        if old != text:
            stale.append(path)
            if args.check:
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), str(path), str(path) + " (new)"))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    print("\n".join(report))
    if args.check and stale:
        print(f"{len(stale)} stub file(s) out of date: run tools/gen_stubs.py", file=sys.stderr)
        return 1
    if not args.check:
        print(f"wrote {len(stale)} file(s)" if stale else "stubs up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
