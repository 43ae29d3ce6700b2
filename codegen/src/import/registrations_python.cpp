// `opgen import`'s Python reader: torch.library.define / impl / register_fake calls, Library objects,
// custom_op functions and the fakes registered for them (registration_collector.h).
#include "import/registration_collector.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "import/python_fake.h"
#include "import/python_schema.h"
#include "import/python_values.h"
#include "import/source_scan.h"
#include "import/tokens.h"
#include "model/dispatch_keys.h"
#include "model/schema.h"
#include "model/types.h"

namespace opgen::import::detail {

// The key a custom_op object's `fn.<method>(...)` at tokens[i] registers at, as the kept impl names it:
// register_autograd, register_autocast, register_kernel (its device type, when written as a string),
// register_torch_dispatch and register_vmap; "" for a method that is none of them.
static std::string custom_op_method_key(const Tokens& tokens, size_t i) {
  const std::string& method = tokens[i + 2].text;
  if (method == "register_autograd") return "Autograd";
  if (method == "register_autocast") return "Autocast";
  if (method == "register_torch_dispatch") return "Python";
  if (method == "register_vmap") return "FuncTorchBatched";
  if (method != "register_kernel") return "";
  if (i + 4 < tokens.size() && is(tokens[i + 3], "(") && tokens[i + 4].kind == Token::Kind::String &&
      !tokens[i + 4].formatted)
    if (const std::string key = dispatch_key(tokens[i + 4].text); !key.empty()) return key;
  return "a device type computed when the module runs";
}

// A name fit to echo into the report: an identifier (dotted, `ns::` allowed), not some hostile megabyte.
static bool plain_op_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == ':';
  });
}

