#include "import/infer_schema.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "import/kernel_headers.h"
#include "model/schema.h"
#include "model/types.h"
#include "support/file_io.h"

namespace opgen::import {
namespace {

using Tokens = std::vector<Token>;

// A type as a comparable spelling: no `const`, references or spaces, and
// PyTorch's aliases written one way (torch:: and c10:: names as at::,
// c10::optional as std::optional).
std::string normalize(std::string_view type) {
  std::string s;
  std::string word;
  auto flush = [&] {
    if (word != "const") s += word;
    word.clear();
  };
  for (char c : type) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word.push_back(c);
      continue;
    }
    flush();
    if (c == '&' || std::isspace(static_cast<unsigned char>(c))) continue;
    s.push_back(c);
  }
  flush();
  auto replace_all = [&](std::string_view from, std::string_view to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  };
  replace_all("c10::optional<", "std::optional<");
  replace_all("c10::string_view", "std::string_view");
  replace_all("torch::", "at::");
  replace_all("c10::", "at::");
  if (s == "Tensor") s = "at::Tensor";  // `using at::Tensor;`
  return s;
}


std::string join(const Tokens& tokens, size_t begin, size_t end) {
  std::string text;
  for (size_t i = begin; i < end; ++i) {
    if (!text.empty() && tokens[i].kind == Token::Kind::Identifier &&
        std::isalnum(static_cast<unsigned char>(text.back())))
      text.push_back(' ');
    text += tokens[i].text;
  }
  return text;
}

struct Declaration {
  std::string returns;              // the return type as written
  std::vector<std::string> params;  // each parameter's type as written (name and default dropped)
  std::string where;                // file:line
};

// The declarations and definitions of `name` in `tokens` (overloads too, at
// most kMaxDeclarations): `<type> name(<params>)` at the start of a
// declaration (after `;`, `}`, `{`, `)` of an attribute, or a label).
constexpr size_t kMaxDeclarations = 64;
// `calls` are the indices of `name (` in tokens (index_calls).
std::vector<Declaration> find_declarations(const Tokens& tokens, const std::vector<size_t>& calls,
                                           const std::string& display) {
  std::vector<Declaration> found;
  static const std::set<std::string> kSpecifiers = {"inline", "static", "extern", "constexpr", "TORCH_API",
                                                    "C10_EXPORT", "C10_API", "TORCH_EXTENSION_API"};
  for (size_t i : calls) {
    if (i == 0) continue;
    if (tokens[i - 1].text == "::" || tokens[i - 1].text == "." || tokens[i - 1].text == "->") continue;
    // The return type: back to the start of the declaration.
    size_t start = i;
    int angle = 0;
    while (start > 0) {
      const std::string& t = tokens[start - 1].text;
      if (t == ">") ++angle;
      if (t == "<") --angle;
      if (angle == 0 && (t == ";" || t == "{" || t == "}" || t == ":" || t == "=" || t == "(" || t == "," ||
                         t == "return" || tokens[start - 1].kind == Token::Kind::String))
        break;
      --start;
    }
    if (start > 0 && tokens[start - 1].text == ":" && start > 1 && tokens[start - 2].text == ":") continue;
    // A project's export macro (pyg-lib's `PYG_API int64_t cuda_version();`) is not the type.
    auto export_macro = [&](const Token& t) {
      return t.kind == Token::Kind::Identifier && t.text.find('_') != std::string::npos &&
             std::all_of(t.text.begin(), t.text.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) ||
                                                                           std::isdigit(static_cast<unsigned char>(c)) ||
                                                                           c == '_'; });
    };
    while (start < i && (kSpecifiers.count(tokens[start].text) || (start + 1 < i && export_macro(tokens[start]))))
      ++start;
    if (start >= i || tokens[start].text == "template") continue;  // a call, or a template: not inferred
    Declaration d;
    d.returns = join(tokens, start, i);
    d.where = fmt::format("{}:{}", display, tokens[i].line);
    // The parameters, split at top-level commas.
    size_t j = i + 2;
    int depth = 0;
    size_t param_start = j;
    bool ok = false;
    for (; j < tokens.size(); ++j) {
      const std::string& t = tokens[j].text;
      if (t == "(" || t == "<" || t == "[" || t == "{") ++depth;
      if ((t == ")" || t == ">" || t == "]" || t == "}") && depth > 0) {
        --depth;
        continue;
      }
      if (depth == 0 && (t == "," || t == ")")) {
        size_t end = j;
        for (size_t k = param_start; k < j; ++k)
          if (tokens[k].text == "=") {
            end = k;
            break;
          }
        // Drop the parameter's name: an identifier after the type.
        if (end - param_start >= 2 && tokens[end - 1].kind == Token::Kind::Identifier &&
            tokens[end - 2].text != "::" && tokens[end - 2].text != "<" && tokens[end - 2].text != ",")
          --end;
        if (end > param_start) d.params.push_back(join(tokens, param_start, end));
        param_start = j + 1;
        if (t == ")") {
          ok = true;
          break;
        }
      }
    }
    if (!ok) continue;
    if (d.params.size() == 1 && normalize(d.params[0]) == "void") d.params.clear();
    found.push_back(std::move(d));
    if (found.size() == kMaxDeclarations) break;
  }
  return found;
}

}  // namespace

