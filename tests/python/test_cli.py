"""The opgen command line: help, usage errors (exit 2), input errors (exit 1),
what `generate` writes: the committed generated/ tree, byte for byte,
without touching files that did not change, and `explain`, which explains
the code every diagnostic carries.

Needs the built tool: OPGEN_BIN=build/codegen/opgen pytest tests/python/test_cli.py
"""

import re

import pytest

from cli_helpers import (
    GENERATED,
    IN_TREE_OPTIONS,
    SCHEMAS,
    backdate,
    file_tree,
    generate_in_tree,
    requires_opgen,
    run_opgen,
    snapshot,
)

pytestmark = requires_opgen


def listed_subcommands(help_text):
    """The names under 'Subcommands:' in `opgen --help`."""
    section = help_text.split("Subcommands:", 1)[1]
    return [line.split()[0] for line in section.splitlines() if line.strip()]


def test_help_on_every_subcommand():
    top = run_opgen("--help")
    assert top.returncode == 0, top.stderr
    subcommands = listed_subcommands(top.stdout)
    assert {"generate", "check", "parse-schema"} <= set(subcommands)
    for name in subcommands:
        proc = run_opgen(name, "--help")
        assert (proc.returncode, proc.stderr) == (0, ""), name
        assert "Usage" in proc.stdout, name


@pytest.mark.parametrize(
    "args",
    [
        [],  # no subcommand
        ["frobnicate"],
        ["generate", "--bogus", "-o", "out", "schemas"],
        ["generate", "schemas"],  # no -o
        ["generate", "-o", "out"],  # no specs
        ["check", "--torch-target-version", "2", "schemas"],
        ["check", "--torch-target-version", "2.x", "schemas"],
        ["check", "--torch-target-version", "two.ten", "schemas"],
        ["parse-schema", "--bogus"],
        ["explain"],  # no code
        ["explain", "E9999"],
        ["explain", "--list", "E0304"],
    ],
    ids=" ".join,
)
def test_usage_errors_exit_2_and_write_nothing(args, tmp_path):
    proc = run_opgen(*args, cwd=tmp_path)  # fails before reading any spec
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip()
    assert snapshot(tmp_path) == {}


def test_missing_spec_file_is_an_input_error(tmp_path):
    proc = run_opgen("check", tmp_path / "nope.yaml")
    assert proc.returncode == 1
    assert f"{tmp_path / 'nope.yaml'}: error[E0901]: no such file or directory" in proc.stderr


def test_check_in_tree_schemas_passes_and_writes_nothing(tmp_path):
    proc = run_opgen("check", *IN_TREE_OPTIONS, SCHEMAS, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == proc.stderr == ""
    assert snapshot(tmp_path) == {}


def test_generate_matches_the_committed_tree(tmp_path):
    generate_in_tree(tmp_path)
    assert file_tree(tmp_path) == file_tree(GENERATED), (
        "generated/ is stale: cmake --build build --target opgen_ops_refresh_generated"
    )


def test_generate_twice_is_identical_and_touches_nothing(tmp_path):
    generate_in_tree(tmp_path)
    backdate(tmp_path)
    before = snapshot(tmp_path)
    proc = generate_in_tree(tmp_path, "--verbose")
    assert snapshot(tmp_path) == before
    assert proc.stderr == f"opgen: 0 written, {len(file_tree(tmp_path))} unchanged, 0 removed\n"


def test_a_spec_named_twice_is_read_once(tmp_path):
    # The directory and a file in it, spelled differently: still one op.
    proc = run_opgen("check", *IN_TREE_OPTIONS, SCHEMAS, f"{SCHEMAS}/./rms_norm.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_output_blocked_by_a_file_is_a_clean_error(tmp_path):
    blocker = tmp_path / "out"
    blocker.write_text("not a directory\n")
    before = snapshot(tmp_path)
    proc = run_opgen("generate", *IN_TREE_OPTIONS, "-o", blocker, SCHEMAS)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"{blocker}/csrc: error[E0902]: cannot create the output directory: Not a directory\n"
        "opgen: for more about this error, run 'opgen explain E0902'\n"
    )
    assert snapshot(tmp_path) == before


PARSE_SCHEMA_CASES = [
    # (input, what PyTorch's str(torch._C.parse_schema(input)) prints)
    ("foo(Tensor x, float eps=1e-6) -> Tensor", "foo(Tensor x, float eps=9.9999999999999995e-07) -> Tensor"),
    ("baz(Tensor[] xs)->(Tensor a, Tensor b)", "baz(Tensor[] xs) -> (Tensor a, Tensor b)"),
    (
        "mylib::bar.out(Tensor(a!) out, int[2] size=1, *, ScalarType? dtype=None) -> Tensor(a!)",
        "mylib::bar.out(Tensor(a!) out, int[2] size=1, *, ScalarType? dtype=None) -> Tensor(a!)",
    ),
]


def test_parse_schema_prints_the_canonical_form():
    inputs = [given for given, _ in PARSE_SCHEMA_CASES]
    canonical = [printed for _, printed in PARSE_SCHEMA_CASES]
    proc = run_opgen("parse-schema", stdin="\n".join(inputs) + "\n")
    assert (proc.returncode, proc.stdout.splitlines()) == (0, canonical)
    again = run_opgen("parse-schema", stdin=proc.stdout)
    assert again.stdout == proc.stdout


def test_parse_schema_reports_an_error_with_its_column():
    proc = run_opgen("parse-schema", stdin="foo(Tensor x) -> Tensor\nfoo(Tensr x) -> Tensor\n")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "foo(Tensor x) -> Tensor",
        "<stdin>:2:5: error[E0202]: unknown type 'Tensr': expected a schema type such as Tensor, int, SymInt, float, "
        "bool, str, Scalar",
    ]


def test_new_never_overwrites_a_file(tmp_path):
    spec = tmp_path / "schemas" / "foo.yaml"
    spec.parent.mkdir()
    spec.write_text("# mine\n")
    before = snapshot(tmp_path)
    proc = run_opgen("new", "opgen::foo", "--schema", "(Tensor x) -> Tensor", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-2:] == [
        "schemas/foo.yaml: error[E0903]: already exists; opgen new writes only new files",
        "opgen new: for more about this error, run 'opgen explain E0903'",
    ]
    assert snapshot(tmp_path) == before


def listed_codes():
    """`opgen explain --list`: (code, title) per line."""
    proc = run_opgen("explain", "--list")
    assert (proc.returncode, proc.stderr) == (0, "")
    return [tuple(line.split("  ", 1)) for line in proc.stdout.splitlines()]


def test_explain_lists_every_code_once_in_order():
    codes = [code for code, _ in listed_codes()]
    assert len(codes) >= 50
    assert codes == sorted(set(codes))
    assert all(re.fullmatch(r"[EW]\d{4}", code) for code in codes), codes


@pytest.mark.parametrize("spelling", ["E0304", "e0304", "e304", "304"])
def test_explain_prints_the_entry_of_a_code(spelling):
    proc = run_opgen("explain", spelling)
    assert (proc.returncode, proc.stderr) == (0, "")
    title = dict(listed_codes())["E0304"]
    assert proc.stdout.startswith(f"# E0304: {title}\n\n")
    for part in ("For example:", "opgen reports:", "error[E0304]", "Fixed:"):
        assert part in proc.stdout


def test_explain_of_an_unknown_code_suggests_one():
    proc = run_opgen("explain", "E0399")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines() == [
        "opgen explain: error: there is no diagnostic code 'E0399'",
        "opgen explain: note: did you mean 'E0309'?",
        "opgen explain: note: 'opgen explain --list' lists every code",
    ]
