"""The promise `opgen generate` keeps (docs: README, "What opgen does to your
files"), held for every other surface: the stamp and its temporary, the
manifest's cleanup, `opgen init` and `opgen new`, the output lock, every file
opgen reads. Each test is a class of defect, tried as an attacker or a careless
user would (issue 21), against the mechanism that closes it:

- every path written, replaced or deleted is resolved beneath its directory by
  a ConfinedDir (openat with O_NOFOLLOW, component by component), every file
  created O_CREAT|O_EXCL|O_NOFOLLOW (codegen/src/support/confined_dir.h);
- init and new create all their files or none (support/new_files.h);
- every read is bounded, no open blocks on a FIFO, every wait has an end.

Needs the built tool: OPGEN_BIN=build/codegen/opgen pytest tests/python/test_safety_surfaces.py
"""

import fcntl
import os
import resource
import signal
import subprocess

import pytest

from cli_helpers import IN_TREE_OPTIONS, OPGEN_BIN, SCHEMAS, STAMP, generate_in_tree, requires_opgen, run_opgen, snapshot

pytestmark = requires_opgen

GENERATE = [OPGEN_BIN, "generate", *map(str, IN_TREE_OPTIONS)]


def stamp_outputs(out):
    """The stamp's output lines, as (prefix, path) where prefix holds the file's identity and digest."""
    lines = (out / STAMP).read_text().split("\n")
    return lines, [i for i, line in enumerate(lines) if line.count(" ") >= 5 and line[0].isdigit()]


# ----------------------------------------------------------------- class 1: writes and deletes outside