std::map<std::string, std::vector<size_t>> index_calls(const Tokens& tokens) {
  std::map<std::string, std::vector<size_t>> calls;
  for (size_t i = 0; i + 1 < tokens.size(); ++i)
    if (tokens[i].kind == Token::Kind::Identifier && tokens[i + 1].text == "(") calls[tokens[i].text].push_back(i);
  return calls;
}

std::vector<size_t> declared_arities(const Tokens& tokens, const std::vector<size_t>& calls) {
  std::vector<size_t> arities;
  for (const Declaration& d : find_declarations(tokens, calls, "")) arities.push_back(d.params.size());
  return arities;
}

namespace {

// `using name = type;` and `typedef type name;` in `tokens`: name -> type as written.
void collect_aliases(const Tokens& tokens, std::map<std::string, std::string>& aliases) {
  for (size_t i = 0; i + 3 < tokens.size(); ++i) {
    if (tokens[i].text == "using" && tokens[i + 1].kind == Token::Kind::Identifier && tokens[i + 2].text == "=") {
      size_t end = i + 3;
      while (end < tokens.size() && tokens[end].text != ";") ++end;
      aliases.try_emplace(tokens[i + 1].text, join(tokens, i + 3, end));
    } else if (tokens[i].text == "typedef") {
      size_t end = i + 1;
      while (end < tokens.size() && tokens[end].text != ";" && tokens[end].text != "(") ++end;
      if (end < tokens.size() && tokens[end].text == ";" && end >= i + 3 && tokens[end - 1].kind == Token::Kind::Identifier)
        aliases.try_emplace(tokens[end - 1].text, join(tokens, i + 1, end - 1));
    }
  }
}

}  // namespace

namespace {

// `prefix<inner>` exactly (the last `>` closes the prefix's `<`): inner, else nullopt.
std::optional<std::string> argument_of(const std::string& type, std::string_view prefix) {
  if (!type.starts_with(prefix) || !type.ends_with(">")) return std::nullopt;
  int depth = 0;
  for (size_t i = prefix.size() - 1; i + 1 < type.size(); ++i) {
    if (type[i] == '<') ++depth;
    if (type[i] == '>' && --depth == 0) return std::nullopt;  // closes before the end
  }
  return type.substr(prefix.size(), type.size() - prefix.size() - 1);
}

// A template's arguments, split at top-level commas.
std::vector<std::string> template_arguments(const std::string& inner) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t from = 0;
  for (size_t k = 0; k <= inner.size(); ++k) {
    if (k == inner.size() || (inner[k] == ',' && depth == 0)) {
      parts.push_back(inner.substr(from, k - from));
      from = k + 1;
    } else if (inner[k] == '<') {
      ++depth;
    } else if (inner[k] == '>') {
      --depth;
    }
  }
  return parts;
}

