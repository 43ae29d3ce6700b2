#include "check/tags.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "check/checker.h"
#include "model/tags.h"
#include "model/types.h"
#include "support/diagnostic_codes.h"

namespace opgen::check {

namespace {

// torch.Tag's names that an op's def may carry (tags.yaml, 2.10-2.15).
const std::vector<std::string> kTags = {
    "core", "cudagraph_unsafe", "data_dependent_output", "dynamic_output_shape", "flexible_layout",
    "inplace", "maybe_aliasing_or_mutating", "needs_contiguous_strides", "needs_exact_strides", "out",
    "needs_fixed_stride_order", "nondeterministic_bitwise", "nondeterministic_seeded", "pointwise",
    "pt2_compliant_tag", "reduction"};

// The layout tags: Inductor applies one (the most restrictive of those given,
// torch/_library/utils.py tags_by_priority), so a second one is dead.
const std::vector<std::string> kLayoutTags = {"needs_exact_strides", "needs_contiguous_strides",
                                              "needs_fixed_stride_order", "flexible_layout"};


bool calls_dynamic(const model::Expr& e) {
  if (e.kind == model::Expr::Kind::Call && !e.operands.empty() && e.operands[0]->kind == model::Expr::Kind::Name &&
      e.operands[0]->text == "dynamic")
    return true;
  for (const auto& child : e.operands)
    if (child && calls_dynamic(*child)) return true;
  for (const auto& kw : e.keywords)
    if (kw.value && calls_dynamic(*kw.value)) return true;
  for (const auto* child : {e.index.get(), e.slice_lower.get(), e.slice_upper.get()})
    if (child && calls_dynamic(*child)) return true;
  return false;
}

// Warnings: a tag PyTorch needs and the spec lacks, or one that only costs.
void check_tag_advice(const model::OpSpec& op, Diagnostics& diags) {
  const auto generator = std::find_if(op.schema.arguments.begin(), op.schema.arguments.end(), [](const auto& a) {
    const std::string key = model::type_key(*a.type);
    return key == "Generator" || key == "Generator?";
  });
  if (generator != op.schema.arguments.end() && !model::has_tag(op, "nondeterministic_seeded"))
    diags.warning(Code::GeneratorWithoutSeededTag, op.schema_at(generator->column),
                  fmt::format("'{}' is a Generator, but the op has no nondeterministic_seeded tag: torch.compile's "
                              "partitioner may recompute it in the backward pass and draw other numbers",
                              generator->name))
        .notes.push_back({"add 'tags: [nondeterministic_seeded]'"});
  const bool dynamic_fake = std::any_of(op.lets.begin(), op.lets.end(),
                                        [](const auto& let) { return let.rule.expr && calls_dynamic(*let.rule.expr); });
  if (!dynamic_fake) return;
  for (const auto& tag : op.tags)
    if (tag.value == "dynamic_output_shape" || tag.value == "data_dependent_output")
      diags.warning(Code::UnneededDynamicShapeTag, tag.loc,
                    fmt::format("tag '{}' is not needed: the fake sizes its output with dynamic(); the tag only "
                                "keeps FakeTensor from caching the op", tag.value))
          .notes.push_back({"drop it"});
}

}  // namespace

const std::vector<std::string>& known_tags() { return kTags; }

void check_tags(const model::Library& lib, model::OpSpec& op, Diagnostics& diags) {
  std::set<std::string> seen;
  const model::Located<std::string>* layout = nullptr;
  for (const auto& tag : op.tags) {
    if (std::find(kTags.begin(), kTags.end(), tag.value) == kTags.end()) {
      auto& d = diags.error(Code::UnknownTag, tag.loc, fmt::format("unknown tag '{}'", tag.value));
      if (auto guess = closest_match(tag.value, kTags); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    } else if (!seen.insert(tag.value).second) {
      diags.error(Code::DuplicateTag, tag.loc, fmt::format("tag '{}' is listed twice", tag.value));
    } else if (std::find(kLayoutTags.begin(), kLayoutTags.end(), tag.value) != kLayoutTags.end()) {
      if (layout) {
        diags.error(Code::SeveralLayoutTags, tag.loc,
                    fmt::format("layout tags '{}' and '{}': Inductor applies only the most restrictive of them",
                                layout->value, tag.value))
            .notes.push_back({"keep one: needs_exact_strides (the default of custom ops), needs_fixed_stride_order, "
                              "needs_contiguous_strides or flexible_layout"});
      }
      layout = &tag;
    }
  }
  // An op defined in Python (every kernel Python, around its flat C++ op, or
  // for a tag the stable ABI cannot carry) gets its tags from torch.library;
  // a flat op on such a target gets none.
  const bool stable_without_tags = op.abi.value == model::Abi::Stable && lib.torch_target_version < model::kStableTagsSince &&
                                   !op.defined_in_python() && !op.wraps_flat_op() &&
                                   !model::defined_from_python_for_tags(op);
  if (!op.tags.empty() && stable_without_tags) {
    auto& d = diags.error(Code::TagsNeedNewerStableAbi, op.tags.front().loc,
                          fmt::format("tags need the stable ABI of PyTorch {} or newer; the target is {}",
                                      model::format_torch_version(model::kStableTagsSince),
                                      model::format_torch_version(lib.torch_target_version)));
    d.notes.push_back({"raise the library's TORCH_TARGET_VERSION, or use 'abi: unstable' for this op"});
    if (model::has_tag(op, "cudagraph_unsafe"))
      d.notes.push_back({"for cudagraph_unsafe alone, 'cudagraph: unsafe' works on this target (Inductor's "
                         "partition list, from Python)"});
  }
  check_tag_advice(op, diags);
  if (!op.cudagraph) return;
  const std::string& value = op.cudagraph->value;
  if (value != "safe" && value != "unsafe") {
    diags.error(Code::BadCudagraph, op.cudagraph->loc,
                fmt::format("'cudagraph' is 'safe' or 'unsafe', not '{}'", value))
        .notes.push_back({"unsafe: Inductor runs the op outside CUDA graphs (host synchronization, host state read "
                          "at capture, memory outside the caching allocator); safe: it may be captured"});
    return;
  }
  if (value == "safe" && model::has_tag(op, "cudagraph_unsafe")) {
    diags.error(Code::CudagraphContradictsTags, op.cudagraph->loc,
                "'cudagraph: safe', but 'tags' has cudagraph_unsafe")
        .notes.push_back({"drop the tag, or say 'cudagraph: unsafe'"});
    return;
  }
  if (value == "unsafe" && !stable_without_tags && !model::has_tag(op, "cudagraph_unsafe"))
    op.tags.push_back({"cudagraph_unsafe", op.cudagraph->loc});
}


}  // namespace opgen::check
