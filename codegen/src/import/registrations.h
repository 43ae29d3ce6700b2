// `opgen import`, stage 2: the ops a project registers, as its binding
// sources write them. C++: TORCH_LIBRARY / _FRAGMENT / _EXPAND and the
// STABLE_ blocks (`def`, `impl`), TORCH_LIBRARY_IMPL blocks, c10's legacy
// `RegisterOperators().op(...)` statements. Python:
// torch.library.define and Library(...).define, register_fake/impl_abstract,
// custom_op and Python kernels (which a person must port).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "import/source_scan.h"
#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::import {

struct SourceFile {
  std::string display;  // the path as given: named in the report and the specs' comments
  std::string text;
};

// The sources named on the command line: files as they are; a directory
// stands for its C++, CUDA and Python files beneath it (links to directories
// are not followed), sorted. A file that cannot be read (missing, a FIFO,
// over 64 MiB) is an E0901 error in `diags`.
std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags);

struct ImportedKernel {
  std::string dispatch_key;  // opgen's spelling: CPU, CUDA, Meta, CompositeExplicitAutograd...
  std::string function;      // a C++ name as written, `&` dropped
  std::string where;         // file:line
  std::string guard;         // the #if conditions around the impl
  bool python = false;       // `function` is a Python "module:function" (a custom_op's own function)
  bool stable = false;       // registered in a STABLE_TORCH_LIBRARY block: a stable-ABI kernel
  // The source that registers it, where it also defines it (kernel_headers.h): a build that keeps
  // that file compiles the kernel; "" where import saw no definition of it.
  std::string defined_in = {};
};

struct ImportedOp {
  std::string ns;      // from the block or the qualified name; "" when a macro names it
  std::string name;    // with its overload: "add.Tensor"
  std::string schema;  // the def string exactly as written (joined literals); "" when there is none
  model::Abi abi = model::Abi::Unstable;
  std::vector<std::string> tags;
  std::vector<ImportedKernel> kernels;
  std::vector<std::string> includes;  // the quoted includes of the file that registers the kernels
  std::string includes_from;          // that file (its display path)
  std::string python_fake;            // "module:function"
  std::string python_fake_at;         // file:line of its registration, which the package's then replaces
  // A fake named `_` (no name to name it by): its def, the name replaced by
  // "{name}", to write into python/_fakes.py with its module's imports.
  std::string python_fake_source;
  std::vector<std::string> python_fake_imports;
  std::string python_fake_moved_from;  // file:line of its registration
  std::string fake_via;               // the project's decorator that registered it, if not torch.library's
  std::string where;                  // file:line of the def
  std::string python_def_at;          // file:line or file:first-last of a Python define() statement, or of the
                                      // custom_op (triton_op) decorator or call that defines the op
  // "custom_op" or "triton_op": the op is defined through it (the spec's `define:`); "" otherwise.
  std::string python_definition;
  std::string guard;                  // the #if conditions around the def
  std::vector<std::string> needs;     // what a person must do, and why
  bool defined = false;               // a def was read (a second one is compared with it)
  bool kernel_refused = false;        // an impl was found, but not one opgen can call (in `needs`)
  // Impls whose kernels the generated bindings cannot call, or whose keys
  // are none a kernel is registered for: "<key> (<file:line>)". They stay in the project's
  // build, registered against the spec's def; they do not block the op.
  std::vector<std::string> kept_impls;
  // One of them is kept because its kernel has internal linkage (an anonymous
  // namespace, `static`): the generated bindings, another file, cannot call it.
  bool kept_for_internal_linkage = false;
  // With a configuration (--define), an op whose impls all stand in branches
  // it does not take: "<key> (<file:line>, under <#if ...>)" for each. In
  // this configuration the sources register its schema alone.
  std::vector<std::string> impls_in_other_configurations;
  // `m.def("name", &fn)`: no schema string; PyTorch infers it from fn's C++
  // signature (infer_schema.h). The function as the bindings must name it,
  // the registering file and its quoted includes, where its declaration is.
  std::string schema_from;
  std::string schema_from_file;
  std::vector<std::string> schema_from_includes;
  std::string schema_inferred_from;  // file:line of the declaration the schema was inferred from
  std::string schema_inferred_by;    // what infers it from type hints ("torch.library.custom_op")
  std::string helper_def_at;         // file:line of the direct_register_custom_op that registers it, if one does
  // Where the def's kernel is a lambda that forwards its parameters to schema_from (`[](at::Tensor x) { return
  // f(x); }`, torch_scatter's `[] { return scatter::cuda_version(); }`), PyTorch infers the schema from the
  // lambda's signature: its parameter types, and its return type where it writes one (else the function's).
  std::optional<std::vector<std::string>> schema_from_params = {};
  std::string schema_from_returns = {};
  // The key of the kernel the schema is inferred from: a def's has none, which PyTorch files under
  // CompositeImplicitAutograd; RegisterOperators' options can name one (`kernel<decltype(f), &f>(DispatchKey::CPU)`).
  std::string schema_from_key = "CompositeImplicitAutograd";
  // Kernels declared in the registering source alone: the file of
  // ImportResult::declarations_headers their declarations are copied into.
  std::string declarations_header;
  bool schema_from_type_hints = false;  // inferred as torch.library.custom_op infers it (python_schema.h)
  // "file:line: x": the project's fake returns its argument x itself (torchao's prepack fakes, `return weight,
  // scales`). Where no result shares an alias set with it, opcheck's fake test refuses the output that is an input,
  // and torch.compile traces the argument's shape; the report flags it, the fake is taken as written.
  std::string fake_returns_argument = {};

