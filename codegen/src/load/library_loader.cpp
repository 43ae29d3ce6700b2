#include "load/library_loader.h"

#include <fmt/format.h>

#include "load/host_types_loader.h"
#include "load/spec_loader.h"

namespace opgen::load {

void load_library(model::Library& lib, const std::vector<SpecSource>& sources, Diagnostics& diags) {
  std::vector<std::string> class_names;
  for (const SpecSource& source : sources) {
    if (!is_types_file(source.path)) continue;
    if (!lib.types_path.empty()) {
      diags.error(Code::BadHostClass, {source.display, 0, 0},
                  fmt::format("a second types file: the library's is {}", lib.types_path))
          .notes.push_back({"a library declares its host classes in one _types.yaml"});
      continue;
    }
    lib.types_path = source.display;
    lib.host_classes = load_host_types(source.text, source.display, diags);
    for (const auto& cls : lib.host_classes) class_names.push_back(cls.name.value);
  }
  for (const SpecSource& source : sources) {
    if (is_types_file(source.path)) continue;
    if (auto spec = load_spec_text(source.text, source.display, diags, class_names)) {
      spec->path = source.path;
      lib.ops.push_back(std::move(*spec));
    }
  }
}

}  // namespace opgen::load
