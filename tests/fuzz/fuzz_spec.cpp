// libFuzzer target: the whole front end in memory. The input is one or more
// spec files, separated by lines reading `#@@ next file` (a YAML comment, so
// any spec is an input as it stands; one that mentions `host_objects` or
// `tensor_subclasses` is the library's types file); they are loaded (load::load_library),
// the library is checked (check::check_library) for two stable-ABI targets,
// and, when it checks, emitted (emit::emit_library).
//
// A file is named after the op its schema declares, so that the checker
// goes past the file-name rule and the emitters see most specs.
//
// Invariants, beyond "no crash, leak or undefined behaviour": a spec that is
// not returned comes with an error; every emitted file carries the
// generated-file marker.
//
// The mutator is structure-aware half of the time (LLVMFuzzerCustomMutator):
// it parses one file of the input as YAML and changes the tree, not the
// bytes: a scalar becomes an edge value ("", "0", "-1", "null", a huge
// number, another scalar of the file), a node becomes null, {} or [], a key
// goes, a list item is repeated or dropped, a spec key is added with a node
// taken from elsewhere. So mutants stay YAML and reach the checker and the
// emitters, where a byte flip mostly stops at the parser. Seeded by
// libFuzzer, so a fixed-seed run (CI) mutates the same way every time.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "check/checker.h"
#include "emit/emit.h"
#include "load/library_loader.h"
#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/output.h"
#include <yaml-cpp/yaml.h>

namespace {

using namespace opgen;

constexpr std::string_view kSeparator = "#@@ next file\n";
constexpr size_t kMaxFiles = 8;

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz_spec: %s\n%.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

std::string data_text(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += f + std::string(kSeparator);
  return out;
}

std::vector<std::string> split_files(std::string_view input) {
  std::vector<std::string> files;
  for (;;) {
    size_t at = input.find(kSeparator);
    if (at == std::string_view::npos || files.size() + 1 == kMaxFiles) break;
    files.emplace_back(input.substr(0, at));
    input.remove_prefix(at + kSeparator.size());
  }
  files.emplace_back(input);
  return files;
}

std::string join_files(const std::vector<std::string>& files) {
  std::string joined;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i) joined += kSeparator;
    joined += files[i];
  }
  return joined;
}

// Every node of the tree, parents before children.
void collect(const YAML::Node& node, std::vector<YAML::Node>& out) {
  out.push_back(node);
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) collect(it->second, out);
  } else if (node.IsSequence()) {
    for (auto it = node.begin(); it != node.end(); ++it) collect(*it, out);
  }
}

constexpr const char* kEdgeScalars[] = {"", "0", "-1", "1", "null", "~", "true", "1e309", "-9223372036854775809",
                                        "x", "x.size(0) % 0", "like(x)", "cuda", "CUDA", "Tensor", "float64",
                                        "[]", "{}", "a b", "dynamic()"};
constexpr const char* kSpecKeys[] = {"schema", "doc", "abi", "dispatch", "tags", "mutates", "symm_mem", "checks",
                                     "require", "let", "fake", "autograd", "autocast", "flops", "samples",
                                     "host_objects", "fields", "class", "builtin", "tensor_subclasses", "inner",
                                     "meta", "build", "result_meta"};