  // The project registers a fake of its own: named, or as `_` (moved).
  bool has_project_fake() const { return !python_fake.empty() || !python_fake_source.empty(); }
};

// `ns::fn<T, 2>` -> `fn`: the name a kernel's declaration spells.
std::string declared_name(const std::string& function);

// A C++ registration block of the sources (TORCH_LIBRARY..., _FRAGMENT,
// _IMPL) and what each registration in it became: the report says which
// blocks the build drops (the specs now register what they did) and which
// files it keeps compiling (impls kept in the project's build).
struct RegistrationBlock {
  std::string file;  // display path
  int first_line = 0;
  int last_line = 0;
  std::string head;  // as written: "TORCH_LIBRARY_IMPL(pyg,CPU,m)"
  struct Registration {
    std::string ns;
    std::string op;     // "" where import could not read which op (a name built by a macro)
    std::string where;  // file:line of the call
    int last_line = 0;  // the line its call ends on
    bool def = false;   // a def (with its kernel, if it names one), not an impl
    bool kept = false;  // an impl that stays in the project's build
  };
  std::vector<Registration> registrations;
  bool file_has_other_code = false;  // besides its blocks (and namespaces): the build keeps compiling the file
  std::string ns;                    // its namespace; "" where a macro names it
  // The Python module init its file defines beside its blocks, REGISTER_EXTENSION(TORCH_EXTENSION_NAME) ("" where
  // none), and its lines ("632"): in a file that stays, it would make the library call Python's C API, which the
  // library opgen builds does not link (the generated package loads it instead).
  std::string python_module_init = {};
  std::string python_module_init_lines = {};
  // The init is a pybind11 module, PYBIND11_MODULE(NAME, m) { m.def(...); }: Python functions of the project's
  // (DeepSpeed's `init`, `register_param`...), which its Python calls, not an empty module.
  bool python_module_functions = false;
  // Its lines that hold nothing but blank space or a `//` comment: the lines of registrations that go, set apart
  // by nothing else (deep-gemm's, sglang's), make one range to delete.
  std::set<int> filler_lines = {};
  bool claims = false;  // a TORCH_LIBRARY block (its stable and _EXPAND forms too): it owns the namespace
  // Its first or last line holds other code too (`void f() { ops.push_back(torch::RegisterOperators()...); }`): no
  // line of it is one to delete whole.
  bool shares_lines = false;
};

