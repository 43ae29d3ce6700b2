#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, one input per file.

Usage: make_seeds.py OUT_DIR SOURCE_ROOT [SHARED_DIR]

Seeds come from the project's own tests, docs and specs, plus the schema
corpus of SHARED_DIR/corpus/ when it exists; nothing is committed but the
way to collect them. OUT_DIR/{schema,expr,spec}/ are rewritten each time.
"""
import hashlib
import pathlib
import re
import shutil
import sys

SEPARATOR = "#@@ next file\n"  # as in fuzz_spec.cpp

# A C++ string literal, or several adjacent ones ("a" "b"), or a raw string.
LITERAL = re.compile(r'R"(?P<delim>[^(\s]*)\((?P<raw>.*?)\)(?P=delim)"'
                     r'|(?P<plain>"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*)', re.S)
ESCAPES = {"n": "\n", "t": "\t", "f": "\f", "v": "\v", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def unescape(body):
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body)


def cpp_literals(path):
    text = path.read_text(errors="surrogateescape")
    out = []
    for m in LITERAL.finditer(text):
        if m.group("raw") is not None:
            out.append(m.group("raw"))
        else:
            parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group("plain"))
            out.append("".join(unescape(p) for p in parts))
    return out


def tsv_column(path, column):
    if not path.is_file():
        return []
    rows = path.read_text(errors="surrogateescape").splitlines()[1:]  # header
    return [row.split("\t")[column] for row in rows if len(row.split("\t")) > column]


def yaml_values(text):
    """The scalars of a spec: `key: value` and `- item` lines, unquoted."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*(?:-\s+|[A-Za-z_]\w*:\s+)(.+)$", line)
        if m:
            value = m.group(1).strip()
            if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out.append(value)
    return out


def write(directory, inputs):
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    seen = set()
    for text in inputs:
        data = text.encode(errors="surrogateescape")  # bad specs hold invalid UTF-8 on purpose
        if not data or data in seen:
            continue
        seen.add(data)
        (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)
    return len(seen)


def main():
    out, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).resolve()
    shared = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else root.parent / "shared"
    tests = root / "tests" / "codegen"
    spec_files = sorted(root.glob("schemas/*.yaml")) + sorted(tests.glob("golden/specs/*.yaml"))
    bad_dirs = sorted(p for p in (root / "tests" / "bad_specs").glob("*") if p.is_dir())
    spec_texts = [p.read_text(errors="surrogateescape") for p in spec_files]

    # Schemas: the schema tests' strings, the specs' schemas, the shared corpus.
    schemas = [s for s in cpp_literals(tests / "test_schema.cpp") if "(" in s]
    schemas += [s for s in cpp_literals(tests / "test_expr.cpp") if "->" in s]
    for text in spec_texts + [p.read_text(errors="surrogateescape") for d in bad_dirs for p in sorted(d.glob("*.yaml"))]:
        schemas += [v for v in yaml_values(text) if "->" in v]
    schemas += tsv_column(shared / "corpus" / "custom_schemas.tsv", 2)
    schemas += tsv_column(shared / "corpus" / "schema_edge_cases.tsv", 2)

    # Rule expressions: the expression tests' strings, the code in the rule
    # docs, the specs' rules.
    exprs = [s for s in cpp_literals(tests / "test_expr.cpp") if "->" not in s and "\n" not in s]
    docs = (root / "docs" / "fake-rules.md").read_text(errors="surrogateescape")
    exprs += re.findall(r"`([^`\n]+)`", docs)
    for block in re.findall(r"```[a-z]*\n(.*?)```", docs, re.S):
        exprs += yaml_values(block) + [line.strip() for line in block.splitlines()]
    for text in spec_texts:
        exprs += [v for v in yaml_values(text) if "->" not in v]

    # Specs: each file alone, each multi-file case and each library whole.
    specs = list(spec_texts)
    specs.append(SEPARATOR.join(p.read_text(errors="surrogateescape") for p in sorted(root.glob("schemas/*.yaml"))))
    specs.append(SEPARATOR.join(p.read_text(errors="surrogateescape") for p in sorted(tests.glob("golden/specs/*.yaml"))))
    for d in bad_dirs:
        files = sorted(d.glob("*.yaml"))
        specs += [p.read_text(errors="surrogateescape") for p in files]
        if len(files) > 1:
            specs.append(SEPARATOR.join(p.read_text(errors="surrogateescape") for p in files))
    for test in sorted(tests.glob("test_*.cpp")):
        specs += [s for s in cpp_literals(test) if "schema:" in s]

    # Import: the real binding sources, cut into pieces of at most 4 KB at
    # line ends (the fuzzer's -max_len), each led by its language byte.
    imports = []
    for path in sorted((root / "tests" / "import" / "sources").rglob("*")):
        if not path.is_file() or path.suffix not in (".cc", ".cpp", ".cu", ".h", ".hpp", ".py"):
            continue
        lead = "\x01" if path.suffix == ".py" else "\x00"
        piece = ""
        for line in path.read_text(errors="surrogateescape").splitlines(keepends=True):
            if len(piece) + len(line) > 4000:
                imports.append(lead + piece)
                piece = ""
            piece += line
        imports.append(lead + piece)

    counts = {name: write(out / name, inputs) for name, inputs in
              (("schema", schemas), ("expr", exprs), ("spec", specs), ("import", imports))}
    print("fuzz seeds: " + ", ".join(f"{n} {name}" for name, n in counts.items()))


if __name__ == "__main__":
    main()
