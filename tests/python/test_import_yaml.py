"""What `opgen import` writes as YAML reads back as what was meant, in
yaml-cpp (opgen's reader) and in PyYAML alike (issue 35, class 2): text from
a source (its file name, an #if line, a tag) once added keys to the spec it
wrote, through a comment it broke or a list it closed. Every value goes
through yaml-cpp's emitter, every comment is one line of printable ASCII
(support/yaml_writer.h; tests/codegen/test_yaml_writer.cpp has the strings).

Needs the built tool: run through CTest.
"""

import subprocess

import pytest
import yaml

from cli_helpers import OPGEN_BIN, requires_opgen

pytestmark = requires_opgen

SCHEMA = "scale(Tensor x) -> Tensor"
BLOCK = '#include <torch/library.h>\nTORCH_LIBRARY(hostile, m) {{\n{before}  m.def("' + SCHEMA + '"{tags});\n{after}}}\n'

CASES = {
    "file name with a newline": ("bind\ndoc: injected.cpp", BLOCK.format(before="", tags="", after="")),
    "carriage return in #if": ("bind.cpp", BLOCK.format(before="#if defined(X)\rdoc: injected\n", tags="",
                                                        after="#endif\n")),
    "line separator in #if": ("bind.cpp", BLOCK.format(before="#if defined(X)\u2028doc: injected\n", tags="",
                                                       after="#endif\n")),
    "next line in #if": ("bind.cpp", BLOCK.format(before="#if defined(X)\u0085doc: injected\n", tags="",
                                                  after="#endif\n")),
    "tag as a string literal": ("bind.cpp", BLOCK.format(before="", tags=', {at::Tag::"core]\\ndoc: injected"}',
                                                         after="")),
}


@pytest.mark.parametrize("case", CASES)
def test_text_from_a_source_cannot_add_a_key(tmp_path, case):
    name, text = CASES[case]
    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([OPGEN_BIN, "import", name], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (written,) = (tmp_path / "schemas").iterdir()
    content = written.read_text(encoding="utf-8")
    spec = yaml.safe_load(content)
    assert "doc" not in spec and spec["schema"] == SCHEMA, content
    assert set(spec) <= {"schema", "abi", "dispatch", "kernels", "tags", "fake"}, content
    comments = [line for line in content.splitlines() if line.startswith("#")]
    assert all(line.isascii() and line.isprintable() for line in comments), comments
    if written.suffix == ".yaml":  # yaml-cpp: opgen's own reader, on the same file
        check = subprocess.run([OPGEN_BIN, "check", written], capture_output=True, text=True, timeout=60)
        assert "error" not in check.stderr, check.stderr
