// `kernels:`: existing functions as an op's kernels. Each names a dispatch
// key the op dispatches to and a C++ function the generated code can spell;
// together they come with the headers that declare them. Whether a function
// can take the schema's arguments is the C++ compiler's to say, through the
// generated static_asserts (emit/adapt.cpp).
#include "check/kernels.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "check/names.h"
#include "support/diagnostic_codes.h"
#include "support/diagnostics.h"

namespace opgen::check {

namespace {

// `name`, `ns::name`, `::ns::name`, each part an identifier and no keyword,
// then optionally one template argument list (`linear_cpu<4>`,
// `gemm<at::Half, 128>`) of names, numbers, `::`, `,`, `*`, `&` and spaces.
bool is_cpp_function_name(const std::string& text) {
  std::string_view rest = text;
  std::string_view targs;
  if (const size_t open = rest.find('<'); open != std::string_view::npos) {
    if (rest.back() != '>') return false;
    targs = rest.substr(open + 1, rest.size() - open - 2);
    rest = rest.substr(0, open);
  }
  if (rest.starts_with("::")) rest.remove_prefix(2);
  if (rest.empty()) return false;
  for (size_t start = 0;;) {
    const size_t end = rest.find("::", start);
    const std::string_view part = rest.substr(start, end - start);
    if (!is_identifier(std::string(part)) || is_cpp_keyword(part)) return false;
    if (end == std::string_view::npos) break;
    start = end + 2;
  }
  int depth = 0;
  for (char c : targs) {
    if (c == '<') ++depth;
    if (c == '>' && --depth < 0) return false;
    const bool allowed = std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_:, <>*&").find(c) != std::string_view::npos;
    if (!allowed) return false;
  }
  return depth == 0 && (text.find('<') == std::string::npos || !targs.empty());
}

}  // namespace

void check_existing_kernels(const model::OpSpec& op, Diagnostics& diags) {
  std::vector<std::string> dispatched;
  for (const auto& key : op.dispatch) dispatched.push_back(key.value);
  // Each `kernels:` key, C++ or Python, names a key the op dispatches to.
  auto check_dispatched = [&](const model::Located<std::string>& key) {
    if (std::find(dispatched.begin(), dispatched.end(), key.value) != dispatched.end()) return;
    auto& d = diags.error(Code::ExistingKernelNotDispatched, key.loc,
                          fmt::format("'kernels: {}' names the kernel of a dispatch key the op does not dispatch to",
                                      key.value));
    if (std::string guess = closest_match(key.value, dispatched); !guess.empty())
      d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    else if (!dispatched.empty())
      d.notes.push_back({fmt::format("the op dispatches to {}: add '{}' to 'dispatch', or drop this entry",
                                     fmt::join(dispatched, ", "), key.value)});
    else
      d.notes.push_back({fmt::format("add '{}' to 'dispatch', or drop this entry", key.value)});
  };
  for (const auto& kernel : op.existing_kernels) {
    check_dispatched(kernel.dispatch_key);
    if (!is_cpp_function_name(kernel.function.value)) {
      diags.error(Code::BadExistingKernel, kernel.function.loc,
                  fmt::format("'{}' is not the name of a C++ function the generated code can call", kernel.function.value))
          .notes.push_back({"name the function as C++ code would, without '&' or a call: 'rmsnorm', 'sgl::rmsnorm', "
                            "'linear_cpu<4>'"});
    }
  }
  for (const auto& kernel : op.python_kernels) {
    check_dispatched(kernel.dispatch_key);
    if (!is_python_target(kernel.function.value))
      diags.error(Code::BadExistingKernel, kernel.function.loc,
                  fmt::format("'python' must read 'module:function', not '{}'", kernel.function.value))
          .notes.push_back({python_keyword_note(kernel.function.value)
                                .value_or("a dotted module path and a function name, e.g. 'my_pkg.kernels:rms_norm_cpu'")});
  }
  for (const auto& include : op.kernel_includes) {
    if (auto why = model::include_problem(include.value))
      diags.error(Code::BadExistingKernel, include.loc,
                  fmt::format("'{}' cannot be written as #include \"...\": {}", include.value, *why));
  }
  if (!op.existing_kernels.empty() && op.kernel_includes.empty()) {
    diags.error(Code::ExistingKernelWithoutInclude, op.existing_kernels.front().dispatch_key.loc,
                "the existing kernels need the header that declares them")
        .notes.push_back({"add 'include: <header>' under 'kernels', as the kernels' own sources #include it "
                          "(the library's include directories must reach it)"});
  } else if (op.existing_kernels.empty() && !op.kernel_includes.empty()) {
    diags.error(Code::ExistingKernelWithoutInclude, op.kernel_includes.front().loc,
                "'kernels: include' names headers, but no dispatch key has an existing function")
        .notes.push_back({"name the function of each dispatch key under 'kernels', e.g. 'CUDA: rmsnorm'"});
  }
}

}  // namespace opgen::check
