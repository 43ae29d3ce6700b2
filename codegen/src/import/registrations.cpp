#include "import/registrations.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "import/python_fake.h"
#include "import/python_schema.h"
#include "import/source_scan.h"
#include "import/tokens.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"
#include "support/diagnostic_codes.h"
#include "support/file_io.h"

namespace opgen::import {

namespace {

// `torch::kCUDA`, `c10::DispatchKey::CUDA`, `kCUDA`, `"cuda"` -> the key's
// name (model/dispatch_keys.h); "" when it is none a kernel can be
// registered for (a typo, or a key no call reaches).
std::string dispatch_key(const std::string& written) {
  std::string name = written;
  if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  if (name.size() > 1 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1]))) name = name.substr(1);
  static const std::map<std::string, std::string> device_types = {
      {"cpu", "CPU"}, {"cuda", "CUDA"}, {"xpu", "XPU"}, {"mps", "MPS"}, {"meta", "Meta"}};
  if (auto it = device_types.find(name); it != device_types.end()) return it->second;
  if (const std::string_view key = model::cpp_enum_alias(name); !key.empty()) name = key;  // CatchAll, Autocast...
  const model::DispatchKey* key = model::find_dispatch_key(name);
  if (!key || key->kind == model::DispatchKeyKind::Unreached) return "";
  return std::string(model::registered_key(*key));  // Undefined: CompositeImplicitAutograd
}

// The key each of FBGEMM's DISPATCH_TO_<SUFFIX>(name, fn) macros registers at, as its
// fbgemm_gpu/utils/ops_utils.h spells it (AUTOGRAD_META's `AutogradMETA` is no key of
// c10's: such an impl is reported as one); a suffix it does not define is read as a key.
std::string fbgemm_dispatch_to_key(const std::string& suffix) {
  static const std::map<std::string, std::string, std::less<>> keys = {
      {"CUDA", "CUDA"},         {"CPU", "CPU"},           {"QUANTIZED_CPU", "QuantizedCPU"},
      {"META", "Meta"},         {"ALL", "CatchAll"},      {"AUTOGRAD", "Autograd"},
      {"AUTOGRAD_CPU", "AutogradCPU"}, {"AUTOGRAD_CUDA", "AutogradCUDA"}, {"AUTOGRAD_META", "AutogradMETA"}};
  const auto it = keys.find(suffix);
  return it == keys.end() ? suffix : it->second;
}

// A kept impl whose key is none a kernel is registered for, as the report names it.
std::string unbound_key_impl(const std::string& written, const std::string& where) {
  const model::DispatchKey* key = model::find_dispatch_key(written);
  if (key && key->kind == model::DispatchKeyKind::Unreached)
    return fmt::format("{} ({}; no call reaches a kernel at that key: use {})", written, where, key->instead);
  return fmt::format("{} ({}; not the name of a dispatch key)", written, where);
}

// The function of an impl: `&fn`, `fn`, `TORCH_FN(fn)`, `&ns::fn<T>`; nullopt
// for what is not a plain function (a boxed one, a lambda, a call).
std::optional<std::string> kernel_function(const Tokens& tokens, std::pair<size_t, size_t> range) {
  size_t begin = range.first, end = range.second;  // not a structured binding: the lambda below captures them
  // torch::dispatch(KEY, fn): the key is the caller's to read.
  if (end - begin >= 6 && is(tokens[begin], "torch") && is(tokens[begin + 2], "dispatch") && is(tokens[begin + 3], "(") &&
      is(tokens[end - 1], ")")) {
    size_t comma = begin + 4;
    while (comma < end && !is(tokens[comma], ",")) ++comma;
    begin = comma + 1;
    end -= 1;
  }
  // TORCH_FN(fn), and the stable ABI's TORCH_BOX(&fn), which boxes a plain function.
  if (end - begin >= 3 && (is(tokens[begin], "TORCH_FN") || is(tokens[begin], "TORCH_BOX")) &&
      is(tokens[begin + 1], "(") && is(tokens[end - 1], ")")) {
    begin += 2;
    end -= 1;
  }
  // TORCH_FN((fn<A, B>)): the parentheses a macro argument needs around a template's commas
  // (torchvision's autocast kernels), each pair only where it encloses the whole function.
  auto enclosing = [&] {
    if (end - begin < 2 || !is(tokens[begin], "(") || !is(tokens[end - 1], ")")) return false;
    int depth = 0;
    for (size_t i = begin; i < end; ++i) {
      if (is(tokens[i], "(")) ++depth;
      if (is(tokens[i], ")") && --depth == 0) return i == end - 1;
    }
    return false;
  };
  while (enclosing()) {
    ++begin;
    --end;
  }
  if (begin < end && is(tokens[begin], "&")) ++begin;
  if (begin == end) return std::nullopt;
  std::string name;
  int angle = 0;
  for (size_t i = begin; i < end; ++i) {
    const Token& t = tokens[i];
    if (is(t, "<")) ++angle;
    if (is(t, ">")) --angle;
    const bool ok = t.kind == Token::Kind::Identifier || is(t, "::") ||
                    (angle > 0 && (t.kind == Token::Kind::Number || is(t, ",") || is(t, "*") || is(t, "&"))) ||
                    is(t, "<") || is(t, ">");
    if (!ok) return std::nullopt;
    if (is(t, ",")) {
      name += ", ";
      continue;
    }
    name += t.text;
  }
  if (angle != 0) return std::nullopt;
  return name;
}

std::string abi_text(model::Abi abi) { return abi == model::Abi::Stable ? "stable ABI" : "unstable ABI"; }

// "ns::name.overload" or "name.overload" -> (ns, name)
std::pair<std::string, std::string> split_qualified(const std::string& text) {
  std::string head = text.substr(0, text.find('('));
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) head.pop_back();
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.front()))) head.erase(head.begin());
  if (const size_t colon = head.find("::"); colon != std::string::npos)
    return {head.substr(0, colon), head.substr(colon + 2)};
  return {"", head};
}

class Collector {
 public:
  ImportResult result;
  std::map<std::string, std::vector<size_t>> ops_by_name;

  ImportedOp& op(const std::string& ns, const std::string& name, const std::string& where) {
    auto& same_name = ops_by_name[name];  // indices into result.ops: one lookup, however many ops
    for (size_t index : same_name) {
      ImportedOp& existing = result.ops[index];
      if (existing.ns == ns || existing.ns.empty() || ns.empty()) {
        if (existing.ns.empty()) existing.ns = ns;
        return existing;
      }
    }
    same_name.push_back(result.ops.size());
    result.ops.push_back({});
    result.ops.back().ns = ns;
    result.ops.back().name = name;
    result.ops.back().where = where;
    return result.ops.back();
  }

  const Configuration* configuration = nullptr;