struct ImportResult {
  std::vector<ImportedOp> ops;      // in the order the sources define them
  std::vector<std::string> notes;   // about the sources as a whole
  std::vector<std::string> namespace_macros;  // file:line of blocks whose namespace is a macro
  // Per namespace: the build's -I in order, then where its kernels' headers are (kernel_headers.h).
  std::map<std::string, std::vector<std::string>> include_dirs;
  // Namespaces a block claims (TORCH_LIBRARY, Library(ns, "DEF")), "" for one
  // whose namespace is a macro; the others the sources add to as fragments.
  std::set<std::string> claimed_namespaces;
  size_t registrations = 0;
  size_t helper_calls_not_read = 0;  // direct_register_custom_op calls read as no op (a note says why)         // def/impl/define/fake calls read
  // With a configuration under which the sources define no op: the defs they hold in branches it does not take,
  // "name (file:line, under <#if ...>)", so the report can say why nothing was read.
  std::vector<std::string> defs_in_other_configurations;
  // Kernels a registering source declares itself (vLLM's CPU bindings declare
  // each above their TORCH_LIBRARY block and define it in another file):
  // their declarations, copied into a header import writes beside the specs,
  // which the generated bindings include (kernel_headers.h).
  struct DeclarationsHeader {
    std::string source;                 // the registering file (display path)
    std::string file;                   // "torch_bindings_kernels.h"
    struct Include {
      std::string spelled;    // with delimiters, as the library's path reaches it
      std::string condition;  // the #if expression it stands under in the source, "" for none
    };
    std::vector<Include> includes;  // what it #includes
    std::vector<std::pair<std::string, std::string>> declarations;  // namespace ("" the global one), declaration
  };
  std::vector<DeclarationsHeader> declarations_headers;
  std::vector<RegistrationBlock> blocks;  // the C++ sources' blocks, in order
  // The C, C++ and CUDA files given (not headers) that register nothing, in any branch: no TORCH_LIBRARY block, no
  // .def( or .impl( call (a macro's or pybind11's among them). The kernels' helpers and kernels other files register
  // (xformers' pt_stable_utils.cu): the project's build compiles them, and the library's needs them as well.
  std::vector<std::string> registration_free_sources;
  // The compiled sources given that include pybind11 (torch/extension.h), themselves or through their headers
  // (kernel_headers.h): a library built from them calls Python's C API.
  std::set<std::string> pybind11_sources;
  // The others that include Python.h, themselves or through their quoted includes (FlashAttention 3's bindings,
  // kernel-builder's registration.h: for a module init, which the report deletes): they compile with Python's
  // headers, and the library links no Python.
  std::set<std::string> python_header_sources;
  // Kernels whose names a header another op includes declares with another number of parameters: "fn (N parameters,
  // as op takes; header declares one of M)". In a unity shard the two declarations make the name ambiguous: the
  // report's library compiles one TU per op (SHARDS 0).
  std::vector<std::string> overloaded_kernels;
  // The Python sources' imports of a module of the project's own by its last name, `from . import _C`, `import
  // pkg._C` (not torch's): module name -> "file:line". Where a C++ source's module init goes (the generated package
  // loads the library), the report names the lines that imported its module.
  std::map<std::string, std::vector<std::string>> python_module_imports;
};

// The ops of all the sources together: an impl or a fake in one file joins
// the def of another. A Python source's fakes are named by the module its
// path spells (`bitsandbytes/_ops.py`: `bitsandbytes._ops`), so give paths
// from the directory Python imports the package from.
// With a configuration, the C++ sources are read as a build with those
// macros compiles them (source_scan.h).
ImportResult find_registrations(const std::vector<SourceFile>& sources,
                                const Configuration* configuration = nullptr);

// Impls the project registers that the spec cannot bind become kept impls,
// which stay in its build and register against the spec's def:
// - on an op that takes no tensor, those for keys PyTorch picks by a
//   tensor's device (CPU, CUDA, Meta...: E0813), which no call reaches
//   (DeepSpeed's end_backward, beside the catch-all kernel calls reach);
// - a kernel of the other ABI than the op's def: a STABLE_TORCH_LIBRARY_IMPL
//   kernel (torch::stable::Tensor) of an op defined on the unstable ABI
//   (torchao defines in Python, implements in a stable-ABI extension), or
//   the reverse; a spec binds kernels of its own ABI.
// Run once the schemas are known (after infer_schema.h).
void keep_unbound_impls(ImportResult& result);

}  // namespace opgen::import
