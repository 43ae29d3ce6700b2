"""Seeded type-level mutations of the repository's specs, each judged by the
JSON Schema (codegen/spec.schema.json, through jsonschema, on the document
as the YAML 1.2 core schema reads it) and by `opgen check`.

A mutant changes one node of one spec: a value becomes one of another type
or written another way (a quoted number, `True`, `yes`, `2.0`, `0x10`,
`007`, `.nan`, `cuda:01`, null, a list, a mapping), a key goes, an unknown
or misplaced key comes, a list item goes or repeats, a key stops being a
string. The two agree when both accept or both reject, or when the tool's
only objections are checks a JSON Schema cannot express (the schema string,
names against it, the rule language: every code outside EXPRESSIBLE).

CI replays a fixed seed (tests/python/test_spec_json_schema.py). Exploring
other seeds is by hand:

    OPGEN_BIN=build/codegen/opgen python3 tests/python/spec_mutants.py [--seed N] [--count N]
"""

import argparse
import concurrent.futures
import copy
import json
import math
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile

import jsonschema

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import yaml12  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "codegen" / "spec.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
SPEC_TREES = ("schemas", "tests/codegen/golden/specs", "tests/external_project/schemas")

# The tool's codes for what a JSON Schema can say: keys, value types, enums,
# patterns, bounds. Any other code is a check of meaning (the schema string,
# names against it, the rule language, samples against the arguments).
EXPRESSIBLE = {
    "E0103", "E0104", "E0105", "E0107", "E0108", "E0109", "E0515", "E0517",
    "E0601", "E0602", "E0801", "E0803", "E0804", "E0806", "E0808",
}  # fmt: skip

# Keys a mutant may add where they do not belong (or, misspelled, anywhere).
KNOWN_KEYS = ("schema", "doc", "dim", "dtype", "shape", "args", "dims", "fake", "python", "backward", "range",
              "cast_inputs", "contiguous", "same_dtype")


class Raw(str):
    """A scalar written as it stands, unquoted: YAML decides what it is."""


def good_specs():
    """The op specs (a tree's _types.yaml, its host classes, is no op spec)."""
    return [p for tree in SPEC_TREES for p in sorted((ROOT / tree).glob("*.yaml")) if p.name != "_types.yaml"]


# --- writing a document back (block style; strings always double-quoted) ---

def scalar(value):
    if isinstance(value, Raw):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf") if math.isinf(value) else repr(value)
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar


def dump(value, indent=0):
    pad = " " * indent
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{scalar(key)}:\n{dump(item, indent + 2)}")
            else:
                lines.append(f"{pad}{scalar(key)}: {inline(item)}".rstrip())
        return "\n".join(lines)
    lines = []
    for item in value:
        if isinstance(item, (dict, list)) and item:
            lines.append(f"{pad}-\n{dump(item, indent + 2)}")
        else:
            lines.append(f"{pad}- {inline(item)}".rstrip())
    return "\n".join(lines)


def inline(value):
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return scalar(value)


# --- mutations ---

