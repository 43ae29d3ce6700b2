#include "model/tags.h"

#include <algorithm>

namespace opgen::model {

bool has_tag(const OpSpec& op, std::string_view tag) {
  return std::any_of(op.tags.begin(), op.tags.end(), [&](const auto& t) { return t.value == tag; });
}

bool partitioned_from_python(const OpSpec& op) {
  return op.cudagraph && op.cudagraph->value == "unsafe" && !has_tag(op, "cudagraph_unsafe");
}

}  // namespace opgen::model
