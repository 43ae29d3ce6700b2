#!/usr/bin/env python3
"""Full and incremental build of a large op library: opgen against one
hand-written binding file, side by side, in one run (issue 23, item 3).

The ops are --ops real schemas from ../shared/corpus/ (a deterministic mix of
its projects, renamed op0, op1, ...: projects reuse names), the ones opgen
accepts on the unstable ABI, each with a CPU kernel (CompositeExplicitAutograd
when it takes no tensor). Both builds compile the same kernels TU (every
kernel throws: kernels are the same work in both and not what is measured)
and register the same def strings, in two CMake projects:

  handwritten  one binding file, as a project writes it by hand:
               TORCH_LIBRARY with every m.def, TORCH_LIBRARY_IMPL with every
               m.impl, over a header declaring the kernels
  opgen        opgen_add_library over one spec per op, with SHARDS as given
               (`default`: opgen_add_library's own choice; 0: one TU per op)

For each: a clean build (ninja -j --jobs, wall and CPU time, TUs), the
rebuild after one op's edit (opgen: a `require:` added to one spec;
handwritten: one m.def line edited), and a no-op rebuild. Each measurement
is one JSON line on stdout; the table goes to stderr.

  python3 bench/build/many_ops.py --opgen build/codegen/opgen [--ops 150] [--jobs 2] \
      [--shards default,0] > many_ops.jsonl
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, Reporter, log, table  # noqa: E402
from bench import compiled_units, links, run_timed  # noqa: E402

SHARED = Path(os.environ.get("OPGEN_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "custom_schemas.tsv"
NAMESPACE = "bench"
SPEC_ERROR = re.compile(r"^(?:.*/)?(?P<op>op\d+(?:\.\w+)?)\.yaml:\d+:\d+: error\[")
DEF_CALL = re.compile(r'm\.def\(("(?:[^"\\]|\\.)*")')
KERNEL_DECL = re.compile(r"^(?P<ret>[^/#\s].*?) (?P<name>\w+_(?:cpu|compositeexplicitautograd))\((?P<params>.*)\);$",
                         re.M)
FIRST_TENSOR = re.compile(r"\(\s*Tensor\s+(\w+)\s*[,)]")


def corpus_schemas() -> list[str]:
    """The corpus's distinct torch-valid schemas, in a fixed order that mixes its projects."""
    with open(CORPUS, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    valid = []
    for schema in dict.fromkeys(row["schema"] for row in rows):
        name = schema.split("(", 1)[0]
        try:
            torch._C.parse_schema(schema if "::" in name else "ns::" + schema)
        except RuntimeError:
            continue
        valid.append(schema)
    return sorted(valid, key=lambda s: hashlib.sha256(s.encode()).hexdigest())


def spec_text(op: str, schema: str) -> str:
    arguments = schema.split("(", 1)[1].rsplit(") ->", 1)[0]
    dispatch = "CPU" if "Tensor" in arguments else "CompositeExplicitAutograd"
    return ("schema: '" + schema.replace("'", "''") + "'\n"
            f"abi: unstable\ndispatch: [{dispatch}]\nfake: {{python: \"bench_fakes:fake\"}}\nsamples: []\n")


def write_specs(opgen: str, specs: Path, count: int) -> dict[str, str]:
    """`count` accepted specs (op -> schema as written, renamed)."""
    specs.mkdir(parents=True)
    candidates = {}
    for i, schema in enumerate(corpus_schemas()[: count * 3]):
        head, rest = schema.split("(", 1)
        name = head.split("::")[-1].strip()
        op = f"op{i}" + (f".{name.split('.', 1)[1]}" if "." in name else "")
        candidates[op] = f"{op}({rest}"
        (specs / f"{op}.yaml").write_text(spec_text(op, candidates[op]))
    _, _, out = run_timed([opgen, "check", "--namespace", NAMESPACE, str(specs)], specs, check=False)
    rejected = {m["op"] for line in out.splitlines() if (m := SPEC_ERROR.match(line))}
    kept = [op for op in candidates if op not in rejected][:count]
    if len(kept) < count:
        sys.exit(f"bench: only {len(kept)} accepted ops; ask for fewer with --ops")
    for op in candidates:
        if op not in kept:
            (specs / f"{op}.yaml").unlink()
    return {op: candidates[op] for op in kept}


def kernel_declarations(generated: Path, ops: dict[str, str]) -> tuple[str, list[tuple[str, str, str]]]:
    """The includes the kernel headers need, and each kernel's (return type, name, parameters)."""
    includes, kernels = {}, []
    for op in ops:
        header = (generated / "include" / NAMESPACE / "kernels" / f"{op}.h").read_text()
        includes.update(dict.fromkeys(re.findall(r"^#include .*$", header, re.M)))
        kernels += [(m["ret"], m["name"], m["params"]) for m in KERNEL_DECL.finditer(header)]
    return "\n".join(includes), kernels


def kernels_source(header: str, kernels: list[tuple[str, str, str]]) -> str:
    lines = [f'#include "{header}"', "", "#include <stdexcept>", ""]
    for ret, name, params in kernels:
        lines.append(f"{ret} {NAMESPACE}::kernels::{name}({params}) {{")
        lines.append(f'  throw std::runtime_error("{name}: not implemented");')
        lines.append("}")
    return "\n".join(lines) + "\n"


def handwritten_project(root: Path, generated: Path, ops: dict[str, str]) -> None:
    """One binding file and a declarations header, as a project writes them by hand."""
    includes, kernels = kernel_declarations(generated, ops)
    decls = [f"{ret} {name}({params});" for ret, name, params in kernels]
    (root / "kernels.h").write_text(f"#pragma once\n\n{includes}\n\nnamespace {NAMESPACE}::kernels {{\n"
                                    + "\n".join(decls) + f"\n}}  // namespace {NAMESPACE}::kernels\n")
    (root / "kernels.cpp").write_text(kernels_source("kernels.h", kernels))
    defs, impls = [], {"CPU": [], "CompositeExplicitAutograd": []}
    for op in ops:
        (literal,) = DEF_CALL.findall((generated / "csrc" / f"{op}.cpp").read_text())
        defs.append(f"  m.def({literal});")
    for _, name, _ in kernels:
        op_id, key = name.rsplit("_", 1)
        op = next(o for o in ops if o.replace(".", "_") == op_id)
        impls["CPU" if key == "cpu" else "CompositeExplicitAutograd"].append(
            f'  m.impl("{op}", &{NAMESPACE}::kernels::{name});')
    body = ["#include <torch/library.h>", "", '#include "kernels.h"', "",
            f"TORCH_LIBRARY({NAMESPACE}, m) {{", *defs, "}", ""]
    for key, lines in impls.items():
        body += [f"TORCH_LIBRARY_IMPL({NAMESPACE}, {key}, m) {{", *lines, "}", ""]
    (root / "binding.cpp").write_text("\n".join(body))
    (root / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(bench_handwritten CXX)
include({REPO}/cmake/Opgen.cmake)  # only for the torch it finds, as opgen_add_library does
_opgen_find_torch()
add_library(bench_ops SHARED binding.cpp kernels.cpp)
target_link_libraries(bench_ops PRIVATE opgen_torch)
set_target_properties(bench_ops PROPERTIES CXX_STANDARD 20 POSITION_INDEPENDENT_CODE ON)
""")


def opgen_project(root: Path, generated: Path, ops: dict[str, str], specs: Path) -> None:
    _, kernels = kernel_declarations(generated, ops)
    umbrella = "".join(f'#include "{NAMESPACE}/kernels/{op}.h"\n' for op in ops)
    (root / "kernels.h").write_text("#pragma once\n" + umbrella)
    (root / "kernels.cpp").write_text(kernels_source("kernels.h", kernels))
    spec_list = " ".join(f"schemas/{op}.yaml" for op in ops)
    (root / "schemas").mkdir()
    for op in ops:
        (root / "schemas" / f"{op}.yaml").write_text((specs / f"{op}.yaml").read_text())
    (root / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(bench_opgen CXX)
include({REPO}/cmake/Opgen.cmake)
set(shards)
if(DEFINED BENCH_SHARDS)
  set(shards SHARDS ${{BENCH_SHARDS}})
endif()
opgen_add_library(bench_ops NAMESPACE {NAMESPACE} SCHEMAS {spec_list} KERNELS kernels.cpp ${{shards}})
""")


def edit_one_op(root: Path, variant: str, ops: dict[str, str]) -> str:
    """The edit of one op a developer makes: returns what was edited."""
    if variant == "handwritten":
        binding = root / "binding.cpp"
        text = binding.read_text()
        line = next(line for line in text.splitlines() if "m.def(" in line)
        binding.write_text(text.replace(line, line + "  // edited", 1))
        return "binding.cpp: one m.def line"
    op, arg = next((op, m[1]) for op, schema in ops.items() if (m := FIRST_TENSOR.search(schema)))
    spec = root / "schemas" / f"{op}.yaml"
    spec.write_text(spec.read_text() + f"require: [{arg}.dim() >= 0]\n")
    return f"schemas/{op}.yaml: + require"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opgen", default=str(REPO / "build/codegen/opgen"), help="a built opgen")
    parser.add_argument("--ops", type=int, default=150, help="how many ops")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="ninja -j")
    parser.add_argument("--shards", default="default,0",
                        help="opgen variants, comma-separated: SHARDS values, or `default`")
    parser.add_argument("--json-out", help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    opgen = str(Path(args.opgen).resolve())
    report = Reporter("build_many_ops", args.json_out)
    variants = ["handwritten"] + [f"opgen_shards_{s}" for s in args.shards.split(",") if s]

    with tempfile.TemporaryDirectory(prefix="opgen-bench-many-") as tmp:
        tmp = Path(tmp)
        log(f"bench: choosing {args.ops} ops from {CORPUS}")
        ops = write_specs(opgen, tmp / "specs", args.ops)
        generated = tmp / "generated"
        run_timed([opgen, "generate", "--namespace", NAMESPACE, "-o", str(generated), str(tmp / "specs")], tmp)
        report.emit("library", ops=len(ops), abi="unstable", kernels_tu="every kernel throws",
                    tensorless_ops=sum("Tensor" not in s.split("(", 1)[1].rsplit(") ->", 1)[0] for s in ops.values()))
        for variant in variants:
            src, build = tmp / variant / "src", tmp / variant / "build"
            src.mkdir(parents=True)
            configure = ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                         "-DOPGEN_ENABLE_CUDA=OFF", f"-DOPGEN_EXECUTABLE={opgen}"]
            if variant == "handwritten":
                handwritten_project(src, generated, ops)
            else:
                opgen_project(src, generated, ops, tmp / "specs")
                shards = variant.rsplit("_", 1)[1]
                if shards != "default":
                    configure.append(f"-DBENCH_SHARDS={shards}")
            run_timed(configure, src)
            ninja = ["ninja", "-C", str(build), f"-j{args.jobs}"]
            log(f"bench: {variant}: clean build")
            wall, cpu, out = run_timed(ninja, src)
            units = compiled_units(out)
            report.emit("clean", variant=variant, wall_s=round(wall, 2), cpu_s=round(cpu, 2), jobs=args.jobs,
                        tus=len(units), links=links(out), command=shlex.join(ninja))
            edit = edit_one_op(src, variant, ops)
            wall, cpu, out = run_timed(ninja, src)
            units = compiled_units(out)
            report.emit("incremental", variant=variant, edit=edit, wall_s=round(wall, 2), cpu_s=round(cpu, 2),
                        tus=len(units), recompiled=units, links=links(out))
            wall, _, out = run_timed(ninja, src)
            report.emit("noop", variant=variant, wall_s=round(wall, 3), tus=len(compiled_units(out)))

    rows, base = [], {}
    for r in report.rows:
        if r["measurement"] not in ("clean", "incremental"):
            continue
        if r["variant"] == "handwritten":
            base[r["measurement"]] = r["wall_s"]
        ratio = r["wall_s"] / base[r["measurement"]] if base.get(r["measurement"]) else None
        rows.append([r["measurement"], r["variant"], r["wall_s"], r["cpu_s"], r["tus"],
                     f"{ratio:.2f}x" if ratio else ""])
    log(table(["measurement", "variant", "wall s", "CPU s", "TUs", "vs handwritten"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
