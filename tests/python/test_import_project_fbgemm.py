"""A third real CPU project switches to opgen with one `opgen import`, its
kernels unchanged, and gives its own results bit for bit (issue 34, item 8).

The project is FBGEMM's quantize ops (tests/import/projects/, verbatim,
provenance in its README): `fbgemm_gpu/src/quantize_ops/`, its CPU build
(`quantize_ops_cpu.cpp`, `quantize_ops_meta.cpp`; the `.cu` files and the
CUDA registrations of `quantize_ops_gpu.cpp` left out), and the part of
FBGEMM's own library those kernels call (`src/QuantUtils*.cc` and what they
need, compiled with the AVX2 and AVX512 flags FBGEMM's CMake gives them,
static and with `FBGEMM_STATIC`, as fbgemm_gpu links it). Its style: one
`TORCH_LIBRARY_FRAGMENT(fbgemm, m)` with 28 defs in a namespace every FBGEMM
library adds to (`set_python_module`, two with `PT2_COMPLIANT_TAG`), impls
through the project's own macros (`DISPATCH_TO_CPU`,
`DISPATCH_TO_QUANTIZED_CPU`) in `TORCH_LIBRARY_IMPL` blocks after the
kernels, one kernel `static`, Meta kernels in a file of their own, and its
fakes in Python (`fbgemm_gpu/sparse_ops.py`, not vendored: it loads FBGEMM's
whole package).

Import keeps the namespace (FRAGMENT) and every schema as written, binds 20
kernels as they are (QuantizedCPU among them), keeps the `static` one's impl
in the project's build, and asks for the fakes. The person's steps are the
report's: delete the blocks and registrations it names, write the fakes,
build with the CMake it prints, linking FBGEMM's library as the project does.
Then the project's own library and the imported one, each in a process of its
own, run every op on the same seeded inputs, and every result is compared bit
for bit; the imported ops pass opcheck and compile with fullgraph=True.

Needs the built tool and cpuinfo (FBGEMM's library asks it for the CPU's
features: `apt-get install libcpuinfo-dev`, as scripts/setup.sh does): run
through CTest.
"""

import re
import shutil

import pytest

from cli_helpers import (SOURCE_DIR, build_projects_own_library, build_with_opgen, compare_saved_results,
                         requires_opgen, run_check, run_opgen, run_saving_results)

pytestmark = requires_opgen

PROJECT = SOURCE_DIR / "tests" / "import" / "projects" / "pytorch__FBGEMM"
QUANTIZE_OPS = "fbgemm_gpu/src/quantize_ops"
KERNEL_FILES = [f"{QUANTIZE_OPS}/quantize_ops_cpu.cpp", f"{QUANTIZE_OPS}/quantize_ops_meta.cpp"]
INCLUDE_DIRS = "fbgemm_gpu/include include"
# Their kernels are in quantize_ops_gpu.cpp and .cu files, the CUDA build's: refused alike on a CPU.
CUDA_ONLY = ["FloatToPaddedFP8RowwiseQuantized", "Fused8BitRowwiseQuantizedToFloatMixedDim", "FloatToMSFPQuantized",
             "MSFPQuantizedToFloat", "PaddedFP8RowwiseQuantizedToFloat", "quantize_mx_cuda", "dequantize_mx_cuda"]
# Kernels FBGEMM registers for Meta: the specs bind them, so they need no fake.
META_KERNELS = ["FP8RowwiseQuantizedToFloat", "FloatToFP8RowwiseQuantized",
                "FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf"]

