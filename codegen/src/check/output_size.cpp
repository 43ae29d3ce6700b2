#include "check/output_size.h"

#include <algorithm>

#include <fmt/format.h>

#include "support/diagnostic_codes.h"

namespace opgen::check {

void check_output_size(const OutputTree& tree, const model::Library& lib, const std::filesystem::path& out_dir,
                       Diagnostics& diags) {
  for (const auto& [relative, contents] : tree.files()) {
    if (contents.size() <= kMaxGeneratedFileBytes) continue;
    const std::string where = (out_dir / relative).string();
    auto& d = diags.error(Code::OutputTooLarge, {where, 0, 0},
                          fmt::format("would be {} MB, past the limit of 16 MiB", contents.size() / 1'000'000));
    const model::OpSpec* most = nullptr;
    size_t most_cases = 0;
    for (const auto& op : lib.ops) {
      size_t cases = 0;
      for (const auto& sample : op.samples) {
        size_t product = 1;
        for (const auto& [name, values] : sample.dims) product *= std::max<size_t>(values.size(), 1);
        cases += product;
      }
      if (cases > most_cases) most = &op, most_cases = cases;
    }
    if (most)
      d.notes.push_back({fmt::format("the op with the most sample cases is {}::{} ({}): {}", lib.ns, most->op_name(),
                                     most->display_path, most_cases)});
  }
}

}  // namespace opgen::check
