// Host objects: the types file's loader and checks, and the lowering of an
// op that takes them to the flat op the library registers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emit/emit.h"
#include "test_util.h"

namespace opgen {
namespace {

using testing::load_and_check;
using testing::SpecFile;

const char* kTypes = R"(host_objects:
  Scaling:
    class: mylib.Scaling
    fields:
      factor: float
      bias: Tensor?
      out_dtype: ScalarType
  Group:
    builtin: process_group
)";

testing::Result check(const std::string& op_text, const std::string& types = kTypes, const std::string& op = "f") {
  return load_and_check(std::vector<SpecFile>{{"schemas/_types.yaml", types}, {"schemas/" + op + ".yaml", op_text}});
}

void expect_error(const testing::Result& r, const std::string& expected) {
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find(expected), std::string::npos) << "expected '" << expected << "' in:\n" << r.diagnostics;
}

TEST(HostObjects, FlatSchemaAndRules) {
  auto r = check(R"(schema: "f(Tensor x, Scaling s, *, Group? g=None) -> Tensor"
require:
  - s.bias is None or s.bias.numel() == x.numel()
  - g is None or x.dim() >= 1
fake: like(x, dtype=s.out_dtype)
samples:
  - args:
      x: {shape: [2]}
      s: {fields: {factor: 2.0, out_dtype: float32}}
  - args:
      x: {shape: [2]}
      s: {fields: {factor: 2.0, out_dtype: float32, bias: {shape: [2]}}}
      g: null
)");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  EXPECT_EQ(op.schema.to_string(),
            "f(Tensor x, float s_factor, Tensor? s_bias, ScalarType s_out_dtype, *, bool g_given=False, "
            "str? g_group_name=None, int? g_size=None, int? g_rank=None) -> Tensor");
  ASSERT_TRUE(op.declared_schema);
  EXPECT_EQ(op.declared_schema->to_string(), "f(Tensor x, Scaling s, *, Group? g=None) -> Tensor");
  ASSERT_EQ(op.host_args.size(), 2u);
  EXPECT_EQ(op.host_args[0].first_flat, 1u);
  EXPECT_EQ(op.host_args[1].first_flat, 4u);
  EXPECT_TRUE(op.host_args[1].optional);
  // The rules read the flat arguments; `g is None` is the flag.
  ASSERT_EQ(op.require.size(), 2u);
  EXPECT_EQ(op.require[1].expr->operands[0]->text, "not");
  EXPECT_EQ(op.require[1].expr->operands[0]->operands[0]->text, "g_given");
  // Samples give every flat argument: the optional field left out is None.
  ASSERT_EQ(op.samples.size(), 2u);
  std::vector<std::string> names;
  for (const auto& [name, value] : op.samples[0].args) names.push_back(name.value);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "s_factor", "s_out_dtype", "s_bias"}));
  names.clear();
  for (const auto& [name, value] : op.samples[1].args) names.push_back(name.value);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "s_factor", "s_out_dtype", "s_bias", "g_given", "g_group_name",
                                             "g_size", "g_rank"}));
}

TEST(HostObjects, RulesReadDeclaredFieldsOnly) {
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x, dtype=s.dtype)\n"),
               "schemas/f.yaml:2:23: error[E1104]: Scaling 's' has no field 'dtype'");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x, dtype=s.out_dtpye)\n"),
               "did you mean 'out_dtype'?");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nrequire: [s is not None]\nfake: like(x)\n"),
               "'s' is not optional: it is never None");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nrequire: [s == s]\nfake: like(x)\n"),
               "'s' is a host object: a rule reads its fields");
}