# FBGEMM's own library, the part the quantize kernels call, as its CMake builds it (the AVX2 and AVX512 sources
# with their targets' flags), static with FBGEMM_STATIC as fbgemm_gpu links it: linked into both builds alike.
BASE_LIBRARY = """
find_library(cpuinfo_library cpuinfo REQUIRED)
add_library(fbgemm_base STATIC src/QuantUtils.cc src/QuantUtilsAvx2.cc src/QuantUtilsAvx512.cc src/Utils.cc
            src/FbgemmFloat16ConvertAvx2.cc src/RefImplementations.cc)
set_source_files_properties(src/QuantUtilsAvx2.cc src/FbgemmFloat16ConvertAvx2.cc PROPERTIES
                            COMPILE_OPTIONS "-m64;-mf16c;-mfma;-mavx2")
set_source_files_properties(src/QuantUtilsAvx512.cc PROPERTIES
                            COMPILE_OPTIONS "-m64;-mfma;-mavx512f;-mavx512dq;-mavx512vl;-mavx512bw;-mavx512bf16;-mavx2;-mf16c")
set_target_properties(fbgemm_base PROPERTIES CXX_STANDARD 20 POSITION_INDEPENDENT_CODE ON
                      CXX_VISIBILITY_PRESET hidden)
target_compile_definitions(fbgemm_base PUBLIC FBGEMM_STATIC)
target_include_directories(fbgemm_base PUBLIC include PRIVATE src)
target_link_libraries(fbgemm_base PUBLIC ${cpuinfo_library})
"""

# The fakes the report asks for, of the ops the CPU build runs (FBGEMM's sparse_ops.py has them, in a module that
# loads its whole package): the 8-bit and n-bit rowwise layouts (a row's values, then its scale and bias), HFP8.
FAKES = '''import torch


def _rowwise_8bit(t):
    torch._check(t.dim() >= 2)
    return t.new_empty([*t.shape[:-1], (t.shape[-1] + 3) // 4 * 4 + 8], dtype=torch.uint8)


def _from_rowwise_8bit(t, dtype):
    torch._check(t.dim() >= 2)
    return t.new_empty([*t.shape[:-1], (t.shape[-1] + 3) // 4 * 4 - 8], dtype=dtype)


def _rowwise_nbit(t, bit_rate):
    torch._check(t.dim() == 2)
    per_byte = 8 // bit_rate
    return t.new_empty([t.shape[0], (t.shape[1] + per_byte - 1) // per_byte + 4], dtype=torch.uint8)


def _from_rowwise_nbit(t, bit_rate, dtype):
    return t.new_empty([t.shape[0], (t.shape[1] - 4) * (8 // bit_rate)], dtype=dtype)


_DTYPES = {0: torch.float32, 1: torch.float16, 5: torch.bfloat16}


def FloatToFused8BitRowwiseQuantized(t):
    return _rowwise_8bit(t)


HalfToFused8BitRowwiseQuantized = FloatOrHalfToFused8BitRowwiseQuantized = FloatToFused8BitRowwiseQuantized


def FloatToFused8BitRowwiseQuantizedOut(output, input):
    return _rowwise_8bit(input)


def Fused8BitRowwiseQuantizedToFloat(input):
    return _from_rowwise_8bit(input, torch.float32)


def Fused8BitRowwiseQuantizedToHalf(input):
    return _from_rowwise_8bit(input, torch.float16)


def Fused8BitRowwiseQuantizedToBfloat16(input):
    return _from_rowwise_8bit(input, torch.bfloat16)


def Fused8BitRowwiseQuantizedToFloatOrHalf(input, output_dtype=0, scale_bias_last=True, quant_padding_float_type=True):
    return _from_rowwise_8bit(input, _DTYPES[output_dtype])


def Fused8BitRowwiseQuantizedToFloatOut(output, input, scale_bias_last=True, quant_padding_float_type=True):
    return _from_rowwise_8bit(input, torch.float32)


def FloatToFusedNBitRowwiseQuantizedSBHalf(input, bit_rate):
    return _rowwise_nbit(input, bit_rate)


HalfToFusedNBitRowwiseQuantizedSBHalf = FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf = \\
    FloatToFusedNBitRowwiseQuantizedSBHalf


def FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax(input, bit_rate, rowwise_min_max):
    return _rowwise_nbit(input, bit_rate)


def FusedNBitRowwiseQuantizedSBHalfToFloat(input, bit_rate):
    return _from_rowwise_nbit(input, bit_rate, torch.float32)


def FusedNBitRowwiseQuantizedSBHalfToHalf(input, bit_rate):
    return _from_rowwise_nbit(input, bit_rate, torch.float16)


def FusedNBitRowwiseQuantizedSBHalfFrontToFloatOrHalf(input, bit_rate, output_dtype):
    return _from_rowwise_nbit(input, bit_rate, _DTYPES[output_dtype])


def FloatToHFP8Quantized(input, ebits, exponent_bias, max_pos):
    return torch.empty_like(input, dtype=torch.uint8)


def HFP8QuantizedToFloat(input, ebits, exponent_bias):
    return torch.empty_like(input, dtype=torch.float32)


def _cuda_only(*args, **kwargs):
    raise NotImplementedError("FBGEMM's CUDA build")


FloatToPaddedFP8RowwiseQuantized = Fused8BitRowwiseQuantizedToFloatMixedDim = FloatToMSFPQuantized = _cuda_only
MSFPQuantizedToFloat = PaddedFP8RowwiseQuantizedToFloat = quantize_mx_cuda = dequantize_mx_cuda = _cuda_only
'''


