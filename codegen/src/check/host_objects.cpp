#include "check/host_objects.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "check/arguments.h"
#include "check/names.h"
#include "model/expr_bounds.h"
#include "model/host_types.h"
#include "model/types.h"

namespace opgen::check {
namespace {

using model::Argument;
using model::Expr;
using model::ExprPtr;
using model::HostArgument;
using model::HostClass;
using model::OpSpec;
using model::SampleValue;
using model::Type;

std::vector<std::string> field_names(const HostClass& cls) {
  std::vector<std::string> names;
  for (const auto& f : cls.fields) names.push_back(f.name.value);
  return names;
}

const model::HostField* find_field(const HostClass& cls, const std::string& name) {
  for (const auto& f : cls.fields)
    if (f.name.value == name) return &f;
  return nullptr;
}

// `a.b.c`: each part an identifier that is no Python keyword.
// The identifiers the generated C++ spells in its types (`at`, `torch`,
// `std`, `int64_t`, ...), from the type tables, and the struct's inline
// namespaces: a struct or member of that name would shadow them there.
const std::set<std::string>& names_in_cpp_types() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out = {"stable_abi", "unstable_abi"};
    auto add = [&](std::string_view text) {
      for (size_t i = 0; i < text.size();) {
        const auto is_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
        if (!is_start(text[i])) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < text.size() && (is_start(text[j]) || std::isdigit(static_cast<unsigned char>(text[j])))) ++j;
        out.emplace(text.substr(i, j - i));
        i = j;
      }
    };
    for (const auto& row : model::all_type_mappings())
      for (auto text : {row.stable_param, row.stable_value, row.unstable_param, row.unstable_value}) add(text);
    for (const auto& row : model::host_field_types()) {
      add(row.stable_member);
      add(row.unstable_member);
    }
    return out;
  }();
  return names;
}

void check_class(const HostClass& cls, const std::string& ns, Diagnostics& diags) {
  const std::string& name = cls.name.value;
  if (!is_identifier(name) || name.size() > kMaxNameLength) {
    diags.error(Code::BadHostClass, cls.name.loc, fmt::format("'{}' cannot name a host class: it must be an identifier", name));
  } else if (std::holds_alternative<model::FunctionSchema>(model::parse_schema(fmt::format("f({} x) -> ()", name)))) {
    diags.error(Code::BadHostClass, cls.name.loc, fmt::format("'{}' is a schema type: a host class needs a name of its own", name));
  } else if (is_keyword(name)) {
    diags.error(Code::BadHostClass, cls.name.loc, fmt::format("'{}' is a keyword in C++ or Python", name));
  } else if (auto problem = cpp_name_problem(name)) {
    diags.error(Code::BadHostClass, cls.name.loc, fmt::format("'{}' cannot name the kernel's struct: {}", name, *problem));
  } else if (names_in_cpp_types().count(name) || name == ns) {
    diags.error(Code::BadHostClass, cls.name.loc,
                fmt::format("'{}' cannot name the kernel's struct: the generated C++ spells '{}' in its types, which "
                            "the struct would shadow",
                            name, name));
  }
  if (cls.kind && cls.kind->value != "constant" && cls.kind->value != "symbolic")
    diags.error(Code::BadHostClass, cls.kind->loc, fmt::format("'kind' is constant or symbolic, not '{}'", cls.kind->value))
        .notes.push_back({"constant: compared by value, a graph per distinct object; symbolic: a graph input, one "
                          "graph for every object whose read fields are equal"});
  if (cls.builtin.empty() && python_path_problem(cls.python_class.value, 2))
    diags.error(Code::BadHostClass, cls.python_class.loc,
                fmt::format("'class' must name a Python class as module.Qualname, not '{}'", cls.python_class.value))
        .notes.push_back({python_keyword_note(cls.python_class.value)
                              .value_or("each part is an identifier, as in 'mylib.quant.Float8Quantizer'")});
  if (cls.tensor_subclass && cls.inner_count == 0)
    diags.error(Code::BadHostClass, cls.loc, fmt::format("tensor subclass '{}' declares no inner tensor", name))
        .notes.push_back({"'inner' lists the attributes __tensor_flatten__ names, in its order"});
  else if (cls.fields.empty())
    diags.error(Code::BadHostClass, cls.loc, fmt::format("host class '{}' declares no field", name))
        .notes.push_back({"the fields are what kernels, fakes and rules read of its objects"});
  if (cls.build && !is_python_target(cls.build->value)) {
    auto& d = diags.error(Code::BadHostClass, cls.build->loc,
                          fmt::format("'build' must read 'module:function', not '{}'", cls.build->value));
    if (auto note = python_keyword_note(cls.build->value)) d.notes.push_back({*note});
  }
  std::map<std::string, const model::HostField*> flat_names;  // a field's flat name -> the field
  for (const auto& field : cls.fields) {
    const std::string& f = field.name.value;
    if (f.find_first_not_of('_') == std::string::npos) {
      diags.error(Code::BadHostClass, field.name.loc, fmt::format("'{}' cannot name a field: it is only underscores", f));
      continue;
    }
    if (auto [it, inserted] = flat_names.emplace(model::flat_field_name("x", f), &field); !inserted) {
      diags.error(Code::BadHostClass, field.name.loc,
                  fmt::format("fields '{}' and '{}' of '{}' have one flat name, '<argument>_{}'", it->second->name.value, f,
                              name, model::flat_field_name("x", f).substr(2)))
          .notes.push_back({"an op takes a field as '<argument>_<field>', the field's leading underscores dropped"});
      continue;
    }
    if (!is_identifier(f) || f.size() > kMaxNameLength || is_keyword(f)) {
      diags.error(Code::BadHostClass, field.name.loc,
                  fmt::format("'{}' cannot name a field: it must be an identifier and no C++ or Python keyword", f));
      continue;
    }
    if (auto problem = cpp_name_problem(f))
      diags.error(Code::BadHostClass, field.name.loc, fmt::format("'{}' cannot name a struct member: {}", f, *problem));
    else if (names_in_cpp_types().count(f))
      diags.error(Code::BadHostClass, field.name.loc,
                  fmt::format("'{}' cannot name a struct member: the generated C++ spells '{}' in its types", f, f));
    if (!field.type) continue;  // the loader reported it
    if (cls.kind && model::type_key(*field.type).starts_with("Tensor")) {
      diags.error(Code::BadHostFieldType, field.type_text.loc,
                  fmt::format("field '{}' of '{}' is a tensor, but its objects may be passed whole ('kind')", f, name))
          .notes.push_back({"torch.compile reads a passed object's fields as constants; a tensor belongs in an argument"});
      continue;
    }
    if (cls.tensor_subclass && &field >= cls.meta().data() && model::type_key(*field.type).starts_with("Tensor")) {
      diags.error(Code::BadHostFieldType, field.type_text.loc,
                  fmt::format("meta field '{}' of '{}' is a tensor: list it in 'inner'", f, name))
          .notes.push_back({"'meta' holds the values __tensor_flatten__ returns as its context; 'inner', its tensors"});
      continue;
    }
    if (!model::find_host_field_type(*field.type) || field.type->to_string() != model::type_key(*field.type)) {
      std::vector<std::string> allowed;
      for (const auto& row : model::host_field_types()) allowed.emplace_back(row.schema);
      diags.error(Code::BadHostFieldType, field.type_text.loc,
                  fmt::format("field '{}' cannot be of type '{}'", f, field.type_text.value))
          .notes.push_back({fmt::format("a field is one of: {}", fmt::join(allowed, ", "))});
    }
  }
}

