// The files `opgen init` and `opgen new` create: all of them or none.
//
// Each file is named by a root (an option: the project directory,
// --schemas-dir, --kernels-dir) and a plain relative path beneath it. The
// root may not be empty; what lies beneath its deepest existing directory is
// created through a ConfinedDir, so no link is followed and nothing lands
// outside. Nothing that exists is overwritten. When any file cannot be
// written (a full disk, a file in the way), the files and directories this
// call created are removed again, and the error carries the OS's reason.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "support/confined_dir.h"

namespace opgen {

struct NewFile {
  std::filesystem::path root;
  std::string relative;  // '/'-separated, beneath root
  std::string contents;
};

// root/relative as the user would write it.
std::string new_file_path(const NewFile& file);

// Creates every file or none. On failure the error's os_errno is EEXIST when
// a file was already there.
IoStatus create_new_files(const std::vector<NewFile>& files);

}  // namespace opgen
