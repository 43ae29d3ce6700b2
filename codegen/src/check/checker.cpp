#include "check/checker.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "check/arguments.h"
#include "check/autograd.h"
#include "check/dispatch.h"
#include "check/host_objects.h"
#include "check/kernels.h"
#include "check/names.h"
#include "check/samples.h"
#include "check/tags.h"
#include "model/generated_names.h"
#include "model/dispatch_keys.h"
#include "model/expr_bounds.h"
#include "model/types.h"

namespace opgen::check {
namespace {

using model::Abi;
using model::Argument;
using model::FunctionSchema;
using model::Located;
using model::OpSpec;
using model::ValueKind;


// Names an argument may not take: keywords, which would not compile in the
// generated C++ or Python, and names the generated code uses.
const std::set<std::string> kGeneratedNames = {"stack", "num_args", "num_outputs", "kernel", "ctx", "torch"};

// The alias annotation of a type or of any type inside it (`Tensor(a!)[]`).
const model::AliasInfo* find_alias(const model::Type& type) {
  for (const model::Type* t = &type; t; t = t->elements.empty() ? nullptr : t->elements[0].get())
    if (t->alias) return &*t->alias;
  return nullptr;
}

// The alias sets a type names, its elements' too (`Tensor(a)[]`, `Tensor[](a)`).
std::set<std::string> alias_sets(const model::Type& type) {
  std::set<std::string> sets;
  for (const model::Type* t = &type; t; t = t->elements.empty() ? nullptr : t->elements[0].get())
    if (t->alias) sets.insert(t->alias->before_sets.begin(), t->alias->before_sets.end());
  return sets;
}

// Whether `sets` and the alias sets of any of `types`' share a set.
template <typename Range>
bool shares_alias_set(const std::set<std::string>& sets, const Range& types) {
  return std::any_of(types.begin(), types.end(), [&](const auto& typed) {
    const std::set<std::string> other = alias_sets(*typed.type);
    return std::any_of(other.begin(), other.end(), [&](const std::string& set) { return sets.count(set) != 0; });
  });
}

// A result in alias sets no argument has (`-> Tensor[](a)`, vLLM's shm_recv_tensor_list): memory the op
// holds, not one of its inputs (W0404).
bool own_alias(const model::FunctionSchema& s, const model::Return& r) {
  return find_alias(*r.type) && !shares_alias_set(alias_sets(*r.type), s.arguments);
}

bool is_tensor(const model::Type& t) { return model::type_key(t) == "Tensor"; }
// What an op may write to: `Tensor`, `Tensor?`, `Tensor[]`.
bool is_mutable_type(const model::Type& t) {
  auto key = model::type_key(t);
  return key == "Tensor" || key == "Tensor?" || key == "Tensor[]";
}

class OpChecker {
 public:
  OpChecker(model::Library& lib, OpSpec& op, Diagnostics& diags) : lib_(lib), op_(op), diags_(diags) {}

  void run() {
    check_name();
    check_arguments();
    check_types();
    check_mutation();
    check_returns();
    check_tags(lib_, op_, diags_);
    check_dispatch(op_, diags_);
    check_decomposing(op_, diags_);
    check_definition(op_, diags_);
    check_existing_kernels(op_, diags_);
    check_symm_mem();
    check_tensor_checks();
    check_rules();
    check_autocast(op_, diags_);
    check_samples(op_, diags_);
  }

 private:
  Diagnostic& error(Code code, const SourceLoc& loc, std::string message) {
    return diags_.error(code, loc, std::move(message));
  }

  void unknown_arg(const Located<std::string>& name, const std::string& context) {
    report_unknown_argument(diags_, op_, name, context);
  }

  void check_name() {
    FunctionSchema& s = op_.schema;
    if (s.name.name.empty()) {
      error(Code::SchemaWithoutName, op_.schema_at(0), "the schema has no op name")
          .notes.push_back({fmt::format("write it before the arguments, e.g. '{}(Tensor x) -> Tensor'", op_.stem)});
      return;
    }
    // The op and overload names become Python identifiers in the generated
    // module (`foo = torch.ops.ns.foo.default`), where `torch` is the module.
    for (const std::string& part : {s.name.name, s.name.overload}) {
      if (is_python_keyword(part) || part == "torch")
        error(Code::ReservedOpName, op_.schema_at(0),
              fmt::format("'{}' cannot name an op: it is reserved in the generated Python", part));
      else if (auto why = cpp_name_problem(part))
        error(Code::ReservedOpName, op_.schema_at(0), fmt::format("'{}' cannot name an op: {}", part, *why));
      else if (part.size() > kMaxNameLength)
        error(Code::ReservedOpName, op_.schema_at(0),
              fmt::format("'{}...' cannot name an op: it is longer than {} characters, and names files",
                          part.substr(0, 20), kMaxNameLength));
    }
    if (op_.op_name() == model::kTypesFileStem)
      error(Code::ReservedOpName, op_.schema_at(0),
            fmt::format("'{}' cannot name an op: its spec would be {}.yaml, which opgen reads as the library's "
                        "types file", op_.op_name(), model::kTypesFileStem));
    if (!s.name.ns.empty() && s.name.ns != lib_.ns) {
      error(Code::NamespaceMismatch, op_.schema_at(0),
            fmt::format("the schema's namespace '{}' differs from the library's '{}'", s.name.ns, lib_.ns))
          .notes.push_back({"leave the namespace out of the schema: the library supplies it"});
    }
    if (op_.op_name() != op_.stem) {
      error(Code::FileNameMismatch, op_.schema_at(0),
            fmt::format("the op is named '{}' but its file is '{}.yaml'", op_.op_name(), op_.stem))
          .notes.push_back({fmt::format("name the file '{}.yaml': one op per file, named after it", op_.op_name())});
    }
    if (s.is_vararg || s.is_varret)
      error(Code::VariadicSchema, op_.schema_at(0), "variadic schemas ('...') cannot be registered as custom ops");
  }

