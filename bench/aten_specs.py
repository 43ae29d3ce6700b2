#!/usr/bin/env python3
"""Converts PyTorch's own op set into opgen specs: one spec per native function.

Reads the native_functions.yaml that ships in the installed torch wheel
(torchgen/packaged/ATen/native/native_functions.yaml) and writes, for every
entry, `<out>/<name.overload>.yaml`:

    schema: "<the entry's func: string>"
    abi: unstable
    dispatch: [CPU]
    tags: [inplace]              # only for PyTorch's in-place form: foo_(Tensor(a!) self, ...) -> Tensor(a!)
    fake:
      - like(<first Tensor argument>)        # a Tensor output
      - empty([])                            # a Tensor output of an op whose only tensors are a Tensor[]
      - like_each(<first Tensor[] argument>) # a Tensor[] output
    # or, where no rule can say it (no tensor argument, int/float/bool outputs):
    fake: {python: "aten_bench_fakes:fake"}

opgen itself decides which of those it accepts: `opgen check` runs over the
lot, every spec it reports an error for is moved to `<out>/../rejected/` and
counted under opgen's own message (argument and op names blanked out, so that
the reasons group), and the check is repeated until the remaining specs pass.

    python bench/aten_specs.py OUT_DIR [--opgen build/codegen/opgen]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

NAMESPACE = "aten_bench"
PYTHON_FAKE = "aten_bench_fakes:fake"


def native_functions_yaml() -> Path:
    import torchgen

    return Path(torchgen.__file__).parent / "packaged" / "ATen" / "native" / "native_functions.yaml"


def _is_inplace(schema) -> bool:
    """PyTorch's in-place convention, which opgen accepts with tag `inplace`."""
    from torchgen.model import BaseTy, BaseType

    args = schema.arguments.flat_all
    mutated = [a for a in args if a.annotation is not None and a.annotation.is_write]
    if not args or len(mutated) != 1 or mutated[0] is not args[0] or len(schema.returns) != 1:
        return False
    ret = schema.returns[0]
    return (args[0].type == BaseType(BaseTy.Tensor) and ret.annotation is not None
            and ret.annotation.alias_set == args[0].annotation.alias_set)


def _fake(schema) -> list[str] | None:
    """One rule per output that is not an alias, or None when only a Python fake can say it."""
    from torchgen.model import BaseTy, BaseType, ListType

    tensor = BaseType(BaseTy.Tensor)
    args = schema.arguments.flat_all
    first_tensor = next((a.name for a in args if a.type == tensor), None)
    first_list = next((a.name for a in args if isinstance(a.type, ListType) and a.type.elem == tensor), None)
    rules = []
    for ret in schema.returns:
        if ret.annotation is not None:
            continue  # an alias of an input: no rule (opgen accepts only the in-place form)
        if ret.type == tensor and first_tensor:
            rules.append(f"like({first_tensor})")
        elif ret.type == tensor and first_list:
            rules.append("empty([])")  # dtype and device from element 0 of the first Tensor[] argument
        elif isinstance(ret.type, ListType) and ret.type.elem == tensor and first_list:
            rules.append(f"like_each({first_list})")
        else:
            return None
    return rules


def spec_text(func: str) -> tuple[str, str, str]:
    """(file stem, YAML text, fake kind) of the spec for one native function."""
    from torchgen.model import FunctionSchema

    schema = FunctionSchema.parse(func)
    lines = [f"schema: {json.dumps(func)}", "abi: unstable", "dispatch: [CPU]"]
    if _is_inplace(schema):
        lines.append("tags: [inplace]")
    rules = _fake(schema)
    if rules is None:
        lines.append(f'fake: {{python: "{PYTHON_FAKE}"}}')
        kind = "python"
    elif rules:
        lines.append("fake:")
        lines += [f"  - {r}" for r in rules]
        kind = "rules"
    else:
        kind = "none"  # returns nothing new: () or the mutated input
    return str(schema.name), "\n".join(lines) + "\n", kind


# `file.yaml:1:9: error: message`, or with a code: `error[E0001]: message`.
_DIAG = re.compile(r"^(?P<path>[^:\n]+\.yaml):\d+:\d+: error(?:\[[A-Z]\d{4}\])?: (?P<message>.*)$")


def _reason(message: str, names: set[str]) -> str:
    """opgen's message with argument and op names blanked, so that reasons group."""
    return re.sub(r"'([^']*)'", lambda m: "'<name>'" if m.group(1) in names else m.group(0), message)


@dataclass
class Conversion:
    entries: int = 0
    converted: int = 0
    fakes: collections.Counter = field(default_factory=collections.Counter)
    skipped: collections.Counter = field(default_factory=collections.Counter)
    skipped_ops: dict = field(default_factory=dict)  # op -> opgen's first message for it
    check_passes: int = 0


def convert(out: Path, opgen: str, source: Path | None = None) -> Conversion:
    """Writes the specs under `out` (emptied first); what opgen rejects goes to out/../rejected."""
    from torchgen.model import FunctionSchema

    source = source or native_functions_yaml()
    rejected = out.parent / "rejected"
    for d in (out, rejected):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    result = Conversion()
    names_of: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    with open(source) as f:
        entries = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for entry in entries:
        func = entry["func"]
        result.entries += 1
        stem, text, kind = spec_text(func)
        schema = FunctionSchema.parse(func)
        names_of[stem] = {a.name for a in schema.arguments.flat_all} | {stem, schema.name.name.base}
        kinds[stem] = kind
        (out / f"{stem}.yaml").write_text(text)

    # opgen is the judge: drop what it rejects, until the rest passes.
    while True:
        result.check_passes += 1
        proc = subprocess.run([opgen, "check", "--namespace", NAMESPACE, "--source-root", str(out), str(out)],
                              capture_output=True, text=True)
        if proc.returncode == 0:
            break
        first: dict[str, str] = {}
        for line in proc.stderr.splitlines():
            m = _DIAG.match(line)
            if m:
                first.setdefault(Path(m.group("path")).stem, m.group("message"))
        if not first:
            raise SystemExit(f"opgen check failed without per-spec errors:\n{proc.stderr[-4000:]}")
        for stem, message in first.items():
            reason = _reason(message, names_of.get(stem, set()))
            result.skipped[reason] += 1
            result.skipped_ops[stem] = message
            (out / f"{stem}.yaml").rename(rejected / f"{stem}.yaml")
    remaining = sorted(p.stem for p in out.glob("*.yaml"))
    result.converted = len(remaining)
    result.fakes = collections.Counter(kinds[s] for s in remaining)
    assert result.converted + sum(result.skipped.values()) == result.entries
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="directory for the specs (emptied first)")
    parser.add_argument("--opgen", default="build/codegen/opgen", help="the opgen binary (default: %(default)s)")
    args = parser.parse_args()
    res = convert(args.out, args.opgen)
    print(f"{res.entries} native functions: {res.converted} converted "
          f"(fakes: {dict(res.fakes)}), {sum(res.skipped.values())} skipped", file=sys.stderr)
    for reason, n in res.skipped.most_common():
        print(f"  {n:5d}  {reason}", file=sys.stderr)


if __name__ == "__main__":
    main()