  // The namespace a macro spells, in a configuration: a name -D defines
  // (`TORCH_EXTENSION_NAME=_C`, as vLLM's and kernel-builder's builds pass
  // it), and CONCAT(a, b) of such names and plain words (vLLM's
  // core/registration.h and kernel-builder's registration.h define
  // `_CONCAT(A, B)` as `A##B` and `CONCAT(A, B)` as `_CONCAT(A, B)`).
  // nullopt for any other macro, or where no configuration defines it.
  std::optional<std::string> expanded_namespace(const Tokens& tokens, TokenRange range, int depth = 0) const {
    if (!configuration || depth > 16 || range.first >= range.second) return std::nullopt;
    const Token& first = tokens[range.first];
    if (range.second - range.first == 1 && first.kind == Token::Kind::Identifier) {
      const auto defined = configuration->defines.find(first.text);
      if (defined == configuration->defines.end()) return depth > 0 ? std::optional(first.text) : std::nullopt;
      return model::is_identifier(defined->second) ? std::optional(defined->second) : std::nullopt;
    }
    if ((is(first, "CONCAT") || is(first, "_CONCAT")) && range.first + 1 < range.second &&
        is(tokens[range.first + 1], "(")) {
      size_t end = 0;
      const auto args = call_arguments(tokens, range.first + 1, &end);
      if (end != range.second || args.size() != 2) return std::nullopt;
      auto a = expanded_namespace(tokens, args[0], depth + 1);
      auto b = expanded_namespace(tokens, args[1], depth + 1);
      if (!a || !b || !model::is_identifier(*a + *b)) return std::nullopt;
      return *a + *b;
    }
    return std::nullopt;
  }