  // PyTorch registers a schema that names two positional arguments alike,
  // and calls the op by position: the second `id` becomes `id_2` for the
  // generated code (C++ and Python need distinct names), the schema keeps
  // `id`. PyTorch's own signature builders refuse it (opcheck, Inductor):
  // eager only (W0307). A keyword-only one could not be passed (E0306).
  void name_duplicate_arguments() {
    std::vector<Argument>& args = op_.schema.arguments;
    std::set<std::string> names;
    for (const Argument& a : args) names.insert(a.name);
    if (names.size() == args.size()) return;
    std::map<std::string, int> seen;
    for (Argument& a : args) {
      const int count = ++seen[a.name];
      if (count == 1) continue;
      if (a.kwarg_only || std::any_of(args.begin(), args.end(), [&](const Argument& b) {
            return b.kwarg_only && b.name == a.name;
          })) {
        error(Code::DuplicateArgument, op_.schema_at(a.column),
              fmt::format("duplicate argument name '{}', keyword-only: a call could not pass both", a.name));
        continue;
      }
      std::string unique;
      for (int n = count; names.count(unique = fmt::format("{}_{}", a.name, n)); ++n) {
      }
      names.insert(unique);
      diags_
          .warning(Code::DuplicateArgumentNotCompilable, op_.schema_at(a.column),
                   fmt::format("the schema names two arguments '{}': eager calls work, torch.library.opcheck and "
                               "torch.compile refuse the op", a.name))
          .notes.push_back({fmt::format("the second is '{}' in this spec's rules and samples, the kernel and the "
                                        "generated Python; the registered schema keeps '{}'", unique, a.name)});
      a.written_name = a.name;
      a.name = unique;
      op_.mark_eager_only("W0307", "the schema names two arguments alike (W0307): torch.library.opcheck and "
                                   "torch.compile refuse the op");
    }
  }

  void check_arguments() {
    // c10::utils::bitset, which DispatchKeyExtractor fills with one bit per argument.
    constexpr size_t kTorchMaxArguments = 64;
    if (const size_t n = op_.schema.arguments.size(); n > kTorchMaxArguments) {
      auto& d = error(Code::TooManyArguments, op_.schema_at(0),
                      fmt::format("{} registers {} arguments; PyTorch registers at most {}", op_.op_name(), n,
                                  kTorchMaxArguments));
      if (op_.declared_schema)
        d.notes.push_back({fmt::format("{} as declared, each host object's fields counted one each",
                                       op_.declared_schema->arguments.size())});
    }
    name_duplicate_arguments();
    for (const Argument& a : op_.schema.arguments) {
      if (is_keyword(a.name) || kGeneratedNames.count(a.name) || a.name.rfind("opgen_", 0) == 0)
        error(Code::ReservedArgumentName, op_.schema_at(a.column),
              fmt::format("argument name '{}' is reserved in C++, Python or the generated code", a.name))
            .notes.push_back({fmt::format("rename it, for example to '{}_'", a.name)});
      else if (auto why = cpp_name_problem(a.name))
        error(Code::ReservedArgumentName, op_.schema_at(a.column),
              fmt::format("argument name '{}' cannot be used: {}", a.name, *why))
            .notes.push_back({fmt::format("rename it, for example to '{}'", usable_cpp_name(a.name))});
    }
  }

  static bool written_in_place(const model::Type& type) {
    if (type.alias && type.alias->is_write) return true;
    return std::any_of(type.elements.begin(), type.elements.end(),
                       [](const auto& element) { return element && written_in_place(*element); });
  }

  void check_type(const model::Type& type, size_t column, bool is_return) {
    const model::TypeMapping* mapping = model::find_type_mapping(type);
    const std::string key = model::type_key(type);
    if (!mapping) {
      auto& d = error(Code::UnsupportedType, op_.schema_at(column), fmt::format("type '{}' is not supported by opgen", key));
      // A class name: an undeclared host class (or a misspelt one).
      const std::string name = type.kind == model::Type::Kind::Optional ? model::type_key(*type.elements.at(0)) : key;
      if (!name.empty() && std::isupper(static_cast<unsigned char>(name[0])) &&
          name.find_first_of("[]?(") == std::string::npos) {
        std::vector<std::string> declared;
        for (const auto& cls : lib_.host_classes) declared.push_back(cls.name.value);
        if (std::string guess = closest_match(name, declared); !guess.empty())
          d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
        d.notes.push_back({fmt::format("a Python object an op takes is declared in {} ('host_objects:' or "
                                       "'tensor_subclasses:', docs/host-objects.md)",
                                       lib_.types_path.empty() ? "_types.yaml beside the specs" : lib_.types_path)});
      }
      return;
    }
    if (key == "Tensor[][]" && written_in_place(type)) {
      error(Code::UnsupportedType, op_.schema_at(column),
            "a nested tensor list cannot be written to in place: PyTorch keeps no alias set inside it (it registers "
            "'Tensor(a!)[][]' as 'Tensor[](!)[]', which its own parser refuses)")
          .notes.push_back({"take each list updated in place as a 'Tensor(a!)[]' argument (as multi_tensor_adam_ "
                            "does), or read-only as 'Tensor[][]'"});
      return;
    }
    if (key == "Tensor[][]" && is_return) {
      error(Code::UnsupportedReturnType, op_.schema_at(column), "an op cannot return 'Tensor[][]'")
          .notes.push_back({"fake rules describe tensors and tensor lists, not nested lists: return a 'Tensor[]'"});
      return;
    }
    if (op_.defined_in_python()) return;  // no ABI: torch.library carries every type
    if (is_return && (op_.abi.value == Abi::Stable ? mapping->stable_value : mapping->unstable_value).empty()) {
      error(Code::UnsupportedReturnType, op_.schema_at(column), fmt::format("an op cannot return '{}'", key))
          .notes.push_back({op_.abi.value == Abi::Stable
                                ? "on the stable ABI an op returns any type it carries but Scalar"
                                : "on the unstable ABI an op returns Tensor, Tensor?, Tensor[], int, SymInt, int[], "
                                  "float, bool, str or str[]"});
      return;
    }
    if (op_.abi.value != Abi::Stable) {
      if (!is_return && mapping->unstable_param.empty())
        error(Code::UnsupportedType, op_.schema_at(column),
              fmt::format("type '{}' is carried by opgen on the stable ABI only", key))
            .notes.push_back({"use 'abi: stable' for this op"});
      return;
    }
    if (mapping->stable_since == 0) {
      error(Code::TypeNotInStableAbi, op_.schema_at(column),
            fmt::format("type '{}' cannot be carried by the stable ABI", key))
          .notes.push_back({"use 'abi: unstable' for this op"});
    } else if (mapping->stable_since > lib_.torch_target_version) {
      error(Code::StableAbiTooOld, op_.schema_at(column),
            fmt::format("type '{}' needs the stable ABI of PyTorch {} or newer; the target is {}", key,
                        model::format_torch_version(mapping->stable_since),
                        model::format_torch_version(lib_.torch_target_version)))
          .notes.push_back({"raise the library's TORCH_TARGET_VERSION or use 'abi: unstable'"});
    }
  }

