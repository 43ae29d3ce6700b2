// python/<pkg>/_ops.pyi: a typed signature and the spec's doc for each op.
#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

// What the binding returns: the declared returns, a tensor subclass as its class.
std::string declared_return_annotation(const model::Library& lib, const model::OpSpec& op) {
  const model::FunctionSchema& s = op.declared_schema ? *op.declared_schema : op.schema;
  std::vector<std::string> types;
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const auto& r = s.returns[i];
    auto key = model::type_key(*r.type);
    const auto* m = model::find_type_mapping(*r.type);
    std::string type = key == "Tensor[]" ? "List[torch.Tensor]" : std::string(m ? m->python : "object");
    for (const auto& result : op.subclass_results)
      if (result.declared_index == i) type = lib.host_class(result.cls)->python_class.value;
    types.push_back(type);
  }
  if (types.empty()) return "None";
  if (types.size() == 1) return types[0];
  return fmt::format("Tuple[{}]", fmt::join(types, ", "));
}

}  // namespace

std::string python_stub(const model::Library& lib) {
  Printer p;
  p.emit(generated_header("#", lib));
  p.emit(R"py(
from typing import List, Optional, Sequence, Tuple, Union

import torch

)py");
  // The modules of the host classes the ops take, for their annotations.
  const std::vector<std::string> modules = host_class_modules(lib);
  for (const auto& module : modules) p.line("import " + module);
  if (!modules.empty()) p.line();
  p.line(python_all_assignment(lib));
  for (const auto& op : lib.ops) {
    std::vector<std::string> params;
    bool star = false;
    const model::FunctionSchema& declared = op.declared_schema ? *op.declared_schema : op.schema;
    for (size_t i = 0; i < declared.arguments.size(); ++i) {
      const model::Argument& a = declared.arguments[i];
      if (a.kwarg_only && !star) {
        params.push_back("*");
        star = true;
      }
      std::string annotation = "object";
      if (const auto* m = model::find_type_mapping(*a.type)) annotation = m->python;
      for (const auto& host : op.host_args)
        if (host.name == a.name) {
          const std::string& cls = lib.host_class(host.cls)->python_class.value;
          annotation = host.optional ? fmt::format("Optional[{}]", cls) : cls;
        }
      params.push_back(fmt::format("{}: {}{}", a.name, annotation, python_keeps_default(declared, i) ? " = ..." : ""));
    }
    p.line();
    p.line();
    p.line(fmt::format("def {}({}) -> {}:", op_identifier(op), fmt::join(params, ", "), declared_return_annotation(lib, op)));
    {
      auto indent = p.indent(4);
      std::string doc = op.doc;
      while (!doc.empty() && (doc.back() == '\n' || doc.back() == ' ')) doc.pop_back();
      std::string schema_line = fmt::format("{}::{}", lib.ns, def_schema(op));
      std::string body = doc.empty() ? schema_line : doc + "\n\n" + schema_line;
      std::string escaped;
      for (char c : body) {
        if (c == '\\') escaped += '\\';
        escaped += c;
      }
      // Keep a `"""` in the doc from ending the docstring.
      for (size_t pos = 0; (pos = escaped.find("\"\"\"", pos)) != std::string::npos; pos += 4)
        escaped.replace(pos, 3, "\\\"\"\"");
      p.emit("\"\"\"" + escaped + "\n\"\"\"\n");
      p.line("...");
    }
    if (op.compile) {
      p.line();
      p.line();
      p.line(fmt::format("def {}({}) -> Optional[str]:", compile_reason_function(op), fmt::join(params, ", ")));
      p.line(fmt::format("    \"\"\"Why torch.compile cannot take this call of {}::{} (None: it can).\"\"\"", lib.ns,
                         op.op_name()));
      p.line("    ...");
    }
  }
  return p.str();
}

std::string typed_marker(const model::Library& lib) {
  // Type checkers look only for the file (and for "partial", which this is not).
  return generated_header("#", lib) + "# PEP 561: this package's types (_ops.pyi) are complete.\n";
}

}  // namespace opgen::emit