TEST(HostObjects, WhereAHostObjectCannotBe) {
  expect_error(check("schema: \"f(Tensor x, Scaling[] s) -> Tensor\"\nfake: like(x)\n"),
               "error[E1103]: argument 's' cannot take a host object this way: a host object or tensor subclass is "
               "flattened into its fields: a list or tuple of them cannot be");
  expect_error(check("schema: \"f(Tensor x) -> Scaling\"\n"), "an op cannot return a host object");
  expect_error(check("schema: \"f(Tensor x, Scaling? s=1) -> Tensor\"\nfake: like(x)\n"),
               "a host object's only default is None, on an optional one");
  expect_error(check("schema: \"f_(Tensor(a!) x, Scaling s) -> ()\"\nmutates: [x, s]\n", kTypes, "f_"),
               "'s' in 'mutates': a host object is read, never written");
  expect_error(check("schema: \"f(Tensor x, Scaling s, float s_factor) -> Tensor\"\nfake: like(x)\n"),
               "host argument 's' flattens into 's_factor', which the schema or another flattened field names already");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nkernels: {CPU: mylib::f}\n"),
               "an existing kernel ('kernels:') cannot take a host object");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nchecks: {s: {dim: 1}}\nfake: like(x)\n"),
               "'s' is a host object: checks apply to its tensor fields");
}

TEST(HostObjects, Samples) {
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      s: {fields: {factor: 1.0}}\n"),
               "the sample gives no value for field 'out_dtype' of 's'");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      s: {fields: {factor: 1.0, out_dtype: float32, scale: 2}}\n"),
               "Scaling has no field 'scale'");
  expect_error(check("schema: \"f(Tensor x, Scaling s) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      s: 3\n"),
               "'s' takes a Scaling: give its fields");
  expect_error(check("schema: \"f(Tensor x, float a) -> Tensor\"\nfake: like(x)\nsamples:\n  - args:\n"
                     "      x: {shape: [2]}\n      a: {fields: {factor: 1.0}}\n"),
               "'a' takes no host object");
}

TEST(HostObjects, TypesFileChecks) {
  const std::string op = "schema: \"f(Tensor x) -> Tensor\"\nfake: like(x)\nsamples: []\n";
  expect_error(check(op, "host_objects:\n  Quantizer:\n    class: m.Q\n    fields: {a: int}\n"),
               "schemas/_types.yaml:2:3: error[E1101]: 'Quantizer' is a schema type");
  expect_error(check(op, "host_objects:\n  Q:\n    class: Q\n    fields: {a: int}\n"),
               "'class' must name a Python class as module.Qualname, not 'Q'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {a: \"int[]\"}\n"),
               "error[E1102]: field 'a' cannot be of type 'int[]'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {a: \"Tensor(a!)\"}\n"),
               "field 'a' cannot be of type 'Tensor(a!)'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {a: Tensro}\n"),
               "'Tensro' is not a schema type");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n    fields: {class: int}\n"),
               "'class' cannot name a field");
  // Names the generated C++ spells in its types: a struct or member of that
  // name shadowed them, and the kernel header did not compile (g++ 12).
  for (const char* name : {"at", "c10", "torch", "std", "int64_t", "unstable_abi", "testns"})
    expect_error(check(op, fmt::format("host_objects:\n  {}:\n    class: m.Q\n    fields: {{a: int}}\n", name)),
                 fmt::format("'{}' cannot name the kernel's struct: the generated C++ spells", name));
  for (const char* name : {"int64_t", "at", "torch"})
    expect_error(check(op, fmt::format("host_objects:\n  Q:\n    class: m.Q\n    fields: {{{}: int}}\n", name)),
                 fmt::format("'{}' cannot name a struct member", name));
  expect_error(check(op, "host_objects:\n  Q:\n    fields: {a: int}\n"), "host class 'Q' needs 'class'");
  expect_error(check(op, "host_objects:\n  Q:\n    class: m.Q\n"), "host class 'Q' needs 'fields'");
  expect_error(check(op, "host_objects:\n  G:\n    builtin: process_grp\n"), "did you mean 'process_group'?");
  expect_error(check(op, "host_objects:\n  G:\n    builtin: process_group\n    fields: {a: int}\n"),
               "a built-in host class takes no 'class', 'fields' or 'kind'");
  expect_error(check(op, "host_object: {}\n"), "unknown key 'host_object' in the types file");
  expect_error(check(op, "host_objects: {}\n---\nx: 1\n"), "a types file holds one YAML document");
  // An empty types file declares nothing; a second one is an error.
  EXPECT_TRUE(check(op, "").ok);
  expect_error(load_and_check(std::vector<SpecFile>{{"a/_types.yaml", kTypes}, {"b/_types.yaml", kTypes},
                                                    {"schemas/f.yaml", op}}),
               "b/_types.yaml: error[E1101]: a second types file: the library's is a/_types.yaml");
}