  void check_types() {
    const size_t errors_before = diags_.error_count();
    for (const Argument& a : op_.schema.arguments) check_type(*a.type, a.column, false);
    for (const model::Return& r : op_.schema.returns) check_type(*r.type, r.column, true);
    if (diags_.error_count() == errors_before) warn_dicts();
  }

  // PyTorch registers and calls an op that takes or returns a Dict, and
  // traces none: AOT dispatch leaves the tensors inside a dict real ("Please
  // convert all Tensors to FakeTensors first"), and Dynamo cannot return a
  // dict from an op. Eager only (W0312).
  void warn_dicts() {
    size_t column = 0;
    std::string dict;
    auto find = [&](const model::Type& type, size_t at) {
      if (dict.empty() && model::type_key(type).starts_with("Dict(")) {
        dict = model::type_key(type);
        column = at;
      }
    };
    for (const Argument& a : op_.schema.arguments) find(*a.type, a.column);
    for (const model::Return& r : op_.schema.returns) find(*r.type, r.column);
    if (dict.empty()) return;
    diags_
        .warning(Code::DictNotCompilable, op_.schema_at(column),
                 fmt::format("the op takes or returns a '{}': eager calls work, torch.library.opcheck and "
                             "torch.compile cannot trace it",
                             dict))
        .notes.push_back({"PyTorch traces tensors in lists and tuples, not in dicts"});
    if (op_.eager_only.empty())
      op_.mark_eager_only("W0312", fmt::format("it takes or returns a '{}' (W0312): torch.library.opcheck and "
                                               "torch.compile cannot trace it",
                                               dict));
  }

  // The schema's `(a!)` annotations are the truth; `mutates:` must agree
  // with them, and adds them where the schema left them out.
  void check_mutation() {
    FunctionSchema& s = op_.schema;
    std::set<std::string> used_sets;
    for (const Argument& a : s.arguments) {
      for (const model::Type* t = a.type.get(); t; t = t->elements.empty() ? nullptr : t->elements[0].get()) {
        if (!t->alias) continue;
        for (const auto& set : t->alias->before_sets) used_sets.insert(set);
        // `Tensor(a) x` with a result `Tensor(a)`: a view (W0403, below); alone, it says nothing.
        const bool viewed = std::any_of(s.returns.begin(), s.returns.end(), [&](const model::Return& r) {
          return model::viewed_argument(s, r) == &a;
        });
        // Alone, it says the op neither writes nor returns it: PyTorch takes it, eagerly (W0405). A result
        // that shares the set otherwise is E0404's.
        if (!t->alias->is_write && !viewed && !shares_alias_set(alias_sets(*t), s.returns)) {
          diags_
              .warning(Code::UnsharedAliasNotCompilable, op_.schema_at(a.column),
                       fmt::format("argument '{}' is annotated as an alias {} without '!', and no result aliases "
                                   "it: eager calls work, torch.library.opcheck and torch.compile refuse the op",
                                   a.name, t->alias->to_string()))
              .notes.push_back({"drop the annotation to compile the op, or mark it (a!) if the op writes it"});
          if (op_.eager_only.empty())
            op_.mark_eager_only("W0405", fmt::format("'{}' is annotated as an alias no result shares (W0405): "
                                                     "torch.library.opcheck and torch.compile refuse the op",
                                                     a.name));
        }
      }
      if (model::has_write_annotation(a) && !a.type->is_tensor_like()) {
        diags_.warning(Code::NonTensorMarkedMutated, op_.schema_at(a.column),
                       fmt::format("argument '{}' of type '{}' is annotated as mutated: eager calls work, "
                                   "torch.library.opcheck and torch.compile refuse the op",
                                   a.name, model::type_key(*a.type)))
            .notes.push_back({"a value is not written back; drop the annotation unless the schema must match "
                              "another registration"});
        op_.mark_eager_only("W0402", fmt::format("'{}' ({}) carries a write annotation (W0402): "
                                                 "torch.library.opcheck and torch.compile refuse the op",
                                                 a.name, model::type_key(*a.type)));
      }
    }
    if (!op_.mutates) return;
    check_listed_once(*op_.mutates, "mutates", diags_);
    std::set<std::string> listed;
    for (const auto& name : *op_.mutates) {
      const Argument* arg = find_arg(s, name.value);
      if (!arg) {
        unknown_arg(name, "'mutates'");
        continue;
      }
      listed.insert(name.value);
      if (!is_mutable_type(*arg->type))
        error(Code::ArgumentNotATensor, name.loc,
              fmt::format("'mutates' names '{}', which is a '{}', not a tensor", name.value,
                          model::type_key(*arg->type)));
    }
    for (Argument& a : s.arguments) {
      bool annotated = model::is_mutable(a);
      if (annotated && !listed.count(a.name)) {
        error(Code::MutationNotListed, op_.schema_at(a.column),
              fmt::format("argument '{}' is annotated as mutated but 'mutates' does not list it", a.name))
            .notes.push_back({"add it to 'mutates', or drop the '!' from the schema"});
      } else if (!annotated && listed.count(a.name)) {
        add_write_annotation(a, used_sets);
      }
    }
  }

  static void add_write_annotation(Argument& a, std::set<std::string>& used_sets) {
    std::string set;
    for (char c = 'a'; c <= 'z' && set.empty(); ++c)
      if (!used_sets.count(std::string(1, c))) set = std::string(1, c);
    if (set.empty()) return;
    used_sets.insert(set);
    // Annotate the tensor itself (the element of a list or optional), as
    // PyTorch writes `Tensor(a!)[]`.
    auto annotate = [&](const model::Type& t) {
      auto copy = std::make_shared<model::Type>(t);
      copy->alias = model::AliasInfo{{set}, {}, true};
      return copy;
    };
    if (a.type->kind == model::Type::Kind::Named) {
      a.type = annotate(*a.type);
    } else if (!a.type->elements.empty()) {
      auto outer = std::make_shared<model::Type>(*a.type);
      outer->elements[0] = annotate(*a.type->elements[0]);
      a.type = outer;
    }
  }