// The host class an argument's type names, and whether it is optional;
// nullopt when it names none. `problem` is set for a form opgen cannot
// flatten (a list, an alias annotation, a default other than None).
struct HostUse {
  const HostClass* cls = nullptr;
  bool optional = false;
  std::string problem;
};

bool names_host_class(const model::Library& lib, const Type& type) {
  if (type.kind == Type::Kind::Named) return lib.host_class(type.name) != nullptr;
  return std::any_of(type.elements.begin(), type.elements.end(),
                     [&](const model::TypePtr& e) { return names_host_class(lib, *e); });
}

std::optional<HostUse> host_use(const model::Library& lib, const Argument& arg) {
  if (!names_host_class(lib, *arg.type)) return std::nullopt;
  HostUse use;
  const Type* named = arg.type.get();
  bool aliased = false;
  if (named->kind == Type::Kind::Optional) {
    use.optional = true;
    aliased = named->alias.has_value();
    named = &named->element();
  }
  if (named->kind != Type::Kind::Named) {
    use.problem = "a host object or tensor subclass is flattened into its fields: a list or tuple of them cannot be";
    return use;
  }
  use.cls = lib.host_class(named->name);
  const std::string kind = use.cls->what();
  if (aliased || named->alias) use.problem = fmt::format("a {} is read, never written or aliased", kind);
  if (arg.default_value && !(use.optional && arg.default_value->kind == model::DefaultValue::Kind::None))
    use.problem = fmt::format("a {}'s only default is None, on an optional one", kind);
  return use;
}

// The schema type text of a flat field argument.
std::string flat_field_type(const model::HostField& field, bool optional) {
  const std::string text = field.type->to_string();
  return optional && field.type->kind != Type::Kind::Optional ? text + "?" : text;
}

class Lowering {
 public:
  Lowering(const model::Library& lib, OpSpec& op, Diagnostics& diags) : lib_(lib), op_(op), diags_(diags) {}