def project_copy(tmp_path):
    project = tmp_path / "FBGEMM"
    shutil.copytree(PROJECT, project)
    return project


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The project imported as the report says, and built: (the import's output, the project, an environment that
    imports the generated package)."""
    tmp_path = tmp_path_factory.mktemp("imported")
    project = project_copy(tmp_path)
    proc = run_opgen("import", *(f"-I{d}" for d in INCLUDE_DIRS.split()), QUANTIZE_OPS, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = proc.stdout
    # Every op, none for a person, the namespace shared as FBGEMM shares it; QuantizedCPU bound like CPU.
    assert "28 ops imported as schemas/<op>.yaml, 20 of them with their kernels as they are" in report, report
    assert "need a person" not in report and "25 of them need their fake written" in report, report
    assert ("FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax: CPU (fbgemm_gpu/src/quantize_ops/"
            "quantize_ops_cpu.cpp:733; its kernel fbgemm_gpu::float_or_half_to_fusednbitrowwise_cpu_with_rowwise_"
            "min_max has internal linkage: 'static'") in report, report
    assert re.search(r"^  7 of them with the schema alone \(dispatch: \[\]\): .*: " + ", ".join(CUDA_ONLY) + "$",
                     report, re.M), report
    spec = (project / "schemas" / "FusedNBitRowwiseQuantizedSBHalfFrontToFloatOrHalf.yaml").read_text()
    assert "dispatch: [QuantizedCPU]" in spec, spec
    for op in META_KERNELS:
        assert "dispatch: [CPU, Meta]" in (project / "schemas" / f"{op}.yaml").read_text(), op
    # The person's steps, as the report words them: delete the blocks it names...
    cpu = f"{QUANTIZE_OPS}/quantize_ops_cpu.cpp"
    steps = re.findall(r"^    (\S+):(\d+)-(\d+): (delete the block|in the block) (TORCH_LIBRARY_\w+)\(fbgemm,(\w*),?m\)"
                       r"(?:, delete every registration but those of (\w+): lines ([\d, -]+))? "
                       r"\(the rest of the file stays in the build\)$", report, re.M)
    minmax = "FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax"
    assert [(path, verb, head, key, kept, lines) for path, _, _, verb, head, key, kept, lines in steps] == [
        (cpu, "delete the block", "TORCH_LIBRARY_FRAGMENT", "", "", ""),
        (cpu, "delete the block", "TORCH_LIBRARY_IMPL", "QuantizedCPU", "", ""),
        (cpu, "in the block", "TORCH_LIBRARY_IMPL", "CPU", minmax, "693-732, 736-746"),
        (f"{QUANTIZE_OPS}/quantize_ops_meta.cpp", "delete the block", "TORCH_LIBRARY_IMPL", "Meta", "", ""),
    ], report
    # Each at its lines, the last first (the lines before stay put): a block, or the registrations the report lists.
    cuts = [(path, int(first), int(last), head) for path, first, last, verb, head, *_ in steps
            if verb == "delete the block"]
    cuts += [(path, int(r.split("-")[0]), int(r.split("-")[-1]), None) for path, *_, lines in steps if lines
             for r in lines.split(", ")]
    for path, first, last, head in sorted(cuts, key=lambda cut: -cut[1]):
        lines = (project / path).read_text().splitlines(keepends=True)
        if head:
            assert lines[first - 1].startswith(head + "(fbgemm, ") and lines[last - 1] == "}\n", (path, first)
        else:
            assert all(line.startswith(("  DISPATCH_TO_CPU(", "      ")) for line in lines[first - 1:last]), (first, last)
        (project / path).write_text("".join(lines[:first - 1] + lines[last:]))
    cpu_block = (project / cpu).read_text().split("TORCH_LIBRARY_IMPL(fbgemm, CPU, m) {\n")[1].split("}\n")[0]
    assert cpu_block == (f'  DISPATCH_TO_CPU(\n      "{minmax}",\n'
                         "      fbgemm_gpu::float_or_half_to_fusednbitrowwise_cpu_with_rowwise_min_max);\n"), cpu_block
    # ...write the fakes...
    (project / "python" / "_fakes.py").write_text(FAKES)
    # ...and build with the CMake it prints, linking FBGEMM's library as the project's build does.
    cmake = re.search(r"^    (opgen_add_library\(.*\))\n    (target_include_directories\(.*\))$", report, re.M)
    assert cmake, report
    # Whole: the kernels it binds are defined in the two files that stay.
    assert cmake[1] == ("opgen_add_library(fbgemm_ops NAMESPACE fbgemm FRAGMENT PYTHON_SOURCES python/_fakes.py "
                        f"SCHEMAS schemas KERNELS {' '.join(KERNEL_FILES)})"), cmake[1]
    assert cmake[2] == f"target_include_directories(fbgemm_ops PRIVATE {INCLUDE_DIRS} schemas)", cmake[2]
    (project / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(fbgemm_imported CXX)
include({SOURCE_DIR}/cmake/Opgen.cmake)
{BASE_LIBRARY}
{cmake[1]}
{cmake[2]}
target_link_libraries(fbgemm_ops PRIVATE fbgemm_base)
""")
    _, env = build_with_opgen(project, tmp_path / "build")
    return report, project, env


