"""Host objects (docs/host-objects.md) through PyTorch itself, on the in-tree
op cast_to_fp8(Tensor input, Float8Quantizer quantizer, ProcessGroup?
amax_group=None): a TransformerEngine-shaped quantizer (a frozen dataclass,
schemas/_types.yaml) and the built-in process group. The registered op is
flat (the objects' declared fields); the package's binding reads the fields
and the kernel receives them as C++ structs.

- eager against a PyTorch reference of the same math, for both float8
  formats, the amax floor, power-of-2 scales, every input dtype and an empty
  input; the binding equals the flat op called with the fields by hand;
- opcheck on the flat op; fake against real;
- torch.compile(fullgraph=True), aot_eager and inductor: an equal quantizer
  reuses the graph, a different one recompiles (the fields are guarded
  constants), a field the fake reads (fp8_dtype: the output's dtype) that
  changes gives a new graph with the right dtype, and the graph holds only
  the flat op; a changed float field compiles exactly as often as PyTorch's
  own float arguments (F.layer_norm's eps) do;
- a gloo process group of one rank: the amax all-reduce runs in the kernel,
  eagerly and compiled, and the kernel saw the group's fields;
- misuse: an object without the fields is a TypeError naming the op, the
  argument and the class; a flat call that sets the group's flag without its
  fields is refused by the kernel's wrapper.

TransformerEngine's Linear, which takes quantizers and a group too, is
tested with the tensor subclasses it returns (test_tensor_subclasses.py).
"""

import pathlib
import re

import pytest
import torch
import torch._dynamo.testing

import opgen_ops
from helpers import assert_fake_matches_real
from opgen_ops.quantization import Float8Quantizer

OPS = torch.ops.opgen
ROOT = pathlib.Path(__file__).resolve().parents[2]
FP8_MAX = {torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}


def reference(input, quantizer, amax=None):
    """The spec's doc, in PyTorch: amax over the input (or the given one),
    its floor, the scale's power-of-2 rounding, the clamped cast."""
    fp8_max = FP8_MAX[quantizer.fp8_dtype]
    x = input.float()
    if amax is None:
        amax = x.abs().amax() if x.numel() else torch.zeros(())
    scale_inv = torch.where(amax > 0, amax.clamp_min(quantizer.amax_epsilon) / fp8_max, torch.ones_like(amax))
    if quantizer.force_pow_2_scales:
        scale_inv = torch.exp2(torch.ceil(torch.log2(scale_inv)))
    return (x / scale_inv).clamp(-fp8_max, fp8_max).to(quantizer.fp8_dtype), scale_inv


QUANTIZERS = [
    Float8Quantizer(torch.float8_e4m3fn),
    Float8Quantizer(torch.float8_e5m2),
    Float8Quantizer(torch.float8_e4m3fn, amax_epsilon=4.0),
    Float8Quantizer(torch.float8_e5m2, force_pow_2_scales=True),
]


def assert_cast_equal(actual, expected):
    data, scale_inv = actual
    assert data.dtype == expected[0].dtype and data.shape == expected[0].shape
    torch.testing.assert_close(data.float(), expected[0].float(), rtol=0, atol=0)
    torch.testing.assert_close(scale_inv, expected[1], rtol=0, atol=0)


@pytest.mark.parametrize("quantizer", QUANTIZERS, ids=repr)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_eager_matches_reference(quantizer, dtype):
    torch.manual_seed(0)
    x = (torch.randn(7, 33) * 3).to(dtype)
    assert_cast_equal(opgen_ops.cast_to_fp8(x, quantizer), reference(x, quantizer))


def test_empty_input_and_zero_amax():
    q = Float8Quantizer(torch.float8_e4m3fn)
    for x in (torch.empty(0, 4), torch.zeros(3)):
        data, scale_inv = opgen_ops.cast_to_fp8(x, q)
        assert data.shape == x.shape and data.dtype == torch.float8_e4m3fn
        assert scale_inv.item() == 1.0