  void cpp(const SourceFile& file) {
    const ScannedSource scanned = scan_cpp(file.text, configuration);
    const Tokens& tokens = scanned.tokens;
    for (const auto& note : scanned.notes) result.notes.push_back(fmt::format("{}: {}", file.display, note));
    for (const auto& [macro, line] : scanned.registering_macros)
      result.notes.push_back(fmt::format("{}:{}: the macro {} registers ops; what its uses expand to is not imported: "
                                         "write those specs by hand", file.display, line, macro));
    auto where = [&](size_t i) { return fmt::format("{}:{}", file.display, tokens[i].line); };
    auto guard = [&](size_t i) { return tokens[i].guard < 0 ? std::string() : scanned.guards[tokens[i].guard]; };
    auto set_includes = [&](ImportedOp& o) {
      o.includes = scanned.quoted_includes;
      o.includes_from = file.display;
    };
    // The C++ namespaces around each registration block: a kernel named
    // unqualified in a block inside `namespace foo {` is foo's, and the
    // generated bindings (in another namespace) must call it foo::kernel;
    // one in an anonymous namespace has internal linkage, and no other file
    // can call it. `scopes` holds, per open brace, the namespace it opens
    // ("" anonymous) or nullopt for any other brace; `scanned_to` is how far
    // it has read (the loop below only moves forward).
    std::vector<std::optional<std::string>> scopes;
    size_t scanned_to = 0;
    // Functions of this file with internal linkage (declared in an anonymous
    // namespace, or `static` at namespace scope): name -> file:line. A block
    // outside the anonymous namespace still names them unqualified (pyg-lib,
    // torchvision: kernels in `namespace {`, the TORCH_LIBRARY_IMPL after it).
    std::map<std::string, std::string> internal;
    bool static_pending = false;  // a `static` begins the namespace-scope declaration being read
    bool initializer = false;     // past its `=`: what is called there is not declared there
    auto at_namespace_scope = [&] {
      return std::all_of(scopes.begin(), scopes.end(), [](const auto& s) { return s.has_value(); });
    };
    auto scope_at = [&](size_t i) {
      for (; scanned_to < i; ++scanned_to) {
        const Token& t = tokens[scanned_to];
        if (is(t, ";") || is(t, "{") || is(t, "}")) static_pending = initializer = false;
        if (is(t, "=") && at_namespace_scope()) initializer = true;
        if (is(t, "}")) {
          if (!scopes.empty()) scopes.pop_back();
        } else if (is(t, "{")) {
          scopes.push_back(std::nullopt);
        } else if (is(t, "static") && at_namespace_scope()) {
          static_pending = true;
        } else if (t.kind == Token::Kind::Identifier && scanned_to + 1 < tokens.size() &&
                   is(tokens[scanned_to + 1], "(") && at_namespace_scope() && !initializer &&
                   (static_pending ||
                    std::any_of(scopes.begin(), scopes.end(), [](const auto& s) { return s && s->empty(); }))) {
          internal.try_emplace(t.text, fmt::format("{}, {}:{}", static_pending ? "'static'" : "an anonymous namespace",
                                                   file.display, t.line));
        } else if (const auto opened = namespace_opened(tokens, scanned_to)) {
          scopes.push_back(opened->first);
          scanned_to = opened->second;
        }
      }
      std::string path;
      bool anonymous = false;
      for (const auto& scope : scopes) {
        if (!scope) continue;
        if (scope->empty()) anonymous = true;
        else path += (path.empty() ? "" : "::") + *scope;
      }
      return std::pair{path, anonymous};
    };
    std::string block_scope;   // the namespace path around the block being read
    bool block_anonymous = false;
    bool block_stable = false;  // a STABLE_TORCH_LIBRARY... block
    // A kernel of the block being read, as the generated bindings must name it.
    // A kernel with internal linkage cannot be called from the generated
    // bindings (another file): its impl stays in the project's build, as
    // impls for keys no kernel is registered for do, and the op is not blocked.
    // `def`: the kernel of a def (`m.def(schema, &fn)`), which cannot stay in the project's build without its def.
    auto bind = [&](ImportedOp& o, const std::string& key, const std::string& fn, size_t k, bool def = false) {
      auto refuse_def = [&](const std::string& why) {
        o.kernel_refused = true;
        o.needs.push_back(fmt::format("{}: {}: a def cannot be split from its kernel; declare the kernel in a header, "
                                      "with external linkage, and name that under 'kernels: include'",
                                      where(k), why));
      };
      if (block_stable && !model::stable_abi_serves(model::find_dispatch_key(key)->kind)) {
        if (def) return refuse_def(fmt::format("its kernel {} is a stable-ABI kernel at a key that redispatches, "
                                               "which opgen binds on the unstable ABI only", fn));
        // The project's stable-ABI kernel does its part and calls the op again from the top; the
        // spec could only bind it on the unstable ABI (E0824).
        o.kept_impls.push_back(fmt::format("{} ({}; a stable-ABI kernel at a key that redispatches, which opgen "
                                           "binds on the unstable ABI only)", key, where(k)));
        return;
      }
      const auto declared = internal.find(declared_name(fn));
      if ((block_anonymous && !fn.starts_with("::")) || declared != internal.end()) {
        if (def)
          return refuse_def(fmt::format("its kernel {} has internal linkage ({})", fn,
                                        declared != internal.end() ? declared->second
                                                                   : "registered in an anonymous namespace"));
        o.kept_impls.push_back(fmt::format("{} ({}; its kernel {} has internal linkage: {})", key, where(k), fn,
                                           declared != internal.end() ? declared->second
                                                                      : "registered in an anonymous namespace"));
        o.kept_for_internal_linkage = true;
        return;
      }
      const std::string qualified = fn.starts_with("::") || block_scope.empty() ? fn : block_scope + "::" + fn;
      o.kernels.push_back({key, qualified, where(k), guard(k), /*python=*/false, block_stable});
      set_includes(o);
    };
    const size_t first_block = result.blocks.size();
    std::vector<TokenRange> outside_blocks;  // the tokens between the blocks
    size_t next_outside = 0;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const Token& t = tokens[i];
      if (t.kind != Token::Kind::Identifier || !is(tokens[i + 1], "(")) continue;
      if (t.text == "FBGEMM_OP_DISPATCH") {
        // FBGEMM's FBGEMM_OP_DISPATCH(KEY, "name", fn), which its fbgemm_gpu/utils/ops_utils.h
        // defines as TORCH_LIBRARY_IMPL(fbgemm, KEY, m) { m.impl(name, torch::dispatch(KEY, TORCH_FN(fn))); }:
        // a block of one impl.
        size_t call_end = 0;
        const auto args = call_arguments(tokens, i + 1, &call_end);
        const auto name = args.size() == 3 ? string_argument(tokens, args[1]) : std::nullopt;
        if (!name) continue;
        std::tie(block_scope, block_anonymous) = scope_at(i);
        block_stable = false;
        ++result.registrations;
        auto [qualified_ns, op_name] = split_qualified(*name);
        ImportedOp& o = op(qualified_ns.empty() ? "fbgemm" : qualified_ns, op_name, where(i));
        const size_t kept_before = o.kept_impls.size();
        const std::string written = text_of(tokens, args[0]);
        const std::string key = dispatch_key(written);
        if (const auto fn = kernel_function(tokens, args[2]); !key.empty() && fn)
          bind(o, key, *fn, i);
        else if (key.empty())
          o.kept_impls.push_back(unbound_key_impl(written, where(i)));
        result.blocks.push_back({file.display, t.line, tokens[call_end - 1].line, text_of(tokens, {i, call_end}),
                                 {{o.ns, o.name, where(i), tokens[call_end - 1].line, false,
                                   o.kept_impls.size() > kept_before}},
                                 false,
                                 o.ns});
        outside_blocks.emplace_back(next_outside, i);
        next_outside = call_end;
        i = call_end - 1;
        continue;
      }
      const bool stable = t.text.starts_with("STABLE_");
      std::string block = stable ? t.text.substr(7) : t.text;
      if (block.ends_with("_EXPAND")) block = block.substr(0, block.size() - 7);
      const bool def_block = block == "TORCH_LIBRARY" || block == "TORCH_LIBRARY_FRAGMENT";
      const bool impl_block = block == "TORCH_LIBRARY_IMPL";
      if (!def_block && !impl_block) continue;
      size_t head_end = 0;
      const auto head = call_arguments(tokens, i + 1, &head_end);
      if (head.size() != (impl_block ? 3u : 2u) || head_end >= tokens.size() || !is(tokens[head_end], "{")) continue;
      std::tie(block_scope, block_anonymous) = scope_at(i);
      block_stable = stable;
      std::string ns = text_of(tokens, head[0]);
      if (t.text.ends_with("_EXPAND") || !model::is_identifier(ns) || ns == "TORCH_EXTENSION_NAME") {
        if (auto expanded = expanded_namespace(tokens, head[0])) {
          ns = *expanded;
        } else {
          result.namespace_macros.push_back(fmt::format("{} ('{}')", where(i), ns));
          ns.clear();
        }
      }
      if (block == "TORCH_LIBRARY") result.claimed_namespaces.insert(ns);
      const std::string var = text_of(tokens, head.back());
      const std::string block_key = impl_block ? dispatch_key(text_of(tokens, head[1])) : "";
      const size_t body_end = matching(tokens, head_end);
      const size_t block_index = result.blocks.size();
      result.blocks.push_back({file.display, tokens[i].line, tokens[std::min(body_end, tokens.size()) - 1].line,
                               text_of(tokens, {i, head_end}), {}, false, ns});
      // What a registration call became: kept when it added a kept impl.
      auto record = [&](const ImportedOp* o, size_t kept_before, size_t k, size_t call_end, bool def = false) {
        const int last_line = tokens[std::min(call_end, tokens.size()) - 1].line;
        result.blocks[block_index].registrations.push_back(
            {o ? o->ns : ns, o ? o->name : "", where(k), last_line, def, !o || o->kept_impls.size() > kept_before});
      };
      for (size_t k = head_end + 1; k + 3 < body_end; ++k) {
        // FBGEMM's DISPATCH_TO_CPU("name", fn): m.impl(name, torch::dispatch(CPU, TORCH_FN(fn))).
        if (tokens[k].kind == Token::Kind::Identifier && tokens[k].text.starts_with("DISPATCH_TO_") &&
            is(tokens[k + 1], "(")) {
          ++result.registrations;
          size_t call_end = 0;
          const auto args = call_arguments(tokens, k + 1, &call_end);
          const std::string written = fbgemm_dispatch_to_key(tokens[k].text.substr(12));
          const std::string key = dispatch_key(written);
          const auto name = args.size() == 2 ? string_argument(tokens, args[0]) : std::nullopt;
          if (name) {
            auto [qualified_ns, op_name] = split_qualified(*name);
            ImportedOp& o = op(qualified_ns.empty() ? ns : qualified_ns, op_name, where(k));
            const size_t kept_before = o.kept_impls.size();
            const auto fn = kernel_function(tokens, args[1]);
            if (!key.empty() && fn) {
              bind(o, key, *fn, k);
            } else if (key.empty()) {
              o.kept_impls.push_back(unbound_key_impl(written, where(k)));
            }
            record(&o, kept_before, k, call_end);
          } else {
            record(nullptr, 0, k, call_end);
          }
          k = call_end - 1;
          continue;
        }
        if (!is(tokens[k], var) || !is(tokens[k + 1], ".") || !is(tokens[k + 3], "(")) continue;
        const std::string method = tokens[k + 2].text;
        if (method != "def" && method != "impl") continue;
        ++result.registrations;
        size_t call_end = 0;
        const auto args = call_arguments(tokens, k + 3, &call_end);
        if (args.empty()) continue;
        const auto first = string_argument(tokens, args[0]);
        if (!first) {
          result.notes.push_back(fmt::format("{}: {}.{}({}...) builds its string from a macro or code: not imported",
                                             where(k), var, method, text_of(tokens, args[0]).substr(0, 60)));
          record(nullptr, 0, k, call_end);
          continue;
        }
        auto [qualified_ns, name] = split_qualified(*first);
        const std::string op_ns = qualified_ns.empty() ? ns : qualified_ns;
        // The op this call registers: one reference for the whole call (nothing else is added meanwhile).
        ImportedOp& o = op(op_ns, name, where(k));
        const size_t kept_before = o.kept_impls.size();
        // Reads the def or impl; returns early where it stops reading the call.
        auto read_call = [&] {
          if (method == "def") {
            const model::Abi abi = stable ? model::Abi::Stable : model::Abi::Unstable;
            if (o.defined) {
              // Defined again: the same op under #if branches that exclude each other (one per backend or ABI).
              if (o.abi != abi || o.schema != *first)
                o.needs.push_back(fmt::format(
                    "defined twice, {} at {}{} and {} at {}{}: import one build configuration with --define "
                    "(the macros its #if tests)",
                    o.abi != abi ? abi_text(o.abi) : "as '" + o.schema + "'", o.where,
                    o.guard.empty() ? "" : " (under " + o.guard + ")",
                    o.abi != abi ? abi_text(abi) : "as '" + *first + "'", where(k),
                    guard(k).empty() ? "" : " (under " + guard(k) + ")"));
              return;
            }
            o.defined = true;
            o.where = where(k);
            o.abi = abi;
            o.guard = guard(k);
            if (first->find('(') != std::string::npos) {
              o.schema = *first;
            } else if (auto fn = args.size() > 1 ? kernel_function(tokens, args[1]) : std::nullopt;
                       fn && !(block_anonymous && !fn->starts_with("::"))) {
              // PyTorch infers the schema from fn's signature: so does import, after the scan (infer_schema.h).
              o.schema_from = fn->starts_with("::") || block_scope.empty() ? *fn : block_scope + "::" + *fn;
              o.schema_from_file = file.display;
              o.schema_from_includes = scanned.quoted_includes;
            } else {
              o.needs.push_back(fmt::format(
                  "{}: no schema: PyTorch infers it from the C++ signature of {}; write it as the spec's 'schema'",
                  where(k), args.size() > 1 ? kernel_function(tokens, args[1]).value_or(text_of(tokens, args[1]))
                                            : "the function"));
            }
            for (size_t a = 1; a < args.size(); ++a) {
              const std::string text = text_of(tokens, args[a]);
              if (text.starts_with("{")) {  // tags: {at::Tag::pt2_compliant_tag, ...}
                for (size_t x = args[a].first; x < args[a].second; ++x)
                  if (is(tokens[x], "Tag") && x + 2 < args[a].second && is(tokens[x + 1], "::"))
                    o.tags.push_back(tokens[x + 2].text);
              } else if (auto fn = kernel_function(tokens, args[a]); fn && o.schema.size()) {
                // def(schema, fn): a kernel with no key, which PyTorch registers as CompositeImplicitAutograd.
                bind(o, "CompositeImplicitAutograd", *fn, k, /*def=*/true);
              }
            }
          } else {
            std::string key = block_key;
            std::pair<size_t, size_t> fn_range = args.back();
            if (args.size() == 3) key = dispatch_key(text_of(tokens, args[1]));
            // impl(name, fn) in a def block: no key, which PyTorch registers as CompositeImplicitAutograd.
            if (args.size() == 2 && !impl_block) key = "CompositeImplicitAutograd";
            if (args.size() == 2 && is(tokens[fn_range.first], "torch") && fn_range.second - fn_range.first > 4 &&
                is(tokens[fn_range.first + 2], "dispatch")) {  // impl(name, torch::dispatch(KEY, fn))
              size_t comma = fn_range.first + 4;
              while (comma < fn_range.second && !is(tokens[comma], ",")) ++comma;
              key = dispatch_key(text_of(tokens, {fn_range.first + 4, comma}));
            }
            if (key.empty()) {
              // No key a kernel is registered for (a typo, `Dense`, a variable): the project's build keeps
              // registering it, against the spec's def.
              std::string written = args.size() == 3 ? text_of(tokens, args[1]) : text_of(tokens, head[1]);
              if (const size_t colon = written.rfind("::"); colon != std::string::npos) written = written.substr(colon + 2);
              if (written.size() > 1 && written.front() == '"' && written.back() == '"')
                written = written.substr(1, written.size() - 2);
              if (written.size() > 1 && written[0] == 'k' && std::isupper(static_cast<unsigned char>(written[1])))
                written = written.substr(1);
              o.kept_impls.push_back(unbound_key_impl(written, where(k)));
              return;
            }
            if (auto fn = kernel_function(tokens, fn_range)) {
              bind(o, key, *fn, k);
            } else {
              o.kernel_refused = true;
              o.needs.push_back(fmt::format("{}: the {} kernel is '{}', not a plain function: give opgen the function "
                                            "it calls (docs/existing-kernels.md)",
                                            where(k), key, text_of(tokens, fn_range)));
            }
          }
        };
        read_call();
        record(&o, kept_before, k, call_end, method == "def");
        k = call_end - 1;
      }
      outside_blocks.emplace_back(next_outside, i);
      next_outside = body_end;
      i = body_end - 1;
    }
    // Whether the file defines anything besides its blocks (the C++ API
    // wrappers pyg-lib and torchvision define beside their defs: a brace that
    // opens no namespace): the build keeps it. Declarations and macro calls
    // (REGISTER_EXTENSION) alone are not.
    outside_blocks.emplace_back(next_outside, tokens.size());
    bool other_code = false;
    for (auto [from, to] : outside_blocks)
      for (size_t j = from; j < to && !other_code; ++j)
        if (is(tokens[j], "{")) {
          size_t name = j;  // back over `a::b` to what comes before the namespace's name
          while (name > from && (tokens[name - 1].kind == Token::Kind::Identifier || is(tokens[name - 1], "::")) &&
                 !is(tokens[name - 1], "namespace"))
            --name;
          other_code = !(name > from && is(tokens[name - 1], "namespace"));
        }
    // A Python module's init: REGISTER_EXTENSION(NAME) (vLLM's and kernel-builder's core/registration.h: an
    // empty module, so that `import pkg._C` loads the library), or a PyInit_ function written out.
    std::string module_init, module_init_lines;
    for (auto [from, to] : outside_blocks)
      for (size_t j = from; j < to && module_init.empty(); ++j) {
        const bool macro = is(tokens[j], "REGISTER_EXTENSION") && j + 1 < to && is(tokens[j + 1], "(");
        if (!macro && !is(tokens[j], "PyMODINIT_FUNC")) continue;
        size_t end = j + 1;  // the macro's closing parenthesis, or the end of the function's body
        bool whole = false;
        for (int depth = 0; end < to && !whole; ++end) {
          if (!macro && depth == 0 && is(tokens[end], ";")) break;  // a declaration: no init here
          if (is(tokens[end], "(") || is(tokens[end], "{"))
            ++depth;
          else if ((is(tokens[end], ")") || is(tokens[end], "}")) && --depth == 0)
            whole = macro || is(tokens[end], "}");
        }
        if (!whole) continue;
        --end;  // the loop stepped past it
        const int first = tokens[j].line, last = tokens[end].line;
        module_init = text_of(tokens, {j, macro ? end + 1 : std::min(j + 2, end)});
        module_init_lines = first == last ? std::to_string(first) : fmt::format("{}-{}", first, last);
      }
    for (size_t b = first_block; b < result.blocks.size(); ++b) {
      result.blocks[b].file_has_other_code = other_code;
      result.blocks[b].python_module_init = module_init;
      result.blocks[b].python_module_init_lines = module_init_lines;
    }
  }

  void python(const SourceFile& file) {
    const ScannedSource scanned = scan_python(file.text);
    const Tokens& tokens = scanned.tokens;
    auto where = [&](size_t i) { return fmt::format("{}:{}", file.display, tokens[i].line); };
    std::filesystem::path module_path(file.display);
    module_path.replace_extension();
    std::string module = module_path.generic_string();
    std::replace(module.begin(), module.end(), '/', '.');
    if (module.ends_with(".__init__")) module.resize(module.size() - 9);
    std::map<std::string, std::string> library_ns;  // variable -> namespace of Library("ns", ...)
    // Functions custom_op defines an op with: function -> (namespace, op).
    std::map<std::string, std::pair<std::string, std::string>> custom_ops;
    // Local names of torch.library's functions: `register_fake = torch.library.register_fake`,
    // or one chosen by a version check (`_torch_custom_op_wrapper = torch.library.custom_op`).
    static const std::set<std::string> library_functions = {"define", "register_fake", "impl_abstract", "custom_op",
                                                            "register_kernel", "impl"};
    // The indentation of a line (1-based), and the token range of the block a
    // `def` at token i opens: up to the first later line indented no deeper.
    const std::vector<std::string_view> lines = source_lines(file.text);
    auto indent = [&](int line) { return indent_of(lines, line); };
    // A top-level def, class or decorator starts a statement no bracket of
    // an earlier one can reach: every scan below stops there, so a bracket
    // that never closes costs one block, not the rest of the file.
    auto top_level_statement = [&](size_t j) {
      return (j == 0 || tokens[j - 1].line != tokens[j].line) && indent(tokens[j].line) == 0 &&
             (is(tokens[j], "def") || is(tokens[j], "class") || is(tokens[j], "@") || is(tokens[j], "async"));
    };
    auto block_end = [&](size_t def) {
      const size_t depth = indent(tokens[def].line);
      size_t j = def + 1;
      int open = 0;
      // The header: to its `:` outside brackets (a signature may span lines, its `) -> ...:` as shallow as the def).
      for (; j < tokens.size() && !(open == 0 && is(tokens[j], ":")); ++j) {
        if (top_level_statement(j)) return j;
        if (is(tokens[j], "(") || is(tokens[j], "[") || is(tokens[j], "{")) ++open;
        if (is(tokens[j], ")") || is(tokens[j], "]") || is(tokens[j], "}")) --open;
      }
      if (j == tokens.size()) return j;
      const int header = tokens[j].line;
      // The body: deeper lines, and any line inside brackets, however shallow.
      for (++j; j < tokens.size() && (tokens[j].line == header || open > 0 || indent(tokens[j].line) > depth); ++j) {
        if (open > 0 && top_level_statement(j)) break;
        if (is(tokens[j], "(") || is(tokens[j], "[") || is(tokens[j], "{")) ++open;
        if (is(tokens[j], ")") || is(tokens[j], "]") || is(tokens[j], "}")) --open;
      }
      return j;
    };
    // Whether the `(` of the def at `def` closes before `end`: a signature the
    // readers below may split (their bracket search would run on otherwise).
    auto signature_closes = [&](size_t def, size_t end) {
      if (def + 2 >= end || !is(tokens[def + 2], "(")) return false;
      int open = 0;
      for (size_t j = def + 2; j < end; ++j) {
        if (is(tokens[j], "(") || is(tokens[j], "[") || is(tokens[j], "{")) ++open;
        if ((is(tokens[j], ")") || is(tokens[j], "]") || is(tokens[j], "}")) && --open == 0) return true;
      }
      return false;
    };
    // The package the module is in: its own name for an __init__.py.
    const std::string package = module_path.filename() == "__init__"       ? module
                                : module.find('.') == std::string::npos ? std::string()
                                                                        : module.substr(0, module.rfind('.'));
    const ModuleImports imports = module_imports(tokens, lines, package);
    const ModuleValues values(tokens, lines);
    // A fake named `_` (the `def` at token `def`, registered at token `at`) has no
    // name to name it by: it moves into python/_fakes.py, if nothing else of its module comes along.
    auto move_underscore_fake = [&](ImportedOp& o, size_t def, size_t at) {
      const MovedFake moved = move_fake(tokens, def, block_end(def), lines, imports, values);
      if (moved.unresolved.empty()) {
        o.python_fake_source = moved.source;
        o.python_fake_imports = imports.statements;
        o.python_fake_moved_from = where(at);
      } else {
        o.needs.push_back(fmt::format("{}: the fake is '_' and reads {} of its module: give it a name of its own to "
                                      "name it in 'fake: {{python: ...}}'",
                                      where(at), fmt::join(moved.unresolved, ", ")));
      }
    };
    // A project's own fake decorator (torchvision's `register_meta("roi_align")`):
    // a function whose body registers what it wraps with `.impl(..., "Meta")`,
    // with `.impl(...)` of a library this file opens for the Meta key
    // (`Library("ns", "IMPL", "Meta")`), or with register_fake/impl_abstract.
    // Its uses name the op and decorate the fake.
    bool opens_meta_library = false;
    for (size_t i = 0; i + 1 < tokens.size() && !opens_meta_library; ++i) {
      if (!is(tokens[i], "Library") || !is(tokens[i + 1], "(")) continue;
      size_t call_end = 0;
      for (auto range : call_arguments(tokens, i + 1, &call_end))
        if (auto value = string_argument(tokens, range); value && *value == "Meta") opens_meta_library = true;
    }
    std::set<std::string> fake_decorators;
    // Module-level functions only: each body is read once (linear in the file).
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (!is(tokens[i], "def") || tokens[i + 1].kind != Token::Kind::Identifier || indent(tokens[i].line) != 0)
        continue;
      const size_t end = block_end(i);
      for (size_t j = i + 2; j + 1 < end; ++j) {
        if (is(tokens[j], "register_fake") || is(tokens[j], "impl_abstract")) {
          fake_decorators.insert(tokens[i + 1].text);
          break;
        }
        if (is(tokens[j], "impl") && is(tokens[j + 1], "(") && j > 0 && is(tokens[j - 1], ".")) {
          size_t call_end = 0;
          const auto args = call_arguments(tokens, j + 1, &call_end);
          if (opens_meta_library || std::any_of(args.begin(), args.end(), [&](auto range) {
                auto value = string_argument(tokens, range);
                return value && (*value == "Meta" || *value == "meta");
              })) {
            fake_decorators.insert(tokens[i + 1].text);
            break;
          }
        }
      }
    }
    // Whether the function the `def` at token i opens makes tensors on the meta
    // device (a Meta kernel's `device="meta"`): as a fake, its outputs would be
    // meta tensors, which opcheck refuses and torch.compile takes silently.
    auto makes_meta_tensors = [&](size_t def) {
      const size_t end = block_end(def);
      for (size_t j = def; j + 2 < end; ++j)
        if (is(tokens[j], "device") && is(tokens[j + 1], "=") && tokens[j + 2].kind == Token::Kind::String &&
            tokens[j + 2].text == "meta")
          return true;
      for (size_t j = def; j + 3 < end; ++j)
        if (is(tokens[j], "device") && is(tokens[j + 1], "(") && tokens[j + 2].kind == Token::Kind::String &&
            tokens[j + 2].text == "meta")
          return true;
      return false;
    };
    // The module's top-level functions, by name: the token of their `def`.
    std::map<std::string, size_t> module_functions;
    for (size_t i = 0; i + 1 < tokens.size(); ++i)
      if (is(tokens[i], "def") && tokens[i + 1].kind == Token::Kind::Identifier && indent(tokens[i].line) == 0)
        module_functions.emplace(tokens[i + 1].text, i);
    std::map<std::string, std::string> alias;
    for (size_t i = 0; i + 5 < tokens.size(); ++i) {
      if (tokens[i].kind == Token::Kind::Identifier && is(tokens[i + 1], "=") && is(tokens[i + 2], "torch") &&
          is(tokens[i + 3], ".") && is(tokens[i + 4], "library") && is(tokens[i + 5], ".") && i + 6 < tokens.size() &&
          library_functions.count(tokens[i + 6].text))
        alias[tokens[i].text] = tokens[i + 6].text;
    }
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      Token t = tokens[i];
      if (t.kind != Token::Kind::Identifier || !is(tokens[i + 1], "(")) continue;
      if (auto a = alias.find(t.text); a != alias.end()) t.text = a->second;
      size_t end = 0;
      // `@register_meta("roi_align")\ndef meta_roi_align(...)`: the project's own fake decorator.
      if (fake_decorators.count(t.text) && i > 0 && is(tokens[i - 1], "@")) {
        const auto args = call_arguments(tokens, i + 1, &end);
        const auto name = args.empty() ? std::nullopt : string_argument(tokens, args[0]);
        if (name && end + 1 < tokens.size() && is(tokens[end], "def") &&
            tokens[end + 1].kind == Token::Kind::Identifier && tokens[end + 1].text != "_") {
          ++result.registrations;
          auto [ns, op_name] = split_qualified(*name);
          ImportedOp& o = op(ns, op_name, where(i));
          if (makes_meta_tensors(end))
            o.needs.push_back(fmt::format(
                "{}: its fake {} (registered through {}) makes tensors on the meta device: a fake returns tensors on "
                "its inputs' device (new_empty, empty_like, device=x.device); fix it, then name it in 'fake: "
                "{{python: ...}}'",
                where(i), tokens[end + 1].text, t.text));
          else
            o.python_fake = module + ":" + tokens[end + 1].text;
          o.python_fake_at = where(i);
          o.fake_via = t.text;
        } else {
          result.notes.push_back(fmt::format("{}: {}(...) registers a fake that import cannot name: not imported",
                                             where(i), t.text));
        }
        continue;
      }
      // `lib = torch.library.Library("ns", "FRAGMENT")`
      if (t.text == "Library" && i >= 2) {
        const auto args = call_arguments(tokens, i + 1, &end);
        size_t assign = i;
        while (assign > 0 && (is(tokens[assign - 1], ".") || tokens[assign - 1].kind == Token::Kind::Identifier))
          --assign;
        if (!args.empty() && assign >= 2 && is(tokens[assign - 1], "="))
          if (auto ns = string_argument(tokens, args[0])) library_ns[tokens[assign - 2].text] = *ns;
        if (args.size() >= 2)
          if (auto ns = string_argument(tokens, args[0]); ns && string_argument(tokens, args[1]) == "DEF")
            result.claimed_namespaces.insert(*ns);
        continue;
      }
      const bool dotted = i > 0 && is(tokens[i - 1], ".");
      const std::string owner = dotted && i >= 2 ? tokens[i - 2].text : "";
      if (t.text == "define") {
        const auto args = call_arguments(tokens, i + 1, &end);
        ++result.registrations;
        if (args.empty()) continue;
        auto first = string_argument(tokens, args[0]);
        std::optional<std::string> schema;
        if (first && args.size() >= 2 && first->find('(') == std::string::npos) {
          if (auto signature = string_argument(tokens, args[1])) schema = *first + *signature;  // define(name, "(...) -> ...")
        } else {
          schema = first;
        }
        if (!schema) {
          result.notes.push_back(fmt::format("{}: define() with a schema built at run time: not imported", where(i)));
          continue;
        }
        auto [ns, name] = split_qualified(*schema);
        if (ns.empty() && library_ns.count(owner)) ns = library_ns[owner];
        ImportedOp& o = op(ns, name, where(i));
        o.where = where(i);
        o.schema = *schema;
        // The call's lines, where it is a statement of its own (`torch.library.define(...)`, `lib.define(...)`):
        // the report names them for the person to take out.
        size_t start = i;
        while (start >= 2 && is(tokens[start - 1], ".") && tokens[start - 2].kind == Token::Kind::Identifier) start -= 2;
        const int last = tokens[end - 1].line;
        o.python_def_at = starts_line(tokens, start) && (end == tokens.size() || starts_line(tokens, end)) &&
                                  last > tokens[start].line
                              ? fmt::format("{}-{}", where(start), last)
                              : where(start);
        for (size_t a = 1; a < args.size(); ++a)
          for (size_t x = args[a].first; x + 2 < args[a].second; ++x)
            if (is(tokens[x], "Tag") && is(tokens[x + 1], ".")) o.tags.push_back(tokens[x + 2].text);
      } else if (t.text == "register_fake" || t.text == "impl_abstract" || t.text == "custom_op" ||
                 t.text == "register_kernel" || (t.text == "impl" && (owner == "library" || alias.count(tokens[i].text))) ||
                 (t.text == "impl" && dotted && library_ns.count(owner))) {
        const auto args = call_arguments(tokens, i + 1, &end);
        if (args.empty()) continue;
        ++result.registrations;
        auto library_variable = [&](TokenRange range) -> const std::string* {
          if (range.second != range.first + 1) return nullptr;
          auto it = library_ns.find(tokens[range.first].text);
          return it == library_ns.end() ? nullptr : &it->second;
        };
        auto in_namespace = [](const std::string& ns, const std::string& name) {
          return name.find("::") == std::string::npos ? ns + "::" + name : name;
        };
        std::optional<std::string> qualified;
        std::string function;  // the kernel, where the call names it
        size_t key_at = 1;     // the argument with the dispatch key or device types
        if (t.text == "impl" && dotted && owner != "library") {
          // `lib.impl("name", fn, "KEY")` on a Library of this file.
          if (auto name = string_argument(tokens, args[0])) qualified = in_namespace(library_ns[owner], *name);
          if (args.size() > 1 && args[1].second == args[1].first + 1 &&
              tokens[args[1].first].kind == Token::Kind::Identifier)
            function = tokens[args[1].first].text;
          key_at = 2;
        } else if (t.text == "impl" && args.size() > 1 && library_variable(args[0])) {
          // `@torch.library.impl(lib, "name", "KEY")`: the legacy form, a Library first.
          if (auto name = string_argument(tokens, args[1])) qualified = in_namespace(*library_variable(args[0]), *name);
          key_at = 2;
        } else {
          qualified = string_argument(tokens, args[0]);
        }
        if (!qualified) {
          if (t.text != "register_fake" || !dotted || owner == "library")
            result.notes.push_back(fmt::format("{}: {}() names its op at run time: not imported", where(i), t.text));
          continue;
        }
        auto [ns, name] = split_qualified(*qualified);
        // The function it decorates (`@...(...)\ndef f(`) or is applied to (`...(...)(f)`).
        if (function.empty() && end + 1 < tokens.size() && is(tokens[end], "def")) function = tokens[end + 1].text;
        if (function.empty() && end + 2 < tokens.size() && is(tokens[end], "(") &&
            tokens[end + 1].kind == Token::Kind::Identifier && is(tokens[end + 2], ")"))
          function = tokens[end + 1].text;
        ImportedOp& o = op(ns, name, where(i));
        // A Meta kernel is the op's fake (as register_fake registers it), checked alike.
        const auto key = args.size() > key_at ? string_argument(tokens, args[key_at]) : std::nullopt;
        const bool meta_kernel = t.text == "impl" && key && (*key == "Meta" || *key == "meta");
        // The call form, `register_fake("ns::op", fn)` (or `func=fn`): FBGEMM's
        // sparse_ops.py registers its fakes so, through its own impl_abstract.
        bool called = false;
        if ((t.text == "register_fake" || t.text == "impl_abstract") && function.empty() && args.size() >= 2) {
          auto [begin, stop] = args[1];
          if (stop == begin + 3 && is(tokens[begin], "func") && is(tokens[begin + 1], "=")) begin += 2;
          if (stop == begin + 1 && tokens[begin].kind == Token::Kind::Identifier) {
            function = tokens[begin].text;
            called = true;
          }
        }
        if (t.text == "register_fake" || t.text == "impl_abstract" || meta_kernel) {
          // The fake's def: the one decorated, or the module's function a call names.
          // (A call may end the file: `end` is then past the last token.)
          const bool def_follows = end < tokens.size() && is(tokens[end], "def");
          std::optional<size_t> fake_def;
          if (def_follows)
            fake_def = end;
          else if (auto def = module_functions.find(function); called && def != module_functions.end())
            fake_def = def->second;
          if (function == "_" && def_follows && !makes_meta_tensors(end) &&
              signature_closes(end, block_end(end))) {
            move_underscore_fake(o, end, i);
          } else if (function.empty() || function == "_")
            o.needs.push_back(fmt::format("{}: the fake is {}: give it a name of its own to name it in 'fake: "
                                          "{{python: ...}}'", where(i), function.empty() ? "not a named function" : "'_'"));
          else if (called && !fake_def)
            o.needs.push_back(fmt::format("{}: its fake {} is not a function defined at the top of its module: name "
                                          "one that is in 'fake: {{python: ...}}'", where(i), function));
          else if (fake_def && makes_meta_tensors(*fake_def))
            o.needs.push_back(fmt::format("{}: its fake {} makes tensors on the meta device: a fake returns tensors on "
                                          "its inputs' device (new_empty, empty_like, device=x.device); fix it, then "
                                          "name it in 'fake: {{python: ...}}'", where(i), function));
          else
            o.python_fake = module + ":" + function;
          o.python_fake_at = where(i);
        } else if (t.text == "custom_op") {
          if (!function.empty() && is(tokens[end], "def") && !signature_closes(end, block_end(end)))
            o.needs.push_back(fmt::format("{}: custom_op decorates {}, whose signature does not close", where(i),
                                          function));
          else
            custom_op(o, tokens, args, end, function, module, where(i), values);
          if (o.needs.empty()) custom_ops[function] = {ns, name};
        } else {
          // A kernel the project registers in Python (register_kernel, torch.library.impl) stays
          // where it is, registered against the spec's def once the package has defined the op, as
          // C++ impls opgen cannot bind stay in the project's build. (Naming the function
          // under 'kernels:' instead would import its module and register it twice.)
          o.kept_impls.push_back(fmt::format("{} ({}, {}{} in Python)",
                                             key ? *key : args.size() > key_at ? text_of(tokens, args[key_at])
                                                                               : "every device",
                                             where(i), t.text, function.empty() ? "" : " of " + function));
        }
      }
    }
    // What the custom_op objects register on themselves: `@fn.register_fake`
    // names the fake; the rest is Python the spec cannot hold.
    for (size_t i = 0; i + 2 < tokens.size(); ++i) {
      auto defined = custom_ops.find(tokens[i].text);
      if (tokens[i].kind != Token::Kind::Identifier || defined == custom_ops.end() || !is(tokens[i + 1], ".") ||
          (i > 0 && is(tokens[i - 1], ".")))
        continue;
      const std::string& method = tokens[i + 2].text;
      if (!method.starts_with("register_")) continue;
      ++result.registrations;
      ImportedOp& o = op(defined->second.first, defined->second.second, where(i));
      const bool decorates = i > 0 && is(tokens[i - 1], "@") && i + 4 < tokens.size() && is(tokens[i + 3], "def") &&
                             tokens[i + 4].kind == Token::Kind::Identifier;
      if (method == "register_fake" && decorates && tokens[i + 4].text != "_") {
        o.python_fake = module + ":" + tokens[i + 4].text;
        o.python_fake_at = where(i);
      } else if (method == "register_fake" && decorates && !makes_meta_tensors(i + 3) &&
                 signature_closes(i + 3, block_end(i + 3))) {
        move_underscore_fake(o, i + 3, i);  // `@fn.register_fake` on `def _` (torchao's)
      } else if (method == "register_fake") {
        o.needs.push_back(fmt::format("{}: the fake is {}: give it a name of its own to name it in 'fake: "
                                      "{{python: ...}}'", where(i), decorates ? "'_'" : "not a named function"));
      } else {
        o.needs.push_back(fmt::format("{}: {}.{}(...) registers Python the spec cannot hold ({} of a custom_op "
                                      "object): write it as the spec's (a backward op under 'autograd:', a kernel "
                                      "under 'kernels:')", where(i), tokens[i].text, method, method));
      }
    }
  }

  // `@custom_op("ns::op", mutates_args=..., device_types=..., schema=...)` on
  // `def function`: the op is defined with the schema custom_op infers from
  // the function's type hints (or the one given), and the function is its
  // kernel for each device type (every device: CompositeExplicitAutograd).
  void custom_op(ImportedOp& o, const Tokens& tokens, const std::vector<TokenRange>& args, size_t end,
                 const std::string& function, const std::string& module, const std::string& where,
                 const ModuleValues& values) {
    auto need = [&](const std::string& why) {
      o.needs.push_back(fmt::format("{}: custom_op {}: write the spec's 'schema' (torch.library.infer_schema prints "
                                    "it)", where, why));
    };
    if (function.empty() || !is(tokens[end], "def")) return need("decorates no function import can read");
    std::optional<std::vector<std::string>> mutates = std::vector<std::string>{};
    std::optional<std::string> schema;
    std::vector<std::string> keys;
    for (size_t a = 1; a < args.size(); ++a) {
      auto [begin, stop] = args[a];
      if (stop - begin < 3 || tokens[begin].kind != Token::Kind::Identifier || !is(tokens[begin + 1], "=")) continue;
      const std::string& key = tokens[begin].text;
      std::vector<std::string> strings;
      bool literal = true;
      for (size_t k = begin + 2; k < stop; ++k) {
        if (tokens[k].kind == Token::Kind::String && !tokens[k].formatted) strings.push_back(tokens[k].text);
        else if (!is(tokens[k], "(") && !is(tokens[k], ")") && !is(tokens[k], "[") && !is(tokens[k], "]") &&
                 !is(tokens[k], "{") && !is(tokens[k], "}") && !is(tokens[k], ",") && !is(tokens[k], "None"))
          literal = false;
      }
      if (!literal) return need(fmt::format("'{}' is computed at run time", key));
      if (key == "mutates_args") {
        const bool unknown = stop - begin == 3 && tokens[begin + 2].kind == Token::Kind::String;
        if (unknown && strings[0] != "unknown") return need("mutates_args is neither names nor 'unknown'");
        mutates = unknown ? std::nullopt : std::optional(strings);
      } else if (key == "device_types") {
        for (const std::string& device : strings) {
          const std::string dispatch = dispatch_key(device);
          if (dispatch.empty()) return need(fmt::format("device type '{}' is none opgen registers", device));
          keys.push_back(dispatch);
        }
      } else if (key == "schema" && strings.size() == 1) {
        schema = strings[0];
      }
    }
    if (!schema) {
      const InferredPythonSchema inferred = infer_python_schema(tokens, end, mutates, values);
      if (inferred.schema.empty()) return need(inferred.problem);
      schema = inferred.schema;
      o.schema_from_type_hints = true;
      o.schema_from = function;
      o.schema_inferred_from = fmt::format("{}:{}", where.substr(0, where.rfind(':')), tokens[end].line);
    }
    o.schema = o.name + *schema;
    o.where = where;
    o.defined = true;
    if (keys.empty()) keys.push_back("CompositeExplicitAutograd");  // custom_op's kernel for every device
    for (const std::string& key : keys) o.kernels.push_back({key, module + ":" + function, where, "", true});
  }
};

}  // namespace