// An op's name as a Python name to assign its custom_op object to (`name.overload` -> `name_overload`).
static std::string python_name(const std::string& op) {
  std::string name = op;
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

void Collector::python(const SourceFile& file) {
  const ScannedSource scanned = scan_python(file.text);
  const Tokens& tokens = scanned.tokens;
  auto where = [&](size_t i) { return fmt::format("{}:{}", file.display, tokens[i].line); };
  std::filesystem::path module_path(file.display);
  module_path.replace_extension();
  // `from . import _C` (a relative import, or one from a package not torch's) and `import pkg._C`, each a statement
  // of one module on a line of its own: what loads an extension whose init the report may delete.
  for (size_t i = 0; i + 3 < tokens.size(); ++i) {
    if (i > 0 && tokens[i - 1].line == tokens[i].line) continue;
    size_t j = i + 1;
    std::string root;
    if (is(tokens[i], "from")) {
      for (; j < tokens.size() && tokens[j].line == tokens[i].line && (is(tokens[j], ".") || tokens[j].kind ==
                                                                       Token::Kind::Identifier) && !is(tokens[j], "import");
           ++j)
        if (root.empty()) root = tokens[j].text;
      if (j + 1 >= tokens.size() || !is(tokens[j], "import") || tokens[j + 1].kind != Token::Kind::Identifier) continue;
      j += 1;
    } else if (is(tokens[i], "import")) {
      root = tokens[j].text;
      while (j + 2 < tokens.size() && is(tokens[j + 1], ".") && tokens[j + 2].kind == Token::Kind::Identifier) j += 2;
      if (j == i + 1) continue;  // `import x`: a package, not a module in one
    } else {
      continue;
    }
    const bool alone = j + 1 >= tokens.size() || tokens[j + 1].line != tokens[j].line;
    if (alone && root != "torch" && tokens[j].kind == Token::Kind::Identifier)
      result.python_module_imports[tokens[j].text].push_back(where(i));
  }
  std::string module = module_path.generic_string();
  std::replace(module.begin(), module.end(), '/', '.');
  if (module.ends_with(".__init__")) module.resize(module.size() - 9);
  std::map<std::string, std::string> library_ns;  // variable -> namespace of Library("ns", ...)
  // Functions custom_op defines an op with: function -> (namespace, op).
  std::map<std::string, std::pair<std::string, std::string>> custom_ops;
  // Local names of torch.library's functions: `register_fake = torch.library.register_fake`,
  // or one chosen by a version check (`_torch_custom_op_wrapper = torch.library.custom_op`).
  static const std::set<std::string> library_functions = {"define",          "register_fake",     "impl_abstract",
                                                          "custom_op",       "register_kernel",   "impl",
                                                          "register_autograd", "register_autocast", "triton_op"};
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
  // Their bodies (token ranges): the registration inside names its op from a parameter, read at each use.
  std::vector<std::pair<size_t, size_t>> fake_decorator_bodies;
  // Module-level functions only: each body is read once (linear in the file).
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!is(tokens[i], "def") || tokens[i + 1].kind != Token::Kind::Identifier || indent(tokens[i].line) != 0)
      continue;
    const size_t end = block_end(i);
    for (size_t j = i + 2; j + 1 < end; ++j) {
      if (is(tokens[j], "register_fake") || is(tokens[j], "impl_abstract")) {
        fake_decorators.insert(tokens[i + 1].text);
        fake_decorator_bodies.emplace_back(i, end);
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
          fake_decorator_bodies.emplace_back(i, end);
          break;
        }
      }
    }
  }
  // Whether the function the `def` at token i opens makes tensors on the meta
  // device (a Meta kernel's `device="meta"`): as a fake, its outputs would be
  // meta tensors, which opcheck refuses and torch.compile takes silently.
  // (Memoized, as returned_argument below: many registrations may name one function.)
  std::map<size_t, bool> meta_makers;
  auto makes_meta_tensors = [&](size_t def) {
    if (auto known = meta_makers.find(def); known != meta_makers.end()) return known->second;
    const size_t end = block_end(def);
    bool found = false;
    for (size_t j = def; j + 2 < end && !found; ++j)
      found = (is(tokens[j], "device") && (is(tokens[j + 1], "=") || is(tokens[j + 1], "(")) &&
               tokens[j + 2].kind == Token::Kind::String && tokens[j + 2].text == "meta");
    return meta_makers[def] = found;
  };
  // The first of its parameters the function the `def` at token i returns as it is (`return weight, scales`):
  // a `return` item that is a parameter's bare name. A fake's outputs are new tensors.
  // (Memoized: many registrations may name one function, as FBGEMM's calls do.)
  std::map<size_t, std::string> returned_arguments;
  auto returned_argument = [&](size_t def) -> std::string {
    if (auto known = returned_arguments.find(def); known != returned_arguments.end()) return known->second;
    std::string& found = returned_arguments[def];
    const size_t end = block_end(def);
    if (!signature_closes(def, end)) return "";
    std::set<std::string> parameters;
    size_t j = def + 3;
    for (int open = 1; j < end && open > 0; ++j) {
      if (is(tokens[j], "(") || is(tokens[j], "[") || is(tokens[j], "{")) ++open;
      if (is(tokens[j], ")") || is(tokens[j], "]") || is(tokens[j], "}")) --open;
      // A parameter: a name first in its item at the signature's own level, before its `:` or `=`.
      if (open == 1 && tokens[j].kind == Token::Kind::Identifier &&
          (is(tokens[j - 1], "(") || is(tokens[j - 1], ",") || is(tokens[j - 1], "*")))
        parameters.insert(tokens[j].text);
    }
    for (; j + 1 < end; ++j) {
      if (!is(tokens[j], "return")) continue;
      const size_t first = j + 1 < end && is(tokens[j + 1], "(") ? j + 2 : j + 1;  // `return (weight, scales)`
      for (size_t k = first; k < end && tokens[k].line == tokens[j].line; k += 2) {
        const bool alone = k + 1 >= end || tokens[k + 1].line != tokens[j].line || is(tokens[k + 1], ",") ||
                           (first == j + 2 && is(tokens[k + 1], ")"));
        if (tokens[k].kind == Token::Kind::Identifier && alone && parameters.count(tokens[k].text))
          return found = fmt::format("{}: {}", where(k), tokens[k].text);
        if (!alone) break;  // an expression: what it makes is not the argument itself
      }
    }
    return found;
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
          tokens[end + 1].kind == Token::Kind::Identifier) {
        ++result.registrations;
        auto [ns, op_name] = split_qualified(*name);
        ImportedOp& o = op(ns, op_name, where(i));
        const bool underscore = tokens[end + 1].text == "_";
        // torchao's `@register_custom_op("torchao::op")` on `def _`: moved, as a `_` fake
        // registered through torch.library is.
        if (underscore && !makes_meta_tensors(end) && signature_closes(end, block_end(end)))
          move_underscore_fake(o, end, i);
        else if (underscore)
          o.needs.push_back(fmt::format("{}: the fake is '_' (registered through {}){}: give it a name of its own "
                                        "to name it in 'fake: {{python: ...}}'",
                                        where(i), t.text,
                                        makes_meta_tensors(end) ? " and makes tensors on the meta device" : ""));
        else if (makes_meta_tensors(end))
          o.needs.push_back(fmt::format(
              "{}: its fake {} (registered through {}) makes tensors on the meta device: a fake returns tensors on "
              "its inputs' device (new_empty, empty_like, device=x.device); fix it, then name it in 'fake: "
              "{{python: ...}}'",
              where(i), tokens[end + 1].text, t.text));
        else
          o.python_fake = module + ":" + tokens[end + 1].text;
        o.python_fake_at = where(i);
        o.fake_via = t.text;
        o.fake_returns_argument = returned_argument(end);
      } else {
        result.notes.push_back(fmt::format("{}: {}(...) registers a fake that import cannot name: not imported",
                                           where(i), t.text));
      }
      continue;
    }
    // vLLM's and SGLang's own helper (copied into their forks under that name): infer_schema, define, impl and
    // _register_fake in one call. The def and the fake are the spec's; the impl stays the helper's (its key is
    // one the module computes: vLLM's current_platform.dispatch_key).
    if (t.text == "direct_register_custom_op" && !(i > 0 && is(tokens[i - 1], "def"))) {
      const auto args = call_arguments(tokens, i + 1, &end);
      ++result.registrations;
      helper_call(tokens, args, module, where(i), module_functions, values, library_ns,
                  [&](size_t def) { return returned_argument(def); });
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
    // `torch.library.register_autograd("ns::op", backward, setup_context=...)` (or register_autocast): Python
    // the spec cannot hold, which keeps working against the spec's def, as a kernel the project registers in
    // Python does: named with the op, kept.
    if ((t.text == "register_autograd" || t.text == "register_autocast") &&
        ((dotted && owner == "library") || alias.count(tokens[i].text))) {
      const auto args = call_arguments(tokens, i + 1, &end);
      if (args.empty()) continue;
      ++result.registrations;
      const auto qualified = string_argument(tokens, args[0]);
      if (!qualified) {
        result.notes.push_back(fmt::format("{}: {}() names its op at run time: not imported", where(i), t.text));
        continue;
      }
      auto [ns, name] = split_qualified(*qualified);
      std::string function;
      if (args.size() > 1 && args[1].second == args[1].first + 1 && tokens[args[1].first].kind == Token::Kind::Identifier)
        function = " of " + tokens[args[1].first].text;
      op(ns, name, where(i)).kept_impls.push_back(fmt::format("{} ({}, {}{} in Python)",
                                                              t.text == "register_autograd" ? "Autograd" : "Autocast",
                                                              where(i), t.text, function));
      continue;
    }
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
        // (direct_register_custom_op's own define: its calls are read as the ops' defs.)
        const bool helpers = helper && (helper->define_at == where(i) || helper->define_at.starts_with(where(i) + "-"));
        if (!helpers)
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
    } else if (dotted && custom_ops.count(owner)) {
      continue;  // `fn.register_kernel("cpu")`: a custom_op object's own, read below
    } else if (t.text == "register_fake" || t.text == "impl_abstract" || t.text == "custom_op" || t.text == "triton_op" ||
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
      // (The bodies are in file order and apart, top-level functions: the last one starting before i.)
      const auto after = std::upper_bound(fake_decorator_bodies.begin(), fake_decorator_bodies.end(),
                                           std::pair<size_t, size_t>(i, 0));
      const bool in_fake_decorator = after != fake_decorator_bodies.begin() && i < std::prev(after)->second;
      if (!qualified) {
        if ((t.text != "register_fake" || !dotted || owner == "library") && !in_fake_decorator)
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
        if (fake_def) o.fake_returns_argument = returned_argument(*fake_def);
      } else if (t.text == "custom_op" || t.text == "triton_op") {
        // `@custom_op(...)` on a def, or called: `fn_op = custom_op("ns::op", fn, mutates_args=...)`,
        // `custom_op("ns::op", mutates_args=...)(fn)` (the function found above). triton_op alike.
        const bool decorates = end < tokens.size() && is(tokens[end], "def");
        if (function.empty() && !decorates && args.size() >= 2 && args[1].second == args[1].first + 1 &&
            tokens[args[1].first].kind == Token::Kind::Identifier)
          function = tokens[args[1].first].text;
        std::optional<size_t> def_at;
        if (decorates)
          def_at = end;
        else if (auto def = module_functions.find(function); def != module_functions.end())
          def_at = def->second;
        // The statement that defines the op, which the person switches: the decorator (`@` through its `)`), or
        // the call with what it is assigned to (`name = ...`), its name the custom_op object's.
        size_t start = i;
        while (start >= 2 && is(tokens[start - 1], ".") && tokens[start - 2].kind == Token::Kind::Identifier) start -= 2;
        std::string object = function;
        std::optional<size_t> first, last;
        if (decorates && start >= 1 && is(tokens[start - 1], "@")) {
          first = start - 1;
          last = end - 1;
        } else if (!decorates) {
          const bool assigned = start >= 2 && is(tokens[start - 1], "=") &&
                                tokens[start - 2].kind == Token::Kind::Identifier && starts_line(tokens, start - 2);
          const bool applied = end + 2 < tokens.size() && is(tokens[end], "(") && is(tokens[end + 2], ")") &&
                               tokens[end + 1].text == function;
          const size_t stop = applied ? end + 3 : end;
          if ((assigned || starts_line(tokens, start)) && (stop == tokens.size() || starts_line(tokens, stop))) {
            first = assigned ? start - 2 : start;
            last = stop - 1;
            if (assigned) object = tokens[start - 2].text;
          }
        }
        if (def_at && !signature_closes(*def_at, block_end(*def_at)))
          o.needs.push_back(fmt::format("{}: {} names {}, whose signature does not close", where(i), t.text, function));
        else if (!first && !function.empty())
          // The switch replaces a statement; this call, inside another, would still define the op beside the package.
          o.needs.push_back(fmt::format("{}: {} is called inside another statement: make it one of its own "
                                        "(`{} = {}(\"{}::{}\", {}, ...)`) for the report to switch it", where(i),
                                        t.text, python_name(name), t.text, ns, name, function));
        else
          custom_op(o, tokens, args, def_at, function, module, where(i), values, t.text);
        if (o.needs.empty()) custom_ops[object] = {ns, name};
        if (first) {
          const int last_line = tokens[*last].line;
          o.python_def_at = last_line > tokens[*first].line ? fmt::format("{}-{}", where(*first), last_line)
                                                             : where(*first);
        }
      } else {
        // A kernel the project registers in Python (register_kernel, torch.library.impl) stays
        // where it is, registered against the spec's def once the package has defined the op, as
        // C++ impls opgen cannot bind stay in the project's build. (Naming the function
        // under 'kernels:' instead would import its module and register it twice.)
        const std::string named_key = key                   ? *key
                                      : args.size() <= key_at ? "every device"
                                                              : text_of(tokens, args[key_at]) +
                                                                    " (a key computed when the module runs)";
        o.kept_impls.push_back(fmt::format("{} ({}, {}{} in Python)", named_key, where(i), t.text,
                                           function.empty() ? "" : " of " + function));
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
      o.fake_returns_argument = returned_argument(i + 3);
    } else if (method == "register_fake" && decorates && !makes_meta_tensors(i + 3) &&
               signature_closes(i + 3, block_end(i + 3))) {
      move_underscore_fake(o, i + 3, i);  // `@fn.register_fake` on `def _` (torchao's)
      o.fake_returns_argument = returned_argument(i + 3);
    } else if (method == "register_fake") {
      o.needs.push_back(fmt::format("{}: the fake is {}: give it a name of its own to name it in 'fake: "
                                    "{{python: ...}}'", where(i), decorates ? "'_'" : "not a named function"));
    } else if (const std::string key = custom_op_method_key(tokens, i); !key.empty()) {
      // The custom_op object's other registrations stay in the project's Python: the name is the runtime's
      // op_kernel once its decorator is switched, which hands them to the custom_op the package defines the op
      // through (`define: custom_op`), as torch.library's functions by the op's name do.
      o.kept_impls.push_back(fmt::format("{} ({}, {}.{} in Python)", key, where(i), tokens[i].text, method));
    } else {
      o.needs.push_back(fmt::format("{}: {}.{}(...) registers Python the spec cannot hold ({} of a custom_op "
                                    "object): write it as the spec's (a backward op under 'autograd:', a kernel "
                                    "under 'kernels:')", where(i), tokens[i].text, method, method));
    }
  }
}

