#include "import/python_fake.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace opgen::import {

namespace {

// Names a moved function may read without binding them: Python's keywords,
// and the builtins fakes use.
const std::set<std::string, std::less<>>& known_names() {
  static const std::set<std::string, std::less<>> names = {
      // keywords
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      // builtins
      "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "getattr", "hasattr", "int",
      "isinstance", "iter", "len", "list", "map", "max", "min", "next", "object", "pow", "print", "range",
      "reversed", "round", "set", "slice", "sorted", "str", "sum", "super", "tuple", "type", "zip",
      "AssertionError", "Exception", "IndexError", "KeyError", "NotImplementedError", "RuntimeError", "TypeError",
      "ValueError"};
  return names;
}

std::string lines_text(const std::vector<std::string_view>& lines, int first, int last, size_t dedent) {
  std::string out;
  for (int line = first; line <= last && line >= 1 && static_cast<size_t>(line) <= lines.size(); ++line) {
    const std::string_view text = lines[line - 1];
    out += std::string(text.size() >= dedent ? text.substr(dedent) : std::string_view()) + "\n";
  }
  return out;
}

}  // namespace

namespace {

// Per line (1-based): whether an import there runs when the module loads,
// under a condition: inside a top-level `if`/`try`/`with` block and no def
// or class. One pass over the lines.
std::vector<bool> conditional_lines(const std::vector<std::string_view>& lines) {
  std::vector<bool> conditional(lines.size() + 1, false);
  bool in_condition = false;
  std::vector<size_t> defs;  // indents of the defs and classes open
  for (size_t line = 1; line <= lines.size(); ++line) {
    const std::string_view text = lines[line - 1];
    const size_t indent = text.find_first_not_of(" \t");
    if (indent == std::string_view::npos || text[indent] == '#') continue;
    const std::string_view code = text.substr(indent);
    auto starts = [&](std::string_view word) {
      return code.starts_with(word) && (code.size() == word.size() || !std::isalnum(static_cast<unsigned char>(
                                                                           code[word.size()])));
    };
    while (!defs.empty() && indent <= defs.back()) defs.pop_back();
    if (indent == 0)
      in_condition = starts("if") || starts("elif") || starts("else") || starts("try") || starts("except") ||
                     starts("finally") || starts("with");
    if (starts("def") || starts("class") || starts("async")) defs.push_back(indent);
    conditional[line] = indent > 0 && in_condition && defs.empty();
  }
  return conditional;
}

// `from .x import y` in package `a.b` -> `a.b.x`; nullopt past the top.
std::optional<std::string> absolute_module(std::string_view relative, const std::string& package) {
  size_t dots = 0;
  while (dots < relative.size() && relative[dots] == '.') ++dots;
  std::string base = package;
  for (size_t up = 1; up < dots; ++up) {
    const size_t dot = base.rfind('.');
    if (dot == std::string::npos) return std::nullopt;
    base.resize(dot);
  }
  if (base.empty()) return std::nullopt;
  const std::string_view rest = relative.substr(dots);
  return rest.empty() ? base : base + "." + std::string(rest);
}

}  // namespace

ModuleImports module_imports(const Tokens& tokens, const std::vector<std::string_view>& lines,
                             const std::string& package) {
  ModuleImports out;
  const std::vector<bool> conditional = conditional_lines(lines);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!(is(tokens[i], "import") || is(tokens[i], "from")) || !starts_line(tokens, i)) continue;
    const size_t indent = indent_of(lines, tokens[i].line);
    const bool under_condition = indent > 0 && static_cast<size_t>(tokens[i].line) < conditional.size() &&
                                 conditional[tokens[i].line];
    if (indent != 0 && !under_condition) continue;
    // The statement: to the end of its line, or of its parentheses.
    size_t j = i;
    int depth = 0;
    while (j < tokens.size() && (j == i || tokens[j].line == tokens[j - 1].line || depth > 0)) {
      if (is(tokens[j], "(")) ++depth;
      if (is(tokens[j], ")")) --depth;
      ++j;
    }
    const size_t first = i;
    i = j - 1;
    std::string statement = lines_text(lines, tokens[first].line, tokens[j - 1].line, indent);
    // `from .x import y`: from the module's package, as another module must write it.
    if (is(tokens[first], "from") && first + 1 < j && is(tokens[first + 1], ".")) {
      const size_t name_at = statement.find_first_not_of(" \t", 4);
      const size_t name_end = statement.find_first_of(" \t\n(", name_at);
      if (name_at == std::string::npos || name_end == std::string::npos) continue;
      const auto absolute = absolute_module(std::string_view(statement).substr(name_at, name_end - name_at), package);
      if (!absolute) continue;  // past the top package: binds nothing a moved fake may read
      statement.replace(name_at, name_end - name_at, *absolute);
    }
    if (under_condition) {
      std::string indented;
      for (size_t at = 0; at < statement.size();) {
        const size_t nl = statement.find('\n', at);
        indented += "    " + statement.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
        at = nl == std::string::npos ? statement.size() : nl + 1;
      }
      statement = "try:  # imported under a condition in its module\n" + indented + "except ImportError:\n    pass\n";
    }
    out.statements.push_back(std::move(statement));
    // The names it binds: `import a.b` binds a, `import a as b` b, `from m import x, y as z` x and z.
    size_t k = first;
    while (k < j && !is(tokens[k], "import")) ++k;
    for (++k; k < j; ++k) {
      if (tokens[k].kind != Token::Kind::Identifier || is(tokens[k], "as")) continue;
      if (k > 0 && is(tokens[k - 1], ".")) continue;  // a.b: `a` binds
      if (k + 2 < j && is(tokens[k + 1], "as")) continue;  // bound under its alias
      out.names.insert(tokens[k].text);
    }
  }
  return out;
}

