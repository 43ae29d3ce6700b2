// `opgen compile`: the compiler launcher opgen_add_library puts in front of
// every compile of an op library. When a kernel's definition no longer
// matches the declaration in its generated header, GCC says only "'...'
// should have been declared inside 'ns::kernels'" and clang "out-of-line
// definition of '...' does not match any declaration": neither names the
// expected signature nor where it comes from. The launcher passes the
// compiler's output through unchanged and, when the compile failed for
// that reason, adds a note with the generated declaration, its header and
// the spec it was generated from.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace opgen {

// The notes for compiler output `diagnostics` (GCC's or clang's, nvcc's host
// compiler included), given the generated headers' root (<gen>/include,
// holding <ns>/kernels/<op>.h); empty when no kernel mismatch is reported.
std::vector<std::string> kernel_mismatch_notes(std::string_view diagnostics,
                                               const std::filesystem::path& kernel_headers);

// Runs `command` (a compiler and its arguments, or a launcher such as ccache
// in front of one), its stderr passed through as it comes; on failure, adds
// kernel_mismatch_notes to stderr. Returns the command's exit status.
int run_compiler_with_notes(const std::vector<std::string>& command, const std::filesystem::path& kernel_headers);

}  // namespace opgen
