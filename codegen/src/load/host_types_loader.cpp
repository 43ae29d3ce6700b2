#include "load/host_types_loader.h"

#include <filesystem>

#include <fmt/format.h>

#include "load/yaml_reader.h"
#include "model/host_types.h"

namespace opgen::load {
namespace {

// A field's type text -> its schema type, read the way an argument's is.
model::TypePtr parse_field_type(Reader& r, const YAML::Node& node, const std::string& text) {
  const std::string schema = fmt::format("f({} x) -> ()", text);
  auto parsed = model::parse_schema(schema);
  const auto* fn = std::get_if<model::FunctionSchema>(&parsed);
  if (!fn || fn->arguments.size() != 1 || fn->arguments[0].name != "x" || fn->arguments[0].default_value ||
      fn->arguments[0].kwarg_only) {
    auto& d = r.diags().error(Code::BadHostFieldType, r.loc(node), fmt::format("'{}' is not a schema type", text));
    if (const auto* err = std::get_if<model::SchemaError>(&parsed)) d.notes.push_back({err->message});
    return nullptr;
  }
  return fn->arguments[0].type;
}

// A class's `doc`, trailing blank space dropped: the kernel header copies it.
std::string read_doc(Reader& r, const YAML::Node& body) {
  const YAML::Node n = body["doc"];
  if (!n) return "";
  std::string doc = r.string_value(n, "doc").value_or("");
  while (!doc.empty() && (doc.back() == '\n' || doc.back() == ' ')) doc.pop_back();
  if (auto why = uncarriable(doc, true))
    r.diags().error(Code::TextNotCarriable, r.loc(n), "'doc' cannot be copied into generated code: " + *why);
  return doc;
}

model::HostField read_field(Reader& r, const YAML::Node& key, const YAML::Node& value) {
  model::HostField field;
  field.name = {key.Scalar(), r.loc(key)};
  field.read = "." + key.Scalar();
  if (auto text = r.string_value(value, fmt::format("the type of field '{}'", key.Scalar()))) {
    field.type_text = {*text, r.loc(value)};
    field.type = parse_field_type(r, value, *text);
  }
  return field;
}

std::optional<model::HostClass> read_host_class(Reader& r, const YAML::Node& key, const YAML::Node& body) {
  model::HostClass cls;
  cls.name = {key.Scalar(), r.loc(key)};
  cls.loc = r.loc(body);
  const size_t errors_before = r.diags().error_count();
  if (!r.check_keys(body, host_class_keys(), fmt::format("host class '{}'", key.Scalar()))) return std::nullopt;
  cls.doc = read_doc(r, body);
  if (auto n = body["builtin"]) {
    auto builtin = r.string_value(n, "builtin");
    if (!builtin) return std::nullopt;
    const model::BuiltinHostClass* known = model::find_builtin_host_class(*builtin);
    if (!known) {
      std::vector<std::string> names;
      for (const auto& b : model::builtin_host_classes()) names.emplace_back(b.builtin);
      auto& d = r.diags().error(Code::BadHostClass, r.loc(n), fmt::format("no built-in host class '{}'", *builtin));
      if (std::string guess = closest_match(*builtin, names); !guess.empty())
        d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
      d.notes.push_back({fmt::format("built-in classes: {}", fmt::join(names, ", "))});
      return std::nullopt;
    }
    if (body["class"] || body["fields"] || body["kind"]) {
      r.diags()
          .error(Code::BadHostClass, r.loc(n), fmt::format("a built-in host class takes no 'class', 'fields' or 'kind'"))
          .notes.push_back({fmt::format("'{}' is {} with the fields opgen declares for it", *builtin,
                                        known->python_class)});
      return std::nullopt;
    }
    cls.builtin = *builtin;
    cls.python_class = {std::string(known->python_class), r.loc(n)};
    if (cls.doc.empty()) cls.doc = known->doc;
    for (const auto& f : known->fields) {
      model::HostField field;
      field.name = {std::string(f.name), r.loc(n)};
      field.type_text = {std::string(f.type), r.loc(n)};
      field.type = std::get<model::FunctionSchema>(model::parse_schema(fmt::format("f({} x) -> ()", f.type)))
                       .arguments[0].type;
      field.read = f.read;
      cls.fields.push_back(std::move(field));
    }
    return cls;
  }
  if (auto n = body["kind"]) {
    if (auto text = r.string_value(n, "kind")) cls.kind = model::Located<std::string>{*text, r.loc(n)};
  }
  if (auto n = body["class"]) {
    if (auto text = r.string_value(n, "class")) cls.python_class = {*text, r.loc(n)};
  } else {
    r.diags()
        .error(Code::BadHostClass, cls.loc, fmt::format("host class '{}' needs 'class' (or 'builtin')", key.Scalar()))
        .notes.push_back({"'class' names the Python class, module.Qualname: the binding's type hints name it"});
  }
  if (auto n = body["fields"]) {
    if (r.check_keys(n, {}, fmt::format("the fields of '{}'", key.Scalar())))
      for (const auto& entry : n)
        if (yaml_type(entry.first) == YamlType::String) cls.fields.push_back(read_field(r, entry.first, entry.second));
  } else {
    r.diags()
        .error(Code::BadHostClass, cls.loc, fmt::format("host class '{}' needs 'fields'", key.Scalar()))
        .notes.push_back({"the fields are what kernels, fakes and rules read of its objects: 'fields: {scale: float}'"});
  }
  if (r.diags().error_count() > errors_before) return std::nullopt;
  return cls;
}

// A Tensor field: an inner tensor of a subclass.
model::HostField inner_field(Reader& r, const YAML::Node& node, const std::string& name) {
  model::HostField field;
  field.name = {name, r.loc(node)};
  field.read = "." + name;
  field.type_text = {"Tensor", r.loc(node)};
  field.type = std::get<model::FunctionSchema>(model::parse_schema("f(Tensor x) -> ()")).arguments[0].type;
  return field;
}

std::optional<model::HostClass> read_tensor_subclass(Reader& r, const YAML::Node& key, const YAML::Node& body) {
  model::HostClass cls;
  cls.name = {key.Scalar(), r.loc(key)};
  cls.loc = r.loc(body);
  cls.tensor_subclass = true;
  const std::string what = fmt::format("tensor subclass '{}'", key.Scalar());
  const size_t errors_before = r.diags().error_count();
  if (!r.check_keys(body, tensor_subclass_keys(), what)) return std::nullopt;
  cls.doc = read_doc(r, body);
  if (auto n = body["class"]) {
    if (auto text = r.string_value(n, "class")) cls.python_class = {*text, r.loc(n)};
  } else {
    r.diags()
        .error(Code::BadHostClass, cls.loc, fmt::format("{} needs 'class'", what))
        .notes.push_back({"'class' names the torch.Tensor subclass, module.Qualname"});
  }
  if (auto n = body["inner"]) {
    if (!n.IsSequence()) {
      r.wrong_type(n, "inner", "a list of attribute names");
    } else {
      for (const auto& item : n)
        if (r.expect_string(item, "an 'inner' entry")) cls.fields.push_back(inner_field(r, item, item.Scalar()));
    }
    cls.inner_count = cls.fields.size();
  } else {
    r.diags()
        .error(Code::BadHostClass, cls.loc, fmt::format("{} needs 'inner'", what))
        .notes.push_back({"'inner' lists its inner tensors' attribute names in __tensor_flatten__ order: "
                          "'inner: [_data, _scale_inv]'"});
  }
  if (auto n = body["meta"]) {
    if (r.check_keys(n, {}, fmt::format("the meta of '{}'", key.Scalar())))
      for (const auto& entry : n)
        if (yaml_type(entry.first) == YamlType::String) cls.fields.push_back(read_field(r, entry.first, entry.second));
  }
  if (auto n = body["build"]) {
    if (auto text = r.string_value(n, "build")) cls.build = model::Located<std::string>{*text, r.loc(n)};
  }
  if (r.diags().error_count() > errors_before) return std::nullopt;
  return cls;
}

template <typename Read>
void read_classes(Reader& r, const YAML::Node& root, const char* key, Read read, std::vector<model::HostClass>& out) {
  const YAML::Node classes = root[key];
  if (!classes || !r.check_keys(classes, {}, fmt::format("'{}'", key))) return;
  for (const auto& entry : classes) {
    if (yaml_type(entry.first) != YamlType::String) continue;
    if (auto cls = read(r, entry.first, entry.second)) out.push_back(std::move(*cls));
  }
}

}  // namespace

const std::vector<std::string>& types_file_keys() {
  static const std::vector<std::string> keys = {"host_objects", "tensor_subclasses"};
  return keys;
}

const std::vector<std::string>& tensor_subclass_keys() {
  static const std::vector<std::string> keys = {"class", "doc", "inner", "meta", "build"};
  return keys;
}

const std::vector<std::string>& host_class_keys() {
  static const std::vector<std::string> keys = {"class", "builtin", "kind", "doc", "fields"};
  return keys;
}

bool is_types_file(std::string_view path) { return std::filesystem::path(path).filename() == kTypesFileName; }

std::vector<model::HostClass> load_host_types(const std::string& text, const std::string& display_path,
                                              Diagnostics& diags) {
  std::vector<model::HostClass> out;
  Reader r(text, display_path, diags);
  if (auto why = uncarriable(display_path, false)) {
    diags.error(Code::TextNotCarriable, {display_path, 0, 0}, "the types file's path cannot be named in generated code: " + *why)
        .notes.push_back({"rename its directory"});
    return out;
  }
  auto document = load_document(r, text, "a types file", "declare every host class under one 'host_objects:' mapping");
  if (!document) return out;
  const YAML::Node root = *document;
  if (root.IsNull()) return out;  // an empty file declares nothing
  try {
    if (!r.check_keys(root, types_file_keys(), "the types file")) return out;
    read_classes(r, root, "host_objects", read_host_class, out);
    read_classes(r, root, "tensor_subclasses", read_tensor_subclass, out);
  } catch (const YAML::Exception& e) {
    diags.error(Code::InvalidYaml, r.loc(e.mark), fmt::format("invalid types file: {}", e.msg));
    out.clear();
  }
  return out;
}

}  // namespace opgen::load