  void run() {
    const size_t errors_before = diags_.error_count();
    find_host_arguments();
    find_carried_arguments();
    find_subclass_results();
    if (diags_.error_count() > errors_before) return;
    if (hosts_.empty() && results_.empty()) {
      reject_host_samples();
      for (const auto& meta : op_.result_meta)
        error(Code::BadSubclassResult, meta.result.loc,
              fmt::format("'result_meta' names '{}', but the op returns no tensor subclass", meta.result.value))
            .notes.push_back({"'result_meta' gives the metadata of a result whose type is a tensor subclass "
                              "(tensor_subclasses: in _types.yaml)"});
      return;
    }
    model::FunctionSchema flat = flat_schema();
    if (diags_.error_count() > errors_before) return;
    rewrite_rules();
    lower_result_meta(flat);
    rename_checks();
    reject_listed_hosts();
    lower_samples();
    if (diags_.error_count() > errors_before) return;
    op_.declared_schema = std::move(op_.schema);
    op_.schema = std::move(flat);
    for (const auto& [name, host] : hosts_) op_.host_args.push_back(host);
    op_.subclass_results = std::move(results_);
    std::sort(op_.host_args.begin(), op_.host_args.end(),
              [](const HostArgument& a, const HostArgument& b) { return a.declared_index < b.declared_index; });
  }

 private:
  Diagnostic& error(Code code, const SourceLoc& loc, std::string message) {
    return diags_.error(code, loc, std::move(message));
  }

  void find_host_arguments() {
    const auto& args = op_.schema.arguments;
    for (size_t i = 0; i < args.size(); ++i) {
      auto use = host_use(lib_, args[i]);
      if (!use) continue;
      if (!use->problem.empty()) {
        error(Code::BadHostArgument, op_.schema_at(args[i].column),
              fmt::format("argument '{}' cannot take a host object this way: {}", args[i].name, use->problem));
        continue;
      }
      HostArgument host;
      host.name = args[i].name;
      host.cls = use->cls->name.value;
      host.optional = use->optional;
      host.declared_index = i;
      hosts_.emplace(host.name, host);
    }
    if (!hosts_.empty() && !op_.existing_kernels.empty())
      error(Code::BadHostArgument, op_.existing_kernels.front().function.loc,
            "an existing kernel ('kernels:') cannot take a host object")
          .notes.push_back({"opgen passes host objects to kernels it declares, as a generated struct"});
  }

  // `carry:`: host arguments the op takes whole. A Python kernel gets the
  // object; an op with C++ kernels is defined in Python around its flat C++
  // op (OpSpec::wraps_flat_op), which takes the fields. Not both: one
  // kernel per key, either way.
  void find_carried_arguments() {
    check_listed_once(op_.carry, "carry", diags_);
    for (const auto& name : op_.carry) {
      auto it = hosts_.find(name.value);
      if (it == hosts_.end()) {
        std::vector<std::string> names;
        for (const auto& [n, host] : hosts_) names.push_back(n);
        auto& d = error(Code::BadCarry, name.loc, fmt::format("'{}' in 'carry' is no host-object argument", name.value));
        if (std::string guess = closest_match(name.value, names); !guess.empty())
          d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
        continue;
      }
      HostArgument& host = it->second;
      const HostClass& c = cls(host);
      if (c.tensor_subclass) {
        error(Code::BadCarry, name.loc, fmt::format("'{}' is a tensor subclass: the op takes its inner tensors", name.value));
        continue;
      }
      if (!c.builtin.empty()) {
        error(Code::BadCarry, name.loc, fmt::format("'{}' is a {}: opgen cannot carry a built-in class yet", name.value,
                                                    c.name.value))
            .notes.push_back({"PyTorch registers it itself, without the guards on the fields opgen's fakes read"});
        continue;
      }
      if (!c.kind) {
        error(Code::BadCarry, name.loc,
              fmt::format("'{}' is carried, but its class {} is not registered with PyTorch", name.value, c.name.value))
            .notes.push_back({fmt::format("give {} 'kind: symbolic' (a graph input: one graph for every object whose "
                                          "fields the fakes read are equal) or 'kind: constant' ({})",
                                          c.name.value, lib_.types_path)});
        continue;
      }
      if (!op_.python_kernels.empty() && !op_.defined_in_python()) {
        std::vector<std::string> cpp_keys;
        for (const auto& key : op_.dispatch)
          if (std::none_of(op_.python_kernels.begin(), op_.python_kernels.end(),
                           [&](const model::PythonKernel& k) { return k.dispatch_key.value == key.value; }))
            cpp_keys.push_back(key.value);
        error(Code::BadCarry, name.loc,
              fmt::format("'{}' is carried, but the op has both Python kernels and C++ kernels ({})", name.value,
                          fmt::join(cpp_keys, ", ")))
            .notes.push_back({"an op carrying objects has Python kernels for every key of 'dispatch' (they get the "
                              "object), or C++ kernels only (they get its fields, read when the op runs)"});
        continue;
      }
      if (op_.python_kernels.empty() && op_.fake_python) {
        error(Code::BadCarry, name.loc,
              fmt::format("'{}' is carried to C++ kernels, but the op's fake is handwritten", name.value))
            .notes.push_back({"an op carrying objects to C++ kernels has two fakes, its own and its flat C++ op's, "
                              "both from the 'fake' rules: write them as rules"});
        continue;
      }
      host.carry = true;
      host.carried_type = c.python_class.value;
    }
  }

