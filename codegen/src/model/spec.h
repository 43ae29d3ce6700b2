// The op spec: one YAML file, loaded and located. Every field keeps the
// source location it came from so the checker can point at it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "model/expr.h"
#include "model/schema.h"
#include "support/diagnostics.h"

namespace opgen::model {

// The library's types file is `_types.yaml`, beside the specs; an op of this
// name would have that file for its spec, so no op may take it (E0302).
inline constexpr std::string_view kTypesFileStem = "_types";

template <typename T>
struct Located {
  T value;
  SourceLoc loc;
};

enum class Abi { Stable, Unstable };

// Declarative checks on one tensor argument, emitted as C++ checks in the
// wrapper and as torch._check calls in the fake.
struct TensorCheck {
  Located<std::string> arg;
  std::vector<Located<std::string>> dtypes;  // allowed dtype names
  std::optional<Located<std::string>> same_dtype_as;
  std::optional<Located<std::string>> same_device_as;
  std::optional<Located<int64_t>> dim;
  bool contiguous = false;
};

// A Bool expression in the rule language (`require:`), or an Int/Output
// rule (`let:`, `fake:`). `at` maps an expression column to a location in
// the YAML file.
struct RuleText {
  std::string text;
  SourceLoc loc;          // where the expression text starts
  ExprPtr expr;           // set by the loader once parsed
  bool columns_exact = true;  // false when the scalar was folded, spans lines or has escapes
  // Where a column of the expression lies; the scalar's start when the
  // columns do not map one to one onto the file.
  SourceLoc at(size_t column) const { return columns_exact ? loc.shifted(column) : loc; }
};

struct LetBinding {
  Located<std::string> name;
  RuleText rule;
};

struct Autograd {
  Located<std::string> backward;           // op name in the same namespace
  std::vector<Located<std::string>> grads; // forward inputs the backward returns grads for
  // `bind: {batch_size: input.size(0)}`: backward arguments given a value
  // computed from the forward's arguments (rules, evaluated in setup_context),
  // for those the forward neither takes nor returns under that name.
  std::vector<LetBinding> bind;
  SourceLoc loc;
};

// `autocast: {cuda: {cast_inputs: float32}}`: under torch.autocast on that
// device type, the op's floating-point inputs are cast to `cast_inputs`
// (float64 ones excepted, as torch.library.register_autocast does).
struct AutocastRule {
  Located<std::string> device;       // a device type: "cuda", "cpu", ...
  Located<std::string> cast_inputs;  // a dtype name; empty value when missing
  SourceLoc loc;                     // the rule's mapping
};

// A sample input for the generated test suite (`samples:`). Tensor shapes
// may name dims whose values come from the sample's `dims`, so one sample
// runs at several sizes (the dynamic-shape tests need that).
struct SampleTensor {
  std::vector<std::string> shape;  // each an integer literal or a dim name
  std::string dtype = "float32";
  std::string device = "cpu";
  double low = -1.0, high = 1.0;   // values drawn uniformly from [low, high)
  SourceLoc loc;
};

struct SampleField;

struct SampleValue {
  // HostObject: `{fields: {name: value}}`, a host object's declared fields.
  // TensorLists: a list of tensor lists (a `Tensor[][]` argument).
  enum class Kind { Tensor, TensorList, TensorLists, None, Literal, HostObject };
  Kind kind = Kind::Literal;
  SampleTensor tensor;               // Tensor
  std::vector<SampleTensor> list;    // TensorList
  std::vector<std::vector<SampleTensor>> lists;  // TensorLists
  std::vector<SampleField> fields;   // HostObject
  std::string literal;               // Literal: a YAML string as written; a number or a boolean
                                     // (or a list of them) in canonical form: 7, 0.5, true, [1, 2]
  bool string = false;               // Literal: a YAML string (`"3"` is one, `3` is not)
  SourceLoc loc;
};

struct SampleField {
  Located<std::string> name;
  SampleValue value;
};

struct Sample {
  std::vector<std::pair<Located<std::string>, SampleValue>> args;  // by argument name
  std::vector<std::pair<Located<std::string>, std::vector<int64_t>>> dims;
  SourceLoc loc;
};

struct ExistingKernel {
  Located<std::string> dispatch_key;
  Located<std::string> function;  // a C++ name: `rmsnorm`, `::sgl::rmsnorm`, `linear_cpu<4>`
};

// `kernels: {CPU: {python: "module:function"}}`: a dispatch key whose kernel
// is a Python function (plain torch, Triton, a DSL's compiled kernel),
// registered from the generated package with torch.library.
struct PythonKernel {
  Located<std::string> dispatch_key;
  Located<std::string> function;  // "module:function"
};

// `compile:`: calls torch.compile cannot take, and what happens to them.
struct CompileCondition {
  RuleText when;               // a Bool rule over the arguments, evaluated at trace time
  Located<std::string> reason;
};

struct CompilePolicy {
  std::vector<CompileCondition> unsupported;  // in order: the first true one gives the reason
  // eager: an island outside the graph (a graph break) that warns; error: an
  // island that raises, naming the reason; python: `fallback_python`, a
  // traceable replacement (the one choice that keeps fullgraph=True).
  Located<std::string> fallback{"eager", {}};
  std::optional<Located<std::string>> fallback_python;  // "module:function"
  SourceLoc loc;
};

// A field of a host class: what kernels, fakes and rules may read of its
// objects. `read` is how Python gets it from an object: an attribute
// (`.fp8_dtype`) or, for built-in classes, a method call (`.size()`).
struct HostField {
  Located<std::string> name;
  Located<std::string> type_text;
  TypePtr type;       // the parsed type: one of host_field_types()
  std::string read;   // Python suffix on the object: ".name" or ".size()"
};

// `host_objects:` in the library's _types.yaml: a Python class whose objects
// ops take. The registered op takes the declared fields instead (flattened
// by the Python binding at call time, so torch.compile reads them at trace
// time); the kernel receives them as a generated C++ struct.
//
// `tensor_subclasses:` declares a torch.Tensor wrapper subclass the same
// way: its fields are its inner tensors (`inner:`, in __tensor_flatten__
// order, each a Tensor) and then its metadata (`meta:`). An op may also
// return one: the registered op returns the inner tensors, and the binding
// rebuilds the object (`build`, or the class's __tensor_unflatten__ with the
// metadata as its context) from them and the op's `result_meta` rules.
struct HostClass {
  Located<std::string> name;          // what schemas spell: Float8Quantizer
  Located<std::string> python_class;  // module.Qualname: the binding's type hints
  std::string builtin;                // "" or "process_group"
  std::string doc;
  std::vector<HostField> fields;      // in kernel (struct) order
  SourceLoc loc;
  // `kind: constant | symbolic`: the package registers the class with PyTorch
  // as an opaque type of that kind, so an op may take its objects whole
  // (`carry:`). Absent: ops only ever take its fields.
  std::optional<Located<std::string>> kind;
  bool tensor_subclass = false;
  size_t inner_count = 0;  // a subclass: its first `inner_count` fields are the inner tensors
  std::optional<Located<std::string>> build;  // a subclass: "module:function" that rebuilds one

