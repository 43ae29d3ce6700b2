"""Every position of a spec or the types file that names Python code
(`module:function` for kernels, fakes, compile fallbacks and a subclass's
`build`; `module.Class` for a host class) takes only what Python can spell:
a part that is a keyword (`class:fn`, `mod:None`, `import.ops:f`) is refused
with a note, since the generated `_ops.py` would be a SyntaxError and the
whole package would fail to import. The accepted form generates a module
that compiles."""

import py_compile
import subprocess
import sys

import pytest

from cli_helpers import run_opgen

OP = 'schema: "scale(Tensor x) -> Tensor"\nsamples: []\n'

# position -> (spec text, types text), each with {target} where the target goes.
POSITIONS = {
    "kernel": (OP + "dispatch: [CPU]\nfake: like(x)\nkernels:\n  CPU: {{python: \"{target}\"}}\n", None),
    "fake": (OP + "fake: {{python: \"{target}\"}}\n", None),
    "compile fallback": (OP + "fake: like(x)\ncompile:\n  unsupported:\n    - when: \"x.dim() > 3\"\n"
                              "      reason: \"no kernel past 3-D\"\n  fallback: {{python: \"{target}\"}}\n", None),
    "host class": ('schema: "scale(Tensor x, Scaling s) -> Tensor"\nsamples: []\nfake: like(x)\n',
                   "host_objects:\n  Scaling:\n    class: \"{path}\"\n    fields: {{factor: float}}\n"),
    "subclass build": (OP + "fake: like(x)\n",
                       "tensor_subclasses:\n  Boxed:\n    class: mylib.Boxed\n    inner: [data]\n"
                       "    build: \"{target}\"\n"),
}

KEYWORD_TARGETS = {"class:fn": "class", "mod:None": "None", "lambda:fn": "lambda", "import.ops:f": "import",
                   "pkg.def.mod:f": "def", "pkg:True": "True", "from:x": "from"}


def write_case(tmp_path, position, target):
    spec, types = POSITIONS[position]
    path = target.replace(":", ".")  # the same parts, as module.Qualname
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "scale.yaml").write_text(spec.format(target=target, path=path))
    if types:
        (specs / "_types.yaml").write_text(types.format(target=target, path=path))


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("target", KEYWORD_TARGETS)
def test_a_keyword_in_a_target_is_refused_with_a_note(tmp_path, position, target):
    write_case(tmp_path, position, target)
    proc = run_opgen("generate", "-o", tmp_path / "out", "specs", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    keyword = KEYWORD_TARGETS[target]
    assert f"note: '{keyword}' is a Python keyword" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("position", POSITIONS)
def test_the_accepted_form_generates_python_that_compiles(tmp_path, position):
    write_case(tmp_path, position, "my_pkg.match.case_:type_")  # soft keywords are names
    proc = run_opgen("generate", "-o", tmp_path / "out", "specs", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    modules = list((tmp_path / "out").rglob("*.py"))
    assert modules
    for module in modules:
        py_compile.compile(str(module), doraise=True)


KERNELS = "import torch\n\ndef scale_cpu(x):\n    return 2 * x\n\ndef composite(x):\n    return 2 * x\n"


@pytest.mark.parametrize("position", ["fake", "compile fallback"])
def test_a_handwritten_function_that_cannot_be_imported_is_named_with_its_op_and_spec(tmp_path, position):
    """The package imports a handwritten compile replacement as it loads, and a
    handwritten fake when fake tensors first call it (its module may import the
    package); a missing one was a bare ModuleNotFoundError naming neither."""
    spec = OP + "dispatch: [CPU]\nkernels:\n  CPU: {python: \"mykernels:scale_cpu\"}\n"
    spec += ("fake: {python: \"myfakes:scale_fake\"}\n" if position == "fake" else
             "fake: like(x)\ncompile:\n  unsupported:\n    - when: \"x.dim() > 3\"\n      reason: \"no kernel past 3-D\"\n"
             "  fallback: {python: \"mycompiled:composite\"}\n")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "scale.yaml").write_text(spec)
    (tmp_path / "mykernels.py").write_text(KERNELS)
    proc = run_opgen("generate", "--namespace", "ns", "-o", tmp_path / "out", "specs", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # The fake's module: imported at the fake's first call (an eager call does not need it).
    code = ("import ns, torch\nassert ns.scale(torch.ones(2)).sum() == 4\n"
            "from torch._subclasses.fake_tensor import FakeTensorMode\n"
            "with FakeTensorMode():\n    ns.scale(torch.empty(2))\n") if position == "fake" else "import ns"
    imported = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              env={"PYTHONPATH": f"{tmp_path / 'out' / 'python'}:{tmp_path}", "PATH": "/usr/bin:/bin"})
    assert imported.returncode == 1
    what = ("ns::scale's fake (specs/scale.yaml: fake: {python: ...}) names myfakes:scale_fake"
            if position == "fake" else
            "ns::scale's compile fallback (specs/scale.yaml: compile: fallback: {python: ...}) names "
            "mycompiled:composite")
    assert f"ImportError: {what}, which cannot be imported: No module named" in imported.stderr, imported.stderr
