// `opgen import`: the schema PyTorch infers for `m.def("name", &fn)`, which
// registers no schema string: c10's infer_schema reads fn's C++ signature,
// maps each type, and names the arguments and the returns `_0`, `_1`, ...
// Import reads fn's declaration (in the registering file or the headers it
// includes beside it) and maps its types back through the type table
// (model/types.h, the unstable ABI's columns), so the spec registers the
// schema PyTorch registered.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/registrations.h"
#include "import/source_scan.h"
#include "import/tokens.h"

namespace opgen::import {

// A `using`/`typedef` name's type as written, or nullopt.
using AliasLookup = std::function<std::optional<std::string>(const std::string&)>;

// The schema type of a C++ parameter or return type as written
// ("const at::Tensor&", "std::optional<int64_t>", "torch::Tensor",
// "std::vector<std::vector<int64_t>>"), as c10 infers it: the table's rows
// for the leaves, lists and optionals by structure, names through `alias`;
// nullopt when PyTorch's inference would not take it (or opgen carries no
// such type).
std::optional<std::string> schema_type_of(std::string_view cpp_type, bool is_return, const AliasLookup& alias = {});

// Each identifier followed by `(`, with the indices where it is: one pass per
// file, so that looking up many functions costs what one does.
std::map<std::string, std::vector<size_t>> index_calls(const Tokens& tokens);
// The number of parameters each declaration or definition of a function takes
// (overloads too), `calls` its name's entries in index_calls.
std::vector<size_t> declared_arities(const Tokens& tokens, const std::vector<size_t>& calls);

// Fills in the schema of each op defined without one (ImportedOp::schema_from),
// or says in its needs why it cannot. Then holds each op's kernels to its
// schema: a kernel whose every readable declaration takes another number of
// parameters than the schema has arguments is a need (the generated adapter
// would not compile).
void infer_schemas(ImportResult& found, const Configuration* configuration,
                   const std::vector<std::filesystem::path>& include_dirs = {});

}  // namespace opgen::import
