// `opgen import`: a kernel the registering source declares itself. vLLM's
// CPU bindings declare each kernel above their TORCH_LIBRARY block and define
// it in another file; the generated bindings, another file, cannot see such a
// declaration, so import copies it into a header of its own beside the specs
// (kernel_headers.h decides, import_specs.h writes it).
#pragma once

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "import/tokens.h"

namespace opgen::import {

struct SourceDeclaration {
  std::string scope;  // the namespaces around it, "a::b" ("" the global one)
  std::string text;   // "void f(const at::Tensor& x, int64_t n);": no body, no default arguments
  // The names its types use that neither C++ nor PyTorch's and the standard
  // library's namespaces (std, at, c10, torch) give: the headers the source
  // includes must declare them (a project's type, a project namespace).
  std::set<std::string> project_names;
  bool defined = false;  // a definition: its body follows (in this source)
};

// The functions a source declares (or defines) at namespace scope, indexed
// by name in one pass, so that a file of 10,000 kernels is read once.
class SourceDeclarations {
 public:
  explicit SourceDeclarations(const Tokens& tokens);  // `tokens` must outlive it

  // The declarations of `function`, as a registration names it ("ns::f" for
  // one inside `namespace ns {`), at that namespace scope with external
  // linkage: none `static`, `inline`, a template, in an anonymous namespace
  // or a class, `extern "C"`, or with attributes. A name a `using a::b::Name;`
  // of a library namespace (std, at, c10, torch) brought in before it is
  // spelled in full. Returns them, or why none can be copied.
  std::variant<std::vector<SourceDeclaration>, std::string> of(const std::string& function) const;

 private:
  struct Candidate {
    size_t at = 0;        // the name's token, followed by "("
    size_t boundary = 0;  // the first token of the declaration
    std::string scope;    // the named namespaces around it
    bool anonymous = false;
  };
  struct Using {
    size_t at = 0;
    std::string scope, name, full;
  };
  // At most these many declarations of one name (overloads) and `using` declarations are kept: a file that
  // repeats either costs no more.
  static constexpr size_t kMaxDeclarations = 64;
  static constexpr size_t kMaxUsings = 256;
  const Tokens& tokens_;
  std::map<std::string, std::vector<Candidate>> candidates_;
  std::vector<Using> usings_;
};

// SourceDeclarations(tokens).of(function), for one function.
std::variant<std::vector<SourceDeclaration>, std::string> source_declarations(const Tokens& tokens,
                                                                                const std::string& function);

}  // namespace opgen::import
