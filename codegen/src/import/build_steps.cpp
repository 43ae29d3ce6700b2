#include "import/build_steps.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include <fmt/format.h>

namespace opgen::import::detail {

namespace {

// The line of a "file:line" place, as the registrations record them (0 where none).
int line_of(const std::string& where) {
  const size_t colon = where.rfind(':');
  int line = 0;
  if (colon != std::string::npos) std::from_chars(where.data() + colon + 1, where.data() + where.size(), line);
  return line;
}

}  // namespace

std::string init_module(const std::string& init) {
  const size_t at = init.find("PyInit_");
  if (at == std::string::npos) return "";
  size_t end = at + 7;
  while (end < init.size() && (std::isalnum(static_cast<unsigned char>(init[end])) || init[end] == '_')) ++end;
  return init.substr(at + 7, end - at - 7);
}

BuildSteps build_steps(const ImportResult& found, const std::set<std::string>& written_ops, const std::string& ns,
                       bool moved) {
  auto ours = [&](const RegistrationBlock::Registration& reg) {
    return !reg.op.empty() && written_ops.count(reg.op) && (reg.ns == ns || moved || reg.ns.empty());
  };
  auto owned = [&](const RegistrationBlock::Registration& reg) { return !reg.kept && ours(reg); };
  // Per file, in the order the sources came: whether every block of it goes whole, whether it stays.
  struct FileFate {
    bool every_block_owned = true;
    bool stays = false;
    std::string python_module_init, python_module_init_lines;  // RegistrationBlock's
    bool python_module_functions = false;
  };
  std::vector<std::string> files;
  std::map<std::string, FileFate> fate;
  BuildSteps steps;
  for (const RegistrationBlock& block : found.blocks) {
    auto [it, fresh] = fate.try_emplace(block.file);
    if (fresh) files.push_back(block.file);
    FileFate& file = it->second;
    file.python_module_init = block.python_module_init;
    file.python_module_init_lines = block.python_module_init_lines;
    file.python_module_functions = block.python_module_functions;
    std::vector<std::string> owned_ops, staying;  // each op once, in order
    std::set<std::string> seen_owned, seen_staying;
    bool keeps = false;
    for (const auto& reg : block.registrations) {
      if (owned(reg)) {
        if (seen_owned.insert(reg.op).second) owned_ops.push_back(reg.op);
      } else {
        keeps = keeps || (reg.kept && ours(reg));
        const std::string name = reg.op.empty() ? "those import could not read" : reg.op;
        if (seen_staying.insert(name).second) staying.push_back(name);
      }
    }
    const bool whole = !owned_ops.empty() && staying.empty() && !block.shares_lines;
    if (block.claims && (block.ns == ns || moved) && !whole && steps.claim_that_stays.empty())
      steps.claim_that_stays = fmt::format("{}:{}-{}: {}", block.file, block.first_line, block.last_line, block.head);
    file.every_block_owned = file.every_block_owned && whole;
    file.stays = file.stays || keeps || (!owned_ops.empty() && (!whole || block.file_has_other_code));
    if (block.registrations.empty() && (block.ns == ns || moved)) {
      file.stays = true;
      steps.unread_blocks.push_back(
          fmt::format("{}:{}-{}: the block {}", block.file, block.first_line, block.last_line, block.head));
    }
    if (owned_ops.empty()) continue;
    // An op whose def (or some impls) goes while an impl of it stays: each list says which part.
    for (std::string& op : staying)
      if (seen_owned.count(op)) op = "the kept impls of " + op;
    for (std::string& op : owned_ops)
      if (seen_staying.count(op)) op += " but not its kept impls";
    const std::string where = block.first_line == block.last_line
                                  ? fmt::format("{}:{}", block.file, block.first_line)
                                  : fmt::format("{}:{}-{}", block.file, block.first_line, block.last_line);
    if (whole) {
      steps.drop_lines.emplace_back(block.file, fmt::format("{}: delete the block {}", where, block.head));
      continue;
    }
    // The lines of the registrations that go (FBGEMM's CPU block: 19 of 20), adjacent ones joined; none where a
    // line holds one that stays as well, or where they would be a list of more than kMostRanges to apply by hand
    // (sglang's, its registrations set apart by blank lines and comments). Both lists are in source order: one
    // walk finds an overlap.
    constexpr size_t kMostRanges = 8;
    std::vector<std::pair<int, int>> going, kept;
    // Whether nothing but filler lines (blank, `//` comments) stands between two lines.
    auto only_filler_between = [&](int after, int before) {
      for (int line = after + 1; line < before; ++line)
        if (!block.filler_lines.count(line)) return false;
      return true;
    };
    for (const auto& reg : block.registrations) {
      const int first = line_of(reg.where);
      auto& into = owned(reg) ? going : kept;
      if (!into.empty() && (into.back().second + 1 >= first || only_filler_between(into.back().second, first)))
        into.back().second = std::max(into.back().second, reg.last_line);
      else
        into.emplace_back(first, reg.last_line);
    }
    // The block's own first and last lines stay with it (its head, its closing brace or `;`): a registration that
    // shares one (RegisterOperators' last `.op(...);`) is no line to delete.
    kept.insert(kept.begin(), {block.first_line, block.first_line});
    kept.emplace_back(block.last_line, block.last_line);
    bool overlap = false;
    for (size_t g = 0, k = 0; g < going.size() && k < kept.size() && !overlap;) {
      overlap = going[g].first <= kept[k].second && kept[k].first <= going[g].second;
      (going[g].second < kept[k].second ? g : k) += 1;
    }
    std::string lines;
    for (const auto& [first, last] : going)
      if (!overlap && going.size() <= kMostRanges)
        lines += (!lines.empty()                                          ? ", "
                  : going.size() == 1 && going[0].first == going[0].second ? ": line "
                                                                           : ": lines ") +
                 (first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
    if (!staying.empty() && staying.size() < owned_ops.size())  // the shorter list: what stays
      steps.drop_lines.emplace_back(
          block.file, fmt::format("{}: in the block {}, delete every registration but those of {}{}", where,
                                  block.head, fmt::join(staying, ", "), lines));
    else
      steps.drop_lines.emplace_back(block.file, fmt::format("{}: in the block {}, delete the registrations of {}{}",
                                                            where, block.head, fmt::join(owned_ops, ", "), lines));
  }
  for (const std::string& file : files) {
    if (fate[file].stays) steps.kept_files.push_back(file);
    else if (fate[file].every_block_owned) steps.dropped_files.push_back(file);
    // Kept in the library, the init would call Python's C API, which the library does not link: the generated
    // package loads it, where the project's Python imported the module.
    // A pybind11 module of the project's own functions stays: it is the project's Python API (build_python_module).
    if (fate[file].stays && !fate[file].python_module_init.empty() && fate[file].python_module_functions)
      steps.python_modules.push_back(
          fmt::format("{}:{}: {}", file, fate[file].python_module_init_lines, fate[file].python_module_init));
    else if (fate[file].stays && !fate[file].python_module_init.empty()) {
      // The module the project's Python imported to load its library (torch-harmonics' `from . import _C`).
      const std::string& init = fate[file].python_module_init;
      const std::string module = init_module(init);
      if (!module.empty()) steps.deleted_inits.emplace_back(file, module);
      steps.drop_lines.emplace_back(
          file, fmt::format("{}:{}: delete {} too, a Python module's init: the generated package loads the library, "
                            "which links no Python{}",
                            file, fate[file].python_module_init_lines, init,
                            module.empty()
                                ? ""
                                : fmt::format(": the project's Python imports the package where it imported {}",
                                              module)));
    }
  }
  // A file dropped whole needs no line of its own.
  std::erase_if(steps.drop_lines, [&](const auto& line) {
    return !fate[line.first].stays && fate[line.first].every_block_owned;
  });
  return steps;
}
}  // namespace opgen::import::detail
