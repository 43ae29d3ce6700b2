#include "support/diagnostic_codes.h"

#include <algorithm>
#include <stdexcept>

namespace opgen {
namespace {

// The table: one entry per Code, in the enum's order (a unit test holds it to
// that), each id assigned once and for ever. See diagnostic_codes.h.
const std::vector<CodeInfo> kCodes = {
#include "support/codes/e01_yaml.inc"
#include "support/codes/e02_schema.inc"
#include "support/codes/e03_names_types_abi.inc"
#include "support/codes/e04_mutation.inc"
#include "support/codes/e05_rules.inc"
#include "support/codes/e06_checks.inc"
#include "support/codes/e07_autograd.inc"
#include "support/codes/e08_tags_dispatch.inc"
#include "support/codes/e09_files.inc"
#include "support/codes/e10_samples.inc"
#include "support/codes/e11_host_objects.inc"
#include "support/codes/warnings.inc"
};

struct Group {
  std::string_view prefix;  // the id's first three characters
  std::string_view title;
};

const Group kGroups[] = {
    {"E01", "YAML and the shape of a spec file"},
    {"E02", "Schema syntax"},
    {"E03", "Op names, arguments, types and the ABI"},
    {"E04", "Mutation and aliasing"},
    {"E05", "The rule language, let, fake and flops rules"},
    {"E06", "Checks and require"},
    {"E07", "Autograd"},
    {"E08", "Tags, CUDA graphs, compile fallbacks, dispatch, symmetric memory and autocast"},
    {"E09", "Files and output"},
    {"E10", "Samples"},
    {"E11", "Host objects, tensor subclasses and the types file"},
    {"W03", "Warnings: arguments"},
    {"W04", "Warnings: mutation and aliasing"},
    {"W08", "Warnings: tags"},
    {"W10", "Warnings: samples"},
};

}  // namespace

const std::vector<CodeInfo>& all_codes() {
  static const std::vector<CodeInfo> sorted = [] {
    std::vector<CodeInfo> codes = kCodes;
    std::stable_sort(codes.begin(), codes.end(), [](const CodeInfo& a, const CodeInfo& b) { return a.id < b.id; });
    return codes;
  }();
  return sorted;
}

const CodeInfo& code_info(Code code) {
  const size_t index = static_cast<size_t>(code);
  if (index < kCodes.size() && kCodes[index].code == code) return kCodes[index];
  for (const CodeInfo& info : kCodes)
    if (info.code == code) return info;
  throw std::logic_error("diagnostic code without an entry in the table");
}

const CodeInfo* find_code(std::string_view id) {
  for (const CodeInfo& info : kCodes)
    if (info.id == id) return &info;
  return nullptr;
}

std::string_view code_group(std::string_view id) {
  for (const Group& group : kGroups)
    if (id.substr(0, group.prefix.size()) == group.prefix) return group.title;
  return "Other";
}

}  // namespace opgen
