#include "import/source_declarations.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>

namespace opgen::import {

namespace {

// Type words C++ gives, and the fixed-width names <cstdint> puts at global scope.
const std::set<std::string> kBuiltins = {
    "const",   "volatile", "unsigned", "signed",   "short",    "long",     "int",     "char",     "bool",
    "float",   "double",   "void",     "auto",     "struct",   "class",    "enum",    "typename", "wchar_t",
    "char8_t", "char16_t", "char32_t", "int8_t",   "int16_t",  "int32_t",  "int64_t", "uint8_t",  "uint16_t",
    "uint32_t", "uint64_t", "size_t",  "ptrdiff_t", "intptr_t", "uintptr_t"};
// Namespaces the source's own #include <...> lines (the standard library, PyTorch's headers) declare.
const std::set<std::string> kLibraryNamespaces = {"std", "at", "c10", "torch", "caffe2"};
// What makes a declaration one import does not copy: internal linkage, a template, a linkage or storage of its own.
const std::set<std::string> kNotCopied = {"static",  "inline",  "template", "extern", "constexpr", "consteval",
                                          "friend",  "typedef", "using",    "virtual", "explicit"};

// An export macro before the type (pyg-lib's PYG_API): upper case with an underscore. The copy declares the same
// function without it.
bool export_macro(const Token& t) {
  return t.kind == Token::Kind::Identifier && t.text.find('_') != std::string::npos &&
         std::all_of(t.text.begin(), t.text.end(), [](char c) {
           return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
         });
}

// What a declaration import copies may hold: names, numbers (template arguments) and the punctuation of types.
bool copyable(const Token& t) {
  static const std::set<std::string> kPunctuation = {"::", "<", ">", ",", "&", "*", "(", ")"};
  return t.kind == Token::Kind::Identifier || t.kind == Token::Kind::Number ||
         (t.kind == Token::Kind::Punct && kPunctuation.count(t.text) > 0);
}

// Names a `using` declaration of the source brings in from a library namespace (`using torch::stable::Tensor;`,
// as torchao's mxfp8 extension writes): the copy spells them in full.
using Qualified = std::map<std::string, std::string>;

// Whether the identifier at `j` is a name of its own: not a member of a qualified name, nor one's qualifier.
bool unqualified(const Tokens& tokens, size_t begin, size_t end, size_t j) {
  return !(j > begin && is(tokens[j - 1], "::")) && !(j + 1 < end && is(tokens[j + 1], "::"));
}

// Whether the brackets of tokens [begin, end) close within it: a parameter cut at a default's `=` that stood
// inside a template argument (`std::enable_if_t<n == 1>`) does not.
bool balanced(const Tokens& tokens, size_t begin, size_t end) {
  int angle = 0, paren = 0;
  for (size_t i = begin; i < end; ++i) {
    angle += is(tokens[i], "<") - is(tokens[i], ">");
    paren += is(tokens[i], "(") - is(tokens[i], ")");
    if (angle < 0 || paren < 0) return false;
  }
  return angle == 0 && paren == 0;
}

// Tokens as a declaration is written: `const at::Tensor& x`, `std::vector<int64_t> sizes`; the names `qualified`
// holds in full. `name_at`: the index of a parameter's name, not a type's.
std::string spaced(const Tokens& tokens, size_t begin, size_t end, const Qualified& qualified,
                   std::optional<size_t> name_at) {
  static const std::set<std::string> kNoSpaceBefore = {"::", ",", ")", ">", "&", "*", "(", "[", "]"};
  static const std::set<std::string> kNoSpaceAfter = {"::", "(", "<", "["};
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin && !kNoSpaceBefore.count(tokens[i].text) && !kNoSpaceAfter.count(tokens[i - 1].text) &&
        !is(tokens[i], "<"))
      out += ' ';
    const auto full = qualified.find(tokens[i].text);
    const bool spelled_in_full = full != qualified.end() && tokens[i].kind == Token::Kind::Identifier &&
                                 (!name_at || i != *name_at) && unqualified(tokens, begin, end, i);
    out += spelled_in_full ? full->second : tokens[i].text;
  }
  return out;
}

// The names a type (tokens [begin, end)) uses that C++, the library namespaces and the source's `using`
// declarations of their names do not give. `name_at`: the index of a parameter's name, not a type's.
void project_names(const Tokens& tokens, size_t begin, size_t end, std::optional<size_t> name_at,
                   const Qualified& qualified, std::set<std::string>& names) {
  for (size_t j = begin; j < end; ++j) {
    const Token& t = tokens[j];
    if (t.kind != Token::Kind::Identifier || (name_at && j == *name_at)) continue;
    if (j > begin && is(tokens[j - 1], "::")) continue;  // a member of a qualified name: its first part is checked
    const bool qualifier = j + 1 < end && is(tokens[j + 1], "::");
    if (qualifier ? kLibraryNamespaces.count(t.text) > 0 : kBuiltins.count(t.text) > 0 || qualified.count(t.text) > 0)
      continue;
    names.insert(t.text);
  }
}