// `def direct_register_custom_op(...)` at the top of a module: its default Library (`target_lib or NAME`, NAME a
// module-level `Library("ns", ...)`), and its define and _register_fake statements.
void Collector::find_registration_helper(const SourceFile& file) {
  if (file.text.find("def direct_register_custom_op") == std::string::npos) return;
  const ScannedSource scanned = scan_python(file.text);
  const Tokens& tokens = scanned.tokens;
  const std::vector<std::string_view> lines = source_lines(file.text);
  auto at_top = [&](size_t j) { return starts_line(tokens, j) && indent_of(lines, tokens[j].line) == 0; };
  for (size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (!is(tokens[i], "def") || tokens[i + 1].text != "direct_register_custom_op" || !at_top(i)) continue;
    // The body: past the header's `:` (its `):` may stand at the left margin), to the next top-level statement.
    size_t body_end = i + 2;
    for (int open = 0; body_end < tokens.size() && !(open == 0 && is(tokens[body_end], ":")); ++body_end) {
      if (is(tokens[body_end], "(") || is(tokens[body_end], "[") || is(tokens[body_end], "{")) ++open;
      if (is(tokens[body_end], ")") || is(tokens[body_end], "]") || is(tokens[body_end], "}")) --open;
    }
    ++body_end;
    while (body_end < tokens.size() && !at_top(body_end)) ++body_end;
    RegistrationHelper found;
    found.def_at = fmt::format("{}:{}", file.display, tokens[i].line);
    // The statement a call at `name` (`my_lib.define(`) is: from its line's first token to its `)`, alone.
    auto statement = [&](size_t name) -> std::string {
      size_t first = name;
      while (first > 0 && !starts_line(tokens, first)) --first;
      size_t close = 0;
      call_arguments(tokens, name + 1, &close);
      if (close == 0 || close > body_end || (close < tokens.size() && !starts_line(tokens, close))) return "";
      const int last = tokens[close - 1].line;
      return last > tokens[first].line ? fmt::format("{}:{}-{}", file.display, tokens[first].line, last)
                                       : fmt::format("{}:{}", file.display, tokens[first].line);
    };
    for (size_t j = i + 2; j + 2 < body_end; ++j) {
      if (is(tokens[j], "target_lib") && is(tokens[j + 1], "or") && tokens[j + 2].kind == Token::Kind::Identifier)
        found.library = tokens[j + 2].text;
      if (is(tokens[j], ".") && is(tokens[j + 2], "(") && is(tokens[j + 1], "define")) found.define_at = statement(j + 1);
      if (is(tokens[j], ".") && is(tokens[j + 2], "(") && is(tokens[j + 1], "_register_fake"))
        found.fake_at = statement(j + 1);
    }
    if (found.library.empty() || found.define_at.empty()) return;
    for (size_t j = 0; j + 3 < tokens.size(); ++j) {
      if (tokens[j].text != found.library || !is(tokens[j + 1], "=") || !at_top(j)) continue;
      for (size_t k = j + 2; k + 1 < tokens.size() && tokens[k].line == tokens[j].line; ++k) {
        if (!is(tokens[k], "Library") || !is(tokens[k + 1], "(")) continue;
        size_t close = 0;
        const auto args = call_arguments(tokens, k + 1, &close);
        if (!args.empty())
          if (auto ns = string_argument(tokens, args[0])) found.ns = *ns;
        break;
      }
    }
    if (!found.ns.empty()) helper = found;
    return;
  }
}

