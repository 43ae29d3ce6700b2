#!/usr/bin/env python3
"""The names a library may not take, as tables the checker reads (codegen/src/check/names.cpp).

macro_names.inc: the macros the generated C++ can meet.

A namespace, op or argument named `linux`, `errno`, `EOF` or `stdin` is a
valid identifier and a valid schema name, but the preprocessor replaces it
before the compiler sees it, and the generated code does not compile. This
asks the compilers themselves: each preprocesses (-dM -E) a translation unit
holding every header the generated code and a kernel include (the stable
ABI's, ATen's, the C and C++ libraries', CUDA's), in the dialects the builds
use (gnu++20 predefines `linux` and `unix`; c++20 does not), and every macro
name that is not already reserved to the implementation (`__` anywhere, or
`_` and an uppercase letter, refused by rule) goes into the table.

global_names.inc: the names C, POSIX and torch's C shim declare at global
scope (functions, variables, types: `dup`, `time`, `stat`, `FILE`) in the
same headers. A namespace is a C++ namespace in the generated code, and
`namespace dup {` after <unistd.h> is "redeclared as different kind of
entity": such a namespace gets a derived C++ namespace (model::cpp_namespace).
Read from clang's AST of that translation unit (its top-level declarations
and those inside top-level `extern "C"` blocks).

python_names.inc: the Python packages and distributions a generated
package must not shadow or replace. The standard library's modules (a package
named `typing` on the test PYTHONPATH breaks `import torch`), and torch, the
opgen tool and every distribution torch and the build depend on, by import
name and by distribution name (pip normalizes `typing_extensions` and
`typing-extensions` alike, and `pip install` of a project named after one
uninstalls it).

  python3 scripts/name_tables.py            rewrite both tables
  python3 scripts/name_tables.py --check    exit 1 naming what a table lacks (tests/python/test_name_tables.py)

Each table is the union over runs, so a name seen with one torch, Python or
compiler stays when another lacks it: rerun it with another torch (--python)
to add that release's names.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MACRO_TABLE = REPO / "codegen" / "src" / "check" / "macro_names.inc"
PYTHON_TABLE = REPO / "codegen" / "src" / "check" / "python_names.inc"
GLOBAL_TABLE = REPO / "codegen" / "src" / "model" / "global_names.inc"
# The tool's own distribution and the roots of the environment a generated project lives in.
ENVIRONMENT_ROOTS = ["torch", "opgen", "scikit-build-core", "pip", "wheel", "pytest", "numpy"]

PYTHON_PROBE = """
import importlib.metadata as md, json, re, sys
def norm(n): return re.sub(r"[-_.]+", "_", n).lower()
seen, todo = set(), list(sys.argv[1:])
while todo:
    name = todo.pop()
    if norm(name) in seen: continue
    seen.add(norm(name))
    try: requires = md.requires(name) or []
    except md.PackageNotFoundError: continue
    for r in requires:
        m = re.match(r"\\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r)
        if m and "extra ==" not in r: todo.append(m.group(1))
tops = {t.split("/")[0] for t, dists in md.packages_distributions().items() if any(norm(d) in seen for d in dists)}
print(json.dumps(sorted(seen | tops | set(sys.stdlib_module_names))))
"""

HEADERS = [
    # What the generated sources include (codegen/src/emit/), and what kernels commonly do.
    "torch/csrc/stable/library.h", "torch/csrc/stable/stableivalue_conversions.h", "torch/csrc/stable/tensor.h",
    "torch/csrc/stable/ops.h", "torch/headeronly/util/Exception.h", "torch/library.h", "ATen/core/Tensor.h",
    "ATen/ATen.h",
    "algorithm", "array", "cassert", "cerrno", "cfloat", "climits", "cmath", "csetjmp", "csignal", "cstdarg",
    "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime", "functional", "memory", "optional", "string",
    "string_view", "tuple", "type_traits", "utility", "variant", "vector",
]
CUDA_HEADERS = ["cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cub/cub.cuh"]


def reserved(name: str) -> bool:
    """Reserved to the C++ implementation: the checker refuses these by rule."""
    return "__" in name or re.match(r"_[A-Z]", name) is not None


def torch_includes(python: str) -> list[str]:
    code = "import torch, os; p = os.path.join(os.path.dirname(torch.__file__), 'include'); print(p)"
    root = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    return [f"-I{root}", f"-I{root}/torch/csrc/api/include"]


def defined_macros(command: list[str]) -> set[str]:
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"macro_names: {' '.join(command)} failed:\n{proc.stderr[-3000:]}")
    names = set()
    for line in proc.stdout.splitlines():
        if m := re.match(r"#define ([A-Za-z_]\w*)", line):
            names.add(m.group(1))
    return names


def current_macros(python: str) -> tuple[set[str], list[str]]:
    includes = torch_includes(python)
    found: set[str] = set()
    seen_with: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        cpp = Path(tmp) / "all.cpp"
        cpp.write_text("".join(f"#include <{h}>\n" for h in HEADERS))
        for compiler in ("g++", "clang++"):
            if not shutil.which(compiler):
                continue
            for std in ("gnu++20", "c++20"):
                found |= defined_macros([compiler, f"-std={std}", "-dM", "-E", *includes, str(cpp)])
            seen_with.append(compiler)
        nvcc = os.environ.get("CUDACXX") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if Path(nvcc).is_file():
            cu = Path(tmp) / "all.cu"
            cu.write_text("".join(f"#include <{h}>\n" for h in HEADERS + CUDA_HEADERS))
            found |= defined_macros([nvcc, "-std=c++20", "-E", "-Xcompiler", "-dM", *includes, str(cu)])
            seen_with.append("nvcc")
    return {n for n in found if not reserved(n)}, seen_with


# Declarations whose name the AST dump prints before the quoted type.
NAMED_BEFORE_TYPE = {"FunctionDecl", "VarDecl", "TypedefDecl", "TypeAliasDecl", "FunctionTemplateDecl",
                     "ClassTemplateDecl", "EnumDecl"}
# Words of the dump that are not names: operators, and an anonymous record's "struct definition".
NOT_NAMES = {"delete", "new", "operator", "definition"}


def current_global_names(python: str) -> tuple[set[str], bool]:
    """Names declared at global scope by HEADERS (clang's AST dump); (names, whether clang was there)."""
    if not shutil.which("clang++"):
        return set(), False
    names: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        cpp = Path(tmp) / "all.cpp"
        cpp.write_text("".join(f"#include <{h}>\n" for h in HEADERS))
        dump = subprocess.Popen(["clang++", "-std=gnu++20", "-fsyntax-only", "-fno-color-diagnostics", "-Xclang",
                                 "-ast-dump", *torch_includes(python), str(cpp)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        top = ""
        for line in dump.stdout:
            if line.startswith(("|-", "`-")):
                top = line
            elif not (line.startswith(("| |-", "| `-", "  |-", "  `-")) and "LinkageSpecDecl" in top):
                continue  # deeper than the global scope (or an extern "C" block's direct children)
            m = re.match(r"[|` -]*(\w+) ", line)
            if not m:
                continue
            rest = line[line.find(">") + 1:] if ">" in line else line
            if m.group(1) in NAMED_BEFORE_TYPE:
                name = re.search(r"\s([A-Za-z_]\w*)(?: '|$)", rest.rstrip())
            elif m.group(1) in ("CXXRecordDecl", "RecordDecl"):
                name = re.search(r"\b(?:struct|class|union) ([A-Za-z_]\w*) definition", rest) or \
                    re.search(r"\b(?:struct|class|union) ([A-Za-z_]\w*)$", rest.rstrip())
            else:
                continue
            if name and name.group(1) not in NOT_NAMES:
                names.add(name.group(1))
        if dump.wait():
            sys.exit("name_tables: clang++ could not parse the headers for the global names")
    return {n for n in names if not reserved(n)}, True


def current_python_names(python: str) -> set[str]:
    out = subprocess.run([python, "-c", PYTHON_PROBE, *ENVIRONMENT_ROOTS], capture_output=True, text=True, check=True)
    names = set(json.loads(out.stdout))
    return {n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n) and not n.startswith("_")}


def read_table(table: Path) -> set[str]:
    if not table.is_file():
        return set()
    return set(re.findall(r'"(\w+)"', table.read_text()))


def write_table(table: Path, names: set[str], what: list[str]) -> None:
    lines = ["// @generated by scripts/name_tables.py - DO NOT EDIT", *(f"// {line}" for line in what)]
    row = ""
    for name in sorted(names):
        item = f'"{name}",'
        if len(row) + len(item) + 1 > 110:
            lines.append(row.rstrip())
            row = ""
        row += item + " "
    if row:
        lines.append(row.rstrip())
    table.write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report macros the table lacks")
    parser.add_argument("--python", default=sys.executable, help="the Python whose torch's headers to read")
    args = parser.parse_args()
    macros, compilers = current_macros(args.python)
    python_names = current_python_names(args.python)
    global_names, have_clang = current_global_names(args.python)
    tables = [
        (MACRO_TABLE, macros, f"macro ({', '.join(compilers)})",
         ["Every macro name (not reserved to the implementation) that g++, clang++ and nvcc define over",
          "the headers the generated C++ and its kernels include: no namespace, op or argument may take one."]),
        (PYTHON_TABLE, python_names, "Python name",
         ["The standard library's modules, and torch, opgen and every distribution they and the build",
          "depend on (import and normalized distribution names): no generated Python package may take one."]),
    ]
    if have_clang:
        tables.append((GLOBAL_TABLE, global_names, "global name",
                       ["Every name (not reserved to the implementation) declared at global scope by the headers the",
                        "generated C++ and its kernels include (clang's AST): a namespace named so gets a derived",
                        "C++ namespace (model::cpp_namespace)."]))
    status = 0
    for table, found, what, comment in tables:
        have = read_table(table)
        missing = sorted(found - have)
        if args.check:
            if missing:
                print(f"name_tables: {table.name} lacks {len(missing)} {what}(s): {' '.join(missing[:50])}\n"
                      "run: python3 scripts/name_tables.py")
                status = 1
            else:
                print(f"name_tables: {table.name} holds all {len(found)} of this environment's")
            continue
        write_table(table, have | found, comment)
        print(f"name_tables: {table.name}: {len(have | found)} names ({len(missing)} new)")
    return status


if __name__ == "__main__":
    sys.exit(main())