// At a `using a::b::Name;` that starts a declaration (`i` at `using`), of a name of a library namespace, or an
// alias of one, `using Tensor = at::Tensor;` (FBGEMM's sources open with it): the name and its full spelling.
std::optional<std::pair<std::string, std::string>> using_declaration(const Tokens& tokens, size_t i) {
  if (!is(tokens[i], "using") || i + 1 >= tokens.size()) return std::nullopt;
  const bool alias = i + 3 < tokens.size() && tokens[i + 1].kind == Token::Kind::Identifier && is(tokens[i + 2], "=");
  const size_t first = alias ? i + 3 : i + 1;
  if (!kLibraryNamespaces.count(tokens[first].text)) return std::nullopt;
  std::string full;
  size_t j = first;
  for (; j < tokens.size() && (tokens[j].kind == Token::Kind::Identifier || is(tokens[j], "::")); ++j)
    full += tokens[j].text;
  if (j >= tokens.size() || !is(tokens[j], ";") || is(tokens[j - 1], "::") || full.find("::") == std::string::npos)
    return std::nullopt;
  return std::pair{alias ? tokens[i + 1].text : tokens[j - 1].text, full};
}

}  // namespace

SourceDeclarations::SourceDeclarations(const Tokens& tokens) : tokens_(tokens) {
  // One pass, each token's work bounded whatever the file holds (nesting, repeats): the scope is kept as it
  // changes, not rebuilt per token. Per open brace: what it opens (a named or anonymous namespace, or any other).
  enum class Brace { Named, Anonymous, Other };
  std::vector<Brace> braces;
  size_t other_open = 0, anonymous_open = 0;
  std::string path;                  // the named namespaces open, "a::b"
  std::vector<size_t> path_lengths;  // `path`'s length before each named namespace
  size_t boundary = 0;  // where the declaration being read begins: past the last `;`, `{` or `}`
  bool call = false;    // since `boundary`: an `=`, a `return` or a `(`: what follows is no declaration's name
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (is(t, ";") || is(t, "{") || is(t, "}")) {
      if (is(t, "{")) {
        braces.push_back(Brace::Other);
        ++other_open;
      } else if (is(t, "}") && !braces.empty()) {
        const Brace closed = braces.back();
        braces.pop_back();
        if (closed == Brace::Other) --other_open;
        if (closed == Brace::Anonymous) --anonymous_open;
        if (closed == Brace::Named) {
          path.resize(path_lengths.back());
          path_lengths.pop_back();
        }
      }
      boundary = i + 1;
      call = false;
      continue;
    }
    if (const auto opened = namespace_opened(tokens, i)) {
      if (opened->first.empty()) {
        braces.push_back(Brace::Anonymous);
        ++anonymous_open;
      } else {
        braces.push_back(Brace::Named);
        path_lengths.push_back(path.size());
        path += (path.empty() ? "" : "::") + opened->first;
      }
      i = opened->second;
      boundary = i + 1;
      call = false;
      continue;
    }
    const bool head_clear = !call;
    call = call || is(t, "=") || is(t, "return") || is(t, "(");
    if (other_open > 0) continue;  // not at namespace scope
    if (i == boundary && usings_.size() < kMaxUsings)
      if (const auto declared = using_declaration(tokens, i))
        usings_.push_back({i, path, declared->first, declared->second});
    if (!head_clear || t.kind != Token::Kind::Identifier || i + 1 >= tokens.size() || !is(tokens[i + 1], "(") ||
        i == boundary || is(tokens[i - 1], "::") || is(tokens[i - 1], ".") || is(tokens[i - 1], "->"))
      continue;
    auto& named = candidates_[t.text];
    if (named.size() < kMaxDeclarations) named.push_back({i, boundary, path, anonymous_open > 0});
  }
}