// One tree mutation of `text`; nullopt when it does not parse as a YAML map or sequence.
std::optional<std::string> mutate_tree(const std::string& text, std::minstd_rand& rng) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!root.IsMap() && !root.IsSequence()) return std::nullopt;
  std::vector<YAML::Node> nodes;
  collect(root, nodes);
  std::vector<YAML::Node> scalars;
  for (const auto& n : nodes)
    if (n.IsScalar()) scalars.push_back(n);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const size_t target_index = pick(nodes.size());
  YAML::Node target = nodes[target_index];  // a handle: assigning to it changes the tree
  switch (pick(7)) {
    case 0:  // a scalar: an edge value
      if (!scalars.empty()) scalars[pick(scalars.size())] = kEdgeScalars[pick(std::size(kEdgeScalars))];
      break;
    case 1:  // a scalar: another scalar of the file
      if (scalars.size() > 1) scalars[pick(scalars.size())] = scalars[pick(scalars.size())].Scalar();
      break;
    case 2:  // a node: empty
      if (target_index != 0) {  // not the root
        const size_t kind = pick(3);
        target = kind == 0 ? YAML::Node(YAML::NodeType::Null)
                           : YAML::Node(kind == 1 ? YAML::NodeType::Map : YAML::NodeType::Sequence);
      }
      break;
    case 3: {  // a map: one key less
      std::vector<YAML::Node> maps;
      for (const auto& n : nodes)
        if (n.IsMap() && n.size()) maps.push_back(n);
      if (maps.empty()) break;
      YAML::Node map = maps[pick(maps.size())];
      auto it = map.begin();
      std::advance(it, pick(map.size()));
      map.remove(it->first.Scalar());
      break;
    }
    case 4: {  // a list: an item repeated, or dropped
      std::vector<YAML::Node> seqs;
      for (const auto& n : nodes)
        if (n.IsSequence() && n.size()) seqs.push_back(n);
      if (seqs.empty()) break;
      YAML::Node seq = seqs[pick(seqs.size())];
      const size_t index = pick(seq.size());
      if (pick(2)) {
        seq.push_back(YAML::Clone(seq[index]));
      } else {
        YAML::Node shorter(YAML::NodeType::Sequence);
        for (size_t i = 0; i < seq.size(); ++i)
          if (i != index) shorter.push_back(seq[i]);
        seq = shorter;
      }
      break;
    }
    case 5:  // a spec key, set to a node from elsewhere in the file
      if (root.IsMap()) root[kSpecKeys[pick(std::size(kSpecKeys))]] = YAML::Clone(nodes[pick(nodes.size())]);
      break;
    default:  // a scalar: a long one
      if (!scalars.empty()) scalars[pick(scalars.size())] = std::string(1 + pick(300), 'a');
      break;
  }
  YAML::Emitter out;
  out << root;
  if (!out.good()) return std::nullopt;
  return std::string(out.c_str());
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 2) {
    std::vector<std::string> files = split_files({reinterpret_cast<const char*>(data), size});
    std::string& file = files[rng() % files.size()];
    std::optional<std::string> mutated;
    try {
      mutated = mutate_tree(file, rng);
    } catch (const std::exception&) {  // yaml-cpp refuses some trees it parsed: leave it to the byte mutator
    }
    if (mutated) {
      file = *mutated;
      const std::string joined = join_files(files);
      if (joined.size() <= max_size) {
        std::memcpy(data, joined.data(), joined.size());
        return joined.size();
      }
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> files = split_files({reinterpret_cast<const char*>(data), size});
  std::ostringstream sink;

  // A file that declares host classes or subclasses is the library's types file, the
  // others op specs: loaded together, as `opgen generate <dir>` loads them.
  Diagnostics load_diags;
  std::vector<load::SpecSource> sources;
  size_t op_files = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const bool types = files[i].find("host_objects") != std::string::npos ||
                       files[i].find("tensor_subclasses") != std::string::npos;
    const std::string path = types ? "schemas/_types.yaml" : "schemas/op" + std::to_string(i) + ".yaml";
    sources.push_back({path, path, files[i]});
    op_files += !types;
  }
  model::Library loaded;
  load::load_library(loaded, sources, load_diags);
  if (loaded.ops.size() < op_files && !load_diags.has_errors()) fail("a spec was rejected without an error", data_text(files));
  std::vector<model::OpSpec> specs;
  for (auto& spec : loaded.ops) {
    spec.stem = spec.op_name();
    spec.display_path = "schemas/" + spec.stem + ".yaml";
    specs.push_back(std::move(spec));
  }
  load_diags.print(sink);

  for (uint64_t target : {0x020a000000000000ULL, 0x020d000000000000ULL}) {  // 2.10, 2.13
    model::Library lib;
    lib.ns = "opgen";
    lib.python_package = "opgen";
    lib.library_name = "opgen_ops";
    lib.torch_target_version = target;
    lib.host_classes = loaded.host_classes;
    lib.types_path = loaded.types_path;
    lib.ops = specs;
    Diagnostics diags;
    check::check_library(lib, diags);
    diags.print(sink);
    if (diags.has_errors()) continue;
    const OutputTree tree = emit::emit_library(lib);
    for (const auto& [path, contents] : tree.files())
      if (contents.find(kGeneratedMarker) == std::string::npos) fail("an emitted file lacks the marker", path);
  }
  return 0;
}