def test_binding_is_the_flat_op_with_the_fields():
    x = torch.randn(5, 8)
    q = Float8Quantizer(torch.float8_e5m2, amax_epsilon=0.5, force_pow_2_scales=True)
    flat = OPS.cast_to_fp8.default(x, torch.float8_e5m2, 0.5, True)
    assert_cast_equal(opgen_ops.cast_to_fp8(x, q), flat)
    # The registered schema takes the fields; the group's, behind a flag.
    schema = str(OPS.cast_to_fp8.default._schema)
    assert schema == ("opgen::cast_to_fp8(Tensor input, ScalarType quantizer_fp8_dtype, float quantizer_amax_epsilon, "
                      "bool quantizer_force_pow_2_scales, bool amax_group_given=False, str? amax_group_group_name=None, "
                      "int? amax_group_size=None, int? amax_group_rank=None) -> (Tensor, Tensor)")


def test_opcheck_and_fake_on_the_flat_op():
    x = torch.randn(4, 16)
    for args in [(x, torch.float8_e4m3fn, 0.0, False), (x.bfloat16(), torch.float8_e5m2, 1e-3, True)]:
        torch.library.opcheck(OPS.cast_to_fp8.default, args)
        assert_fake_matches_real(OPS.cast_to_fp8.default, args)


def test_the_kernel_checks_the_fields():
    with pytest.raises(RuntimeError, match="requires quantizer.fp8_dtype == float8_e4m3fn"):
        opgen_ops.cast_to_fp8(torch.randn(3), Float8Quantizer(torch.float16))
    with pytest.raises(RuntimeError, match="requires quantizer.amax_epsilon >= 0.0"):
        opgen_ops.cast_to_fp8(torch.randn(3), Float8Quantizer(amax_epsilon=-1.0))


def test_an_object_without_the_fields_is_a_type_error():
    class NotAQuantizer:
        fp8_dtype = torch.float8_e4m3fn

    with pytest.raises(TypeError, match=r"opgen::cast_to_fp8: argument 'quantizer' must be a "
                                        r"opgen_ops.quantization.Float8Quantizer \(with the fields fp8_dtype, "
                                        r"amax_epsilon, force_pow_2_scales\), not NotAQuantizer"):
        opgen_ops.cast_to_fp8(torch.randn(3), NotAQuantizer())


def test_a_flag_without_the_fields_is_refused():
    with pytest.raises(RuntimeError, match="amax_group_given is true, so amax_group_group_name, amax_group_size, "
                                           "amax_group_rank must be given"):
        OPS.cast_to_fp8.default(torch.randn(3), torch.float8_e4m3fn, 0.0, False, True)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_guards_on_the_fields(backend):
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)

    @torch.compile(backend=counter, fullgraph=True)
    def cast(x, quantizer):
        data, scale_inv = opgen_ops.cast_to_fp8(x, quantizer)
        return data.float() * scale_inv

    torch._dynamo.reset()
    x = torch.randn(6, 10) * 5
    for q in [Float8Quantizer(torch.float8_e4m3fn), Float8Quantizer(torch.float8_e4m3fn)]:  # equal: one graph
        data, scale_inv = reference(x, q)
        torch.testing.assert_close(cast(x, q), data.float() * scale_inv, rtol=0, atol=0)
    assert counter.frame_count == 1
    q = Float8Quantizer(torch.float8_e4m3fn, force_pow_2_scales=True)  # another value: another graph
    data, scale_inv = reference(x, q)
    torch.testing.assert_close(cast(x, q), data.float() * scale_inv, rtol=0, atol=0)
    assert counter.frame_count == 2
    # Only the flat op is in the graph, its fields constants.
    graph = counter.graphs[-1]
    targets = [node.target for node in graph.graph.nodes if node.op == "call_function"]
    assert OPS.cast_to_fp8.default in targets
    node = next(node for node in graph.graph.nodes if node.target is OPS.cast_to_fp8.default)
    assert node.args[1:5] == (torch.float8_e4m3fn, 0.0, True, False)  # the group not given


def frames_per_call(fn, calls, backend):
    """The compile count after each call of torch.compile(fn, fullgraph=True) over `calls` (argument tuples)."""
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    compiled = torch.compile(fn, backend=counter, fullgraph=True)
    torch._dynamo.reset()
    counts = []
    for args in calls:
        compiled(*args)
        counts.append(counter.frame_count)
    return counts, counter


