"""The tool's pipeline is visible in its layout and holds in its includes:
data walks load -> model -> check -> emit without coming back up. A stage
includes only itself and the stages it builds on; what two later stages
both need (generated names, tag facts) lives in model/."""

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "codegen" / "src"

# A directory of codegen/src -> the directories its files may include.
ALLOWED = {
    "support": {"support"},
    "model": {"model", "support"},
    "load": {"load", "model", "support"},
    "check": {"check", "load", "model", "support"},
    "emit": {"emit", "model", "support"},
    "import": {"import", "check", "load", "model", "support"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_includes_only_what_it_builds_on(stage):
    wrong = []
    for path in sorted((SRC / stage).rglob("*")):
        if path.suffix not in (".h", ".cpp", ".inc"):
            continue
        for included in INCLUDE.findall(path.read_text()):
            if included not in ALLOWED[stage]:
                wrong.append(f"{path.relative_to(SRC)} includes {included}/")
    assert not wrong, "\n".join(wrong)


def test_every_stage_is_listed():
    stages = {p.name for p in SRC.iterdir() if p.is_dir()}
    assert stages == set(ALLOWED), stages ^ set(ALLOWED)