  // "host object" or "tensor subclass", for messages.
  const char* what() const { return tensor_subclass ? "tensor subclass" : "host object"; }
  std::span<const HostField> inner() const { return {fields.data(), inner_count}; }
  std::span<const HostField> meta() const { return {fields.data() + inner_count, fields.size() - inner_count}; }
};

// `<object>_<field>`, the field's leading underscores dropped (`a._data`:
// a_data): how an op takes a host object's or subclass's field, and how it
// returns a subclass result's inner tensor.
std::string flat_field_name(const std::string& object, const std::string& field);

// An argument of the spec's schema whose type is a host class. In the op's
// flat schema (OpSpec::schema) it is `bool <arg>_given` when optional, then
// `<field type> <arg>_<field>` per field (made optional when the argument is).
struct HostArgument {
  std::string name;
  std::string cls;  // its HostClass's name (Library::host_class)
  bool optional = false;
  size_t declared_index = 0;  // in OpSpec::declared_schema.arguments
  size_t first_flat = 0;      // in OpSpec::schema.arguments
  size_t flat_count = 0;      // its flat arguments: the flag, then the fields
  // `carry:`: the op takes the object itself (a graph input or constant under
  // torch.compile), registered as `carried_type`, its class's opaque type
  // name; the flat arguments then stand for the fields its functions read.
  bool carry = false;
  std::string carried_type;
  std::string given_name() const { return name + "_given"; }
  std::string field_name(const HostField& f) const { return flat_field_name(name, f.name.value); }
};

// `result_meta:` as written: a tensor-subclass result's metadata, each field
// a rule over the op's arguments.
struct ResultMetaField {
  Located<std::string> field;
  RuleText rule;
};
struct ResultMeta {
  Located<std::string> result;  // the return's name
  std::vector<ResultMetaField> fields;
  SourceLoc loc;
};

// A return of the spec's schema whose type is a tensor subclass. In the op's
// flat schema it is `Tensor <result>_<inner>` per inner tensor; `meta` holds
// a rule per metadata field, in the class's order, over the flat arguments.
struct SubclassResult {
  std::string name;
  std::string cls;
  size_t declared_index = 0;  // in OpSpec::declared_schema.returns
  size_t first_flat = 0;      // in OpSpec::schema.returns
  std::vector<RuleText> meta;
};

struct OpSpec {
  std::string path;          // as given on the command line
  std::string display_path;  // relative to the source root: used in headers and diagnostics
  std::string stem;          // file name without .yaml: the op name