EPSILONS = (0.0, 1e-12, 1e-6, 1e-12, 0.0)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_a_changed_float_field_compiles_as_pytorchs_own_float_arguments_do(backend):
    """Issue 35: a changed float field compiled twice for its first new value. That is PyTorch's own
    behaviour for every op taking a float from an object, not the binding's: after the field's guard fails,
    automatic dynamic makes it a SymFloat, no schema type takes one (there is no SymFloat), so AOT tracing
    specializes it and Dynamo restarts the frame once. F.layer_norm with eps read from the same object
    compiles exactly as often; later values compile once each, a repeated value reuses its graph, the value
    is a constant in the graph, and every result is right."""
    x = torch.randn(4, 8)
    quantizers = [Float8Quantizer(torch.float8_e4m3fn, amax_epsilon=eps) for eps in EPSILONS]
    for q in quantizers:
        torch.testing.assert_close(opgen_ops.cast_to_fp8(x, q)[1], reference(x, q)[1], rtol=0, atol=0)
    ours, counter = frames_per_call(lambda x, q: opgen_ops.cast_to_fp8(x, q)[1], [(x, q) for q in quantizers], backend)
    theirs, _ = frames_per_call(lambda x, q: torch.nn.functional.layer_norm(x, (8,), eps=q.amax_epsilon),
                                [(x, q) for q in quantizers], backend)
    assert ours == theirs, (ours, theirs)
    assert ours[3:] == [ours[2]] * 2  # values seen before reuse their graphs
    if backend == "aot_eager":
        node = next(n for n in counter.graphs[-1].graph.nodes if n.target is OPS.cast_to_fp8.default)
        assert node.args[2] == 1e-6 and type(node.args[2]) is float


def test_with_floats_specialized_each_value_compiles_once():
    """With PyTorch's own switch for that (torch._dynamo.config.specialize_float), a float field is a guarded
    constant from the start: one compile per distinct value, in a new quantizer or one changed in place."""
    x = torch.randn(4, 8)
    with torch._dynamo.config.patch(specialize_float=True):
        calls = [(x, Float8Quantizer(torch.float8_e4m3fn, amax_epsilon=eps)) for eps in EPSILONS]
        changed = Float8Quantizer(torch.float8_e4m3fn, amax_epsilon=0.0)
        object.__setattr__(changed, "amax_epsilon", 1e-3)  # changed in place (the class is frozen; a user's may not be)
        counts, _ = frames_per_call(lambda x, q: opgen_ops.cast_to_fp8(x, q)[1], calls + [(x, changed)], "aot_eager")
    assert counts == [1, 2, 3, 3, 3, 4]


@pytest.mark.parametrize("field", ["fp8_dtype", "force_pow_2_scales"])
def test_a_changed_dtype_or_bool_field_compiles_once_per_value(field):
    """ScalarType and bool fields are guarded constants: one compile per value, none for a value seen before."""
    x = torch.randn(4, 8)
    values = {"fp8_dtype": [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fn],
              "force_pow_2_scales": [False, True, False]}[field]
    quantizers = [Float8Quantizer(**{"fp8_dtype": torch.float8_e4m3fn, field: value}) for value in values]
    counts, _ = frames_per_call(lambda x, q: opgen_ops.cast_to_fp8(x, q)[1], [(x, q) for q in quantizers], "aot_eager")
    assert counts == [1, 2, 2]


def test_a_field_the_fake_reads_recompiles():
    """fp8_dtype is the output's dtype in the fake: a quantizer of the other
    format must not reuse the graph traced for the first (the stale-graph
    failure of symbolic fields read in a fake, shared/host-objects.md E2)."""
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    cast = torch.compile(lambda x, q: opgen_ops.cast_to_fp8(x, q)[0], backend=counter, fullgraph=True)
    torch._dynamo.reset()
    x = torch.randn(8)
    assert cast(x, Float8Quantizer(torch.float8_e4m3fn)).dtype == torch.float8_e4m3fn
    assert cast(x, Float8Quantizer(torch.float8_e5m2)).dtype == torch.float8_e5m2
    assert counter.frame_count == 2