// A call of direct_register_custom_op(op_name, op_func, mutates_args, fake_impl, target_lib, dispatch_key, tags),
// by position or keyword: the op's def (the schema infer_schema makes of op_func), its fake (fake_impl), and its
// kernel kept as the helper's impl.
void Collector::helper_call(const Tokens& tokens, const std::vector<TokenRange>& args, const std::string& module,
                            const std::string& where,
                            const std::map<std::string, size_t>& module_functions, const ModuleValues& values,
                            const std::map<std::string, std::string>& library_ns,
                            const std::function<std::string(size_t)>& returned_argument) {
  static const std::array<std::string_view, 7> kParameters = {"op_name",    "op_func",      "mutates_args", "fake_impl",
                                                               "target_lib", "dispatch_key", "tags"};
  std::map<std::string, TokenRange> given;
  for (size_t a = 0; a < args.size(); ++a) {
    const auto [begin, stop] = args[a];
    if (stop > begin + 2 && tokens[begin].kind == Token::Kind::Identifier && is(tokens[begin + 1], "="))
      given[tokens[begin].text] = {begin + 2, stop};
    else if (a < kParameters.size())
      given[std::string(kParameters[a])] = args[a];
  }
  auto argument = [&](const char* parameter) -> std::optional<TokenRange> {
    auto it = given.find(parameter);
    if (it == given.end() || (it->second.second == it->second.first + 1 && is(tokens[it->second.first], "None")))
      return std::nullopt;
    return it->second;
  };
  auto identifier = [&](const char* parameter) -> std::string {
    auto range = argument(parameter);
    return range && range->second == range->first + 1 && tokens[range->first].kind == Token::Kind::Identifier
               ? tokens[range->first].text
               : "";
  };
  const auto op_name = argument("op_name");
  const auto name = op_name ? string_argument(tokens, *op_name) : std::nullopt;
  auto not_imported = [&](const std::string& why) {
    ++result.helper_calls_not_read;
    result.notes.push_back(fmt::format("{}: direct_register_custom_op(...) registers {} through the project's own "
                                       "helper, {}: not imported",
                                       where, name && plain_op_name(*name) ? fmt::format("the op '{}'", *name)
                                                                           : std::string("an op"),
                                       why));
  };
  if (!name || !plain_op_name(*name) || name->find("::") != std::string::npos)
    return not_imported("its name one the module computes");
  // The namespace: target_lib's Library (of this module, or the helper's own), else the helper's default one.
  std::string ns;
  if (argument("target_lib")) {
    const std::string library = identifier("target_lib");
    if (auto it = library_ns.find(library); it != library_ns.end())
      ns = it->second;
    else if (helper && library == helper->library)
      ns = helper->ns;
    else
      return not_imported("into a Library import cannot see made (target_lib)");
  } else if (helper) {
    ns = helper->ns;
  } else {
    return not_imported("whose definition is not among the sources: give the file that defines "
                        "direct_register_custom_op (its Library names the namespace)");
  }
  ImportedOp& o = op(ns, *name, where);
  o.where = where;
  o.defined = true;
  o.python_def_at = helper ? helper->define_at : "";
  o.helper_def_at = helper ? helper->def_at : "";
  const std::string function = identifier("op_func");
  const auto def = module_functions.find(function);
  // The kernel: the helper's impl, at the key given or one the module computes.
  const auto key_range = argument("dispatch_key");
  const auto key = key_range ? string_argument(tokens, *key_range) : std::nullopt;
  o.kept_impls.push_back(fmt::format("{} ({}, direct_register_custom_op{} in Python)",
                                     key && !dispatch_key(*key).empty() ? dispatch_key(*key)
                                                                        : "a key computed when the module runs",
                                     where, function.empty() ? "" : " of " + function));
  // mutates_args: names, as custom_op takes them.
  std::optional<std::vector<std::string>> mutates = std::vector<std::string>{};
  if (auto range = argument("mutates_args")) {
    for (size_t k = range->first; k < range->second; ++k) {
      if (tokens[k].kind == Token::Kind::String && !tokens[k].formatted)
        mutates->push_back(tokens[k].text);
      else if (!is(tokens[k], "[") && !is(tokens[k], "]") && !is(tokens[k], "(") && !is(tokens[k], ")") &&
               !is(tokens[k], ","))
        return o.needs.push_back(fmt::format("{}: direct_register_custom_op's mutates_args is computed when the "
                                             "module runs: write the spec's 'schema' (torch.library.infer_schema "
                                             "prints it)", where));
    }
  }
  if (function.empty() || def == module_functions.end())
    return o.needs.push_back(fmt::format("{}: direct_register_custom_op's op_func is not a function of this module: "
                                         "write the spec's 'schema' (torch.library.infer_schema prints it)", where));
  const InferredPythonSchema inferred = infer_python_schema(tokens, def->second, mutates, values);
  if (inferred.schema.empty())
    return o.needs.push_back(fmt::format("{}: direct_register_custom_op's op_func {}: {}", where, function,
                                         inferred.problem));
  o.schema = *name + inferred.schema;
  o.schema_from_type_hints = true;
  o.schema_inferred_by = "torch.library.infer_schema, in direct_register_custom_op,";
  o.schema_from = function;
  o.schema_inferred_from = fmt::format("{}:{}", where.substr(0, where.rfind(':')), tokens[def->second].line);
  o.python_definition = "";  // defined by the package's Library, as the helper's define did
  // tags: torch.Tag members, as written.
  if (auto range = argument("tags")) {
    for (size_t k = range->first; k < range->second; ++k) {
      if (k + 2 < range->second && is(tokens[k], "Tag") && is(tokens[k + 1], ".")) {
        o.tags.push_back(tokens[k + 2].text);
        k += 2;
      } else if (tokens[k].kind == Token::Kind::Identifier && !is(tokens[k], "torch") && !is(tokens[k], "_C")) {
        return o.needs.push_back(fmt::format("{}: direct_register_custom_op's tags are computed when the module "
                                             "runs: write them under the spec's 'tags'", where));
      }
    }
  }
  // The fake: fake_impl, a function of this module.
  if (argument("fake_impl")) {
    const std::string fake = identifier("fake_impl");
    if (auto fake_def = module_functions.find(fake); !fake.empty() && fake_def != module_functions.end()) {
      o.python_fake = module + ":" + fake;
      o.python_fake_at = helper ? helper->fake_at : "";
      o.fake_returns_argument = returned_argument(fake_def->second);
    } else {
      o.needs.push_back(fmt::format("{}: direct_register_custom_op's fake_impl is not a function of this module: "
                                    "name one that is in 'fake: {{python: ...}}'", where));
    }
  }
}