  Located<std::string> schema_text;
  SourceLoc schema_value_loc;  // where column 0 of the schema string lies
  bool schema_columns_exact = false;  // false when the string was folded/escaped
  FunctionSchema schema;       // after the checker: mutation annotations filled in
  // The schema as written, when it names host classes; `schema` is then the
  // flat one the library registers (see HostArgument). Empty otherwise.
  std::optional<FunctionSchema> declared_schema;
  std::vector<HostArgument> host_args;  // in argument order
  std::vector<SubclassResult> subclass_results;  // in return order
  std::vector<Located<std::string>> carry;  // `carry:` as written: host arguments passed whole
  std::vector<ResultMeta> result_meta;  // as written; lowered into subclass_results

  Located<Abi> abi{Abi::Stable, {}};
  std::vector<Located<std::string>> dispatch;
  // `dispatch:` was written. An empty list is then the schema alone: no
  // kernel from this library (its impls are registered elsewhere); left out,
  // the op has kernels for CPU and CUDA.
  bool dispatch_written = false;
  // `kernels:`: dispatch keys whose kernel is an existing function, called
  // through an adapter instead of <ns>::kernels::<op>_<key>, and the headers
  // that declare them.
  std::vector<ExistingKernel> existing_kernels;
  std::vector<Located<std::string>> kernel_includes;
  // Keys whose kernel is Python; the checker takes them out of `dispatch`,
  // which then lists the C++ kernels only.
  std::vector<PythonKernel> python_kernels;
  std::vector<Located<std::string>> tags;
  // `cudagraph: unsafe`: Inductor runs the op outside CUDA graphs (the
  // cudagraph_unsafe tag, or its partition list where the stable ABI's target
  // has no tags). `safe` says so on purpose. Absent: PyTorch's default.
  std::optional<Located<std::string>> cudagraph;
  // `define: custom_op`: the package defines the op (every kernel Python)
  // through torch.library.custom_op, as the project that wrote it did: its
  // Autograd kernel raises on backward until a formula is registered, and
  // torch.library's functions by the op's name reach the custom_op object.
  // `triton_op`: through torch.library.triton_op, a custom_op whose one
  // kernel (Triton launches through wrap_triton) is its fake too, traced by
  // torch.compile into the graph. `library` (the default): Library.define
  // and Library.impl.
  std::optional<Located<std::string>> define;
  std::optional<std::vector<Located<std::string>>> mutates;  // absent: from annotations
  std::vector<Located<std::string>> symm_mem;
  std::string doc;
  std::vector<TensorCheck> checks;
  std::vector<RuleText> require;
  std::vector<LetBinding> lets;
  std::vector<RuleText> fake;             // one per return
  std::optional<Located<std::string>> fake_python;  // "module:function" escape hatch
  // `fake: {meta: <where>}`: a Meta kernel registered outside the spec (a
  // source the library builds: an impl `opgen import` keeps in the project's
  // build) is the fake; `where` says where, for the reader.
  std::optional<Located<std::string>> fake_meta;
  // `fake: {decomposes: <where>}`: a kernel registered outside the spec at
  // CompositeImplicitAutograd (a catch-all impl kept in the project's build,
  // xformers' `_nvcc_build_version`) decomposes the op: it takes no fake.
  std::optional<Located<std::string>> fake_decomposes;
  SourceLoc fake_loc;
  std::optional<Autograd> autograd;
  std::vector<AutocastRule> autocast;  // in file order
  std::optional<RuleText> flops;       // an Int: the FLOPs of one call
  std::optional<CompilePolicy> compile;
  std::vector<Sample> samples;
  bool samples_given = false;  // `samples:` is present; `samples: []` says the op has none on purpose
  // Why torch.library.opcheck and torch.compile refuse the op while eager
  // calls work, set by the checker with the warning that says so (its code,
  // "W0403", in eager_only_code); the generated suite skips them.
  std::string eager_only;
  std::string eager_only_code;
  void mark_eager_only(std::string code, std::string why) {
    eager_only_code = std::move(code);
    eager_only = std::move(why);
  }
  SourceLoc file_loc;  // the whole file