// --- tensor subclasses ------------------------------------------------------

const char* kSubclassTypes = R"(host_objects:
  Q:
    class: m.Q
    fields: {fp8_dtype: ScalarType}
tensor_subclasses:
  F8:
    class: m.F8
    inner: [_data, _scale_inv]
    meta: {fp8_dtype: ScalarType, orig_dtype: ScalarType}
)";

testing::Result check_subclass(const std::string& op_text) { return check(op_text, kSubclassTypes); }

// A generated file of a library: the module (`_ops.py`), the stub
// (`_ops.pyi`) or the tests (`tests/`).
std::string generated(const model::Library& lib, const std::string& which) {
  const auto tree = emit::emit_library(lib);
  for (const auto& [path, text] : tree.files())
    if (which == "tests/" ? path.starts_with(which) : path.ends_with("/" + which)) return text;
  return "";
}

TEST(TensorSubclasses, FlatSchemaOfArgumentsAndResults) {
  auto r = check_subclass(R"yaml(schema: "f(F8 a, Tensor x, Q q) -> (Tensor y, F8 out)"
require: [a._data.dim() == x.dim(), a.fp8_dtype == q.fp8_dtype]
result_meta:
  out: {orig_dtype: x.dtype, fp8_dtype: q.fp8_dtype}
fake:
  - like(x)
  - empty(x.shape, dtype=uint8)
  - empty([], dtype=float32)
samples: []
)yaml");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  // A field's leading underscores are dropped from its flat name.
  EXPECT_EQ(op.schema.to_string(),
            "f(Tensor a_data, Tensor a_scale_inv, ScalarType a_fp8_dtype, ScalarType a_orig_dtype, Tensor x, "
            "ScalarType q_fp8_dtype) -> (Tensor y, Tensor out_data, Tensor out_scale_inv)");
  ASSERT_EQ(op.subclass_results.size(), 1u);
  const auto& out = op.subclass_results[0];
  EXPECT_EQ(out.name, "out");
  EXPECT_EQ(out.declared_index, 1u);
  EXPECT_EQ(out.first_flat, 1u);
  // One rule per meta field, in the class's order, over the flat arguments.
  ASSERT_EQ(out.meta.size(), 2u);
  EXPECT_EQ(out.meta[0].text, "q.fp8_dtype");
  EXPECT_EQ(out.meta[0].expr->text, "q_fp8_dtype");
  EXPECT_EQ(out.meta[1].text, "x.dtype");
  ASSERT_EQ(op.require.size(), 2u);
  EXPECT_EQ(op.require[0].expr->operands[0]->operands[0]->operands[0]->text, "a_data");  // a._data.dim()

  // The binding rebuilds the result; the .pyi names the class.
  const std::string module = generated(r.library, "_ops.py"), stub = generated(r.library, "_ops.pyi");
  EXPECT_NE(module.find("    return ({\"fp8_dtype\": q_fp8_dtype, \"orig_dtype\": x.dtype},)"), std::string::npos) << module;
  EXPECT_NE(module.find("    from m import F8 as opgen_F8\n"
                        "    return (opgen_flat[0], opgen_F8.__tensor_unflatten__({\"_data\": opgen_flat[1], "
                        "\"_scale_inv\": opgen_flat[2]}, opgen_meta[0], opgen_flat[1].shape, opgen_flat[1].stride()))"),
            std::string::npos)
      << module;
  EXPECT_NE(stub.find("def f(a: m.F8, x: torch.Tensor, q: m.Q) -> Tuple[torch.Tensor, m.F8]:"), std::string::npos) << stub;
}

TEST(TensorSubclasses, BuildAndASingleResult) {
  auto types = std::string(kSubclassTypes) + "    build: m:make_f8\n";
  auto r = check("schema: \"f(Tensor x) -> F8 out\"\nresult_meta:\n  out: {fp8_dtype: float8_e4m3fn, orig_dtype: "
                 "x.dtype}\nfake:\n  - empty(x.shape, dtype=uint8)\n  - empty([])\nsamples: []\n",
                 types);
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const std::string module = generated(r.library, "_ops.py");
  EXPECT_NE(module.find("    from m import make_f8 as opgen_F8\n"
                        "    return opgen_F8(_data=opgen_flat[0], _scale_inv=opgen_flat[1], **opgen_meta[0])"),
            std::string::npos)
      << module;
}

