"""The bad-spec corpus: every malformed spec gets its exact diagnostics, exit
status 1, and opgen writes nothing.

Each directory of tests/bad_specs/ is one case: its specs are the *.yaml files
in it and in its subdirectories (a case that needs the same op in two files
puts them in two subdirectories), and expected.txt holds the diagnostic lines
opgen prints for it, `path:line:col: error: ...` and their `note:` lines, with
paths relative to the case directory (`--source-root <case>`). The summary line
(`opgen: N errors; nothing was written`) is not part of it. Every case but
`several_errors` exercises exactly one error.

For each case, `opgen generate` (into an empty directory, and into one holding
the output of a good run) and `opgen check` must exit 1 with those lines, in
that order, and leave every file as it was.

After a deliberate change to a message, refresh the expected files and review
the diff:

    OPGEN_UPDATE_EXPECTED=1 OPGEN_BIN=build/codegen/opgen pytest tests/python/test_bad_specs.py
"""

import os

import pytest

from cli_helpers import BAD_SPECS, generate_in_tree, requires_opgen, run_opgen, snapshot, split_diagnostics

pytestmark = requires_opgen

UPDATE_EXPECTED = os.environ.get("OPGEN_UPDATE_EXPECTED") == "1"
CASES = sorted(path.name for path in BAD_SPECS.iterdir() if path.is_dir())
MULTI_ERROR_CASE = "several_errors"


def spec_inputs(case):
    """The case directory and its subdirectories, as opgen's spec arguments."""
    case_dir = BAD_SPECS / case
    return [case_dir, *sorted(path for path in case_dir.iterdir() if path.is_dir())]


def run_case(command, case, *options, cwd=None):
    """Runs `opgen <command>` on a case as the corpus defines it."""
    return run_opgen(
        command, "--namespace", "opgen", "--source-root", BAD_SPECS / case, *options, *spec_inputs(case), cwd=cwd
    )


def expected_diagnostics(case, actual):
    """The case's expected lines; with OPGEN_UPDATE_EXPECTED=1, `actual` is
    written to expected.txt first."""
    path = BAD_SPECS / case / "expected.txt"
    if UPDATE_EXPECTED:
        path.write_text("".join(line + "\n" for line in actual))
    return path.read_text().splitlines()


def assert_fails_as_expected(proc, case):
    assert proc.returncode == 1, f"exit status {proc.returncode}\n{proc.stderr}"
    assert proc.stdout == ""
    diagnostics, summary = split_diagnostics(proc.stderr)
    assert diagnostics == expected_diagnostics(case, diagnostics)
    errors = sum(": error: " in line for line in diagnostics)
    assert summary == f"opgen: {errors} error{'' if errors == 1 else 's'}; nothing was written"


@pytest.fixture(scope="module")
def good_output(tmp_path_factory):
    """A directory holding the output of a successful run over schemas/."""
    out = tmp_path_factory.mktemp("good") / "out"
    generate_in_tree(out)
    return out


def test_the_corpus_covers_many_error_kinds():
    assert len(CASES) >= 50


@pytest.mark.parametrize("case", CASES)
def test_case_is_well_formed(case):
    case_dir = BAD_SPECS / case
    assert list(case_dir.rglob("*.yaml")), f"{case} has no spec"
    if UPDATE_EXPECTED:
        pytest.skip("expected files are being refreshed")
    lines = (case_dir / "expected.txt").read_text().splitlines()
    errors = [line for line in lines if ": error: " in line]
    assert all(": error: " in line or ": note: " in line for line in lines), lines
    if case != MULTI_ERROR_CASE:
        assert len(errors) == 1, f"{case} should exercise exactly one error:\n" + "\n".join(errors)


@pytest.mark.parametrize("case", CASES)
def test_check_reports_the_case(case, tmp_path):
    proc = run_case("check", case, cwd=tmp_path)
    assert_fails_as_expected(proc, case)
    assert snapshot(tmp_path) == {}


@pytest.mark.parametrize("case", CASES)
def test_generate_into_an_empty_directory_writes_nothing(case, tmp_path):
    proc = run_case("generate", case, "-o", tmp_path)
    assert_fails_as_expected(proc, case)
    assert snapshot(tmp_path) == {}


@pytest.mark.parametrize("case", CASES)
def test_generate_leaves_earlier_output_untouched(case, good_output):
    before = snapshot(good_output)
    proc = run_case("generate", case, "-o", good_output)
    assert_fails_as_expected(proc, case)
    assert snapshot(good_output) == before


def test_several_errors_are_all_reported_in_a_stable_order():
    first, second = (run_case("check", MULTI_ERROR_CASE) for _ in range(2))
    assert first.returncode == second.returncode == 1
    assert first.stderr == second.stderr
    diagnostics, _ = split_diagnostics(first.stderr)
    errors = [line for line in diagnostics if ": error: " in line]
    files = {line.split(":")[0] for line in errors}
    assert len(errors) >= 5 and len(files) >= 3, diagnostics
    # Ordered by file, then line, then column.
    positions = [(path, int(line), int(column)) for path, line, column, *_ in (e.split(":") for e in errors)]
    assert positions == sorted(positions)
