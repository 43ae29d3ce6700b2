#include "model/tags.h"

#include <algorithm>

namespace opgen::model {

bool has_tag(const OpSpec& op, std::string_view tag) {
  return std::any_of(op.tags.begin(), op.tags.end(), [&](const auto& t) { return t.value == tag; });
}

bool stable_abi_carries(std::string_view tag) {
  return std::find(kTagsNotInStableAbi.begin(), kTagsNotInStableAbi.end(), tag) == kTagsNotInStableAbi.end();
}

bool defined_from_python_for_tags(const OpSpec& op) {
  if (op.abi.value != Abi::Stable || op.defined_in_python() || op.wraps_flat_op()) return false;
  return std::any_of(op.tags.begin(), op.tags.end(), [](const auto& tag) { return !stable_abi_carries(tag.value); });
}

bool partitioned_from_python(const OpSpec& op) {
  return op.cudagraph && op.cudagraph->value == "unsafe" && !has_tag(op, "cudagraph_unsafe");
}

}  // namespace opgen::model