TEST(TensorSubclasses, BackwardTakesAResultAndItsMeta) {
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/_types.yaml", kSubclassTypes},
      {"schemas/f.yaml", R"yaml(schema: "f(Tensor x, Q q) -> (Tensor y, F8 xq)"
result_meta:
  xq: {fp8_dtype: q.fp8_dtype, orig_dtype: x.dtype}
fake:
  - like(x)
  - empty(x.shape, dtype=uint8)
  - empty([])
autograd: {backward: f_backward, grads: [x]}
samples: []
)yaml"},
      {"schemas/f_backward.yaml", R"yaml(schema: "f_backward(Tensor grad_y, F8 xq) -> Tensor"
fake: empty(xq._data.shape, dtype=xq.orig_dtype)
samples: []
)yaml"}});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const std::string module = generated(r.library, "_ops.py");
  EXPECT_NE(module.find("    ctx.save_for_backward(output[1], output[2])\n"
                        "    opgen_meta = _f_result_meta(*inputs)\n"
                        "    ctx.opgen_xq_fp8_dtype = opgen_meta[0][\"fp8_dtype\"]\n"
                        "    ctx.opgen_xq_orig_dtype = opgen_meta[0][\"orig_dtype\"]\n"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("torch.ops.testns.f_backward.default(grads[0], saved[0], saved[1], ctx.opgen_xq_fp8_dtype, "
                        "ctx.opgen_xq_orig_dtype)"),
            std::string::npos)
      << module;
}

TEST(TensorSubclasses, WhereASubclassResultCannotBe) {
  const std::string fake = "fake:\n  - empty([], dtype=uint8)\n  - empty([])\nsamples: []\n";
  const std::string meta = "result_meta:\n  out: {fp8_dtype: float8_e4m3fn, orig_dtype: float32}\n";
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8\"\n" + fake),
               "schemas/f.yaml:1:25: error[E1105]: a F8 result needs a name");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8? out\"\n" + fake),
               "error[E1105]: a tensor-subclass result is one object: not optional, nor in a list");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8[] out\"\n" + fake), "not optional, nor in a list");
  expect_error(check_subclass("schema: \"f(Tensor x) -> Q out\"\n" + fake), "an op cannot return a host object");
  expect_error(check_subclass("schema: \"f(Tensor x) -> (Tensor out_data, F8 out)\"\n" + meta +
                              "fake:\n  - like(x)\n  - like(x)\n  - like(x)\nsamples: []\n"),
               "result 'out' flattens into 'out_data', which the schema names already");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8 out\"\n" + fake),
               "result 'out' needs a rule for its meta field 'fp8_dtype'");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8 out\"\nresult_meta:\n  ot: {}\n" + fake),
               "'result_meta' names 'ot', which is no tensor-subclass result of the op");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8 out\"\nresult_meta:\n  ot: {}\n" + fake), "did you mean 'out'?");
  expect_error(check_subclass("schema: \"f(Tensor x) -> Tensor out\"\nresult_meta:\n  out: {}\nfake: like(x)\nsamples: []\n"),
               "'result_meta' names 'out', but the op returns no tensor subclass");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8 out\"\nresult_meta:\n  out: {fp8_dtype: float8_e4m3fn, "
                              "orig_dtype: float32, fp9: 1}\n" + fake),
               "error[E1104]: F8 has no meta field 'fp9'");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8 out\"\nresult_meta:\n  out: {fp8_dtype: x.size(0), "
                              "orig_dtype: float32}\n" + fake),
               "meta field 'fp8_dtype' is ScalarType, but this rule is Int");
  expect_error(check_subclass("schema: \"f(Tensor x) -> F8 out\"\nresult_meta:\n  out: {fp8_dtype: y.dtype, "
                              "orig_dtype: float32}\n" + fake),
               "unknown name 'y'");
  expect_error(check("schema: \"f(Tensor x) -> P out\"\nresult_meta:\n  out: {n: dynamic()}\nfake: empty([])\n"
                     "samples: []\n",
                     "tensor_subclasses:\n  P:\n    class: m.P\n    inner: [_data]\n    meta: {n: int}\n"),
               "error[E1105]: a meta rule cannot call dynamic()");
  expect_error(check_subclass("schema: \"f(Tensor x, F8(a!) a) -> ()\"\nsamples: []\n"),
               "a tensor subclass is read, never written or aliased");
}