@pytest.fixture(scope="module")
def own_build(tmp_path_factory):
    """The project's own library: every file unchanged, its defs among them, the same flags. Returns the .so."""
    tmp_path = tmp_path_factory.mktemp("own")
    project = project_copy(tmp_path)
    build = build_projects_own_library(project, tmp_path / "build", "fbgemm_own",
                                       f"add_library(fbgemm_own SHARED {' '.join(KERNEL_FILES)})\n"
                                       "target_link_libraries(fbgemm_own PRIVATE fbgemm_base)",
                                       include_dirs=INCLUDE_DIRS, before=BASE_LIBRARY)
    (library,) = build.glob("libfbgemm_own*.so")
    return library


OPS = sorted(CUDA_ONLY + META_KERNELS + [
    "FloatToFused8BitRowwiseQuantized", "FloatToFused8BitRowwiseQuantizedOut", "HalfToFused8BitRowwiseQuantized",
    "FloatOrHalfToFused8BitRowwiseQuantized", "Fused8BitRowwiseQuantizedToFloat", "Fused8BitRowwiseQuantizedToHalf",
    "Fused8BitRowwiseQuantizedToBfloat16", "Fused8BitRowwiseQuantizedToFloatOrHalf",
    "Fused8BitRowwiseQuantizedToFloatOut", "FloatToFusedNBitRowwiseQuantizedSBHalf",
    "HalfToFusedNBitRowwiseQuantizedSBHalf", "FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf",
    "FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax", "FusedNBitRowwiseQuantizedSBHalfToFloat",
    "FusedNBitRowwiseQuantizedSBHalfFrontToFloatOrHalf", "FusedNBitRowwiseQuantizedSBHalfToHalf",
    "FloatToHFP8Quantized", "HFP8QuantizedToFloat"])