def paths(node, prefix=()):
    """Every node below the root, as the keys and indices that lead to it."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield prefix + (key,)
        yield from paths(child, prefix + (key,))


def replacements(value):
    """Values of another type, or the same value written another way."""
    generic = [None, Raw(""), Raw("~"), [], {}, [value], "x", 3, True]
    if isinstance(value, bool):
        return generic + [Raw("True"), Raw("TRUE"), Raw("yes"), Raw("on"), "true", 1, 0]
    if isinstance(value, int):
        return generic + [str(value), float(value), value + 0.5, -value - 1, Raw(hex(value)), Raw(f"0o{value:o}"),
                          Raw(f"{value}e0"), Raw(f"+{value}"), Raw(f"0{value}"), 2**63, Raw(str(2**64)), Raw(".nan")]
    if isinstance(value, float):
        return generic + [str(value), int(value) if math.isfinite(value) else 0, Raw(".inf"), Raw("-.inf"), Raw(".nan")]
    if isinstance(value, str):
        out = generic + ["3", "true", "", "cuda:01", "cuda:1", Raw("cuda:01"), 2.0, 2.5, -1, Raw("0x10"),
                         Raw("007"), Raw("1e3"), Raw("+3"), Raw("True"), Raw("yes"), Raw("NULL")]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", value):
            out.append(Raw(value))  # the same text unquoted: `null`, `true` and `True` change type
        return out
    return generic


def mutate(data, rng):
    """Changes one node of `data` in place; returns what it did, in words."""
    where = rng.choice(list(paths(data)))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    key = where[-1]
    kind = rng.random()
    if kind < 0.6:
        new = rng.choice(replacements(parent[key]))
        parent[key] = copy.deepcopy(new)
        return f"{where}: {scalar(new) if not isinstance(new, (dict, list)) else inline(new)}"
    if isinstance(parent, dict):
        if kind < 0.75:
            del parent[key]
            return f"{where}: removed"
        if kind < 0.9:
            new_key = rng.choice(KNOWN_KEYS + (key + "s", key[:-1]))
            parent.setdefault(new_key, copy.deepcopy(parent[key]))
            return f"{where[:-1]}: added {new_key!r}"
        new_key = rng.choice([Raw("1"), Raw("true"), Raw("null"), Raw("2.5")])
        parent[new_key] = parent.pop(key)
        return f"{where}: key written as {new_key}"
    if kind < 0.8:
        del parent[key]
        return f"{where}: item removed"
    parent.insert(key, copy.deepcopy(parent[key]))
    return f"{where}: item repeated"


def mutants(seed, count):
    """[(spec path, description, YAML text)], the same for the same seed."""
    rng = random.Random(seed)
    specs = good_specs()
    originals = {p: yaml12.load(p.read_text()) for p in specs}
    out = []
    for _ in range(count):
        path = rng.choice(specs)
        data = copy.deepcopy(originals[path])
        description = mutate(data, rng)
        out.append((path, description, dump(data) + "\n"))
    return out


# --- judging ---

def judge_one(opgen, workdir, index, path, description, text):
    document = yaml12.load(text)
    schema_errors = [e.message for e in VALIDATOR.iter_errors(document)] if isinstance(document, dict) else ["not a mapping"]
    directory = pathlib.Path(workdir) / str(index)
    directory.mkdir()
    (directory / path.name).write_text(text)
    original = yaml12.load(path.read_text())
    backward = (original.get("autograd") or {}).get("backward")
    if backward and (path.parent / f"{backward}.yaml").exists() and backward != path.stem:
        (directory / f"{backward}.yaml").write_text((path.parent / f"{backward}.yaml").read_text())
    if (path.parent / "_types.yaml").exists():  # the host classes its schema may name
        (directory / "_types.yaml").write_text((path.parent / "_types.yaml").read_text())
    proc = subprocess.run([opgen, "check", directory], capture_output=True, text=True, timeout=60)
    if proc.returncode not in (0, 1):
        raise AssertionError(f"opgen check exited {proc.returncode} on a mutant of {path.name} ({description}):\n"
                             f"{text}\n{proc.stderr}")
    codes = sorted(set(re.findall(r"error\[(E\d+)\]", proc.stderr)))
    schema_ok, tool_ok = not schema_errors, proc.returncode == 0
    if schema_ok == tool_ok:
        verdict = "agree"
    elif schema_ok and not EXPRESSIBLE.intersection(codes):
        verdict = "inexpressible"
    else:
        verdict = "schema rejects" if tool_ok else "tool rejects"
    return {"spec": path.name, "mutation": description, "schema_ok": schema_ok, "schema_errors": schema_errors[:2],
            "tool_codes": codes, "tool_stderr": proc.stderr[:600], "verdict": verdict, "text": text}


def judge(opgen, seed, count):
    with tempfile.TemporaryDirectory() as workdir, concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        jobs = [pool.submit(judge_one, opgen, workdir, i, *m) for i, m in enumerate(mutants(seed, count))]
        return [job.result() for job in jobs]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    results = judge(os.environ["OPGEN_BIN"], args.seed, args.count)
    verdicts = {}
    for r in results:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        if r["verdict"] in ("schema rejects", "tool rejects"):
            print(json.dumps({k: r[k] for k in ("spec", "mutation", "verdict", "schema_errors", "tool_codes",
                                                "tool_stderr")}))
    disagree = verdicts.get("schema rejects", 0) + verdicts.get("tool rejects", 0)
    print(json.dumps({"seed": args.seed, "count": len(results), **verdicts,
                      "agreement": 1 - disagree / len(results)}))


if __name__ == "__main__":
    main()