  // Returns whose type is a tensor subclass; a host object cannot be one.
  void find_subclass_results() {
    const auto& returns = op_.schema.returns;
    for (size_t i = 0; i < returns.size(); ++i) {
      const model::Return& ret = returns[i];
      if (!names_host_class(lib_, *ret.type)) continue;
      const Type& type = *ret.type;
      const HostClass* c = type.kind == Type::Kind::Named ? lib_.host_class(type.name) : nullptr;
      if (!c || !c->tensor_subclass) {
        const bool host = c || (type.kind == Type::Kind::Optional && type.element().kind == Type::Kind::Named &&
                                !lib_.host_class(type.element().name)->tensor_subclass);
        if (host || !c) {
          auto& d = error(host ? Code::BadHostArgument : Code::BadSubclassResult, op_.schema_at(ret.column),
                          host ? "an op cannot return a host object"
                               : "a tensor-subclass result is one object: not optional, nor in a list");
          d.notes.push_back({host ? "a kernel returns tensors and values; return the fields the caller needs"
                                  : "the binding rebuilds each subclass result from the inner tensors the op returns"});
        }
        continue;
      }
      if (type.alias) {
        error(Code::BadSubclassResult, op_.schema_at(ret.column), "a tensor-subclass result is new: it cannot alias an input");
        continue;
      }
      if (ret.name.empty()) {
        error(Code::BadSubclassResult, op_.schema_at(ret.column), fmt::format("a {} result needs a name", c->name.value))
            .notes.push_back({fmt::format("its inner tensors are returned as '<name>_<inner>', and 'result_meta' names "
                                          "it: '-> {} out'",
                                          c->name.value)});
        continue;
      }
      model::SubclassResult result;
      result.name = ret.name;
      result.cls = c->name.value;
      result.declared_index = i;
      results_.push_back(std::move(result));
    }
  }

  const HostClass& cls(const HostArgument& host) const { return *lib_.host_class(host.cls); }