std::variant<std::vector<SourceDeclaration>, std::string> SourceDeclarations::of(const std::string& function) const {
  const Tokens& tokens = tokens_;
  const std::string qualified_name = function.starts_with("::") ? function.substr(2) : function;
  if (qualified_name.find('<') != std::string::npos) return std::string("it is a template's instance");
  const size_t colon = qualified_name.rfind("::");
  const std::string scope = colon == std::string::npos ? "" : qualified_name.substr(0, colon);
  const std::string name = colon == std::string::npos ? qualified_name : qualified_name.substr(colon + 2);

  std::vector<SourceDeclaration> found;
  std::string why;
  const auto candidates = candidates_.find(name);
  if (candidates == candidates_.end())
    return fmt::format("the source declares no {} at the scope its registration names it from", function);
  for (const Candidate& candidate : candidates->second) {
    if (candidate.scope != scope) continue;
    const size_t i = candidate.at;
    size_t start = candidate.boundary;
    const auto head_has = [&](auto&& pred) {
      return std::any_of(tokens.begin() + static_cast<std::ptrdiff_t>(start),
                         tokens.begin() + static_cast<std::ptrdiff_t>(i), pred);
    };
    if (head_has([](const Token& h) { return is(h, "=") || is(h, "return") || is(h, "("); })) continue;  // a call
    const int line = tokens[i].line;
    if (candidate.anonymous) {
      why = fmt::format("its declaration at line {} is in an anonymous namespace (internal linkage)", line);
      continue;
    }
    if (head_has([](const Token& h) { return kNotCopied.count(h.text) > 0 || !copyable(h); }) ||
        !balanced(tokens, start, i)) {
      why = fmt::format("its declaration at line {} is static, inline, a template, extern, or in a form import does "
                        "not copy (attributes)",
                        line);
      continue;
    }
    while (start < i && export_macro(tokens[start])) ++start;
    if (start == i) continue;
    size_t close = 0;
    const auto params = call_arguments(tokens, i + 1, &close);
    size_t after = close;
    while (after < tokens.size() && is(tokens[after], "noexcept")) ++after;
    if (after >= tokens.size() || !(is(tokens[after], ";") || is(tokens[after], "{"))) {
      why = fmt::format("its declaration at line {} has a form import does not copy (a trailing return type, a "
                        "try block, a macro after it)",
                        line);
      continue;
    }
    // The `using` declarations before it that stand in its namespace or one around it.
    Qualified qualified;
    for (const Using& u : usings_)
      if (u.at < i && (u.scope.empty() || scope == u.scope || scope.starts_with(u.scope + "::")))
        qualified.insert_or_assign(u.name, u.full);
    SourceDeclaration d;
    d.scope = scope;
    project_names(tokens, start, i, std::nullopt, qualified, d.project_names);
    std::vector<std::string> written;
    bool copied = true;
    for (auto [first, last] : params) {
      // The parameter without its attributes (FBGEMM's `bool forward [[maybe_unused]]`): a declaration needs none.
      // Linear in the parameter's tokens: once a `[[` finds no `]]` after it, none after it will.
      Tokens param;
      bool unclosed = false;
      for (size_t k = first; k < last; ++k) {
        if (!unclosed && is(tokens[k], "[") && k + 1 < last && is(tokens[k + 1], "[")) {
          size_t close = k + 2;
          while (close + 1 < last && !(is(tokens[close], "]") && is(tokens[close + 1], "]"))) ++close;
          if (close + 1 < last) {
            k = close + 1;
            continue;
          }
          unclosed = true;
        }
        param.push_back(tokens[k]);
      }
      size_t end = param.size();
      for (size_t k = 0; k < end; ++k)
        if (is(param[k], "=")) {  // a default argument: the generated bindings pass every argument
          end = k;
          break;
        }
      if (std::any_of(param.begin(), param.begin() + static_cast<std::ptrdiff_t>(end),
                      [](const Token& p) { return !copyable(p); }) ||
          !balanced(param, 0, end))
        copied = false;
      std::optional<size_t> name_at;
      if (end >= 2 && param[end - 1].kind == Token::Kind::Identifier && !is(param[end - 2], "::") &&
          !is(param[end - 2], "<") && !is(param[end - 2], ","))
        name_at = end - 1;
      project_names(param, 0, end, name_at, qualified, d.project_names);
      written.push_back(spaced(param, 0, end, qualified, name_at));
    }
    if (!copied) {
      why = fmt::format("its declaration at line {} has a parameter in a form import does not copy (an array, a "
                        "default it cannot cut off)",
                        line);
      continue;
    }
    d.text = fmt::format("{} {}({});", spaced(tokens, start, i, qualified, std::nullopt), name,
                         fmt::join(written, ", "));
    d.defined = is(tokens[after], "{");
    const auto same = std::find_if(found.begin(), found.end(), [&](const SourceDeclaration& f) { return f.text == d.text; });
    if (same == found.end())
      found.push_back(std::move(d));
    else
      same->defined = same->defined || d.defined;
  }
  if (!found.empty()) return found;
  return why.empty() ? fmt::format("the source declares no {} at the scope its registration names it from", function)
                     : why;
}

std::variant<std::vector<SourceDeclaration>, std::string> source_declarations(const Tokens& tokens,
                                                                                const std::string& function) {
  return SourceDeclarations(tokens).of(function);
}

}  // namespace opgen::import
