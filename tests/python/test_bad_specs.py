"""The bad-spec corpus: every malformed spec gets its exact diagnostics, exit
status 1, and opgen writes nothing.

Each directory of tests/bad_specs/ is one case: its specs are the *.yaml files
in it and in its subdirectories (a case that needs the same op in two files
puts them in two subdirectories; an `options` file lists extra command-line
options, for what only a newer --torch-target-version reports), and expected.txt holds the diagnostic lines
opgen prints for it, `path:line:col: error[E0304]: ...` and their `note:`
lines, with paths relative to the case directory (`--source-root <case>`). The
summary line (`opgen: N errors; nothing was written`) and the `opgen explain`
hint after it are not part of it. Every case but `several_errors` exercises
exactly one error, and every error code (`opgen explain --list`) has a case,
so each has a real example.

For each case, `opgen generate` (into an empty directory, and into one holding
the output of a good run) and `opgen check` must exit 1 with those lines, in
that order, and leave every file as it was.

After a deliberate change to a message, refresh the expected files and review
the diff:

    OPGEN_UPDATE_EXPECTED=1 OPGEN_BIN=build/codegen/opgen pytest tests/python/test_bad_specs.py
"""

import os

import pytest

from cli_helpers import (
    BAD_SPECS,
    ERROR_LINE,
    error_codes,
    generate_in_tree,
    requires_opgen,
    run_opgen,
    snapshot,
    split_diagnostics,
)

pytestmark = requires_opgen

UPDATE_EXPECTED = os.environ.get("OPGEN_UPDATE_EXPECTED") == "1"
CASES = sorted(path.name for path in BAD_SPECS.iterdir() if path.is_dir())
MULTI_ERROR_CASE = "several_errors"
# Codes no spec can provoke (they are about the files opgen reads and writes):
# tests/python/test_cli.py and test_safety_surfaces.py exercise each of them instead.
CODES_EXERCISED_BY_CLI_TESTS = {"E0901", "E0902", "E0903", "E0904", "E0905", "E0906", "E0907", "E0908"}


def spec_inputs(case):
    """The case directory and its subdirectories, as opgen's spec arguments."""
    case_dir = BAD_SPECS / case
    return [case_dir, *sorted(path for path in case_dir.iterdir() if path.is_dir())]


def run_case(command, case, *options, cwd=None):
    """Runs `opgen <command>` on a case as the corpus defines it: with the
    options its `options` file lists, separated by whitespace (`--torch-target-version
    2.13`, for what only a newer target reports)."""
    listed = BAD_SPECS / case / "options"
    case_options = listed.read_text().split() if listed.is_file() else []
    return run_opgen(command, "--namespace", "opgen", "--source-root", BAD_SPECS / case, *case_options, *options,
                     *spec_inputs(case), cwd=cwd)


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
    errors = len(error_codes(diagnostics))
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
    errors = [line for line in lines if ERROR_LINE.match(line)]
    assert all(ERROR_LINE.match(line) or ": note: " in line for line in lines), lines
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
    errors = [line for line in diagnostics if ERROR_LINE.match(line)]
    files = {line.split(":")[0] for line in errors}
    assert len(errors) >= 5 and len(files) >= 3, diagnostics
    # Ordered by file, then line, then column.
    positions = [(path, int(line), int(column)) for path, line, column, *_ in (e.split(":") for e in errors)]
    assert positions == sorted(positions)


def test_every_error_code_has_a_case():
    listed = run_opgen("explain", "--list")
    assert listed.returncode == 0, listed.stderr
    codes = {line.split()[0] for line in listed.stdout.splitlines()}
    # Warnings never show in the corpus (opgen prints them only when there is
    # no error); the unit tests run each warning's documented example instead.
    error_codes_listed = {code for code in codes if code.startswith("E")}
    used = {}
    for case in CASES:
        for code in error_codes((BAD_SPECS / case / "expected.txt").read_text().splitlines()):
            used.setdefault(code, case)
    assert set(used) <= error_codes_listed, f"expected.txt names codes opgen does not list: {set(used) - codes}"
    assert not CODES_EXERCISED_BY_CLI_TESTS & set(used)
    missing = error_codes_listed - set(used) - CODES_EXERCISED_BY_CLI_TESTS
    assert not missing, f"error codes without a case in tests/bad_specs/: {sorted(missing)}"