  // The declared schema with each host argument replaced by its fields.
  model::FunctionSchema flat_schema() {
    const auto& declared = op_.schema;
    std::vector<std::string> parts;
    std::vector<size_t> origin;  // the declared argument of each flat one
    bool keyword_only = false;
    // Every name the op's functions bind: the declared arguments, host ones
    // included (the binding takes the object under its name, then binds its
    // fields), and each flat name. One set, so no two of any origin can be
    // equal: `A q` with a field `t` beside an argument `q_t` would bind q.t
    // over the argument q_t.
    std::set<std::string> names;
    for (const auto& a : declared.arguments) names.insert(a.name);
    for (size_t i = 0; i < declared.arguments.size(); ++i) {
      const Argument& a = declared.arguments[i];
      if (a.kwarg_only && !keyword_only) {
        parts.push_back("*");
        origin.push_back(i);
        keyword_only = true;
      }
      auto it = hosts_.find(a.name);
      if (it == hosts_.end()) {
        parts.push_back(a.to_string(model::SchemaForm::Registration));
        origin.push_back(i);
        continue;
      }
      HostArgument& host = it->second;
      const std::string none = a.default_value ? "=None" : "";
      auto add = [&](const std::string& name, const std::string& text) {
        if (!names.insert(name).second) {
          error(Code::BadHostArgument, op_.schema_at(a.column),
                fmt::format("host argument '{}' flattens into '{}', which the schema or another flattened field "
                            "names already", a.name, name))
              .notes.push_back({fmt::format("rename '{}' or the other argument", a.name)});
        }
        parts.push_back(text);
        origin.push_back(i);
      };
      if (host.optional) add(host.given_name(), fmt::format("bool {}{}", host.given_name(), a.default_value ? "=False" : ""));
      for (const auto& field : cls(host).fields)
        add(host.field_name(field), fmt::format("{} {}{}", flat_field_type(field, host.optional), host.field_name(field), none));
    }
    // Returns: a subclass result becomes its inner tensors.
    std::vector<std::string> returns;
    std::vector<size_t> return_origin;
    std::set<std::string> return_names;
    for (const auto& r : declared.returns)
      if (!r.name.empty()) return_names.insert(r.name);
    for (size_t i = 0; i < declared.returns.size(); ++i) {
      const model::Return& r = declared.returns[i];
      auto result = std::find_if(results_.begin(), results_.end(),
                                 [&](const model::SubclassResult& s) { return s.declared_index == i; });
      if (result == results_.end()) {
        returns.push_back(r.to_string(model::SchemaForm::Registration));
        return_origin.push_back(i);
        continue;
      }
      result->first_flat = returns.size();
      for (const auto& inner : lib_.host_class(result->cls)->inner()) {
        const std::string name = model::flat_field_name(r.name, inner.name.value);
        if (!return_names.insert(name).second)
          error(Code::BadSubclassResult, op_.schema_at(r.column),
                fmt::format("result '{}' flattens into '{}', which the schema names already", r.name, name))
              .notes.push_back({fmt::format("rename '{}' or the other result", r.name)});
        returns.push_back("Tensor " + name);
        return_origin.push_back(i);
      }
    }
    const std::string text = fmt::format("f({}) -> ({})", fmt::join(parts, ", "), fmt::join(returns, ", "));
    auto parsed = model::parse_schema(text);
    model::FunctionSchema flat = declared;
    flat.arguments.clear();
    if (auto* err = std::get_if<model::SchemaError>(&parsed)) {  // not expected: every part came from a parsed schema
      error(Code::BadHostArgument, op_.schema_at(0), fmt::format("the flat schema '{}' does not parse: {}", text, err->message));
      return flat;
    }
    flat.arguments = std::get<model::FunctionSchema>(parsed).arguments;
    flat.returns = std::get<model::FunctionSchema>(parsed).returns;
    for (size_t i = 0; i < flat.returns.size(); ++i) flat.returns[i].column = declared.returns[return_origin[i]].column;
    // Diagnostics about a flat argument point at the declared one.
    size_t part = 0;
    for (auto& a : flat.arguments) {
      while (parts[part] == "*") ++part;
      a.column = declared.arguments[origin[part]].column;
      ++part;
    }
    for (auto& [name, host] : hosts_) {
      for (size_t i = 0; i < flat.arguments.size(); ++i) {
        const std::string first = host.optional ? host.given_name() : host.field_name(cls(host).fields.front());
        if (flat.arguments[i].name == first) {
          host.first_flat = i;
          host.flat_count = (host.optional ? 1 : 0) + cls(host).fields.size();
          break;
        }
      }
    }
    return flat;
  }

  // --- rules -------------------------------------------------------------