def test_a_link_planted_at_the_stamps_temporary_is_not_followed(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    generate_in_tree(out)
    victim.write_text("precious\n")
    # The temporary is named after the writer's pid: exec keeps the shell's, so the link
    # is planted at exactly the name the run will use.
    script = f'ln -s {victim} {out}/{STAMP}.opgen-tmp-$$ && exec "$@"'
    spec = tmp_path / "specs"
    spec.mkdir()
    for name in ("rms_norm.yaml", "rms_norm_backward.yaml"):
        (spec / name).write_text((SCHEMAS / name).read_text())
    proc = subprocess.run(["bash", "-c", script, "bash", *GENERATE, "-o", out, spec], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "precious\n"
    assert (out / STAMP).is_file() and not (out / STAMP).is_symlink()
    assert not [p for p in snapshot(out) if ".opgen-tmp-" in p]


def _craft_manifest_entry(out, path_in_stamp, digest_of):
    """Rewrites the stamp so that one output line names `path_in_stamp` with the digest of `digest_of`."""
    lines, outputs = stamp_outputs(out)
    own = {line.rsplit(" ", 1)[1]: line for line in (lines[i] for i in outputs)}
    prefix = own[digest_of].rsplit(" ", 1)[0]
    lines[outputs[0]] = f"{prefix} {path_in_stamp}"
    (out / STAMP).write_text("\n".join(lines))


@pytest.mark.parametrize("crafted", ["../victim.cpp", "/ABS/victim.cpp", "csrc/../../victim.cpp", "./../victim.cpp"])
def test_a_crafted_manifest_entry_deletes_nothing_outside(tmp_path, crafted):
    out = tmp_path / "out"
    generate_in_tree(out)
    victim = tmp_path / "victim.cpp"
    victim.write_bytes((out / "csrc" / "rms_norm.cpp").read_bytes())  # the digest the stamp records
    _craft_manifest_entry(out, crafted.replace("/ABS", str(tmp_path)), "csrc/rms_norm.cpp")
    # The cleanup of leftover temporaries takes its directories from the manifest too.
    temp = tmp_path / "victim.cpp.opgen-tmp-4242"
    temp.write_text("not opgen's")
    generate_in_tree(out, "--torch-target-version", "2.11")  # another key: a full run, with the stale pass
    assert victim.is_file() and temp.is_file()


def test_a_link_in_the_output_directory_leads_no_cleanup_outside(tmp_path):
    out, outside = tmp_path / "out", tmp_path / "outside"
    generate_in_tree(out)
    outside.mkdir()
    (outside / "rms_norm.cpp").write_bytes((out / "csrc" / "rms_norm.cpp").read_bytes())
    (outside / "rms_norm.cpp.opgen-tmp-12").write_text("")
    lines, outputs = stamp_outputs(out)
    (out / "via").symlink_to(outside)
    _craft_manifest_entry(out, "via/rms_norm.cpp", "csrc/rms_norm.cpp")
    generate_in_tree(out, "--torch-target-version", "2.11")
    assert sorted(p.name for p in outside.iterdir()) == ["rms_norm.cpp", "rms_norm.cpp.opgen-tmp-12"]


@pytest.mark.parametrize("option", ["--schemas-dir", "--kernels-dir"])
def test_new_with_an_empty_directory_is_an_error_and_writes_nothing(tmp_path, option):
    proc = run_opgen("new", "mylib::foo", "--schema", "(Tensor x) -> Tensor", option, "", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "an empty path names no directory" in proc.stderr and "nothing was written" in proc.stderr
    assert snapshot(tmp_path) == {}
    assert not os.path.exists("/foo.cpp") and not os.path.exists("/foo.yaml")


def test_init_with_an_empty_directory_is_an_error(tmp_path):
    proc = run_opgen("init", "", "--namespace", "mylib", cwd=tmp_path)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "terminate" not in proc.stderr, proc.stderr
    assert snapshot(tmp_path) == {}


def test_new_writes_nothing_through_a_link_under_its_directories(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "sub").symlink_to(outside)
    proc = run_opgen("new", "mylib::foo", "--schema", "(Tensor x) -> Tensor", "--kernels-dir", "kernels/sub/deeper",
                     cwd=tmp_path)
    # The directory the user named may be reached through a link; what it creates beneath never is.
    # Here kernels/sub is part of what the user named: allowed, and the file lands there.
    assert proc.returncode == 0, proc.stderr
    assert (outside / "deeper" / "foo.cpp").is_file()
    # A link planted where new's own file goes is never followed, and nothing else is written.
    (tmp_path / "schemas" / "bar.yaml").symlink_to(tmp_path / "victim.yaml")
    proc = run_opgen("new", "mylib::bar", "--schema", "(Tensor x) -> Tensor", cwd=tmp_path)
    assert proc.returncode == 1 and "error[E0903]" in proc.stderr, proc.stderr
    assert not (tmp_path / "victim.yaml").exists() and not (tmp_path / "kernels" / "bar.cpp").exists()


# ----------------------------------------------------------------- class 7: all or nothing, with the OS's reason


def _limit_file_size(limit):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_init_on_a_failing_disk_leaves_nothing_and_says_why(tmp_path):
    proc = subprocess.run([OPGEN_BIN, "init", "proj", "--namespace", "mylib"], cwd=tmp_path, capture_output=True,
                          text=True, preexec_fn=_limit_file_size(600))
    assert proc.returncode == 1, proc.stderr
    assert "File too large" in proc.stderr and "nothing was written" in proc.stderr, proc.stderr
    assert "wrote " not in proc.stdout
    assert snapshot(tmp_path) == {}  # not even the directories it made
    retry = run_opgen("init", "proj", "--namespace", "mylib", cwd=tmp_path)
    assert retry.returncode == 0, retry.stderr


def test_new_with_a_bad_kernel_directory_leaves_no_spec_behind(tmp_path):
    (tmp_path / "kernels").write_text("a file where the kernel directory goes")
    proc = run_opgen("new", "mylib::foo", "--schema", "(Tensor x) -> Tensor", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "error[E0902]" in proc.stderr and "Not a directory" in proc.stderr, proc.stderr
    assert sorted(snapshot(tmp_path)) == ["kernels"]


# ----------------------------------------------------------------- class 6: no hang, no crash, bounded


def test_a_held_lock_times_out_naming_its_holder(tmp_path):
    out = tmp_path / "out"
    generate_in_tree(out)
    # This process holds the lock (as a stuck run would), before opgen starts: no race.
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        env = {**os.environ, "OPGEN_LOCK_TIMEOUT": "3"}
        # A hang would end at the subprocess timeout; the test times nothing itself.
        proc = subprocess.run([*GENERATE, "-o", out, SCHEMAS], capture_output=True, text=True, env=env, timeout=120)
    finally:
        os.close(fd)
    assert proc.returncode == 1
    assert f"{out}: error[E0907]: another process has held the output directory's lock for 3 s" in proc.stderr
    assert f"pid {os.getpid()} (" in proc.stderr, proc.stderr  # who holds it, with its command line
    assert "waiting for the lock" in proc.stderr


def test_a_huge_sparse_stamp_or_spec_is_refused_not_read(tmp_path):
    out = tmp_path / "out"
    generate_in_tree(out)
    with open(out / STAMP, "r+b") as f:
        f.truncate(1 << 40)  # a terabyte of holes
    generate_in_tree(out)  # the stamp is only a shortcut: a full run
    assert (out / STAMP).stat().st_size < 1 << 20
    specs = tmp_path / "specs"
    specs.mkdir()
    with open(specs / "big.yaml", "wb") as f:
        f.truncate(1 << 40)
    proc = run_opgen("check", *IN_TREE_OPTIONS, specs)
    assert proc.returncode == 1 and "error[E0901]" in proc.stderr, proc.stderr


# ----------------------------------------------------------------- class 4: what check accepts compiles


@pytest.mark.parametrize("abi", ["stable", "unstable"])
def test_a_require_dividing_by_a_non_literal_compiles_and_checks(tmp_path, abi):
    """`%` and `//` by a value of unknown sign render as a lambda with Python's semantics; inside
    a require it sits in the check macro's argument, where a nested check macro never expands."""
    torch = pytest.importorskip("torch")
    from torch.utils.cpp_extension import include_paths

    (tmp_path / "foo.yaml").write_text(
        f'schema: "foo(Tensor x, int n) -> Tensor"\nabi: {abi}\ndispatch: [CPU]\nfake: [like(x)]\n'
        "require:\n  - x.size(0) % n == 0\n  - x.size(0) // n >= 1\n  - (x.size(0) - n) % (n - 3) >= 0\n")
    out = tmp_path / "out"
    proc = run_opgen("generate", "--namespace", "mylib", "-o", out, tmp_path / "foo.yaml")
    assert proc.returncode == 0, proc.stderr
    includes = [f"-I{p}" for p in [out / "include", *include_paths()]]
    compile_ = subprocess.run(["g++", "-std=c++20", "-fsyntax-only", "-Wall", "-Werror", *includes,
                               out / "csrc" / "foo.cpp"], capture_output=True, text=True)
    assert compile_.returncode == 0, compile_.stderr[-3000:]
    assert torch.__version__  # the headers are this torch's


def test_init_names_only_options_it_has(tmp_path):
    proc = run_opgen("init", "my ext", cwd=tmp_path)
    assert proc.returncode == 1
    assert "--library-name" not in proc.stderr and "--python-package" not in proc.stderr, proc.stderr
    assert "my ext (the directory's name): error[E0905]: 'my ext' is not a valid namespace" in proc.stderr
    assert snapshot(tmp_path) == {}


@pytest.mark.parametrize("command", [["init", "proj"], ["new", "mylib::foo", "--schema", "(Tensor x) -> Tensor"]])
def test_a_json_schema_value_that_would_break_the_spec_is_a_usage_error(tmp_path, command):
    proc = run_opgen(*command, "--json-schema", "schema.json\nschema: x", cwd=tmp_path)
    assert proc.returncode == 2 and "one line without control characters" in proc.stderr, proc.stderr
    assert "internal" not in proc.stderr
    assert snapshot(tmp_path) == {}


def test_aliases_that_multiply_a_spec_are_refused_at_once(tmp_path):
    """50 KB whose 5,000 samples each alias one 5,000-value list stand for 25
    million values: refused (E0101) before anything walks them (it took 47 s
    to reach an error before)."""
    values = ", ".join(["1"] * 5000)
    text = ('schema: "foo(Tensor x, int[] v) -> Tensor"\nfake: like(x)\nsamples:\n'
            f"  - &s {{args: {{x: {{shape: [4]}}, v: [{values}]}}}}\n" + "  - *s\n" * 5000)
    (tmp_path / "foo.yaml").write_text(text)
    proc = run_opgen("check", "foo.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert "foo.yaml:1:1: error[E0101]: invalid YAML: its aliases expand it past 1000000 nodes" in proc.stderr, \
        proc.stderr