def test_process_group_eager_and_compiled(gloo_group):
    x = torch.randn(4, 9)
    q = Float8Quantizer(torch.float8_e4m3fn)
    expected = reference(x, q)  # one rank: the all-reduced amax is the rank's own
    assert_cast_equal(opgen_ops.cast_to_fp8(x, q, gloo_group), expected)
    assert_cast_equal(opgen_ops.cast_to_fp8(x, q, amax_group=None), expected)
    compiled = torch.compile(lambda x, g: opgen_ops.cast_to_fp8(x, q, g), backend="aot_eager", fullgraph=True)
    assert_cast_equal(compiled(x, gloo_group), expected)
    assert_cast_equal(compiled(x, None), expected)


def test_the_kernel_resolves_the_group_by_its_name(gloo_group):
    """The flat op's group name reaches c10d in the kernel: a name no group
    has is an error there."""
    with pytest.raises(RuntimeError):
        OPS.cast_to_fp8.default(torch.randn(3), torch.float8_e4m3fn, 0.0, False, True, "no such group", 1, 0)
    data, _ = OPS.cast_to_fp8.default(torch.randn(3), torch.float8_e4m3fn, 0.0, False, True,
                                      gloo_group.group_name, 1, 0)
    assert data.dtype == torch.float8_e4m3fn


def test_the_page_shows_the_files_tested_here():
    """docs/host-objects.md's YAML is the in-tree files it names, verbatim."""
    page = (ROOT / "docs" / "host-objects.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.S)
    assert blocks == [(ROOT / "schemas" / name).read_text() for name in ("_types.yaml", "cast_to_fp8.yaml", "fp8_linear.yaml", "runner_gemm.yaml",
                                                                          "tiled_gemm.yaml")]


@pytest.mark.parametrize("plant", ["fifo", "dev_zero", "sparse"])
def test_a_types_file_that_is_no_file_is_refused(plant, tmp_path):
    """_types.yaml goes through the specs' reader: a FIFO (no hang), a link to
    /dev/zero and a 1 TiB sparse file are E0901, and nothing is written."""
    import os
    from cli_helpers import run_opgen

    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "f.yaml").write_text('schema: "f(Tensor x) -> Tensor"\nfake: like(x)\nsamples: []\n')
    types = tmp_path / "s" / "_types.yaml"
    if plant == "fifo":
        os.mkfifo(types)
    elif plant == "dev_zero":
        types.symlink_to("/dev/zero")
    else:
        with open(types, "wb") as f:
            f.truncate(1 << 40)
    result = run_opgen("generate", "-o", tmp_path / "out", tmp_path / "s")
    assert result.returncode == 1 and "error[E0901]" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


MISSING_FAKE = """
import os, sys, torch
import importlib.util
package = os.path.dirname(importlib.util.find_spec("opgen_ops").origin)
torch.ops.load_library(os.path.join(package, "libopgen_ops.so"))  # the library alone, not the package
assert torch._C._dispatch_pystub("opgen::cast_to_fp8", "") == ("opgen_ops._ops", ""), \\
    torch._C._dispatch_pystub("opgen::cast_to_fp8", "")
x = torch.empty(4, 8, device="meta")
try:
    torch.ops.opgen.cast_to_fp8(x, torch.float8_e4m3fn, 0.0, False, False, None, None, None)
except NotImplementedError as error:
    assert "import the 'opgen_ops._ops' Python module" in str(error), error
else:
    raise AssertionError("a fake ran before its module was imported")
import opgen_ops  # registers the fakes from the module the library named: PyTorch checks that
data, scale = torch.ops.opgen.cast_to_fp8(x, torch.float8_e4m3fn, 0.0, False, False, None, None, None)
assert data.device.type == "meta" and data.dtype == torch.float8_e4m3fn
print("ok")
"""


def test_the_library_names_the_module_of_its_fakes():
    """Each op's def names the package's _ops module (set_python_module, in the op's own block: PyTorch
    records it per op). A process that loads the library alone is told to import that module for the fake,
    and the package's fakes then register from it (PyTorch refuses a fake from another module)."""
    import os
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", MISSING_FAKE], capture_output=True, text=True, timeout=300,
                            env={**os.environ})
    assert result.returncode == 0 and "ok" in result.stdout, result.stdout[-2000:] + result.stderr[-3000:]