// The schema type c10's getTypePtr gives a C++ type, whether or not opgen carries it: the table's rows for the
// leaves, then by structure (a list for std::vector<T>, c10::List<T> and c10::ArrayRef<T>, an optional for
// std::optional<T>, a Dict for c10::Dict<K, V>, a tuple for std::tuple<A, B...>), names through `alias`.
std::optional<std::string> structural_type(const std::string& cpp_type, const AliasLookup& alias, int depth = 0) {
  static const std::map<std::string, std::string> by_param = [] {
    std::map<std::string, std::string> map;
    for (const auto& row : model::all_type_mappings()) {
      if (!row.unstable_param.empty()) map.try_emplace(normalize(row.unstable_param), std::string(row.schema));
      if (!row.unstable_value.empty()) map.try_emplace(normalize(row.unstable_value), std::string(row.schema));
    }
    return map;
  }();
  if (depth > 16) return std::nullopt;
  std::string type(cpp_type);
  for (int level = 0; level < 8; ++level) {  // through a few `using a = b;` levels
    const std::string key = normalize(type);
    if (auto it = by_param.find(key); it != by_param.end()) return it->second;
    for (std::string_view list : {"std::vector<", "at::List<", "at::ArrayRef<"})
      if (auto element = argument_of(key, list)) {
        auto inner = structural_type(*element, alias, depth + 1);
        return inner ? std::optional(*inner + "[]") : std::nullopt;
      }
    if (auto value = argument_of(key, "std::optional<")) {
      auto inner = structural_type(*value, alias, depth + 1);
      return inner ? std::optional(*inner + "?") : std::nullopt;
    }
    for (std::string_view generic : {"at::Dict<", "std::tuple<"}) {
      const auto inner = argument_of(key, generic);
      if (!inner) continue;
      std::vector<std::string> types;
      for (const std::string& part : template_arguments(*inner)) {
        auto mapped = structural_type(part, alias, depth + 1);
        if (!mapped) return std::nullopt;
        types.push_back(*mapped);
      }
      if (generic == "at::Dict<") {
        if (types.size() != 2) return std::nullopt;
        return fmt::format("Dict({}, {})", types[0], types[1]);
      }
      return fmt::format("({})", fmt::join(types, ", "));
    }
    std::string bare = key;
    if (const size_t colon = bare.rfind("::"); colon != std::string::npos) bare = bare.substr(colon + 2);
    auto aliased = alias ? alias(bare) : std::nullopt;
    if (!aliased) return std::nullopt;
    type = *aliased;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> schema_type_of(std::string_view cpp_type, bool is_return, const AliasLookup& alias) {
  const auto schema = structural_type(std::string(cpp_type), alias);
  if (!schema) return std::nullopt;
  // A schema type opgen carries, and (for a return, which is a value) can return.
  for (const auto& row : model::all_type_mappings())
    if (row.schema == *schema) return is_return && row.unstable_value.empty() ? std::nullopt : schema;
  return std::nullopt;
}

void infer_schemas(ImportResult& found, const Configuration* configuration,
                   const std::vector<std::filesystem::path>& include_dirs) {
  namespace fs = std::filesystem;
  std::map<std::string, std::optional<std::vector<Token>>> scanned;
  auto tokens_of = [&](const fs::path& path) -> const std::optional<std::vector<Token>>& {
    auto [it, fresh] = scanned.try_emplace(path.generic_string());
    if (fresh) {
      std::error_code ec;
      if (fs::is_regular_file(path, ec))
        if (auto text = read_file(path)) it->second = scan_cpp(*text, configuration).tokens;
    }
    return it->second;
  };
  // One search per (file, function): many ops naming one function, or a file
  // that spells a name a million times, cost what one search costs.
  std::map<std::pair<std::string, std::string>, std::vector<Declaration>> declarations;
  std::map<std::string, std::map<std::string, std::vector<size_t>>> calls_by_place;  // index_calls, once per file
  auto declarations_in = [&](const fs::path& place, const std::vector<Token>& tokens,
                             const std::string& fn) -> const std::vector<Declaration>& {
    auto [it, fresh] = declarations.try_emplace({place.generic_string(), fn});
    if (fresh) {
      auto [calls, indexed] = calls_by_place.try_emplace(place.generic_string());
      if (indexed) calls->second = index_calls(tokens);
      if (auto at = calls->second.find(fn); at != calls->second.end())
        it->second = find_declarations(tokens, at->second, place.generic_string());
    }
    return it->second;
  };
  std::map<std::string, std::map<std::string, std::string>> aliases_by_place;  // read once per file
  auto aliases_of = [&](const fs::path& place, const std::vector<Token>& tokens) -> const auto& {
    auto [it, fresh] = aliases_by_place.try_emplace(place.generic_string());
    if (fresh) collect_aliases(tokens, it->second);
    return it->second;
  };
  for (ImportedOp& op : found.ops) {
    if (!op.schema.empty() || op.schema_from.empty()) continue;
    const std::string fn = declared_name(op.schema_from);
    const fs::path file = op.schema_from_file;
    std::vector<fs::path> places = {file};
    for (const auto& include : op.schema_from_includes)
      if (auto path = find_include(file.parent_path(), include, include_dirs)) places.push_back(*path);
    std::optional<Declaration> declaration;
    std::optional<Declaration> differing;  // another declaration with other types (an #if branch of another build)
    std::vector<const std::map<std::string, std::string>*> alias_maps;  // the places' `using`/`typedef` names
    auto signature = [](const Declaration& d) {
      std::vector<std::string> types = {normalize(d.returns)};
      for (const auto& param : d.params) types.push_back(normalize(param));
      return types;
    };
    for (const fs::path& place : places) {
      const auto& tokens = tokens_of(place);
      if (!tokens) continue;
      alias_maps.push_back(&aliases_of(place, *tokens));
      for (const Declaration& d : declarations_in(place, *tokens, fn)) {
        if (!declaration) declaration = d;
        else if (!differing && signature(d) != signature(*declaration)) differing = d;
      }
    }
    if (declaration && differing) {
      // Which one PyTorch infers from is the build's choice (sglang's header declares its
      // custom all-reduce twice, under #ifdef USE_ROCM and #else): read that build.
      op.needs.push_back(fmt::format(
          "{}: no schema: PyTorch infers it from the C++ signature of {}, which is declared with other types at {} "
          "and at {} (#if branches of two builds?): import one build configuration with --define (the macros its "
          "#if tests)",
          op.where, op.schema_from, declaration->where, differing->where));
      continue;
    }
    // A type through the aliases it is spelled with (a few levels: `using a = b;`).
    const AliasLookup alias = [&](const std::string& name) -> std::optional<std::string> {
      for (const auto* aliases : alias_maps)
        if (auto it = aliases->find(name); it != aliases->end()) return it->second;
      return std::nullopt;
    };
    auto map_type = [&](const std::string& written, bool is_return) {
      return schema_type_of(written, is_return, alias);
    };
    auto need = [&](const std::string& why) {
      op.needs.push_back(fmt::format("{}: no schema: PyTorch infers it from the C++ signature of {}, and {}: write "
                                     "it as the spec's 'schema'",
                                     op.where, op.schema_from, why));
    };
    // A lambda forwarding to the function (ImportedOp::schema_from_params): PyTorch reads the lambda's signature,
    // the function's return type where the lambda writes none.
    const bool lambda_signature = op.schema_from_params && !op.schema_from_returns.empty();
    if (!declaration && !lambda_signature) {
      need("import found no declaration of it in the file or the headers it includes (beside it, or under --include-dir)");
      continue;
    }
    const std::vector<std::string>& params = op.schema_from_params ? *op.schema_from_params : declaration->params;
    const std::string where = lambda_signature || (op.schema_from_params && params.size()) ? op.where : declaration->where;
    std::vector<std::string> args;
    std::string unmapped;
    for (size_t i = 0; i < params.size() && unmapped.empty(); ++i) {
      if (auto type = map_type(params[i], false))
        args.push_back(fmt::format("{} _{}", *type, i));
      else
        unmapped = params[i];
    }
    std::vector<std::string> returns;
    const std::string ret = normalize(op.schema_from_returns.empty() ? declaration->returns : op.schema_from_returns);
    if (unmapped.empty() && ret != "void") {
      std::vector<std::string> parts;
      if (const auto inner = argument_of(ret, "std::tuple<")) {  // a tuple returns its elements
        parts = template_arguments(*inner);
      } else {
        parts.push_back(ret);
      }
      for (size_t i = 0; i < parts.size() && unmapped.empty(); ++i) {
        if (auto type = map_type(parts[i], true))
          returns.push_back(fmt::format("{} _{}", *type, i));
        else
          unmapped = parts[i];
      }
    }
    if (!unmapped.empty()) {
      need(fmt::format("its type '{}' ({}) has no schema type in opgen's table", unmapped, where));
      continue;
    }
    const std::string result = returns.size() == 1 ? returns[0] : fmt::format("({})", fmt::join(returns, ", "));
    op.schema = fmt::format("{}({}) -> {}", op.name, fmt::join(args, ", "), result);
    op.schema_inferred_from = where;
    // def("name", &fn) registers fn with no key, which PyTorch files under CompositeImplicitAutograd.
    op.kernels.push_back({op.schema_from_key, op.schema_from, op.where, op.guard});
    if (op.includes.empty()) {
      op.includes = op.schema_from_includes;
      op.includes_from = op.schema_from_file;
    }
  }

  // "Imported with their kernels as they are" must build: the generated
  // adapter calls each kernel with the schema's arguments, so a kernel whose
  // every declaration import can read takes another number of parameters
  // would not compile. Said here, with the declaration, rather than by the
  // build. (Where no declaration is readable, the build is the check.)
  // A boxed kernel (the stable ABI's `void f(StableIValue* stack, uint64_t,
  // uint64_t)`, FlashAttention's `boxed_mha_fwd`) takes the stack, not the
  // arguments: its impl registers it as it is, so the impl stays in the
  // project's build.
  std::map<std::string, RegistrationBlock::Registration*> registration_at;  // by file:line of the call
  for (auto& block : found.blocks)
    for (auto& registration : block.registrations) registration_at.emplace(registration.where, &registration);
  for (ImportedOp& op : found.ops) {
    if (op.schema.empty() || op.kernels.empty() || op.includes_from.empty()) continue;
    const auto parsed = model::parse_schema(op.schema);
    const auto* schema = std::get_if<model::FunctionSchema>(&parsed);
    if (!schema) continue;  // opgen check reports it
    const fs::path file = op.includes_from;
    std::vector<fs::path> places = {file};
    for (const auto& include : op.includes)
      if (auto path = find_include(file.parent_path(), include, include_dirs)) places.push_back(*path);
    std::erase_if(op.kernels, [&](const ImportedKernel& kernel) {
      if (kernel.python) return false;
      std::vector<std::string> seen;
      bool fits = false;
      std::optional<std::string> boxed;  // where a boxed declaration of it is
      for (const fs::path& place : places) {
        const auto& tokens = tokens_of(place);
        if (!tokens) continue;
        for (const Declaration& d : declarations_in(place, *tokens, declared_name(kernel.function))) {
          if (!d.params.empty() && normalize(d.params[0]).find("StableIValue") != std::string::npos) boxed = d.where;
          if (d.params.size() == schema->arguments.size()) fits = true;
          seen.push_back(fmt::format("{} ({} parameter{})", d.where, d.params.size(), d.params.size() == 1 ? "" : "s"));
        }
      }
      if (boxed && !fits) {
        const std::string why = fmt::format(
            "its kernel {} is boxed, it takes PyTorch's stack of values ({}), and the generated bindings call a "
            "kernel with the schema's arguments",
            kernel.function, *boxed);
        const auto registration = registration_at.find(kernel.where);
        if (registration == registration_at.end() || registration->second->def) {
          op.kernel_refused = true;
          op.needs.push_back(fmt::format("{}: {}: name the typed function it unboxes into", kernel.where, why));
          return true;
        }
        registration->second->kept = true;
        op.kept_impls.push_back(fmt::format("{} ({}; {}: the impl registers it as it is; name the typed function "
                                            "it unboxes into to bind it)",
                                            kernel.dispatch_key, kernel.where, why));
        return true;
      }
      if (!fits && !seen.empty())
        op.needs.push_back(fmt::format("{}: the {} kernel {} takes another number of parameters than the schema's {} "
                                       "argument{} ({}): the generated bindings would not compile; fix the schema or "
                                       "the kernel",
                                       kernel.where, kernel.dispatch_key, kernel.function, schema->arguments.size(),
                                       schema->arguments.size() == 1 ? "" : "s", fmt::join(seen, ", ")));
      return false;
    });
  }
}

}  // namespace opgen::import