TEST(TensorSubclasses, TypesFileChecks) {
  const std::string op = "schema: \"f(Tensor x) -> Tensor\"\nfake: like(x)\nsamples: []\n";
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n"), "tensor subclass 'F' needs 'inner'");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n    inner: []\n"),
               "tensor subclass 'F' declares no inner tensor");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    inner: [a]\n"), "tensor subclass 'F' needs 'class'");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n    inner: [a]\n    meta: {s: Tensor}\n"),
               "meta field 's' of 'F' is a tensor: list it in 'inner'");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n    inner: [_data, data]\n"),
               "fields '_data' and 'data' of 'F' have one flat name, '<argument>_data'");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n    inner: [__]\n"),
               "'__' cannot name a field: it is only underscores");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n    inner: [a]\n    build: m.make\n"),
               "'build' must read 'module:function', not 'm.make'");
  expect_error(check(op, "tensor_subclasses:\n  F:\n    class: m.F\n    inner: [a]\n    flatten: x\n"),
               "unknown key 'flatten' in tensor subclass 'F'");
  expect_error(check(op, "host_objects:\n  F:\n    class: m.Q\n    fields: {a: int}\ntensor_subclasses:\n  F:\n    "
                         "class: m.F\n    inner: [a]\n"),
               "'F' is declared twice: as a host object and as a tensor subclass");
}

// --- carried host objects ------------------------------------------------------

const char* kCarryTypes = R"(host_objects:
  Runner:
    class: m.gemm.Runner
    kind: symbolic
    fields: {out_dtype: ScalarType, tile: int}
  Plain:
    class: m.Plain
    fields: {a: int}
  G:
    builtin: process_group
)";

const char* kCarryOp = R"yaml(schema: "f(Tensor x, Runner r, *, Runner? s=None) -> Tensor"
carry: [r, s]
dispatch: [CPU]
kernels:
  CPU: {python: "m.gemm:run"}
require: [r.tile > 0]
fake: like(x, dtype=s.out_dtype or r.out_dtype)
samples:
  - args:
      x: {shape: [2]}
      r: {fields: {out_dtype: float32, tile: 4}}
  - args:
      x: {shape: [2]}
      r: {fields: {out_dtype: float32, tile: 4}}
      s: null
)yaml";