  // A result may alias an argument the op writes (model::aliased_argument).
  // The out= convention (every mutated argument keyword-only and given, every
  // result one of them) gets PyTorch's `out` tag, with which opcheck and
  // torch.compile accept it; other aliasing results work eagerly only (W0401).
  void check_returns() {
    const FunctionSchema& s = op_.schema;
    const bool inplace = has_tag("inplace");
    bool any_alias = false, all_bound = !s.returns.empty(), any_bad = false;
    const model::Argument* loose = nullptr;  // an aliased argument outside the out= convention
    const model::Argument* view = nullptr;   // an argument a result is a view of
    const model::Return* own = nullptr;      // a result in alias sets no argument has
    bool written = false;                    // a result aliases an argument the op writes
    for (const model::Return& r : s.returns) {
      if (!find_alias(*r.type)) {
        all_bound = false;
        continue;
      }
      any_alias = true;
      const model::Argument* arg = model::aliased_argument(s, r);
      if (const model::Argument* viewed = arg ? nullptr : model::viewed_argument(s, r)) {
        all_bound = false;
        view = view ? view : viewed;
        continue;
      }
      if (!arg && own_alias(s, r)) {
        all_bound = false;
        own = own ? own : &r;
        continue;
      }
      if (!arg) {
        any_bad = true;
        error(Code::ReturnsAlias, op_.schema_at(r.column),
              fmt::format("the op returns an alias of an input ({}) that is not a tensor argument it writes",
                          r.type->to_string()))
            .notes.push_back({"a result may alias an argument the op writes (Tensor(a!)), or be a view of one (Tensor(a) x -> "
                              "Tensor(a)); otherwise return new tensors, or nothing"});
        continue;
      }
      written = true;
      if (!model::bound_argument(s, r)) all_bound = false;
      if (!arg->kwarg_only || !model::bound_argument(s, r)) loose = loose ? loose : arg;
    }
    if (inplace) {
      SourceLoc at = op_.schema_at(0);
      const Argument* first = s.arguments.empty() ? nullptr : &s.arguments.front();
      size_t mutated =
          std::count_if(s.arguments.begin(), s.arguments.end(), [](auto& a) { return model::is_mutable(a); });
      bool ok = first && first->type->alias && first->type->alias->is_write && mutated == 1 &&
                s.returns.size() == 1 && s.returns[0].type->alias &&
                s.returns[0].type->alias->before_sets == first->type->alias->before_sets;
      if (!ok || !any_alias)
        error(Code::BadInplaceOp, at, "an op tagged 'inplace' must mutate exactly its first argument and return it")
            .notes.push_back({"for example: foo_(Tensor(a!) self, float alpha) -> Tensor(a!)"});
      return;
    }
    if (!any_alias || any_bad) return;
    if (own) {
      op_.mark_eager_only("W0404", "a result is in an alias set no argument has (W0404): torch.library.opcheck "
                                   "and torch.compile refuse the op");
      diags_
          .warning(Code::OwnAliasResultNotCompilable, op_.schema_at(own->column),
                   fmt::format("a result ({}) is in an alias set no argument has: eager calls work, "
                               "torch.library.opcheck and torch.compile refuse the op",
                               own->type->to_string()))
          .notes.push_back({"drop the annotation to compile the op; the fake describes the result as a new tensor"});
      if (!view && !written) return;
    }
    if (view) {
      op_.mark_eager_only("W0403", "a result is a view of an input (W0403): torch.library.opcheck and "
                                   "torch.compile refuse the op");
      diags_
          .warning(Code::ViewResultNotCompilable, op_.schema_at(0),
                   fmt::format("a result is a view of '{}': eager calls work (autograd too), "
                               "torch.library.opcheck and torch.compile refuse the op", view->name))
          .notes.push_back({"return a new tensor, or nothing when the caller holds the tensor already"});
      return;
    }
    const bool mutated_positional = std::any_of(s.arguments.begin(), s.arguments.end(),
                                                [](auto& a) { return model::is_mutable(a) && !a.kwarg_only; });
    const bool convention = all_bound && !loose && !mutated_positional;
    if (convention) {
      // On the stable ABI the tag makes the package define the op (model::defined_from_python_for_tags).
      if (!has_tag("out")) op_.tags.push_back({"out", op_.schema_at(0)});
      return;
    }
    op_.mark_eager_only("W0401", "a result aliases an input outside the out= convention (W0401): "
                                 "torch.library.opcheck and torch.compile refuse the op");
    diags_
        .warning(Code::AliasingResultNotCompilable, op_.schema_at(0),
                 fmt::format("a result aliases '{}', outside the out= convention: eager calls work, "
                             "torch.library.opcheck and torch.compile refuse the op",
                             loose ? loose->name : std::string("a positional argument")))
        .notes.push_back({"make every mutated argument keyword-only and always given, every result one of them "
                          "(foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)), or return new tensors"});
  }

  bool has_tag(std::string_view tag) const {
    return std::any_of(op_.tags.begin(), op_.tags.end(), [&](auto& t) { return t.value == tag; });
  }

  void check_symm_mem() {
    if (op_.symm_mem.empty()) return;
    check_listed_once(op_.symm_mem, "symm_mem", diags_);
    for (const auto& name : op_.symm_mem) {
      const Argument* arg = find_arg(op_.schema, name.value);
      if (!arg) {
        unknown_arg(name, "'symm_mem'");
      } else if (!is_tensor(*arg->type) && model::type_key(*arg->type) != "Tensor[]") {
        error(Code::ArgumentNotATensor, name.loc,
              fmt::format("'symm_mem' names '{}', which is a '{}', not a tensor", name.value,
                          model::type_key(*arg->type)));
      }
    }
    const Argument* group = find_arg(op_.schema, "group_name");
    if (!group || model::type_key(*group->type) != "str")
      error(Code::SymmMemWithoutGroupName, op_.symm_mem.front().loc,
            "an op with symm_mem arguments needs a 'str group_name' argument")
          .notes.push_back({"PyTorch finds the process group for symmetric memory through it"});
  }