// `@custom_op("ns::op", mutates_args=..., device_types=..., schema=...)` on
// `def function` (or called on it): the op is defined with the schema
// custom_op infers from the function's type hints (or the one given), and
// the function is its kernel for each device type (every device:
// CompositeExplicitAutograd). `definer` "triton_op": the same, one kernel
// for every device, which is the op's fake too.
void Collector::custom_op(ImportedOp& o, const Tokens& tokens, const std::vector<TokenRange>& args,
                          std::optional<size_t> def_at, const std::string& function, const std::string& module,
                          const std::string& where, const ModuleValues& values, const std::string& definer) {
  auto need = [&](const std::string& why) {
    o.needs.push_back(fmt::format("{}: {} {}: write the spec's 'schema' (torch.library.infer_schema prints it)",
                                  where, definer, why));
  };
  if (function.empty() || !def_at) return need("names no function import can read (a def of this module)");
  const size_t end = *def_at;
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
    o.schema_inferred_by = "torch.library." + definer;
    o.schema_from = function;
    o.schema_inferred_from = fmt::format("{}:{}", where.substr(0, where.rfind(':')), tokens[end].line);
  }
  o.schema = o.name + *schema;
  o.where = where;
  o.defined = true;
  o.python_definition = definer;
  if (definer == "triton_op" && !keys.empty()) {
    o.needs.push_back(fmt::format("{}: triton_op is given device types, which it takes none of (its one function "
                                  "serves every device): drop them", where));
    return;
  }
  if (keys.empty()) keys.push_back("CompositeExplicitAutograd");  // custom_op's kernel for every device
  for (const std::string& key : keys) o.kernels.push_back({key, module + ":" + function, where, "", true});
}

}  // namespace opgen::import::detail