# Every op on seeded inputs: rows of several widths (odd ones, one column, an empty batch), in float32, float16 and
# bfloat16; each quantization's bytes dequantized again, in each output dtype and layout option; 2-, 4- and 8-bit
# rows, with and without given row ranges; FBGEMM's QuantizedCPU kernel on quantized tensors (quint8, quint4x2);
# HFP8 in two formats; the CUDA-only ops. An input an op refuses is recorded as the exception's type, and must be
# refused alike.
RUN_OPS = """
import sys, torch
mode, where, out_file = sys.argv[1:4]
if mode == "own":
    torch.ops.load_library(where)
else:
    import fbgemm
ops = torch.ops.fbgemm
results = [str(getattr(ops, name).default._schema) for name in {ops!r}]

def record(compute):
    try:
        value = compute()
    except Exception as e:
        results.append(type(e).__name__)
        return
    for v in value if isinstance(value, tuple) else (value,):
        results.append(v.detach().clone())

def made(compute):  # an input for the next calls, or None where the op refuses (recorded)
    try:
        return compute()
    except Exception as e:
        results.append(type(e).__name__)

for dtype in (torch.float32, torch.float16, torch.bfloat16):
    for rows, cols in ((3, 8), (5, 33), (0, 16), (4, 1), (2, 130)):
        torch.manual_seed(len(results))
        x = (torch.randn(rows, cols, dtype=torch.float64) * 4 + 1).to(dtype)
        # The Float ops read their input as float32 whatever its dtype (past the end of a float16 one: its own
        # build gives other bytes run to run), the Half ones as float16: each is given its own dtype.
        if dtype == torch.float32:
            record(lambda: ops.FloatToFused8BitRowwiseQuantized(x))
            out = torch.empty(0, dtype=torch.uint8)
            record(lambda: (ops.FloatToFused8BitRowwiseQuantizedOut(out, x), out))
        if dtype == torch.float16:
            record(lambda: ops.HalfToFused8BitRowwiseQuantized(x))
        record(lambda: ops.FloatOrHalfToFused8BitRowwiseQuantized(x))
        record(lambda: ops.FloatToFP8RowwiseQuantized(x, True))
        record(lambda: ops.FloatToFP8RowwiseQuantized(x, False))
        q = ops.FloatToFused8BitRowwiseQuantized(x.float())
        record(lambda: ops.Fused8BitRowwiseQuantizedToFloat(q))
        record(lambda: ops.Fused8BitRowwiseQuantizedToHalf(q))
        record(lambda: ops.Fused8BitRowwiseQuantizedToBfloat16(q))
        for output_dtype in (0, 1, 5):
            for scale_bias_last, padding_float in ((True, True), (False, False), (False, True)):
                record(lambda: ops.Fused8BitRowwiseQuantizedToFloatOrHalf(q, output_dtype, scale_bias_last,
                                                                          padding_float))
        record(lambda: ops.Fused8BitRowwiseQuantizedToFloatOrHalf(q, 2))  # INT8: not an output dtype
        out = torch.empty(0)
        record(lambda: (ops.Fused8BitRowwiseQuantizedToFloatOut(out, q), out))
        # FP8: FBGEMM's CPU kernels refuse it ("fp8 is not supported by CPU"), in both builds.
        for forward in (True, False):
            fp8 = made(lambda: ops.FloatToFP8RowwiseQuantized(x.float(), forward))
            for output_dtype in (0, 1, 5) if fp8 is not None else ():
                record(lambda: ops.FP8RowwiseQuantizedToFloat(fp8, forward, output_dtype))
        for bit_rate in (2, 4, 8):
            if dtype == torch.float32:
                record(lambda: ops.FloatToFusedNBitRowwiseQuantizedSBHalf(x, bit_rate))
            if dtype == torch.float16:
                record(lambda: ops.HalfToFusedNBitRowwiseQuantizedSBHalf(x, bit_rate))
            record(lambda: ops.FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(x, bit_rate))
            ranges = torch.stack([x.amin(1) - 1, x.amax(1) + 2], 1) if rows else x.new_empty(0, 2)
            record(lambda: ops.FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax(x, bit_rate, ranges))
            nbit = ops.FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(x.float() if dtype == torch.bfloat16 else x,
                                                                    bit_rate) if cols % 4 == 0 else q
            record(lambda: ops.FusedNBitRowwiseQuantizedSBHalfToFloat(nbit, bit_rate))
            record(lambda: ops.FusedNBitRowwiseQuantizedSBHalfToHalf(nbit, bit_rate))
            for output_dtype in (0, 1):
                for scale_bias_last in (True, False):
                    record(lambda: ops.FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(nbit, bit_rate, output_dtype,
                                                                                    scale_bias_last))
            record(lambda: ops.FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(nbit, bit_rate, 5))  # BF16: refused
        for ebits, bias, max_pos in ((4, 7, 448.0), (5, 15, 57344.0)):
            record(lambda: ops.FloatToHFP8Quantized(x, ebits, bias, max_pos))
            record(lambda: ops.HFP8QuantizedToFloat(ops.FloatToHFP8Quantized(x.float(), ebits, bias, max_pos), ebits,
                                                    bias))
# The QuantizedCPU kernel: rows whose scale and bias (two halves) lead, as quantized tensors.
for seed in range(3):
    torch.manual_seed(seed)
    front = torch.cat([torch.tensor([[0.25, -1.0]] * 4, dtype=torch.float16).view(torch.uint8),
                       torch.randint(0, 256, (4, 12), dtype=torch.uint8)], 1)
    quint8 = torch._make_per_tensor_quantized_tensor(front, 1.0, 0)
    quint4x2 = torch.quantize_per_tensor(torch.randint(0, 16, (4, 24)).float(), 1.0, 0, torch.quint4x2)
    for tensor, bit_rate in ((quint8, 8), (quint4x2, 4), (quint8, 4)):
        for output_dtype in (0, 1, 5, 2):
            record(lambda: ops.FusedNBitRowwiseQuantizedSBHalfFrontToFloatOrHalf(tensor, bit_rate, output_dtype))
x = torch.randn(4, 16)
record(lambda: ops.FloatToPaddedFP8RowwiseQuantized(x, True, 8))
record(lambda: ops.Fused8BitRowwiseQuantizedToFloatMixedDim(ops.FloatToFused8BitRowwiseQuantized(x),
                                                            torch.tensor([0, 24]), 0))
record(lambda: ops.FloatToMSFPQuantized(x, 8, 4, 3, 7, 0.001, 448.0))
record(lambda: ops.MSFPQuantizedToFloat(x, 4, 3, 7))
record(lambda: ops.PaddedFP8RowwiseQuantizedToFloat(x.to(torch.uint8), True, 8))
record(lambda: ops.quantize_mx_cuda(x, 8, 2, 1, 6.0, 32))
record(lambda: ops.dequantize_mx_cuda(x.to(torch.uint8), 32))
torch.save(results, out_file)
print("ok")
"""


