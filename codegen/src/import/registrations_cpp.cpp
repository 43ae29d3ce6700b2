// `opgen import`'s C++ reader: TORCH_LIBRARY / _FRAGMENT / _IMPL blocks (and the stable ABI's), their def and
// impl calls, the kernels they name (registration_collector.h).
#include "import/registration_collector.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "import/source_scan.h"
#include "import/tokens.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"

namespace opgen::import::detail {

namespace {

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

// A lambda that only forwards its parameters, in order, to a function: `[](at::Tensor x, int64_t n) { return
// f(x, n); }`, torch_scatter's `[] { return scatter::cuda_version(); }`. Calling it is calling the function, so a
// spec binds the function; a schema PyTorch infers from it is the lambda's parameter types (and its `-> T`).
struct ForwardingLambda {
  std::string function;             // as written: `scatter::cuda_version`
  std::vector<std::string> params;  // the lambda's parameter types, as written
  std::string returns;              // its `-> T`, "" where it writes none
};

std::optional<ForwardingLambda> forwarding_lambda(const Tokens& tokens, TokenRange range) {
  const size_t end = range.second;
  size_t k = range.first;
  if (end - k < 6 || !is(tokens[k], "[") || !is(tokens[k + 1], "]")) return std::nullopt;  // no captures
  k += 2;
  ForwardingLambda lambda;
  std::vector<std::string> names;
  if (is(tokens[k], "(")) {
    size_t close = 0;
    const auto params = call_arguments(tokens, k, &close);
    if (close >= end) return std::nullopt;
    for (const auto& [from, to] : params) {
      // `Type name`: the type's tokens, then the name.
      if (to - from < 2 || tokens[to - 1].kind != Token::Kind::Identifier || is(tokens[to - 2], "::")) return std::nullopt;
      lambda.params.push_back(text_of(tokens, {from, to - 1}));
      names.push_back(tokens[to - 1].text);
    }
    k = close;
  }
  while (k < end && (is(tokens[k], "mutable") || is(tokens[k], "noexcept") || is(tokens[k], "constexpr"))) ++k;
  if (k < end && is(tokens[k], "->")) {
    const size_t type = ++k;
    while (k < end && !is(tokens[k], "{")) ++k;
    lambda.returns = text_of(tokens, {type, k});
  }
  // { return f(a, b); }
  if (k + 1 >= end || !is(tokens[k], "{") || !is(tokens[end - 1], "}") || !is(tokens[k + 1], "return")) return std::nullopt;
  size_t open = k + 2;
  while (open < end && !is(tokens[open], "(")) ++open;
  size_t close = 0;
  const auto args = open < end ? call_arguments(tokens, open, &close) : std::vector<TokenRange>{};
  if (open >= end || close + 2 != end || !is(tokens[close], ";") || args.size() != names.size()) return std::nullopt;
  for (size_t a = 0; a < args.size(); ++a)
    if (args[a].second != args[a].first + 1 || !is(tokens[args[a].first], names[a])) return std::nullopt;
  auto function = kernel_function(tokens, {k + 2, open});
  if (!function) return std::nullopt;
  lambda.function = *function;
  return lambda;
}

// What `RegisterOperators::options()...` says, as c10's op_registration.h reads it: `.schema("...")` and kernels,
// `.kernel<decltype(f), &f>(KEY)`, `.kernel(KEY, f)`, `.catchAllKernel<decltype(f), &f>()`, `.catchAllKernel(f)`
// (a functor's `kernel<Functor>(KEY)` is no plain function: its text is kept, for the report).
struct LegacyOptions {
  std::optional<std::string> schema;
  struct Kernel {
    std::string key;    // as written; "" a catch-all kernel
    TokenRange function;  // `&f`, a lambda, or (a functor) the template's argument
    bool functor = false;
  };
  std::vector<Kernel> kernels;
};

// nullopt where `range` is not an options chain.
std::optional<LegacyOptions> legacy_options(const Tokens& tokens, TokenRange range) {
  size_t k = range.first;
  const size_t end = range.second;
  if (k + 2 < end && (is(tokens[k], "c10") || is(tokens[k], "torch")) && is(tokens[k + 1], "::")) k += 2;
  if (k + 4 >= end || !is(tokens[k], "RegisterOperators") || !is(tokens[k + 1], "::") || !is(tokens[k + 2], "options") ||
      !is(tokens[k + 3], "(") || !is(tokens[k + 4], ")"))
    return std::nullopt;
  LegacyOptions options;
  k += 5;
  while (k + 2 < end && is(tokens[k], ".") && tokens[k + 1].kind == Token::Kind::Identifier) {
    const std::string method = tokens[k + 1].text;
    k += 2;
    std::vector<TokenRange> template_args;
    if (is(tokens[k], "<")) {  // template arguments, split at top-level commas
      int depth = 0;
      size_t from = k + 1, j = k;
      for (; j < end; ++j) {
        if (is(tokens[j], "<") || is(tokens[j], "(")) ++depth;
        if ((is(tokens[j], ">") || is(tokens[j], ")")) && --depth == 0) break;
        if (depth == 1 && is(tokens[j], ",")) {
          template_args.emplace_back(from, j);
          from = j + 1;
        }
      }
      if (j >= end) return options;
      template_args.emplace_back(from, j);
      k = j + 1;
    }
    if (k >= end || !is(tokens[k], "(")) return options;
    size_t close = 0;
    const auto args = call_arguments(tokens, k, &close);
    if (close > end) return options;
    k = close;
    const bool catch_all = method == "catchAllKernel";
    if (method == "schema" && args.size() == 1) {
      options.schema = string_argument(tokens, args[0]);
    } else if (method == "kernel" || method == "impl_unboxedOnlyKernel" || catch_all) {
      const std::string key = catch_all || args.empty() ? "" : text_of(tokens, args[0]);
      if (template_args.size() == 2)
        options.kernels.push_back({key, template_args[1]});
      else if (template_args.size() == 1)
        options.kernels.push_back({key, template_args[0], /*functor=*/true});
      else if (!args.empty())
        options.kernels.push_back({key, args.back()});
    }
  }
  return options;
}

}  // namespace

// The namespace a macro spells, in a configuration: a name -D defines
// (`TORCH_EXTENSION_NAME=_C`, as vLLM's and kernel-builder's builds pass
// it), and CONCAT(a, b) of such names and plain words (vLLM's
// core/registration.h and kernel-builder's registration.h define
// `_CONCAT(A, B)` as `A##B` and `CONCAT(A, B)` as `_CONCAT(A, B)`).
// nullopt for any other macro, or where no configuration defines it.
std::optional<std::string> Collector::expanded_namespace(const Tokens& tokens, TokenRange range, int depth) const {
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

void Collector::cpp(const SourceFile& file) {
  const ScannedSource scanned = scan_cpp(file.text, configuration);
  const Tokens& tokens = scanned.tokens;
  // A compiled source that registers nothing here (the branches this configuration takes): no block, no .def( or
  // .impl( call (pybind11's among them), no macro that makes them.
  const std::string extension = std::filesystem::path(file.display).extension().string();
  bool registers = !scanned.registering_macros.empty();
  for (size_t i = 0; i < tokens.size() && !registers; ++i)
    registers = (tokens[i].kind == Token::Kind::Identifier &&
                 (tokens[i].text.find("TORCH_LIBRARY") != std::string::npos || tokens[i].text == "PYBIND11_MODULE" ||
                  tokens[i].text == "RegisterOperators")) ||
                (is(tokens[i], ".") && i + 2 < tokens.size() &&
                 (is(tokens[i + 1], "def") || is(tokens[i + 1], "impl")) && is(tokens[i + 2], "("));
  if (!registers && (extension == ".cpp" || extension == ".cc" || extension == ".cxx" || extension == ".cu" ||
                     extension == ".c"))
    result.registration_free_sources.push_back(file.display);
  for (const auto& note : scanned.notes) result.notes.push_back(fmt::format("{}: {}", file.display, note));
  for (const auto& [macro, line] : scanned.registering_macros)
    result.notes.push_back(fmt::format("{}:{}: the macro {} registers ops; what its uses expand to is not imported: "
                                       "write those specs by hand", file.display, line, macro));
  auto where = [&](size_t i) { return fmt::format("{}:{}", file.display, tokens[i].line); };
  // Whether the tokens [first, end) share their first or last line with code around them (`void f() { ...; }` on one
  // line): deleting those lines would delete that code too.
  auto shares_lines = [&](size_t first, size_t end) {
    if (end > first && end < tokens.size() && is(tokens[end], ";")) ++end;  // the statement's own `;`
    return (first > 0 && first < tokens.size() && tokens[first - 1].line == tokens[first].line) ||
           (end > first && end < tokens.size() && tokens[end].line == tokens[end - 1].line);
  };
  // The lines in [first, last] that hold nothing but blank space or a `//` comment (a /* */ comment, a directive
  // or code is not filler: deleting it could change what the rest means).
  std::vector<std::string_view> lines;
  auto filler_lines = [&](int first, int last) {
    if (lines.empty())
      for (size_t begin = 0; begin <= file.text.size();) {
        const size_t end = std::min(file.text.find('\n', begin), file.text.size());
        lines.push_back(std::string_view(file.text).substr(begin, end - begin));
        begin = end + 1;
      }
    std::set<int> filler;
    for (int line = std::max(first, 1); line <= last && line <= static_cast<int>(lines.size()); ++line) {
      const std::string_view text = lines[line - 1];
      const size_t start = text.find_first_not_of(" \t\r");
      if (start == std::string_view::npos || text.substr(start).starts_with("//")) filler.insert(line);
    }
    return filler;
  };
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
  // The kernel of a def at `key`, which a spec binds with the def or not at all: a function, or a lambda that
  // forwards to one; a need for anything else (a functor, another lambda, a key no kernel is registered at).
  auto def_kernel = [&](ImportedOp& o, TokenRange kernel, size_t k, const std::string& key, bool functor = false) {
    auto fn = functor ? std::nullopt : kernel_function(tokens, kernel);
    if (!fn && !functor)
      if (auto forwarded = forwarding_lambda(tokens, kernel)) fn = forwarded->function;
    if (fn && !key.empty()) return bind(o, key, *fn, k, /*def=*/true);
    o.kernel_refused = true;
    o.needs.push_back(fmt::format("{}: the def's kernel is '{}', {}: a def cannot be split from its kernel; give "
                                  "opgen the function it calls (docs/existing-kernels.md)",
                                  where(k), text_of(tokens, kernel),
                                  fn ? "at a key no kernel is registered at" : functor ? "a functor" : "not a plain function"));
  };
  // A def, `m.def(first, rest...)` or RegisterOperators' `.op(first, kernel)`: its schema string, or the name
  // PyTorch infers a schema for from its kernel's signature; the kernel, which PyTorch registers at `key` (a def's
  // has none: CompositeImplicitAutograd); its tags.
  auto read_def = [&](ImportedOp& o, const std::string& first, const std::vector<TokenRange>& rest, size_t k,
                      model::Abi abi, const std::string& key, bool functor = false) {
    if (o.defined) {
      // Defined again: the same op under #if branches that exclude each other (one per backend or ABI).
      if (o.abi != abi || o.schema != first)
        o.needs.push_back(fmt::format(
            "defined twice, {} at {}{} and {} at {}{}: import one build configuration with --define "
            "(the macros its #if tests)",
            o.abi != abi ? abi_text(o.abi) : "as '" + o.schema + "'", o.where,
            o.guard.empty() ? "" : " (under " + o.guard + ")", o.abi != abi ? abi_text(abi) : "as '" + first + "'",
            where(k), guard(k).empty() ? "" : " (under " + guard(k) + ")"));
      return;
    }
    o.defined = true;
    o.where = where(k);
    o.abi = abi;
    o.guard = guard(k);
    std::optional<TokenRange> kernel;
    for (const TokenRange& arg : rest) {
      if (text_of(tokens, arg).starts_with("{")) {  // tags: {at::Tag::pt2_compliant_tag, ...}
        for (size_t x = arg.first; x < arg.second; ++x)
          if (is(tokens[x], "Tag") && x + 2 < arg.second && is(tokens[x + 1], "::")) o.tags.push_back(tokens[x + 2].text);
      } else if (!kernel) {
        kernel = arg;
      }
    }
    if (first.find('(') != std::string::npos) {
      o.schema = first;
      if (kernel) def_kernel(o, *kernel, k, key, functor);
      return;
    }
    // No schema: PyTorch infers it from the kernel's signature, and so does import, after the scan (infer_schema.h).
    auto fn = kernel && !functor ? kernel_function(tokens, *kernel) : std::nullopt;
    const auto forwarded = kernel && !functor && !fn ? forwarding_lambda(tokens, *kernel) : std::nullopt;
    if (forwarded) fn = forwarded->function;
    const auto declared = fn ? internal.find(declared_name(*fn)) : internal.end();
    if (fn && !key.empty() && !(block_anonymous && !fn->starts_with("::")) && declared == internal.end()) {
      o.schema_from = fn->starts_with("::") || block_scope.empty() ? *fn : block_scope + "::" + *fn;
      o.schema_from_file = file.display;
      o.schema_from_includes = scanned.quoted_includes;
      o.schema_from_key = key;
      if (forwarded) {
        o.schema_from_params = forwarded->params;
        o.schema_from_returns = forwarded->returns;
      }
      return;
    }
    // Internal linkage, or a key no kernel is registered at: bind and def_kernel say which.
    if (fn && key.empty()) return def_kernel(o, *kernel, k, key);
    if (fn) return bind(o, key, *fn, k, /*def=*/true);
    o.needs.push_back(fmt::format("{}: no schema: PyTorch infers it from the C++ signature of {}; write it as the "
                                  "spec's 'schema'",
                                  where(k), kernel ? text_of(tokens, *kernel) : "the function"));
  };
  const size_t first_block = result.blocks.size();
  std::vector<TokenRange> outside_blocks;  // the tokens between the blocks
  size_t next_outside = 0;
  // c10's legacy API, which torch_scatter, torch_sparse, torch_cluster and torchvision before 0.8 register with:
  // `static auto registry = torch::RegisterOperators().op("ns::name", &fn).op(...);`, or its constructor,
  // `RegisterOperators("ns::name", &fn)` (`i` at `RegisterOperators`). Each `.op` is a def with its kernel: the
  // schema string or the name PyTorch infers one for from the kernel's signature, and a catch-all kernel
  // (CompositeImplicitAutograd, as a def's), or the kernels its `options()` name. The statement is a block of the
  // report's that claims no namespace (any file adds to one this way). Returns the index just past it.
  auto read_register_operators = [&](size_t i) -> size_t {
    size_t start = i;  // the statement's first token (not before what the last block read)
    while (start > next_outside && !is(tokens[start - 1], ";") && !is(tokens[start - 1], "{") &&
           !is(tokens[start - 1], "}"))
      --start;
    std::tie(block_scope, block_anonymous) = scope_at(start);
    block_stable = false;
    const size_t open = tokens[i + 1].kind == Token::Kind::Identifier ? i + 2 : i + 1;  // `RegisterOperators reg(`
    size_t end = 0;
    struct Call {
      size_t at;  // its first token
      std::vector<TokenRange> args;
      size_t end;  // just past its ")"
    };
    std::vector<Call> calls;
    if (auto args = call_arguments(tokens, open, &end); !args.empty()) calls.push_back({i, std::move(args), end});
    const size_t head_end = end;
    while (end + 2 < tokens.size() && is(tokens[end], ".") && is(tokens[end + 1], "op") && is(tokens[end + 2], "(")) {
      size_t call_end = 0;
      auto args = call_arguments(tokens, end + 2, &call_end);
      calls.push_back({end + 1, std::move(args), call_end});
      end = call_end;
    }
    size_t last = end;  // the statement's `;`, past the `)` of a call around it (`ops.push_back(...)`)
    while (last < tokens.size() && is(tokens[last], ")")) ++last;
    end = last < tokens.size() && is(tokens[last], ";") ? last + 1 : end;
    const size_t block_index = result.blocks.size();
    result.blocks.push_back({file.display, tokens[start].line, tokens[std::min(end, tokens.size()) - 1].line,
                             text_of(tokens, {start, std::min(head_end, tokens.size())}), {}, false, ""});
    result.blocks.back().filler_lines = filler_lines(result.blocks.back().first_line, result.blocks.back().last_line);
    result.blocks.back().shares_lines = shares_lines(start, end);
    for (const Call& call : calls) {
      ++result.registrations;
      if (call.args.empty()) continue;  // `.op()`: registers nothing (and does not compile)
      const size_t k = call.at;
      const int last_line = tokens[std::min(call.end, tokens.size()) - 1].line;
      const auto options = call.args.empty() ? std::nullopt : legacy_options(tokens, call.args.back());
      auto first = string_argument(tokens, call.args.front());
      if (!first && options && call.args.size() == 1) first = options->schema;
      if (!first) {
        result.notes.push_back(fmt::format("{}: RegisterOperators().op({}...) builds its string from a macro or "
                                           "code: not imported",
                                           where(k), text_of(tokens, call.args.front()).substr(0, 60)));
        result.blocks[block_index].registrations.push_back({"", "", where(k), last_line, true, true});
        continue;
      }
      auto [op_ns, name] = split_qualified(*first);
      ImportedOp& o = op(op_ns, name, where(k));
      const size_t kept_before = o.kept_impls.size();
      if (!options) {
        read_def(o, *first, {call.args.begin() + 1, call.args.end()}, k, model::Abi::Unstable,
                 "CompositeImplicitAutograd");
      } else {
        // The first kernel with the def (a schema may be inferred from it), the others bound or needs.
        auto key_of = [&](const LegacyOptions::Kernel& kernel) {
          return kernel.key.empty() ? std::string("CompositeImplicitAutograd") : dispatch_key(kernel.key);
        };
        const auto& kernels = options->kernels;
        if (kernels.empty())
          read_def(o, *first, {}, k, model::Abi::Unstable, "CompositeImplicitAutograd");
        else
          read_def(o, *first, {kernels[0].function}, k, model::Abi::Unstable, key_of(kernels[0]), kernels[0].functor);
        for (size_t n = 1; n < kernels.size(); ++n) def_kernel(o, kernels[n].function, k, key_of(kernels[n]), kernels[n].functor);
      }
      if (result.blocks[block_index].ns.empty()) result.blocks[block_index].ns = o.ns;
      result.blocks[block_index].registrations.push_back(
          {o.ns, o.name, where(k), last_line, true, o.kept_impls.size() > kept_before});
    }
    outside_blocks.emplace_back(next_outside, start);
    next_outside = end;
    return end;
  };
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (is(t, "RegisterOperators") &&
        (is(tokens[i + 1], "(") ||
         (i + 2 < tokens.size() && tokens[i + 1].kind == Token::Kind::Identifier && is(tokens[i + 2], "(")))) {
      i = read_register_operators(i) - 1;
      continue;
    }
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
      result.blocks.back().shares_lines = shares_lines(i, call_end);
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
    result.blocks.back().filler_lines = filler_lines(result.blocks.back().first_line, result.blocks.back().last_line);
    result.blocks.back().shares_lines = shares_lines(i, body_end);
    result.blocks.back().claims = block == "TORCH_LIBRARY";
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
          read_def(o, *first, {args.begin() + 1, args.end()}, k,
                   stable ? model::Abi::Stable : model::Abi::Unstable, "CompositeImplicitAutograd");
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
            // A lambda, a call (make_pytorch_shim(&fn), which FlashAttention's forks, mamba and causal-conv1d wrap
            // their kernels in to convert `int` and `std::optional<T>&` parameters): the impl registers it as it is.
            o.kept_impls.push_back(fmt::format("{} ({}; its kernel is '{}', not a plain function: the impl registers "
                                               "it as it is; name the function it calls to bind it)",
                                               key, where(k), text_of(tokens, fn_range)));
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
  // empty module, so that `import pkg._C` loads the library), or a PyInit_ function written out. The brackets are
  // matched once, and each look for an init's end stays at its own level and stops at the next init: linear in
  // hostile sources (100,000 unclosed `REGISTER_EXTENSION(` once took minutes).
  std::string module_init, module_init_lines;
  bool module_functions = false;  // a pybind11 module: functions of the project's own, not an empty init
  for (const TokenRange& range : outside_blocks) {
    const size_t from = range.first, to = range.second;  // not a structured binding: the lambda below captures them
    std::vector<size_t> closer(to - from, 0);  // per opening bracket, the index of its closing one (0: none)
    std::vector<size_t> open;
    for (size_t j = from; j < to; ++j) {
      if (is(tokens[j], "(") || is(tokens[j], "{") || is(tokens[j], "[")) {
        open.push_back(j);
      } else if (!open.empty() && (is(tokens[j], ")") || is(tokens[j], "}") || is(tokens[j], "]"))) {
        const std::string& o = tokens[open.back()].text;
        if ((o == "(" && is(tokens[j], ")")) || (o == "{" && is(tokens[j], "}")) || (o == "[" && is(tokens[j], "]")))
          closer[open.back() - from] = j;
        open.pop_back();
      }
    }
    auto starts_init = [&](size_t j) {
      return ((is(tokens[j], "REGISTER_EXTENSION") || is(tokens[j], "PYBIND11_MODULE")) && j + 1 < to &&
              is(tokens[j + 1], "(")) ||
             is(tokens[j], "PyMODINIT_FUNC");
    };
    // `PyObject* PyInit__C(void) { ... }`, written without PyMODINIT_FUNC (FlashAttention 3's, in an `extern "C"`
    // block): where its declaration starts (its return type), or nullopt.
    auto written_out_init = [&](size_t j) -> std::optional<size_t> {
      if (tokens[j].kind != Token::Kind::Identifier || !tokens[j].text.starts_with("PyInit_") || j + 1 >= to ||
          !is(tokens[j + 1], "("))
        return std::nullopt;
      const size_t params_end = closer[j + 1 - from];
      if (!params_end || params_end + 1 >= to || !is(tokens[params_end + 1], "{") || !closer[params_end + 1 - from])
        return std::nullopt;
      // A return type of a few words (`extern "C" PyObject*`); a longer run of words before the name is no
      // init's (it would be echoed whole into the report: 800 KB for 200,000 of them).
      constexpr size_t kReturnTypeWords = 8;
      size_t start = j;
      while (start > from && (tokens[start - 1].kind == Token::Kind::Identifier || is(tokens[start - 1], "*")))
        if (--start + kReturnTypeWords < j) return std::nullopt;
      for (size_t k = start; k < j; ++k)
        if (is(tokens[k], "PyMODINIT_FUNC")) return std::nullopt;  // read as the PyMODINIT_FUNC form
      return start;
    };
    for (size_t j = from; j < to && module_init.empty(); ++j) {
      if (const auto start = written_out_init(j)) {
        const size_t body_end = closer[closer[j + 1 - from] + 1 - from];
        const int first = tokens[*start].line, last = tokens[body_end].line;
        for (size_t k = *start; k <= j; ++k)  // `PyObject* PyInit__C`, as it is written
          module_init += (k == *start || is(tokens[k], "*") ? "" : " ") + tokens[k].text;
        module_init_lines = first == last ? std::to_string(first) : fmt::format("{}-{}", first, last);
        continue;
      }
      if (!starts_init(j)) continue;
      const bool macro = !is(tokens[j], "PyMODINIT_FUNC");
      size_t end = 0;  // the macro's closing parenthesis, or the closing brace of the function's body
      if (macro) {
        end = closer[j + 1 - from];
        // PYBIND11_MODULE(name, m) { m.def(...); }: the module's functions are its body.
        if (end && is(tokens[j], "PYBIND11_MODULE")) {
          module_functions = true;
          if (end + 1 < to && is(tokens[end + 1], "{")) {
            const size_t body = closer[end + 1 - from];
            if (body) {
              module_init_lines = fmt::format("{}-{}", tokens[j].line, tokens[body].line);
              module_init = text_of(tokens, {j, end + 1});
              continue;
            }
          }
        }
      } else {
        for (size_t k = j + 1; k < to && !starts_init(k); ++k) {
          if (is(tokens[k], ";") || is(tokens[k], ")") || is(tokens[k], "}") || is(tokens[k], "]")) break;
          if (is(tokens[k], "{")) {
            end = closer[k - from];
            break;
          }
          if (is(tokens[k], "(") || is(tokens[k], "[")) {
            if (!closer[k - from]) break;
            k = closer[k - from];
          }
        }
      }
      if (!end) continue;
      const int first = tokens[j].line, last = tokens[end].line;
      module_init = text_of(tokens, {j, macro ? end + 1 : std::min(j + 2, end)});
      module_init_lines = first == last ? std::to_string(first) : fmt::format("{}-{}", first, last);
    }
  }
  for (size_t b = first_block; b < result.blocks.size(); ++b) {
    result.blocks[b].file_has_other_code = other_code;
    result.blocks[b].python_module_init = module_init;
    result.blocks[b].python_module_init_lines = module_init_lines;
    result.blocks[b].python_module_functions = module_functions;
  }
}

}  // namespace opgen::import::detail
