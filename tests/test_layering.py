"""The layers of csrc/ call only downward; the order is stated once, in docs/design/README.md.

The layer order is the numbered list that follows the `<!-- layer-order` marker in
docs/design/README.md (`1. **runtime/** ...`, lowest layer first); nothing else is
read. Every `#include "..."` under csrc/ is resolved as the compiler does (the
including file's folder, then csrc/, the include root) and mapped, like the file
that includes it, to its layer (its first folder under csrc/). A file may include
its own layer and the layers before it.

Pure file reading: this module does not import ember, so it also runs when the
extension does not build. tests/conftest.py does import ember; without a working
build, run
    python3 -m pytest --noconftest tests/test_layering.py
or  python3 tests/test_layering.py
"""
import os
import pathlib
import re
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CSRC = ROOT / "csrc"
DESIGN_DIR = ROOT / "docs" / "design"
DESIGN_INDEX = DESIGN_DIR / "README.md"

MARKER = "<!-- layer-order"
SOURCE_SUFFIXES = (".hpp", ".cpp", ".cu", ".cuh", ".h")
# "At most ~20 files stay at the ops/ root": the shared loops; each op family has a folder.
OPS_ROOT_MAX_FILES = 20

_LIST_ITEM = re.compile(r"^(\d+)\.\s+\*\*([A-Za-z0-9_]+)/\*\*")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def parse_layer_order(text):
    """The layer names of the numbered list after the marker, lowest layer first."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith(MARKER)]
    if len(starts) != 1:
        raise ValueError(f"expected one {MARKER!r} marker, found {len(starts)}")
    layers = []
    for line in lines[starts[0] + 1:]:
        m = _LIST_ITEM.match(line)
        if m:
            if int(m.group(1)) != len(layers) + 1:
                raise ValueError(f"layer list out of sequence at {line.strip()!r}")
            if m.group(2) in layers:
                raise ValueError(f"layer {m.group(2)!r} listed twice")
            layers.append(m.group(2))
        elif layers and line.strip() and not line[0].isspace():
            break  # the first unindented text after the list ends it
    if not layers:
        raise ValueError(f"no numbered list of layers ('1. **name/** ...') after {MARKER!r}")
    return layers


def documented_layer_order():
    return parse_layer_order(DESIGN_INDEX.read_text(encoding="utf-8"))


def _resolve_include(csrc, src, name):
    """The path under csrc/ of the file `#include "name"` in `src` names, or None.

    Searched as the compiler does: the including file's folder, then csrc/ (the
    include root)."""
    csrc = os.path.normpath(csrc)
    for base in (os.path.dirname(src), csrc):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.commonpath([path, csrc]) == csrc and os.path.isfile(path):
            return pathlib.PurePath(os.path.relpath(path, csrc))
    return None


def check_layering(csrc, order, design_index="docs/design/README.md"):
    """Every violation under `csrc`, as lines `csrc/file:line -> "include": why`."""
    csrc = pathlib.Path(csrc)
    rank = {name: i for i, name in enumerate(order)}
    problems = []
    for d in sorted(p for p in csrc.iterdir() if p.is_dir()):
        if d.name not in rank:
            problems.append(f"csrc/{d.name}/: a folder that is not in the layer order of "
                            f"{design_index}; document the new layer there")
    for src in sorted(p for p in csrc.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES):
        rel = src.relative_to(csrc)
        if len(rel.parts) < 2:
            problems.append(f"csrc/{rel.as_posix()}: outside every layer folder")
            continue
        own = rel.parts[0]
        if own not in rank:
            continue  # reported above, once per folder
        text = src.read_text(encoding="utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            m = _INCLUDE.match(line)
            if not m:
                continue
            where = f'csrc/{rel.as_posix()}:{lineno} -> "{m.group(1)}"'
            target = _resolve_include(csrc, src, m.group(1))
            if target is None:
                problems.append(f"{where}: names no file under csrc/ "
                                f"(quotes are for ember's own headers; use <...> for others)")
                continue
            layer = target.parts[0] if len(target.parts) > 1 else None
            if layer not in rank:
                problems.append(f"{where}: includes csrc/{target.as_posix()}, "
                                f"which is in no documented layer")
            elif rank[layer] > rank[own]:
                problems.append(f"{where}: {own}/ includes {layer}/, a layer above it "
                                f"(order: {' -> '.join(order)})")
    return problems


def check_ops_root(csrc, limit=OPS_ROOT_MAX_FILES):
    ops = pathlib.Path(csrc) / "ops"
    files = sorted(p.name for p in ops.iterdir() if p.is_file()) if ops.is_dir() else []
    if len(files) > limit:
        return [f"csrc/ops/ holds {len(files)} files at its root (at most {limit}: only the "
                f"shared loops stay there; put an op in its family folder): {', '.join(files)}"]
    return []


# --- the real tree ---------------------------------------------------------------------


def test_layer_order_is_documented_once():
    order = documented_layer_order()
    assert len(order) >= 2, order


def test_csrc_includes_only_its_own_and_lower_layers():
    problems = check_layering(CSRC, documented_layer_order())
    assert not problems, "layering violations:\n" + "\n".join(problems)


def test_ops_root_holds_only_the_shared_loops():
    problems = check_ops_root(CSRC)
    assert not problems, "\n".join(problems)


def test_design_notes_state_ownership_first_and_are_indexed():
    index = DESIGN_INDEX.read_text(encoding="utf-8")
    for note in sorted(DESIGN_DIR.glob("*.md")):
        if note == DESIGN_INDEX:
            continue
        sections = re.findall(r"^## (.+)$", note.read_text(encoding="utf-8"), re.MULTILINE)
        assert sections and sections[0] == "Ownership and invariants", (
            f"docs/design/{note.name}: its first section must be 'Ownership and invariants'")
        assert f"]({note.name})" in index, f"docs/design/README.md does not link {note.name}"


# --- the checker itself, on fake trees -------------------------------------------------

FAKE_ORDER = ["runtime", "memory", "tensor", "ops", "autograd", "bindings"]


def _write(root, rel, text=""):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _fake_tree(tmp_path):
    csrc = tmp_path / "csrc"
    _write(csrc, "runtime/errors.hpp", "#pragma once\n#include <string>\n")
    _write(csrc, "memory/alloc.hpp", '#include "runtime/errors.hpp"\n')
    _write(csrc, "tensor/tensor.hpp", '#include "memory/alloc.hpp"\n')
    _write(csrc, "ops/elementwise.hpp", '#include "tensor/tensor.hpp"\n')
    _write(csrc, "ops/pointwise/binary_functors.hpp", "#pragma once\n")
    _write(csrc, "ops/pointwise/binary.cu",
           '#include "ops/elementwise.hpp"\n#include "binary_functors.hpp"\n')
    _write(csrc, "autograd/functions.hpp", '#include "ops/pointwise/binary_functors.hpp"\n')
    _write(csrc, "bindings/module.cpp", '#include <pybind11/pybind11.h>\n'
                                        '#include "autograd/functions.hpp"\n')
    return csrc


def test_checker_accepts_downward_same_layer_and_relative_includes(tmp_path):
    assert check_layering(_fake_tree(tmp_path), FAKE_ORDER) == []


def test_checker_reports_an_include_of_a_layer_above(tmp_path):
    csrc = _fake_tree(tmp_path)
    _write(csrc, "tensor/views.cpp", '// views\n#include "tensor/tensor.hpp"\n'
                                     '  #  include "autograd/functions.hpp"  // bad\n')
    problems = check_layering(csrc, FAKE_ORDER)
    assert len(problems) == 1, problems
    assert problems[0].startswith('csrc/tensor/views.cpp:3 -> "autograd/functions.hpp": '
                                  'tensor/ includes autograd/, a layer above it')


def test_checker_reports_an_include_that_names_no_file(tmp_path):
    csrc = _fake_tree(tmp_path)
    _write(csrc, "ops/fill.cpp", '#include "ops/missing.hpp"\n#include "../../outside.hpp"\n')
    _write(tmp_path, "outside.hpp")
    problems = check_layering(csrc, FAKE_ORDER)
    assert [p.split(": ")[0] for p in problems] == [
        'csrc/ops/fill.cpp:1 -> "ops/missing.hpp"', 'csrc/ops/fill.cpp:2 -> "../../outside.hpp"']
    assert all("names no file under csrc/" in p for p in problems)


def test_checker_reports_an_undocumented_layer(tmp_path):
    csrc = _fake_tree(tmp_path)
    _write(csrc, "jit/compiler.cpp", '#include "ops/elementwise.hpp"\n')
    _write(csrc, "stray.hpp")
    problems = check_layering(csrc, FAKE_ORDER)
    assert len(problems) == 2, problems
    assert problems[0].startswith("csrc/jit/: a folder that is not in the layer order")
    assert problems[1].startswith("csrc/stray.hpp: outside every layer folder")


def test_checker_reports_a_bad_include_added_to_a_copy_of_the_real_tree(tmp_path):
    csrc = tmp_path / "csrc"
    shutil.copytree(CSRC, csrc)
    order = documented_layer_order()
    assert check_layering(csrc, order) == []
    target = csrc / "runtime" / "device.hpp"
    target.write_text(target.read_text() + '#include "bindings/bindings.hpp"\n')
    line = len(target.read_text().splitlines())
    problems = check_layering(csrc, order)
    assert problems == [f'csrc/runtime/device.hpp:{line} -> "bindings/bindings.hpp": '
                        f"runtime/ includes bindings/, a layer above it "
                        f"(order: {' -> '.join(order)})"]


def test_ops_root_limit(tmp_path):
    csrc = tmp_path / "csrc"
    for i in range(OPS_ROOT_MAX_FILES):
        _write(csrc, f"ops/loop{i}.hpp")
    _write(csrc, "ops/pointwise/unary.cpp")  # family folders do not count
    assert check_ops_root(csrc) == []
    _write(csrc, "ops/conv.cpp")
    problems = check_ops_root(csrc)
    assert len(problems) == 1 and "holds 21 files at its root (at most 20" in problems[0]


def test_parse_layer_order():
    text = ("# design\n\nprose\n\n<!-- layer-order: read by tests -->\n"
            "`csrc/` is built in layers.\n\n"
            "1. **runtime/** — errors,\n   devices.\n2. **memory/** — allocators.\n\n"
            "3. **tensor/** — tensors.\n\n`python/` is thin.\n4. **notalayer/** — after the list.\n")
    assert parse_layer_order(text) == ["runtime", "memory", "tensor"]
    with pytest.raises(ValueError, match="marker"):
        parse_layer_order("1. **runtime/** — no marker\n")
    with pytest.raises(ValueError, match="out of sequence"):
        parse_layer_order("<!-- layer-order -->\n1. **runtime/**\n3. **memory/**\n")
    with pytest.raises(ValueError, match="no numbered list"):
        parse_layer_order("<!-- layer-order -->\n\nSome prose.\n")


if __name__ == "__main__":
    import sys

    found = check_layering(CSRC, documented_layer_order()) + check_ops_root(CSRC)
    print("\n".join(found) or f"csrc/ layering OK ({' -> '.join(documented_layer_order())})")
    sys.exit(1 if found else 0)