  ExprPtr name_node(const Expr& at, std::string name) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Name;
    e->column = at.column;
    e->op_column = at.column;
    e->text = std::move(name);
    return e;
  }

  // `expr` with the host objects' reads replaced by the flat arguments;
  // nullptr after an error.
  ExprPtr rewrite(const ExprPtr& expr, const model::RuleText& rule) {
    const Expr& e = *expr;
    if (e.kind == Expr::Kind::Name) {
      if (auto it = hosts_.find(e.text); it != hosts_.end()) {
        std::vector<std::string> reads;
        for (const auto& f : field_names(cls(it->second))) reads.push_back(e.text + "." + f);
        error(Code::UnknownHostField, rule.at(e.column),
              fmt::format("'{}' is a host object: a rule reads its fields", e.text))
            .notes.push_back({fmt::format("its fields: {}{}", fmt::join(reads, ", "),
                                          it->second.optional ? fmt::format("; or test '{} is None'", e.text) : "")});
        return nullptr;
      }
      return expr;
    }
    if (e.kind == Expr::Kind::Attribute && e.operands.size() == 1 && e.operands[0]->kind == Expr::Kind::Name) {
      if (auto it = hosts_.find(e.operands[0]->text); it != hosts_.end()) {
        const HostClass& c = cls(it->second);
        if (const model::HostField* field = find_field(c, e.text)) return name_node(e, it->second.field_name(*field));
        auto& d = error(Code::UnknownHostField, rule.at(e.op_column),
                        fmt::format("{} '{}' has no field '{}'", c.name.value, it->first, e.text));
        if (std::string guess = closest_match(e.text, field_names(c)); !guess.empty())
          d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
        d.notes.push_back({fmt::format("its fields ({}): {}", lib_.types_path, fmt::join(field_names(c), ", "))});
        return nullptr;
      }
    }
    // `q is None` / `q is not None` on an optional host object: its flag.
    if (e.kind == Expr::Kind::Binary && (e.text == "is" || e.text == "is not") && e.operands.size() == 2 &&
        e.operands[0]->kind == Expr::Kind::Name && e.operands[1]->kind == Expr::Kind::NoneLiteral) {
      if (auto it = hosts_.find(e.operands[0]->text); it != hosts_.end()) {
        if (!it->second.optional) {
          error(Code::UnknownHostField, rule.at(e.op_column),
                fmt::format("'{}' is not optional: it is never None", it->first));
          return nullptr;
        }
        ExprPtr given = name_node(*e.operands[0], it->second.given_name());
        if (e.text == "is not") return given;
        auto negated = std::make_shared<Expr>();
        negated->kind = Expr::Kind::Unary;
        negated->column = e.column;
        negated->op_column = e.op_column;
        negated->text = "not";
        negated->operands = {given};
        return negated;
      }
    }
    auto copy = std::make_shared<Expr>(e);
    bool changed = false;
    auto visit = [&](ExprPtr& child) {
      if (!child) return true;
      ExprPtr next = rewrite(child, rule);
      if (!next) return false;
      changed |= next != child;
      child = next;
      return true;
    };
    for (auto& operand : copy->operands)
      if (!visit(operand)) return nullptr;
    for (auto& keyword : copy->keywords)
      if (!visit(keyword.value)) return nullptr;
    if (!visit(copy->index) || !visit(copy->slice_lower) || !visit(copy->slice_upper)) return nullptr;
    return changed ? copy : expr;
  }

  void rewrite_rule(model::RuleText& rule) {
    if (!rule.expr) return;
    if (ExprPtr next = rewrite(rule.expr, rule)) rule.expr = next;
  }

  void rewrite_rules() {
    for (auto& rule : op_.require) rewrite_rule(rule);
    for (auto& let : op_.lets) rewrite_rule(let.rule);
    for (auto& rule : op_.fake) rewrite_rule(rule);
    if (op_.flops) rewrite_rule(*op_.flops);
    if (op_.compile)
      for (auto& condition : op_.compile->unsupported) rewrite_rule(condition.when);
  }

  // --- subclass results' metadata -----------------------------------------

  // A call of dynamic() in `e`, or nullptr: a data-dependent size exists only
  // inside a fake.
  static const model::Expr* find_dynamic_call(const model::Expr& e) {
    if (e.kind == Expr::Kind::Call && !e.operands.empty() && e.operands[0]->kind == Expr::Kind::Name &&
        e.operands[0]->text == "dynamic")
      return &e;
    for (const auto& child : e.operands)
      if (child)
        if (const auto* found = find_dynamic_call(*child)) return found;
    for (const auto& keyword : e.keywords)
      if (keyword.value)
        if (const auto* found = find_dynamic_call(*keyword.value)) return found;
    for (const auto* child : {e.index.get(), e.slice_lower.get(), e.slice_upper.get()})
      if (child)
        if (const auto* found = find_dynamic_call(*child)) return found;
    return nullptr;
  }

  // Whether a rule of `kind` gives a value for a field of `type`.
  static bool meta_kind_fits(const Type& type, model::ValueKind kind) {
    using model::ValueKind;
    const std::string key = model::type_key(type);
    const std::string base = key.ends_with("?") ? key.substr(0, key.size() - 1) : key;
    if (base == "int") return kind == ValueKind::Int;
    if (base == "float") return kind == ValueKind::Float || kind == ValueKind::Int;
    if (base == "bool") return kind == ValueKind::Bool;
    if (base == "str") return kind == ValueKind::String;
    if (base == "ScalarType") return kind == ValueKind::DType || (key != base && kind == ValueKind::OptionalDType);
    return false;
  }

  // `result_meta:` -> each subclass result's rules, in its class's field
  // order, over the flat arguments.
  void lower_result_meta(const model::FunctionSchema& flat) {
    std::map<std::string, const model::ResultMeta*> given;
    for (const auto& meta : op_.result_meta) {
      auto result = std::find_if(results_.begin(), results_.end(),
                                 [&](const model::SubclassResult& r) { return r.name == meta.result.value; });
      if (result == results_.end()) {
        std::vector<std::string> names;
        for (const auto& r : results_) names.push_back(r.name);
        auto& d = error(Code::BadSubclassResult, meta.result.loc,
                        fmt::format("'result_meta' names '{}', which is no tensor-subclass result of the op", meta.result.value));
        if (std::string guess = closest_match(meta.result.value, names); !guess.empty())
          d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
        continue;
      }
      given[result->name] = &meta;
    }
    model::ExprEnv env;
    env.schema = &flat;
    for (auto& result : results_) {
      const HostClass& c = *lib_.host_class(result.cls);
      const model::ResultMeta* meta = given.count(result.name) ? given[result.name] : nullptr;
      std::vector<std::string> meta_names;
      for (const auto& f : c.meta()) meta_names.push_back(f.name.value);
      if (meta)
        for (const auto& field : meta->fields)
          if (std::find(meta_names.begin(), meta_names.end(), field.field.value) == meta_names.end()) {
            auto& d = error(Code::UnknownHostField, field.field.loc,
                            fmt::format("{} has no meta field '{}'", c.name.value, field.field.value));
            if (std::string guess = closest_match(field.field.value, meta_names); !guess.empty())
              d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
            d.notes.push_back({meta_names.empty() ? std::string("it declares no meta")
                                                  : fmt::format("its meta ({}): {}", lib_.types_path, fmt::join(meta_names, ", "))});
          }
      for (const auto& field : c.meta()) {
        const model::ResultMetaField* rule = nullptr;
        if (meta)
          for (const auto& f : meta->fields)
            if (f.field.value == field.name.value) rule = &f;
        if (!rule) {
          error(Code::BadSubclassResult, meta ? meta->loc : op_.schema_at(op_.schema.returns[result.declared_index].column),
                fmt::format("result '{}' needs a rule for its meta field '{}'", result.name, field.name.value))
              .notes.push_back({fmt::format("'result_meta: {{{}: {{{}: <rule over the arguments>}}}}': the binding "
                                            "rebuilds the {} with it",
                                            result.name, field.name.value, c.name.value)});
          continue;
        }
        model::RuleText text = rule->rule;
        if (!text.expr) continue;  // the loader reported it
        ExprPtr lowered = rewrite(text.expr, text);
        if (!lowered) continue;
        text.expr = lowered;
        auto checked = model::check_expr(*text.expr, env);
        if (auto* problems = std::get_if<std::vector<model::ExprDiagnostic>>(&checked)) {
          for (const auto& p : *problems) {
            auto& d = error(p.code, text.at(p.column), p.message);
            if (!p.note.empty()) d.notes.push_back({p.note});
          }
          continue;
        }
        if (const model::Expr* call = find_dynamic_call(*text.expr)) {
          error(Code::BadSubclassResult, text.at(call->column), "a meta rule cannot call dynamic()")
              .notes.push_back({"the binding computes the metadata from the arguments, before the kernel runs"});
          continue;
        }
        const model::ValueKind kind = std::get<model::ValueKind>(checked);
        if (!meta_kind_fits(*field.type, kind)) {
          error(Code::BadSubclassResult, text.at(0),
                fmt::format("meta field '{}' is {}, but this rule is {}", field.name.value, field.type_text.value,
                            model::to_string(kind)));
          continue;
        }
        // The binding evaluates the rule on every call: one that raises on every
        // input (an index past a tensor's exact rank) is refused, as a fake rule is (E0526).
        bool raises = false;
        for (const auto& diag : model::check_always_raises(*text.expr, env, model::accepted_shapes(op_), "the binding",
                                                           Code::FakeRuleAlwaysRaises)) {
          auto& d = error(diag.code, text.at(diag.column), diag.message);
          if (!diag.note.empty()) d.notes.push_back({diag.note});
          raises = true;
        }
        if (raises) continue;
        result.meta.push_back(std::move(text));
      }
    }
  }

  // `checks:` keys and same_dtype/same_device name a tensor field as `q.scale`.
  void rename(model::Located<std::string>& name) {
    const size_t dot = name.value.find('.');
    const std::string object = name.value.substr(0, dot);
    auto it = hosts_.find(object);
    if (it == hosts_.end()) return;
    if (dot == std::string::npos) {
      error(Code::BadHostArgument, name.loc, fmt::format("'{}' is a host object: checks apply to its tensor fields", object))
          .notes.push_back({fmt::format("name a field: '{}.<field>'", object)});
      return;
    }
    const std::string field = name.value.substr(dot + 1);
    if (const model::HostField* f = find_field(cls(it->second), field)) {
      name.value = it->second.field_name(*f);
      return;
    }
    auto& d = error(Code::UnknownHostField, name.loc,
                    fmt::format("{} '{}' has no field '{}'", cls(it->second).name.value, object, field));
    if (std::string guess = closest_match(field, field_names(cls(it->second))); !guess.empty())
      d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
  }

  void rename_checks() {
    for (auto& check : op_.checks) {
      rename(check.arg);
      if (check.same_dtype_as) rename(*check.same_dtype_as);
      if (check.same_device_as) rename(*check.same_device_as);
    }
  }

  // Lists of arguments that a host object can never be in.
  void reject_listed_hosts() {
    auto reject = [&](const std::vector<model::Located<std::string>>& names, const char* key, const char* why) {
      for (const auto& name : names)
        if (hosts_.count(name.value))
          error(Code::BadHostArgument, name.loc, fmt::format("'{}' in '{}': {}", name.value, key, why));
    };
    if (op_.mutates) reject(*op_.mutates, "mutates", "a host object is read, never written");
    reject(op_.symm_mem, "symm_mem", "symmetric memory holds tensors");
    if (op_.autograd) reject(op_.autograd->grads, "grads", "a host object has no gradient");
  }

  // --- samples -----------------------------------------------------------

  SampleValue literal(const std::string& text, const SourceLoc& loc) {
    SampleValue v;
    v.kind = SampleValue::Kind::Literal;
    v.literal = text;
    v.loc = loc;
    return v;
  }

  void reject_host_samples() {
    for (const auto& sample : op_.samples)
      for (const auto& [name, value] : sample.args)
        if (value.kind == SampleValue::Kind::HostObject)
          error(Code::SampleValueMismatch, value.loc,
                fmt::format("'{}' takes no host object: a 'fields:' sample is for an argument whose type is a host class",
                            name.value));
  }

  void lower_samples() {
    for (auto& sample : op_.samples) {
      std::vector<std::pair<model::Located<std::string>, SampleValue>> args;
      for (auto& arg : sample.args) {
        auto& [name, value] = arg;
        const model::Located<std::string> where = name;  // lambdas cannot capture a structured binding (C++20)
        auto it = hosts_.find(name.value);
        if (it == hosts_.end()) {
          if (value.kind == SampleValue::Kind::HostObject)
            error(Code::SampleValueMismatch, value.loc,
                  fmt::format("'{}' takes no host object: a 'fields:' sample is for an argument whose type is a host "
                              "class",
                              name.value));
          args.emplace_back(name, std::move(value));
          continue;
        }
        const HostArgument& host = it->second;
        const HostClass& c = cls(host);
        auto flat_name = [&](const std::string& n) { return model::Located<std::string>{n, where.loc}; };
        if (value.kind == SampleValue::Kind::None && host.optional) {
          args.emplace_back(flat_name(host.given_name()), literal("false", value.loc));
          for (const auto& field : c.fields) {
            SampleValue none;
            none.kind = SampleValue::Kind::None;
            none.loc = value.loc;
            args.emplace_back(flat_name(host.field_name(field)), none);
          }
          continue;
        }
        if (value.kind != SampleValue::Kind::HostObject) {
          error(Code::SampleValueMismatch, value.loc,
                fmt::format("'{}' takes a {}: give its fields, '{{fields: {{{}: ...}}}}'{}", name.value, c.name.value,
                            c.fields.front().name.value, host.optional ? ", or null" : ""));
          continue;
        }
        if (host.optional) args.emplace_back(flat_name(host.given_name()), literal("true", value.loc));
        std::set<std::string> given;
        for (auto& [field_name, field_value] : value.fields) {  // a SampleField
          const model::HostField* field = find_field(c, field_name.value);
          if (!field) {
            auto& d = error(Code::UnknownHostField, field_name.loc,
                            fmt::format("{} has no field '{}'", c.name.value, field_name.value));
            if (std::string guess = closest_match(field_name.value, field_names(c)); !guess.empty())
              d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
            continue;
          }
          given.insert(field_name.value);
          args.emplace_back(model::Located<std::string>{host.field_name(*field), field_name.loc}, field_value);
        }
        for (const auto& field : c.fields) {
          if (given.count(field.name.value)) continue;
          if (field.type->kind != Type::Kind::Optional) {
            error(Code::SampleMissingArgument, value.loc,
                  fmt::format("the sample gives no value for field '{}' of '{}'", field.name.value, name.value));
            continue;
          }
          SampleValue none;  // an optional field left out is None
          none.kind = SampleValue::Kind::None;
          none.loc = value.loc;
          args.emplace_back(flat_name(host.field_name(field)), none);
        }
      }
      sample.args = std::move(args);
    }
  }

  const model::Library& lib_;
  OpSpec& op_;
  Diagnostics& diags_;
  std::map<std::string, HostArgument> hosts_;  // by argument name
  std::vector<model::SubclassResult> results_;  // in return order
};

}  // namespace

void check_host_objects(model::Library& library, Diagnostics& diags) {
  const size_t errors_before = diags.error_count();
  std::map<std::string, const HostClass*> seen;
  for (const auto& cls : library.host_classes) {
    if (auto [it, inserted] = seen.emplace(cls.name.value, &cls); !inserted) {
      diags.error(Code::BadHostClass, cls.name.loc,
                  fmt::format("'{}' is declared twice: as a {} and as a {}", cls.name.value, it->second->what(), cls.what()))
          .notes.push_back({fmt::format("the other is at {}", it->second->name.loc.to_string())});
      continue;
    }
    check_class(cls, library.ns, diags);
  }
  if (diags.error_count() > errors_before) return;  // ops would be lowered against broken classes
  for (OpSpec& op : library.ops) Lowering(library, op, diags).run();
}

}  // namespace opgen::check