TEST(CarriedHostObjects, RegisteredSchemaTakesTheObject) {
  auto r = check(kCarryOp, kCarryTypes);
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  // Rules are checked over the flat arguments; the op is registered with the objects.
  EXPECT_EQ(op.schema.to_string(),
            "f(Tensor x, ScalarType r_out_dtype, int r_tile, *, bool s_given=False, ScalarType? s_out_dtype=None, "
            "int? s_tile=None) -> Tensor");
  EXPECT_EQ(op.registered_schema().to_string(), "f(Tensor x, m.gemm.Runner r, *, m.gemm.Runner? s=None) -> Tensor");
  const std::string module = generated(r.library, "_ops.py");
  // Registered with the fields some rule reads guarded: out_dtype (the fake) and tile (require, in the fake too).
  EXPECT_NE(module.find("_opgen.register_host_class(\"m.gemm.Runner\", \"symbolic\", [\"out_dtype\", \"tile\"])"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("_PYTHON_LIBRARY.define(\"f(Tensor x, m.gemm.Runner r, *, m.gemm.Runner? s=None) -> Tensor\")"),
            std::string::npos)
      << module;
  // The fake reads only the fields its rules need; the kernel checks the class first.
  EXPECT_NE(module.find("def _f_fake(x, r, *, s=None):\n    r_out_dtype = r.out_dtype\n    r_tile = r.tile\n"
                        "    s_given = s is not None\n    s_out_dtype = s.out_dtype if s_given else None\n    torch._check("),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("    if not (isinstance(r, _CARRIED_CLASSES[\"m.gemm.Runner\"])):\n        raise TypeError("
                        "f\"testns::f: argument 'r' must be a m.gemm.Runner, not {type(r).__name__}\")\n"),
            std::string::npos)
      << module;
  // The binding checks the class too: under torch.compile it is what Dynamo traces.
  EXPECT_NE(module.find("def f(x, r, *, s=None):\n    if not (isinstance(r, _CARRIED_CLASSES[\"m.gemm.Runner\"])):\n"),
            std::string::npos)
      << module;
  // The generated suite builds a runner from a sample's fields.
  const std::string tests = generated(r.library, "tests/");
  EXPECT_NE(tests.find("    from m.gemm import Runner\n    return (_tensor((2,), torch.float32, \"cpu\", -1, 1), "
                       "Runner(out_dtype=torch.float32, tile=4)), {\"s\": None}"),
            std::string::npos)
      << tests;
}

// C++ kernels take the fields: C++ registers the flat op f_flat, and the
// package defines f in Python around it, reading the fields as it runs.
TEST(CarriedHostObjects, ToCppKernelsThroughTheFlatOp) {
  auto r = check("schema: \"f(Tensor x, Runner r) -> Tensor\"\ncarry: [r]\ndispatch: [CPU]\ntags: [pt2_compliant_tag]\n"
                 "fake: empty(x.shape, dtype=r.out_dtype)\nsamples: []\n",
                 kCarryTypes);
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const auto& op = r.library.ops.at(0);
  EXPECT_TRUE(op.wraps_flat_op());
  EXPECT_EQ(op.cpp_op_name(), "f_flat");
  const std::string cpp = generated(r.library, "f.cpp");
  // The 2.10 stable target has no tags on def: the op (Python) has them, the flat op none.
  EXPECT_NE(cpp.find("m.def(\"f_flat(Tensor x, ScalarType r_out_dtype, int r_tile) -> Tensor\");"), std::string::npos)
      << cpp;
  EXPECT_NE(cpp.find("m.impl(\"f_flat\", &f_cpu_boxed);"), std::string::npos) << cpp;
  const std::string module = generated(r.library, "_ops.py");
  EXPECT_NE(module.find("_PYTHON_LIBRARY.define(\"f(Tensor x, m.gemm.Runner r) -> Tensor\", "
                        "tags=(torch.Tag.pt2_compliant_tag,))"),
            std::string::npos)
      << module;
  // Every field read when the op runs, after the class check; then the flat op.
  EXPECT_NE(module.find("def _f_wrapper(x, r):\n    if not (isinstance(r, _CARRIED_CLASSES[\"m.gemm.Runner\"])):\n"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("    r_out_dtype, r_tile = _opgen.host_fields(_HOST_CLASSES, \"Runner\", r, \"testns::f\", \"r\")\n"
                        "    return torch.ops.testns.f_flat.default(x, r_out_dtype, r_tile)\n"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("_PYTHON_LIBRARY.impl(\"f\", _f_wrapper, \"CompositeExplicitAutograd\")"), std::string::npos)
      << module;
  // Two fakes from the same rule: the op's reads the field it needs, the flat op's takes it.
  EXPECT_NE(module.find("@torch.library.register_fake(\"testns::f\")\ndef _f_fake(x, r):\n    r_out_dtype = r.out_dtype\n"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("@torch.library.register_fake(\"testns::f_flat\")\ndef _f_flat_fake(x, r_out_dtype, r_tile):\n"
                        "    return torch.empty("),
            std::string::npos)
      << module;
}

// Autograd over the registered op's inputs: a backward carrying the object
// gets it whole from ctx; one taking its fields gets them read from it.
TEST(CarriedHostObjects, AutogradPassesTheObjectOn) {
  const std::string fwd = "schema: \"f(Tensor x, Runner r) -> Tensor\"\ncarry: [r]\ndispatch: [CPU]\n"
                          "fake: like(x)\nautograd: {backward: f_backward, grads: [x]}\nsamples: []\n";
  for (const bool whole : {true, false}) {
    const std::string bwd = fmt::format("schema: \"f_backward(Tensor grad, Tensor x, Runner r) -> Tensor\"\n{}"
                                        "dispatch: [CPU]\nfake: like(x)\nsamples: []\n",
                                        whole ? "carry: [r]\n" : "");
    auto r = load_and_check(std::vector<SpecFile>{
        {"schemas/_types.yaml", kCarryTypes}, {"schemas/f.yaml", fwd}, {"schemas/f_backward.yaml", bwd}});
    ASSERT_TRUE(r.ok) << r.diagnostics;
    const std::string module = generated(r.library, "_ops.py");
    const std::string expected =
        whole ? "def _f_setup_context(ctx, inputs, output):\n    ctx.save_for_backward(inputs[0])\n"
                "    ctx.opgen_r = inputs[1]\n"
              : "def _f_setup_context(ctx, inputs, output):\n    ctx.save_for_backward(inputs[0])\n"
                "    ctx.opgen_r_out_dtype = inputs[1].out_dtype\n    ctx.opgen_r_tile = inputs[1].tile\n";
    EXPECT_NE(module.find(expected), std::string::npos) << module;
    // One gradient per registered input: the object is one input, and gets none.
    EXPECT_NE(module.find("    return (result, None)\n"), std::string::npos) << module;
  }
  // The other way round a forward taking fields cannot give the object.
  auto r = load_and_check(std::vector<SpecFile>{
      {"schemas/_types.yaml", kCarryTypes},
      {"schemas/f.yaml", "schema: \"f(Tensor x, Runner r) -> Tensor\"\ndispatch: [CPU]\nfake: like(x)\n"
                         "autograd: {backward: f_backward, grads: [x]}\nsamples: []\n"},
      {"schemas/f_backward.yaml", "schema: \"f_backward(Tensor grad, Tensor x, Runner r) -> Tensor\"\ncarry: [r]\n"
                                  "dispatch: [CPU]\nfake: like(x)\nsamples: []\n"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("error[E1106]: backward op 'f_backward' takes 'r' whole, but f does not carry a Runner "
                               "named so"),
            std::string::npos)
      << r.diagnostics;
}

TEST(CarriedHostObjects, WhereAnObjectCannotBeCarried) {
  const std::string body = "dispatch: [CPU]\nkernels:\n  CPU: {python: \"m.gemm:run\"}\nfake: like(x)\nsamples: []\n";
  expect_error(check("schema: \"f(Tensor x, Runner r) -> Tensor\"\ncarry: [q]\n" + body, kCarryTypes),
               "error[E1106]: 'q' in 'carry' is no host-object argument");
  expect_error(check("schema: \"f(Tensor x, Plain p) -> Tensor\"\ncarry: [p]\n" + body, kCarryTypes),
               "'p' is carried, but its class Plain is not registered with PyTorch");
  expect_error(check("schema: \"f(Tensor x, G g) -> Tensor\"\ncarry: [g]\n" + body, kCarryTypes),
               "opgen cannot carry a built-in class yet");
  expect_error(check("schema: \"f(Tensor x, Runner r) -> Tensor\"\ncarry: [r]\nkernels:\n  CPU: {python: \"m:k\"}\n"
                     "fake: like(x)\nsamples: []\n",
                     kCarryTypes),
               "'r' is carried, but the op has both Python kernels and C++ kernels (CUDA)");
  expect_error(check("schema: \"f(Tensor x, Runner r) -> Tensor\"\ncarry: [r]\nfake: {python: \"m:fake\"}\nsamples: []\n",
                     kCarryTypes),
               "'r' is carried to C++ kernels, but the op's fake is handwritten");
  expect_error(check("schema: \"f(Tensor x) -> Tensor\"\nfake: like(x)\nsamples: []\n",
                     "host_objects:\n  R:\n    class: m.R\n    kind: value\n    fields: {a: int}\n"),
               "'kind' is constant or symbolic, not 'value'");
  expect_error(check("schema: \"f(Tensor x) -> Tensor\"\nfake: like(x)\nsamples: []\n",
                     "host_objects:\n  R:\n    class: m.R\n    kind: constant\n    fields: {t: Tensor}\n"),
               "field 't' of 'R' is a tensor, but its objects may be passed whole ('kind')");
}

}  // namespace
}  // namespace opgen