  void check_tensor_arg_ref(const Located<std::string>& name, const std::string& context, bool list_ok = false) {
    const Argument* arg = find_arg(op_.schema, name.value);
    if (!arg) {
      unknown_arg(name, context);
    } else if (!is_tensor_or_optional(*arg->type) && !(list_ok && model::type_key(*arg->type) == "Tensor[]")) {
      error(Code::ArgumentNotATensor, name.loc,
            fmt::format("{} names '{}', which is a '{}', not a tensor", context, name.value,
                        model::type_key(*arg->type)));
    }
  }

  void check_tensor_checks() {
    for (const auto& check : op_.checks) {
      // A Tensor[] argument's checks hold for each of its tensors.
      check_tensor_arg_ref(check.arg, "'checks'", /*list_ok=*/true);
      for (const auto& dtype : check.dtypes) check_known_dtype(dtype, diags_);
      if (check.same_dtype_as) check_tensor_arg_ref(*check.same_dtype_as, "'same_dtype'", /*list_ok=*/true);
      if (check.same_device_as) check_tensor_arg_ref(*check.same_device_as, "'same_device'", /*list_ok=*/true);
      if (check.dim && check.dim->value < 0) error(Code::NegativeDim, check.dim->loc, "'dim' must not be negative");
    }
  }

  // Samples feed the generated test suite: every value must fit its
  // argument's type, every argument without a default needs one, and every
  // dim a shape names must be given.
  std::optional<ValueKind> check_rule(const model::RuleText& rule, const model::ExprEnv& env, bool cpp = false) {
    auto result = cpp ? model::check_cpp_expr(*rule.expr, env) : model::check_expr(*rule.expr, env);
    if (auto* kind = std::get_if<ValueKind>(&result)) return *kind;
    for (const auto& diag : std::get<std::vector<model::ExprDiagnostic>>(result)) {
      auto& d = error(diag.code, rule.at(diag.column), diag.message);
      if (!diag.note.empty()) d.notes.push_back({diag.note});
    }
    return std::nullopt;
  }

  // `code`: the error when the rule is well-formed but of another kind.
  void expect_kind(Code code, const model::RuleText& rule, const model::ExprEnv& env, ValueKind want,
                   const std::string& what, bool cpp = false) {
    auto kind = check_rule(rule, env, cpp);
    if (kind && *kind != want)
      error(code, rule.at(0),
            fmt::format("{} must be {}, but this is {}", what, model::to_string(want), model::to_string(*kind)));
  }

  void check_rules() {
    model::ExprEnv env;
    env.schema = &op_.schema;
    for (const auto& let : op_.lets) {
      const std::string& name = let.name.value;
      // The name becomes a local variable of the generated fake.
      if (!is_identifier(name) || is_python_keyword(name) || name == "torch")
        error(Code::BadLetName, let.name.loc,
              fmt::format("'let' name '{}' cannot name a variable in the generated fake", name))
            .notes.push_back({"use a Python identifier that is not a keyword or 'torch', e.g. 'n_rows'"});
      else if (find_arg(op_.schema, name) || env.lets.count(name))
        error(Code::LetNameTaken, let.name.loc, fmt::format("'let' name '{}' is already taken", name));
      const size_t errors_before = diags_.error_count();
      auto kind = check_rule(let.rule, env);
      if (kind && *kind != ValueKind::Int)
        error(Code::LetNotInt, let.rule.at(0),
              fmt::format("'let' binding '{}' must be Int, but this is {}", name, model::to_string(*kind)));
      else if (kind && diags_.error_count() == errors_before)
        check_fake_rule_in_range(let.rule, env);
      // A binding of the wrong kind keeps it, so its uses report nothing more.
      env.lets[name] = kind.value_or(ValueKind::Int);
    }
    // `require` rules become C++ checks too, so they keep to the C++ subset
    // (which cannot see the lets: checked with them in scope, using one
    // says so rather than "unknown name").
    for (const auto& rule : op_.require) {
      const size_t errors_before = diags_.error_count();
      expect_kind(Code::RequireNotBool, rule, env, ValueKind::Bool, "a 'require' rule", true);
      // Checked by the kernel's wrapper and the fake on every call (E0526).
      if (diags_.error_count() == errors_before) check_fake_rule_in_range(rule, env, "the op's checks");
    }
    check_fake(env);
    if (op_.flops) check_flops(*op_.flops, env);
    if (op_.autograd) check_autograd_bindings(env);
    check_compile();
  }