namespace {

// `source` (its first line is `first`) with each name in `constants` replaced
// by its value where the tokens of [def, end) read it; nullopt when a line
// also spells a name in a string or a comment, which must stay as written.
std::optional<std::string> with_constants(const std::string& source, int first, const Tokens& tokens, size_t def,
                                          size_t end, const std::map<std::string, std::string>& constants) {
  std::map<std::pair<int, std::string>, size_t> reads;  // (line, name) -> tokens that read it
  for (size_t k = def; k < end; ++k)
    if (tokens[k].kind == Token::Kind::Identifier && constants.count(tokens[k].text) &&
        !(k > 0 && is(tokens[k - 1], ".")))
      ++reads[{tokens[k].line, tokens[k].text}];
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  int line = first;
  for (size_t at = 0; at < source.size(); ++line) {
    const size_t nl = source.find('\n', at);
    std::string text = source.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? source.size() : nl + 1;
    for (const auto& [name, value] : constants) {
      std::vector<size_t> spelled;  // where the name stands as a whole word
      for (size_t p = text.find(name); p != std::string::npos; p = text.find(name, p + name.size()))
        if ((p == 0 || !word_char(text[p - 1])) &&
            (p + name.size() == text.size() || !word_char(text[p + name.size()])))
          spelled.push_back(p);
      auto count = reads.find({line, name});
      if (spelled.size() != (count == reads.end() ? 0 : count->second)) return std::nullopt;
      for (auto p = spelled.rbegin(); p != spelled.rend(); ++p) text.replace(*p, name.size(), value);
    }
    out += text + (nl == std::string::npos ? "" : "\n");
  }
  return out;
}

}  // namespace

