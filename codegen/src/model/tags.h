// Facts about an op's tags that both the checker and the emitters need.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/spec.h"

namespace opgen::model {

// The first stable-ABI version that can carry tags on `def` (2.12).
inline constexpr uint64_t kStableTagsSince = 0x020c000000000000ULL;
// Tags no stable-ABI release can carry on `def`: its tag conversion
// (torch/csrc/stable/stableivalue_conversions.h, 2.12-2.15) has no case for
// them and aborts the process that loads the library.
inline const std::vector<std::string> kTagsNotInStableAbi = {"inplace", "out"};

bool has_tag(const OpSpec& op, std::string_view tag);
// Whether some stable-ABI release carries `tag` on a def (not kTagsNotInStableAbi).
bool stable_abi_carries(std::string_view tag);

// A stable-ABI op with a tag of kTagsNotInStableAbi is defined by the
// package (torch.library takes every tag), its C++ registering the kernels
// only: its out= or in-place form then reaches opcheck and torch.compile
// with its tag, on every stable target.
bool defined_from_python_for_tags(const OpSpec& op);

// Whether the op reaches Inductor as CUDA-graph-unsafe through its Python
// module rather than a tag: `cudagraph: unsafe` where the op's ABI could not
// register the cudagraph_unsafe tag (after the checker's check_tags).
bool partitioned_from_python(const OpSpec& op);

}  // namespace opgen::model
