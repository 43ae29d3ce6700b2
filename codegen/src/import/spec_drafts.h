// `opgen import`, stage 3: each found op as the text of its spec (a Draft),
// with what keeps it from passing (its needs), and the drafts checked
// together by the same loader and checker `opgen check` runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "import/registrations.h"
#include "model/spec.h"

namespace opgen::import::detail {

inline constexpr std::string_view kInternalLinkage =
    "A kernel with internal linkage stays registered by the project: the generated bindings (another file) cannot "
    "call it. To bind it here, declare it in a header, outside any anonymous namespace and not 'static', and name it "
    "under 'kernels:' with that header under 'include:'.";

struct Draft {
  const ImportedOp* op = nullptr;
  std::vector<std::string> needs;
  bool fake_stub = false;   // its fake in python/_fakes.py raises until written
  bool fake_moved = false;  // its fake (a `_`) moved into python/_fakes.py
  bool no_impl_given = false;  // the schema alone: no impl of it in the sources given
  std::string fake_registered_at;  // file:line of the project's registration of the fake the spec takes
  std::string fake_to_fix;         // "file:line: x": the project's fake the spec takes returns its argument x
  std::string eager_only_code;  // the warning that says opcheck and torch.compile refuse the op, once checked
  std::string text;
  std::string display;  // the spec's path, as diagnostics name it
};

// The spec of `op` in namespace `ns`, its fake (when it must be written) in `fakes_file` of Python package
// `package`; what keeps it from passing goes into draft.needs.
std::string spec_text(const ImportedOp& op, const std::string& package, Draft& draft, const std::string& fakes_file,
                      const std::string& ns);
// Checks the drafts without known needs together, as `opgen check` would; a draft with an error gets it as a need.
void check_drafts(std::vector<Draft>& drafts, const model::Library& settings);
// A header of the declarations a registering source makes of its kernels (kernel_headers.h), for the generated
// bindings to include.
std::string declarations_header_text(const ImportResult::DeclarationsHeader& header);
// An op's name as a Python identifier (`name.overload` -> `name_overload`).
std::string python_identifier(const std::string& op);
// "a, b, c and 9 more": a project of thousands gets one readable line.
std::string first_names(const std::vector<std::string>& names);

}  // namespace opgen::import::detail
