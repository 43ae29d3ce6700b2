// `opgen import`, stages 3 and 4: each found op becomes a spec (its text and
// needs: spec_drafts.h), checked by the same loader and checker `opgen check`
// runs; the report says what the project's build then deletes, drops and
// keeps (build_steps.h) and the CMake and Python steps that follow. An op that passes is
// written as <op>.yaml; one that needs a person (no schema, a kernel that is
// not a plain function, no kernel found, an error of the checker) is written
// as <op>.yaml.todo, which no build reads, with the reasons on top. Ops
// whose outputs need a fake and have none to import get a Python fake in
// python/_fakes.py that says so: the library builds and loads, eager calls
// work, and torch.compile names what is missing.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "import/registrations.h"
#include "support/new_files.h"

namespace opgen::import {

struct ImportOptions {
  std::string ns;                // "": the one namespace the sources register
  std::string python_package;    // "": model::default_python_package(ns)
  std::map<std::string, std::string> python_packages;  // namespace -> its package (--python-package NS=PACKAGE)
  std::filesystem::path schemas_dir;
  std::filesystem::path python_dir;
  uint64_t torch_target_version = 0x020a000000000000ULL;
  std::vector<std::string> defines;  // the build configuration read (--define), for the report
  bool fragment = false;             // --fragment: the library adds to its namespace, claiming it or not
};

struct ImportPlan {
  std::vector<NewFile> files;
  std::string report;  // what was imported, what needs a person, and why
  bool ok = true;      // false: nothing to write (report says why)
};

ImportPlan plan_import(const ImportResult& found, const ImportOptions& options);

}  // namespace opgen::import