  // `compile:` conditions are Bool rules the package evaluates in Python at
  // trace time (no C++ subset; the lets are the fake's own, not in scope).
  void check_compile() {
    if (!op_.compile) return;
    const model::CompilePolicy& policy = *op_.compile;
    if (policy.unsupported.empty())
      error(Code::CompileConditionIncomplete, policy.loc, "'compile' names no unsupported call")
          .notes.push_back({"list them: 'unsupported: [{when: \"x.dtype == float64\", reason: \"...\"}]'"});
    model::ExprEnv env;
    env.schema = &op_.schema;
    for (const auto& condition : policy.unsupported) {
      const size_t errors_before = diags_.error_count();
      expect_kind(Code::CompileWhenNotBool, condition.when, env, ValueKind::Bool, "a 'compile: unsupported' condition");
      // Defined on every input the op accepts (E0525), asked of a sound condition.
      if (diags_.error_count() == errors_before && condition.when.expr)
        for (const auto& diag : model::check_cannot_raise(*condition.when.expr, env, accepted_shapes(),
                                                          "torch.compile", Code::CompileConditionMayRaise)) {
          auto& d = error(diag.code, condition.when.at(diag.column), diag.message);
          if (!diag.note.empty()) d.notes.push_back({diag.note});
        }
      if (condition.reason.value.empty())
        error(Code::CompileConditionIncomplete, condition.reason.loc, "'reason' is empty")
            .notes.push_back({"say why the compiled path cannot take such a call: users read it in the warning"});
    }
    const auto& fallback = policy.fallback;
    if (fallback.value == "python") {
      if (!op_.compile->fallback_python)
        error(Code::BadCompileFallback, fallback.loc, "'fallback' as a mapping takes 'python: \"module:function\"'");
      else if (!is_python_target(op_.compile->fallback_python->value))
        error(Code::BadCompileFallback, op_.compile->fallback_python->loc,
              fmt::format("'python' must read 'module:function', not '{}'", op_.compile->fallback_python->value))
            .notes.push_back({python_keyword_note(op_.compile->fallback_python->value)
                                  .value_or("a traceable function of the op's arguments, e.g. "
                                            "'my_pkg.compiled:rms_norm_composite'")});
    } else if (fallback.value != "eager" && fallback.value != "error") {
      auto& d = error(Code::BadCompileFallback, fallback.loc,
                      fmt::format("'fallback' is eager, error or {{python: \"module:function\"}}, not '{}'",
                                  fallback.value));
      if (auto guess = closest_match(fallback.value, {"eager", "error"}); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
    }
  }

  // `flops` runs in FlopCounterMode on the op's arguments alone (checked
  // with the lets in scope, so using one says why it cannot).
  void check_flops(const model::RuleText& rule, const model::ExprEnv& env) {
    const size_t errors_before = diags_.error_count();
    auto kind = check_rule(rule, env);
    if (!kind) return;
    if (*kind != ValueKind::Int) {
      error(Code::FlopsNotInt, rule.at(0),
            fmt::format("a 'flops' rule must be Int, but this is {}", model::to_string(*kind)))
          .notes.push_back({"count from sizes and int arguments, e.g. '2 * a.size(0) * a.size(1) * b.size(1)'"});
      return;
    }
    for (const std::string& name : model::referenced_names(*rule.expr, env))
      if (env.lets.count(name))
        error(Code::FlopsNotCountable, rule.at(0), fmt::format("a 'flops' rule cannot read the 'let' binding '{}'", name))
            .notes.push_back({"the formula sees the op's arguments only: write the count from them"});
    if (const model::Expr* call = model::find_call(*rule.expr, "dynamic"))
      error(Code::FlopsNotCountable, rule.at(call->column), "a 'flops' rule cannot call dynamic()")
          .notes.push_back({"a data-dependent size is not known before the kernel runs; count from the inputs"});
    if (const Argument* clash = find_arg(op_.schema, "out_val"))
      error(Code::FlopsNotCountable, op_.schema_at(clash->column),
            "an op with a 'flops' rule cannot have an argument named 'out_val'")
          .notes.push_back({"FlopCounterMode passes the op's output to the formula as out_val="});
    // Total and never negative on every input the op accepts (E0523, E0524):
    // asked of a formula that is otherwise sound.
    if (diags_.error_count() == errors_before) check_flops_total(rule, env);
  }

  // `autograd: bind:` rules run in setup_context over the forward's
  // arguments (the fake's lets are not there), each giving one backward
  // argument a value of its kind.
  void check_autograd_bindings(const model::ExprEnv& env) {
    const OpSpec* bwd = lib_.find(op_.autograd->backward.value);
    for (const auto& binding : op_.autograd->bind) {
      const model::Argument* target = bwd ? find_arg(bwd->schema, binding.name.value) : nullptr;
      const size_t errors_before = diags_.error_count();
      auto kind = check_rule(binding.rule, env);
      if (!kind) continue;
      for (const std::string& name : model::referenced_names(*binding.rule.expr, env))
        if (env.lets.count(name))
          error(Code::BadAutogradBinding, binding.rule.at(0),
                fmt::format("a 'bind' rule cannot read the 'let' binding '{}'", name))
              .notes.push_back({"setup_context sees the forward's arguments only: write the value from them"});
      if (const model::Expr* call = model::find_call(*binding.rule.expr, "dynamic"))
        error(Code::BadAutogradBinding, binding.rule.at(call->column), "a 'bind' rule cannot call dynamic()")
            .notes.push_back({"dynamic() stands for a size only the kernel knows: give the backward the forward's "
                              "output (by its name) and read the size from it"});
      if (!target || names_bound_by_name(lib_, op_).count(binding.name.value)) continue;  // reported with the names
      const std::string type = model::type_key(*target->type);
      const auto wanted = autograd_binding_kinds(type);
      if (wanted.empty()) {
        error(Code::BadAutogradBinding, binding.name.loc,
              fmt::format("'bind' cannot give '{}', a '{}': rules compute numbers, booleans, shapes, dtypes and "
                          "strings", binding.name.value, type))
            .notes.push_back({"a tensor the backward needs is a forward argument or output, bound by its name"});
        continue;
      }
      if (std::find(wanted.begin(), wanted.end(), *kind) == wanted.end()) {
        error(Code::BadAutogradBinding, binding.rule.at(0),
              fmt::format("'bind' gives '{}', a '{}', a value of kind {}", binding.name.value, type,
                          model::to_string(*kind)))
            .notes.push_back({fmt::format("write a rule of kind {}", model::to_string(wanted.front()))});
        continue;
      }
      if (diags_.error_count() == errors_before) check_fake_rule_in_range(binding.rule, env, "autograd's setup_context");
    }
  }

  // The kinds of rule that give a backward argument of this type, the first
  // the one to suggest; none for types a rule cannot compute.
  static std::vector<ValueKind> autograd_binding_kinds(const std::string& type) {
    if (type == "int" || type == "SymInt") return {ValueKind::Int};
    if (type == "float") return {ValueKind::Float, ValueKind::Int};
    if (type == "bool") return {ValueKind::Bool};
    if (type == "int[]" || type == "SymInt[]") return {ValueKind::Shape};
    if (type == "ScalarType") return {ValueKind::DType};
    if (type == "str") return {ValueKind::String};
    return {};
  }

  // What the op's checks guarantee (ranks from `dim:`, bounds from
  // `require:`), and the formula's totality under it.
  // A rule the generated code evaluates on every call it sees (a `let`, a
  // `fake:` rule in the fake, a `bind:` rule in setup_context) must not
  // raise on every input (E0526): an index past a tensor's exact rank.
  // (What only may raise, where the checks leave a rank open, is left to
  // the kernel's own checks, as real fakes do.)
  void check_fake_rule_in_range(const model::RuleText& rule, const model::ExprEnv& env,
                                const std::string& evaluator = "the fake") {
    if (!rule.expr) return;
    for (const auto& diag : model::check_always_raises(*rule.expr, env, accepted_shapes(), evaluator,
                                                       Code::FakeRuleAlwaysRaises)) {
      auto& d = error(diag.code, rule.at(diag.column), diag.message);
      if (!diag.note.empty()) d.notes.push_back({diag.note});
    }
  }

  model::ShapeFacts accepted_shapes() const { return model::accepted_shapes(op_); }

  void check_flops_total(const model::RuleText& rule, const model::ExprEnv& env) {
    for (const auto& diag : model::check_total_count(*rule.expr, env, accepted_shapes())) {
      auto& d = error(diag.code, rule.at(diag.column), diag.message);
      if (!diag.note.empty()) d.notes.push_back({diag.note});
    }
  }

  // What a fake rule for an output of schema type `key` evaluates to: a
  // tensor is made (like, empty, ...); a plain value is computed from the
  // inputs (an int from sizes, or `dynamic()` where only the kernel knows it).
  static std::optional<ValueKind> fake_output_kind(const std::string& key) {
    static const std::map<std::string, ValueKind> kinds = {
        {"Tensor", ValueKind::Output}, {"Tensor[]", ValueKind::OutputList}, {"int", ValueKind::Int},
        {"SymInt", ValueKind::Int},    {"bool", ValueKind::Bool},           {"float", ValueKind::Float},
        {"int[]", ValueKind::Shape},   {"SymInt[]", ValueKind::Shape}};  // torch.compile cannot trace a str result
    auto it = kinds.find(key);
    return it == kinds.end() ? std::nullopt : std::optional(it->second);
  }

  void check_fake(const model::ExprEnv& env) {
    if (op_.decomposes()) return;  // it takes no fake (check_decomposing)
    // Its kernel is its fake, unless the spec gives one (registered on triton_op's object, replacing it).
    if (op_.defined_by_triton_op() && op_.fake.empty() && !op_.fake_python) return;
    // Its Meta kernel is its fake; an op the package wraps around a flat op (carried host objects) still takes
    // the wrapper's fake: the kernels, Meta among them, are the flat op's.
    if (op_.has_meta_kernel() && !op_.wraps_flat_op()) {
      const bool bound = std::any_of(op_.dispatch.begin(), op_.dispatch.end(),
                                     [](const auto& key) { return key.value == "Meta"; });
      if (op_.fake_meta && bound)
        error(Code::FakeBesideMetaKernel, op_.fake_meta->loc,
              "'fake: {meta: ...}' names a Meta kernel registered outside the spec, and the spec binds one too: "
              "two kernels at Meta")
            .notes.push_back({"drop one: the bound kernel is the fake, or drop 'Meta' from 'dispatch'"});
      else if (op_.fake_python || !op_.fake.empty())
        error(Code::FakeBesideMetaKernel,
              op_.fake_python ? op_.fake_python->loc : (op_.fake_loc.line ? op_.fake_loc : op_.fake.front().at(0)),
              "a fake beside a Meta kernel, which is the op's fake: torch 2.11's torch.library.register_fake "
              "refuses it (2.14's lets the fake replace the kernel)")
            .notes.push_back({"drop the fake (fake tensors and torch.compile run the Meta kernel), or the Meta kernel"});
      return;
    }
    const auto& returns = op_.schema.returns;
    if (op_.fake_python) {
      const std::string& target = op_.fake_python->value;
      if (!is_python_target(target))
        error(Code::BadFakePythonTarget, op_.fake_python->loc,
              fmt::format("'python' must read 'module:function', not '{}'", target))
            .notes.push_back({python_keyword_note(target).value_or(
                "a dotted module path and a function name, e.g. 'my_pkg.fakes:rms_norm_fake'")});
      return;
    }
    // Results bound to an argument need no rule: the fake returns the argument.
    // One aliasing an optional argument needs one, for when it is not given.
    // A view needs one too: the fake describes its shape (a new tensor: the op
    // is eager-only, W0403). An aliasing result of another kind is an error of
    // its own, E0404.
    auto bound = [&](const model::Return& r) {
      return model::bound_argument(op_.schema, r) != nullptr ||
             (find_alias(*r.type) && !own_alias(op_.schema, r) && !model::aliased_argument(op_.schema, r) &&
              !model::viewed_argument(op_.schema, r));
    };
    size_t needed = std::count_if(returns.begin(), returns.end(), [&](auto& r) { return !bound(r); });
    if (needed == 0) {
      if (!op_.fake.empty())
        error(Code::FakeRulesWithoutOutputs, op_.fake.front().at(0),
              "this op returns no new tensors, so it takes no 'fake' rules");
      return;
    }
    if (op_.fake.size() != needed) {
      SourceLoc at = op_.fake.empty() ? op_.schema_text.loc : op_.fake_loc;
      auto& e = error(Code::FakeRuleCount, at,
                      fmt::format("the op has {} output{} but {} 'fake' rule{}", needed, needed == 1 ? "" : "s",
                                  op_.fake.size(), op_.fake.size() == 1 ? "" : "s"));
      if (op_.fake_meta && op_.wraps_flat_op())
        e.notes.push_back({fmt::format("a Meta kernel would be the fake of the flat op the kernels register ({}), "
                                       "not of the op the package defines around it, which takes the host objects "
                                       "whole: that one needs 'fake' rules in place of 'fake: {{meta: ...}}'",
                                       op_.cpp_op_name())});
      e.notes.push_back({"give one rule per output, in order, e.g. 'like(input)'"});
      return;
    }
    size_t rule = 0;
    for (const auto& ret : returns) {
      if (bound(ret)) continue;
      const auto key = model::type_key(*ret.type);
      auto want = fake_output_kind(key);
      if (!want) {
        error(Code::FakeRuleForNonTensor, op_.schema_at(ret.column),
              fmt::format("a fake rule cannot produce a '{}' output", key))
            .notes.push_back({"use a handwritten fake: 'fake: {python: module:function}'"});
        ++rule;
        continue;
      }
      const auto& text = op_.fake[rule++];
      const size_t errors_before = diags_.error_count();
      if (key == "float") {  // an Int rule is a float too, as in Python
        auto kind = check_rule(text, env);
        if (kind && *kind != ValueKind::Float && *kind != ValueKind::Int)
          error(Code::FakeRuleNotOutput, text.at(0),
                fmt::format("a fake rule for a float output must be Float or Int, but this is {}",
                            model::to_string(*kind)));
      } else {
        expect_kind(Code::FakeRuleNotOutput, text, env, *want, "a fake rule for a " + key + " output");
      }
      if (diags_.error_count() == errors_before) check_fake_rule_in_range(text, env);
    }
  }

  model::Library& lib_;
  OpSpec& op_;
  Diagnostics& diags_;
};

}  // namespace



namespace {

// Claims every name the generated code binds (model/generated_names.h), in op order:
// the second op to claim a name, or one that claims a module name, is an error.
void check_generated_names(const model::Library& library, Diagnostics& diags) {
  struct Owner {
    const OpSpec* op;
    const char* what;
  };
  std::map<std::string, Owner> claimed;
  for (const std::string& name : model::fixed_module_names()) claimed.emplace(name, Owner{nullptr, nullptr});
  for (const std::string& module : model::host_class_modules(library))  // the .pyi imports them
    claimed.emplace(module.substr(0, module.find('.')), Owner{nullptr, nullptr});
  // An op carrying objects to C++ kernels registers its flat op in C++, whose
  // name another op may have (one error: the Python names collide too).
  std::set<const OpSpec*> reported;
  for (const OpSpec& op : library.ops) {
    if (!op.wraps_flat_op()) continue;
    const OpSpec* other = library.find(op.cpp_op_name());
    if (!other) continue;
    diags.error(Code::GeneratedNameCollision, op.schema_at(0),
                fmt::format("op '{}' carries objects to C++ kernels through the flat op '{}', which {} defines too",
                            op.op_name(), op.cpp_op_name(), other->display_path))
        .notes.push_back({"rename one of the ops"});
    reported.insert({&op, other});
  }
  // Each op names files (its spec, kernels, headers, generated sources): two
  // names that differ only in case are one file where file systems ignore
  // case (macOS, Windows), and each build would overwrite the other's.
  std::map<std::string, const OpSpec*> folded;
  for (const OpSpec& op : library.ops) {
    std::string key = op.op_name();
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
    auto [it, inserted] = folded.emplace(key, &op);
    if (inserted || it->second->op_name() == op.op_name()) continue;
    diags.error(Code::GeneratedNameCollision, op.schema_at(0),
                fmt::format("ops '{}' and '{}' differ only in case: their files ({}.yaml and {}.yaml, and the "
                            "generated ones) are one file where file systems ignore case (macOS, Windows)",
                            it->second->op_name(), op.op_name(), it->second->op_name(), op.op_name()))
        .notes.push_back({fmt::format("'{}' is defined in {}; rename one of the ops", it->second->op_name(),
                                      it->second->display_path)});
    reported.insert(&op);
  }
  std::set<std::string> op_names;
  for (const OpSpec& op : library.ops) {
    if (reported.count(&op)) continue;
    // Reported already: an op defined twice (E0312), a reserved op name (E0302;
    // which includes every __dunder__, reserved in C++ as in Python).
    const auto& name = op.schema.name;
    if (!op_names.insert(op.op_name()).second || is_python_keyword(name.name) || is_python_keyword(name.overload) ||
        name.name == "torch" || cpp_name_problem(name.name) || cpp_name_problem(name.overload))
      continue;
    for (const model::BoundName& bound : model::names_bound_by(op)) {
      auto [it, inserted] = claimed.emplace(bound.name, Owner{&op, bound.what});
      if (inserted || it->second.op == &op) continue;
      const Owner& first = it->second;
      auto& d = diags.error(Code::GeneratedNameCollision, op.schema_at(0),
                            fmt::format("op '{}' binds '{}' ({}), which {}", op.op_name(), bound.name, bound.what,
                                        first.op ? fmt::format("op '{}' binds too ({})", first.op->op_name(), first.what)
                                                 : std::string("the generated module itself uses")));
      if (first.op) d.notes.push_back({fmt::format("'{}' is defined in {}", first.op->op_name(), first.op->display_path)});
      d.notes.push_back({"rename one of the ops"});
      break;  // one error per op
    }
  }
}

}  // namespace

void check_library(model::Library& library, Diagnostics& diags) {
  const size_t errors_before = diags.error_count();
  // An op without `dispatch:` has kernels for CPU and CUDA; every check
  // (which of them are Python, first) sees the keys it will have. An empty
  // `dispatch: []` stays empty: the schema alone.
  for (OpSpec& op : library.ops)
    if (op.dispatch.empty() && !op.dispatch_written) op.dispatch = {{"CPU", op.file_loc}, {"CUDA", op.file_loc}};
  // No op with a C++ kernel: the schema-alone ops are the package's to define as well.
  const bool no_cpp_kernel = std::all_of(library.ops.begin(), library.ops.end(),
                                         [](const OpSpec& op) { return op.dispatch.empty() || op.defined_in_python(); });
  for (OpSpec& op : library.ops) op.schema_defined_by_package = no_cpp_kernel && op.dispatch.empty();
  check_host_objects(library, diags);
  if (diags.error_count() > errors_before) return;
  std::sort(library.ops.begin(), library.ops.end(),
            [](const OpSpec& a, const OpSpec& b) { return a.op_name() < b.op_name(); });
  std::map<std::string, const OpSpec*> first_seen;
  for (OpSpec& op : library.ops) {
    OpChecker(library, op, diags).run();
    auto [it, inserted] = first_seen.emplace(op.op_name(), &op);
    if (!inserted)
      diags.error(Code::OpDefinedTwice, op.schema_at(0), fmt::format("op '{}' is defined twice", op.op_name()))
          .notes.push_back({fmt::format("first defined in {}", it->second->display_path)});
  }
  for (const OpSpec& op : library.ops)
    if (op.autograd) check_autograd(library, op, diags);
  // FlopCounterMode keys formulas by overload packet, not overload.
  for (const OpSpec& op : library.ops) {
    if (!op.flops) continue;
    for (const OpSpec& other : library.ops) {
      if (&other == &op || other.schema.name.name != op.schema.name.name) continue;
      diags.error(Code::FlopsOnOverloadedOp, op.flops->at(0),
                  fmt::format("'{}' has a 'flops' rule, but '{}' shares its name: FlopCounterMode would count both "
                              "with it", op.op_name(), other.op_name()))
          .notes.push_back({fmt::format("'{}' is defined in {}; rename one of them", other.op_name(), other.display_path)});
      break;
    }
  }
  check_generated_names(library, diags);
  warn_about_missing_samples(library, diags);
  // From here on `dispatch` lists the C++ kernels; the package registers the Python ones.
  for (OpSpec& op : library.ops)
    std::erase_if(op.dispatch, [&](const auto& key) {
      return std::any_of(op.python_kernels.begin(), op.python_kernels.end(),
                         [&](const model::PythonKernel& k) { return k.dispatch_key.value == key.value; });
    });
}

}  // namespace opgen::check