MovedFake move_fake(const Tokens& tokens, size_t def, size_t end, const std::vector<std::string_view>& lines,
                    const ModuleImports& imports, const ModuleValues& values) {
  MovedFake out;
  if (def + 2 >= tokens.size() || !is(tokens[def + 2], "(")) {
    out.unresolved.push_back("(its def could not be read)");
    return out;
  }
  const size_t close = matching(tokens, def + 2);
  std::set<std::string> bound;
  // Parameters: the first name of each argument (after * or **).
  size_t ignored = 0;
  for (const TokenRange& param : call_arguments(tokens, def + 2, &ignored)) {
    size_t k = param.first;
    while (k < param.second && (is(tokens[k], "*") || is(tokens[k], "**"))) ++k;
    if (k < param.second && tokens[k].kind == Token::Kind::Identifier) bound.insert(tokens[k].text);
  }
  // Locals: names assigned at the top level of a line (`x = ...`, `a, b = ...`),
  // loop and `as` targets, lambda parameters, nested defs.
  // One pass, linear in the block: a line's names before its first top-level
  // `=` are assigned; `for`/`lambda` targets run to `in`/`:` on their line.
  size_t line_start = close;
  int line_depth = 0;
  bool line_assigned = false;
  const char* targets_until = nullptr;  // inside `for ... in` or `lambda ...:`
  for (size_t k = close; k < end; ++k) {
    const Token& t = tokens[k];
    if (starts_line(tokens, k)) {
      line_start = k;
      line_depth = 0;
      line_assigned = false;
      targets_until = nullptr;
    }
    if (targets_until && is(t, targets_until)) targets_until = nullptr;
    if (is(t, "for")) targets_until = "in";
    if (is(t, "lambda")) targets_until = ":";
    if (targets_until && t.kind == Token::Kind::Identifier && !is(t, "for") && !is(t, "lambda"))
      bound.insert(t.text);
    if ((is(t, "as") || is(t, "def") || is(t, "class")) && k + 1 < end) bound.insert(tokens[k + 1].text);
    if (is(t, "(") || is(t, "[") || is(t, "{")) ++line_depth;
    if (is(t, ")") || is(t, "]") || is(t, "}")) --line_depth;
    if (line_depth == 0 && !line_assigned && k > line_start && plain_equals(tokens, k)) {
      line_assigned = true;  // a keyword argument's `=` stands inside brackets
      int depth = 0;
      for (size_t n = line_start; n < k; ++n) {
        if (is(tokens[n], "(") || is(tokens[n], "[") || is(tokens[n], "{")) ++depth;
        if (is(tokens[n], ")") || is(tokens[n], "]") || is(tokens[n], "}")) --depth;
        if (depth == 0 && tokens[n].kind == Token::Kind::Identifier && !(n > 0 && is(tokens[n - 1], ".")))
          bound.insert(tokens[n].text);
      }
    }
  }
  // References: annotations, defaults and the body.
  std::set<std::string> unresolved;
  int depth = 0;
  for (size_t k = def + 2; k < end; ++k) {
    const Token& t = tokens[k];
    if (is(t, "(") || is(t, "[") || is(t, "{")) ++depth;
    if (is(t, ")") || is(t, "]") || is(t, "}")) --depth;
    if (t.kind != Token::Kind::Identifier || (k > 0 && is(tokens[k - 1], "."))) continue;
    if (depth > 0 && k + 1 < end && plain_equals(tokens, k + 1)) continue;  // a keyword argument's name
    if (known_names().count(t.text) || bound.count(t.text) || imports.names.count(t.text)) continue;
    unresolved.insert(t.text);
  }
  // A module constant whose value the source fixes to a number, a boolean or
  // None (a default the fake repeats from its op) moves as that value.
  std::map<std::string, std::string> constants;
  for (auto it = unresolved.begin(); it != unresolved.end();) {
    const std::string value = values.constant(*it).text;
    const bool python_literal = value == "None" || value == "True" || value == "False" ||
                                (!value.empty() && value.find('"') == std::string::npos &&
                                 !std::isalpha(static_cast<unsigned char>(value[0])));
    if (python_literal) {
      constants[*it] = value;
      it = unresolved.erase(it);
    } else {
      ++it;
    }
  }
  out.unresolved.assign(unresolved.begin(), unresolved.end());
  // Only a block whose brackets close is copied: what is copied must compile in _fakes.py.
  int brackets = 0;
  for (size_t k = def; k < end && brackets >= 0; ++k) {
    if (is(tokens[k], "(") || is(tokens[k], "[") || is(tokens[k], "{")) ++brackets;
    if (is(tokens[k], ")") || is(tokens[k], "]") || is(tokens[k], "}")) --brackets;
  }
  if (brackets != 0) out.unresolved.push_back("(its brackets do not close)");
  // To the line before the next statement, so a string that ends the block is copied whole, but not the
  // comments after the block at its def's depth or shallower: they speak of what follows.
  int last = end < tokens.size() ? tokens[end].line - 1 : static_cast<int>(lines.size());
  const size_t dedent = indent_of(lines, tokens[def].line);
  // (A block that ends in a string keeps them: where the string ends, its token does not say.)
  const Token& final_token = tokens[end - 1];
  for (; final_token.kind != Token::Kind::String && last > final_token.line && last >= 1 &&
         static_cast<size_t>(last) <= lines.size();
       --last) {
    const std::string_view line = lines[last - 1];
    const size_t text = line.find_first_not_of(" \t");
    if (text != std::string_view::npos && !(line[text] == '#' && indent_of(lines, last) <= dedent)) break;
  }
  const int first = tokens[def].line;
  std::string source = lines_text(lines, first, std::max(last, tokens[end - 1].line), dedent);
  if (!constants.empty()) {
    auto replaced = with_constants(source, first, tokens, def, end, constants);
    if (!replaced)
      for (const auto& constant : constants) out.unresolved.push_back(constant.first);
    else
      source = std::move(*replaced);
  }
  while (source.size() >= 2 && source.ends_with("\n\n")) source.pop_back();  // the blank lines before it
  // `def _(` -> `def {name}(`: the first `_` after `def` on its line.
  if (const size_t at = source.find(tokens[def + 1].text, source.find("def") + 3); at != std::string::npos)
    source.replace(at, tokens[def + 1].text.size(), "{name}");
  out.source = source;
  return out;
}

}  // namespace opgen::import