  // The location of a column inside the schema string (falls back to the
  // string's start when the YAML scalar was not written on one line).
  SourceLoc schema_at(size_t column) const {
    return schema_columns_exact ? schema_value_loc.shifted(column) : schema_text.loc;
  }
  std::string op_name() const;  // "name" or "name.overload"
  // The existing function that is the kernel of this dispatch key, if any.
  const ExistingKernel* existing_kernel(const std::string& dispatch_key) const;
  // The schema the op is registered with: `schema`, each carried host
  // argument's flat arguments folded back into the object (`<module.Class>[?]
  // <arg>`). `schema` itself when nothing is carried.
  FunctionSchema registered_schema() const;
  // The op carries an object and has C++ kernels: the C++ library registers
  // `schema` (the objects' fields, which the kernels take) as the flat op
  // `<name>_flat`, and the package defines the op itself in Python, its
  // CompositeExplicitAutograd kernel reading the fields when the op runs
  // and calling the flat op.
  bool wraps_flat_op() const;
  // The op's C++ registration: `schema`, named `<name>_flat` when the op
  // wraps a flat op.
  FunctionSchema cpp_schema() const;
  std::string cpp_op_name() const;  // "name" or "name.overload", of cpp_schema()
  // The schema alone (`dispatch: []`) in a library none of whose ops has a
  // C++ kernel: the package defines it too, so such a library needs no build
  // (set by the checker, which sees the whole library).
  bool schema_defined_by_package = false;
  // Every kernel is Python, or the op is such a schema: the package defines
  // the op (torch.library), and nothing of it is C++. (Holds before the
  // checker moves the Python keys out of `dispatch` and after.)
  bool defined_in_python() const;
  // `define: custom_op`, or `triton_op` (a custom_op too).
  bool defined_by_custom_op() const { return define && (define->value == "custom_op" || defined_by_triton_op()); }
  // `define: triton_op`: its kernel is its fake, unless the spec gives one (which replaces it, as the
  // project's `@op.register_fake` did).
  bool defined_by_triton_op() const { return define && define->value == "triton_op"; }
  // A kernel, C++ or Python, is at a decomposing key (CompositeImplicitAutograd):
  // the op takes no fake, and fake tensors and torch.compile run that kernel.
  bool decomposes() const;
  // A kernel at `Meta` (C++ or Python, or one registered outside the spec,
  // `fake: {meta: ...}`): fake tensors run it; it is the op's fake (E0828).
  bool has_meta_kernel() const;
};

// Why `path` cannot stand in `#include "path"` (a spec's `kernels: include`);
// nullopt when it can.
std::optional<std::string> include_problem(const std::string& path);

// A library: every op in one namespace, sorted by op name.
struct Library {
  std::string ns;
  std::string python_package;
  std::string library_name;         // shared library target name (lib<name>.so)
  // The namespace is shared with other libraries (`--fragment`): no block
  // claims it with TORCH_LIBRARY, every op adds itself as a fragment, as
  // FBGEMM's libraries share `fbgemm` and a project may add ops to a
  // namespace PyTorch defines.
  bool fragment = false;
  uint64_t torch_target_version = 0x020a000000000000ULL;  // stable ABI target
  // 0: the build compiles each op's TU; n: it compiles n unity TUs per ABI
  // (csrc/<ns>-<abi>-shard<i>.cpp), each including its share of the ops' TUs.
  unsigned shards = 0;
  // From the types file (schemas/_types.yaml).
  std::vector<HostClass> host_classes;
  std::string types_path;  // display path of the types file; empty when none
  std::vector<OpSpec> ops;

  const OpSpec* find(const std::string& op_name) const;
  const HostClass* host_class(const std::string& name) const;
  // The C++ namespace of the generated code and the kernels (<cpp_ns>::kernels):
  // cpp_namespace(ns), with `_ns` appended where a kernel the specs bind is a
  // function at global scope of that name (`relu` -> `relu_ns`).
  std::string cpp_ns() const;
};

// The C++ namespace for a torch.ops namespace: the namespace itself, unless
// C++ reserves it as a name in the global namespace (a leading '_', or '__'
// anywhere: vLLM's `_C`, `_moe_C`), which PyTorch accepts and registers as
// written, or the headers the generated code includes already declare it
// there (POSIX's `dup`, C's `time`: global_names.inc); then its leading
// underscores are dropped, runs of '_' collapsed, and `_ns` appended
// (`_C` -> `C_ns`, `_C_cache_ops` -> `C_cache_ops_ns`, `dup` -> `dup_ns`).
std::string cpp_namespace(std::string_view ns);

// "2.10" for a TORCH_TARGET_VERSION value.
std::string format_torch_version(uint64_t version);

// The Python package of a library whose package was not named: its
// namespace, but `opgen_ops` for namespace `opgen`, since `opgen` is the
// tool's own package (opgen.testing). cmake/Opgen.cmake does the same.
std::string default_python_package(const std::string& ns);

}  // namespace opgen::model