std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags) {
  namespace fs = std::filesystem;
  static const std::set<std::string> kSuffixes = {".cpp", ".cc", ".cxx", ".cu", ".h", ".hpp", ".cuh", ".py"};
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && !it->is_symlink(ec) && kSuffixes.count(it->path().extension().string()))
        found.push_back(it->path().generic_string());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<SourceFile> sources;
  for (const std::string& file : files) {
    if (auto text = read_file(file))
      sources.push_back({file, std::move(*text)});
    else
      diags.error(Code::CannotReadSpec, {file, 0, 0}, "cannot read it (a regular file of at most 64 MiB)");
  }
  return sources;
}

namespace {

// A def read in this configuration with no impl in it, whose impls the same
// C++ sources read without a configuration do have (every branch read, each
// impl with its guard): they all stand in branches this configuration does
// not take, so here the sources register the schema alone.
void find_impls_in_other_configurations(ImportResult& configured, const std::vector<SourceFile>& sources) {
  Collector all;
  for (const SourceFile& source : sources)
    if (!source.display.ends_with(".py")) all.cpp(source);
  std::multimap<std::string, const ImportedOp*> by_name;  // one lookup per op: linear in hostile sources too
  for (const ImportedOp& every : all.result.ops) by_name.emplace(every.name, &every);
  for (ImportedOp& o : configured.ops) {
    if (!o.defined || !o.kernels.empty() || !o.kept_impls.empty() || o.kernel_refused) continue;
    for (auto [it, end] = by_name.equal_range(o.name); it != end; ++it) {
      const ImportedOp& every = *it->second;
      if (every.ns != o.ns && !every.ns.empty() && !o.ns.empty()) continue;
      for (const ImportedKernel& k : every.kernels)
        o.impls_in_other_configurations.push_back(
            fmt::format("{} ({}{})", k.dispatch_key, k.where, k.guard.empty() ? "" : ", under " + k.guard));
      for (const std::string& kept : every.kept_impls) o.impls_in_other_configurations.push_back(kept);
    }
  }
}

}  // namespace

