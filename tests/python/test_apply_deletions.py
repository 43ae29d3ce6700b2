"""scripts/apply_deletions.py, which the hand-run comparisons (scripts/vllm_subset, vllm_cpu, torchvision_cpu) use
to do what an import report says to delete, on a real report: FBGEMM's vendored quantize ops, whose report names
whole blocks and, in its CPU block, the registrations to delete but one. The copy it edits must be what
test_import_project_fbgemm.py's person makes of it by hand, and a tree that changed since the import an error.

Needs the built tool: run through CTest."""

import shutil
import subprocess
import sys

from cli_helpers import SOURCE_DIR, requires_opgen, run_opgen

pytestmark = requires_opgen

PROJECT = SOURCE_DIR / "tests" / "import" / "projects" / "pytorch__FBGEMM"
QUANTIZE_OPS = "fbgemm_gpu/src/quantize_ops"
SCRIPT = SOURCE_DIR / "scripts" / "apply_deletions.py"
MINMAX = "FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax"


def imported(tmp_path):
    """A copy of the project and the report of its import."""
    project = tmp_path / "FBGEMM"
    shutil.copytree(PROJECT, project)
    proc = run_opgen("import", "-Ifbgemm_gpu/include", "-Iinclude", QUANTIZE_OPS, "--schemas-dir", tmp_path / "schemas",
                     "--python-dir", tmp_path / "python", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "report.txt").write_text(proc.stdout)
    return project, tmp_path / "report.txt"


def apply(report, tree, *prefix):
    return subprocess.run([sys.executable, SCRIPT, report, tree, *prefix], capture_output=True, text=True)


def test_the_copy_loses_what_the_report_names_and_keeps_its_line_numbers(tmp_path):
    project, report = imported(tmp_path)
    proc = apply(report, project, "fbgemm_gpu/")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [f"{QUANTIZE_OPS}/quantize_ops_cpu.cpp: 3 deleted",
                                        f"{QUANTIZE_OPS}/quantize_ops_meta.cpp: 1 deleted"], proc.stdout
    for name in ("quantize_ops_cpu.cpp", "quantize_ops_meta.cpp"):
        before = (PROJECT / QUANTIZE_OPS / name).read_text().split("\n")
        after = (project / QUANTIZE_OPS / name).read_text().split("\n")
        assert len(after) == len(before) and all(a in ("", b) for a, b in zip(after, before)), name
    cpu = (project / QUANTIZE_OPS / "quantize_ops_cpu.cpp").read_text()
    meta = (project / QUANTIZE_OPS / "quantize_ops_meta.cpp").read_text()
    for gone in ("TORCH_LIBRARY_FRAGMENT(fbgemm, m) {", "TORCH_LIBRARY_IMPL(fbgemm, QuantizedCPU, m) {"):
        assert gone not in cpu, gone
    assert "TORCH_LIBRARY_IMPL(fbgemm, Meta, m) {" not in meta
    # The CPU block keeps its one registration that stays, as the person of test_import_project_fbgemm.py does.
    block = cpu.split("TORCH_LIBRARY_IMPL(fbgemm, CPU, m) {\n")[1].split("}\n")[0]
    assert [line for line in block.split("\n") if line] == [
        "  DISPATCH_TO_CPU(", f'      "{MINMAX}",',
        "      fbgemm_gpu::float_or_half_to_fusednbitrowwise_cpu_with_rowwise_min_max);"], block


def test_a_tree_that_changed_since_the_import_is_an_error(tmp_path):
    project, report = imported(tmp_path)
    meta = project / QUANTIZE_OPS / "quantize_ops_meta.cpp"
    meta.write_text("// a line more\n" + meta.read_text())
    proc = apply(report, project)
    assert proc.returncode == 1 and "quantize_ops_meta.cpp:" in proc.stderr and "does not hold" in proc.stderr, \
        proc.stderr
    assert (project / QUANTIZE_OPS / "quantize_ops_cpu.cpp").read_text() == \
        (PROJECT / QUANTIZE_OPS / "quantize_ops_cpu.cpp").read_text(), "edited before every check passed"


def test_a_report_naming_nothing_under_the_prefix_is_an_error(tmp_path):
    project, report = imported(tmp_path)
    proc = apply(report, project, "no/such/dir/")
    assert proc.returncode == 1 and "nothing to delete under 'no/such/dir/'" in proc.stderr, proc.stderr


def test_a_path_out_of_the_tree_is_refused(tmp_path):
    outside = tmp_path / "outside.cpp"
    outside.write_text("TORCH_LIBRARY(x, m) {\n}\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    for path in (outside, "../outside.cpp"):
        report = tmp_path / "report.txt"
        report.write_text(f"    {path}:1-2: delete the block TORCH_LIBRARY(x,m) "
                          "(the rest of the file stays in the build)\n")
        proc = apply(report, tree)
        assert proc.returncode == 1 and "is not a path inside the tree" in proc.stderr, proc.stderr
    assert outside.read_text() == "TORCH_LIBRARY(x, m) {\n}\n"