def test_every_op_gives_the_projects_own_results_bit_for_bit(imported, own_build, tmp_path):
    import torch
    _, project, env = imported
    code = RUN_OPS.format(ops=OPS)
    run_saving_results(code.replace("sys.argv[1:4]", f"['own', {str(own_build)!r}, sys.argv[1]]"),
                       tmp_path / "own.pt", project, env)
    run_saving_results(code.replace("sys.argv[1:4]", "['imported', '', sys.argv[1]]"), tmp_path / "imported.pt",
                       project, env)
    computed, others = compare_saved_results(torch.load(tmp_path / "own.pt"), torch.load(tmp_path / "imported.pt"),
                                             len(OPS))
    # Refused alike: bfloat16 where FBGEMM's kernels dispatch float and half, rows not a whole number of halves
    # wide for the n-bit layouts, FP8 on a CPU, INT8 and BF16 output dtypes the dequantizers do not make, the
    # CUDA-only ops (NotImplementedError, as every op with no CPU kernel).
    assert computed == 619, computed
    assert sorted(others) == ["NotImplementedError"] * 42 + ["RuntimeError"] * 197, others


CHECKS = """
import torch, fbgemm
from torch.library import opcheck
ops = torch.ops.fbgemm
torch.manual_seed(0)
x, half = torch.randn(5, 16), torch.randn(5, 16).half()
q = ops.FloatToFused8BitRowwiseQuantized(x)
nbit = ops.FloatToFusedNBitRowwiseQuantizedSBHalf(x, 4)
front = torch._make_per_tensor_quantized_tensor(
    torch.cat([torch.tensor([[0.25, -1.0]] * 5, dtype=torch.float16).view(torch.uint8),
               torch.randint(0, 256, (5, 8), dtype=torch.uint8)], 1), 1.0, 0)
cases = [
    (ops.FloatToFused8BitRowwiseQuantized, (x,)),
    (ops.HalfToFused8BitRowwiseQuantized, (half,)),
    (ops.FloatOrHalfToFused8BitRowwiseQuantized, (half,)),
    (ops.Fused8BitRowwiseQuantizedToFloat, (q,)),
    (ops.Fused8BitRowwiseQuantizedToHalf, (q,)),
    (ops.Fused8BitRowwiseQuantizedToBfloat16, (q,)),
    (ops.Fused8BitRowwiseQuantizedToFloatOrHalf, (q, 1)),
    (ops.FloatToFusedNBitRowwiseQuantizedSBHalf, (x, 4)),
    (ops.HalfToFusedNBitRowwiseQuantizedSBHalf, (half, 2)),
    (ops.FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf, (x, 8)),
    (ops.FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfWithRowwiseMinMax,
     (x, 4, torch.stack([x.amin(1) - 1, x.amax(1) + 1], 1))),
    (ops.FusedNBitRowwiseQuantizedSBHalfToFloat, (nbit, 4)),
    (ops.FusedNBitRowwiseQuantizedSBHalfToHalf, (nbit, 4)),
    (ops.FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf, (nbit, 4, 1)),  # its fake: FBGEMM's Meta kernel, bound
    (ops.FloatToHFP8Quantized, (x, 4, 7, 448.0)),
    (ops.HFP8QuantizedToFloat, (ops.FloatToHFP8Quantized(x, 4, 7, 448.0), 4, 7)),
]
for op, args in cases:
    result = opcheck(op.default, args)
    assert set(result.values()) == {"SUCCESS"}, (op, result)
# Fake tensors cannot be quantized ("quantized nyi in meta tensors"): the QuantizedCPU kernel's op is checked without.
utils = ("test_schema", "test_autograd_registration")
result = opcheck(ops.FusedNBitRowwiseQuantizedSBHalfFrontToFloatOrHalf.default, (front, 8, 0), test_utils=utils)
assert set(result.values()) == {"SUCCESS"} and len(result) == 2, result

def f(x):
    q = ops.FloatToFused8BitRowwiseQuantized(x * 2)
    n = ops.FloatToFusedNBitRowwiseQuantizedSBHalf(x, 4)
    return ops.Fused8BitRowwiseQuantizedToFloat(q) + 1, ops.FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(n, 4, 0)

compiled = torch.compile(f, fullgraph=True)
for rows in (6, 9):
    x = torch.randn(rows, 32)
    for got, want in zip(compiled(x), f(x)):
        assert torch.equal(got, want), rows
print("ok")
"""


def test_the_imported_ops_pass_opcheck_and_compile_to_the_same_bits(imported):
    _, project, env = imported
    run_check(CHECKS, env, project)