ImportResult find_registrations(const std::vector<SourceFile>& sources, const Configuration* configuration) {
  Collector c;
  c.configuration = configuration;
  for (const SourceFile& source : sources) {
    if (source.display.ends_with(".py"))
      c.python(source);
    else
      c.cpp(source);
  }
  if (configuration) find_impls_in_other_configurations(c.result, sources);
  return std::move(c.result);
}

void keep_unbound_impls(ImportResult& result) {
  std::set<std::pair<std::string, std::string>> kept;  // op, file:line of the impl
  for (ImportedOp& o : result.ops) {
    if (o.schema.empty()) continue;
    const auto parsed = model::parse_schema(o.schema);
    const bool tensorless = std::holds_alternative<model::FunctionSchema>(parsed) &&
                            !model::takes_dispatch_tensor(std::get<model::FunctionSchema>(parsed));
    std::erase_if(o.kernels, [&](const ImportedKernel& kernel) {
      // A custom_op's own function is the spec's to register once its decorator is gone: not the project's.
      if (kernel.python) return false;
      const model::DispatchKey* key = model::find_dispatch_key(kernel.dispatch_key);
      std::string why;
      if (tensorless && key && model::picked_by_tensor(key->kind))
        why = fmt::format("no call reaches it: the op takes no tensor, and PyTorch picks a {} kernel by the device of "
                          "a tensor argument",
                          kernel.dispatch_key);
      else if (kernel.stable != (o.abi == model::Abi::Stable))
        why = fmt::format("a {}-ABI kernel of an op the sources define on the {} ABI ({}): the spec binds kernels of "
                          "its own ABI",
                          kernel.stable ? "stable" : "unstable", kernel.stable ? "unstable" : "stable", o.where);
      else
        return false;
      o.kept_impls.push_back(fmt::format("{} ({}; {})", kernel.dispatch_key, kernel.where, why));
      kept.emplace(o.name, kernel.where);
      return true;
    });
  }
  if (kept.empty()) return;
  for (RegistrationBlock& block : result.blocks)
    for (RegistrationBlock::Registration& reg : block.registrations)
      if (kept.count({reg.op, reg.where})) reg.kept = true;
}

// `ns::fn<T, 2>` -> `fn`: the name a declaration spells.
std::string declared_name(const std::string& function) {
  std::string name = function.substr(0, function.find('<'));
  if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  return name;
}

}  // namespace opgen::import
