#include "load/yaml_reader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

namespace opgen::load {
namespace {

// The parser's events, reduced to what the handlers below need: each node's
// mark, in document order, and where collections start and end.
class NodeEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark);
    collection_start(false, mark);
  }
  void OnSequenceEnd() override { collection_end(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
    collection_start(true, mark);
  }
  void OnMapEnd() override { collection_end(); }

 protected:
  virtual void node(const YAML::Mark& mark) = 0;
  virtual void collection_start(bool /*map*/, const YAML::Mark&) {}
  virtual void collection_end() {}
};

// Where the root of each YAML document lies. Only the first two documents
// are read: yaml-cpp 0.7's YAML::LoadAll never returns on some invalid input,
// such as a stray ',' at the top level (jbeder/yaml-cpp#1040), where the
// parser yields an empty document at the same place over and over without
// consuming anything.
class DocumentRoots : public NodeEvents {
 public:
  std::vector<YAML::Mark> starts, roots;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }

 private:
  void node(const YAML::Mark& mark) override {
    if (roots.size() < starts.size()) roots.push_back(mark);
  }
};

// Where each key of each mapping of the first document is written, by the
// position of the mapping: a key written as an alias (`*k: ...`) is the
// anchored node itself to yaml-cpp, with the anchor's mark, so only the
// events know where the alias stands.
class KeyMarks : public NodeEvents {
 public:
  std::map<int, std::vector<YAML::Mark>> keys;  // mapping's mark.pos -> its keys' marks, in order

 private:
  struct Frame {
    bool map;
    bool expecting_key;
    int pos;
  };
  void node(const YAML::Mark& mark) override {
    if (frames_.empty() || !frames_.back().map) return;
    Frame& frame = frames_.back();
    if (frame.expecting_key) keys[frame.pos].push_back(mark);
    frame.expecting_key = !frame.expecting_key;
  }
  void collection_start(bool map, const YAML::Mark& mark) override { frames_.push_back({map, true, mark.pos}); }
  void collection_end() override { frames_.pop_back(); }
  std::vector<Frame> frames_;
};

}  // namespace

std::map<int, std::vector<YAML::Mark>> key_marks(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  KeyMarks marks;
  try {
    parser.HandleNextDocument(marks);
  } catch (const YAML::Exception&) {
    return {};
  }
  return std::move(marks.keys);
}

namespace {

// The root of the second YAML document in `text`, if there is one. Throws
// YAML::ParserException where the parser is stuck (see DocumentRoots).
std::optional<YAML::Mark> second_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentRoots documents;
  while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
  }
  if (documents.starts.size() < 2) return std::nullopt;
  const YAML::Mark& stuck = documents.starts[1];
  if (stuck.pos == documents.starts[0].pos) {
    const size_t pos = static_cast<size_t>(stuck.pos);
    const bool printable = pos < text.size() && text[pos] > ' ' && text[pos] < 0x7f;
    throw YAML::ParserException(stuck, printable ? fmt::format("unexpected '{}'", text[pos]) : "unexpected character");
  }
  return documents.roots.size() > 1 ? documents.roots[1] : documents.starts[1];
}

// Whether the document, its aliases expanded (as every reader of the tree
// walks it), has more than `limit` nodes. The walk stops at the limit, so it
// costs at most that much however far the aliases would multiply.
bool expands_past(const YAML::Node& root, size_t limit) {
  size_t count = 0;
  std::vector<YAML::Node> stack{root};
  while (!stack.empty()) {
    const YAML::Node node = stack.back();
    stack.pop_back();
    if (++count > limit) return true;
    if (node.IsSequence()) {
      for (const auto& item : node) stack.push_back(item);
    } else if (node.IsMap()) {
      for (const auto& pair : node) {
        stack.push_back(pair.first);
        stack.push_back(pair.second);
      }
    }
  }
  return false;
}

}  // namespace

// Why `text` cannot be copied into generated C++ comments and Python
// docstrings, or nullopt: invalid UTF-8, a control character but a tab (or
// a newline, where `lines` allows them), or a line ending in a backslash.
std::optional<std::string> uncarriable(std::string_view text, bool lines) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n' && lines) {
      if (i > 0 && text[i - 1] == '\\') return "a line ends in a backslash, which C++ reads as a line continuation";
      ++i;
      continue;
    }
    if (byte < 0x20 && byte != '\t') return fmt::format("it holds the control character 0x{:02x}", byte);
    if (byte == 0x7f) return "it holds the control character 0x7f";
    // UTF-8: the lead byte says how many continuation bytes follow; overlong
    // forms, surrogates and code points past U+10FFFF are invalid.
    const size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xe ? 3 : (byte >> 3) == 0x1e ? 4 : 0;
    uint32_t code = length == 1 ? byte : length == 2 ? byte & 0x1f : length == 3 ? byte & 0x0f : byte & 0x07;
    bool valid = length != 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      valid = (next & 0xc0) == 0x80;
      code = (code << 6) | (next & 0x3f);
    }
    static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (!valid || code < kMinimum[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      return fmt::format("it is not valid UTF-8 at byte {}", i);
    i += length;
  }
  if (!text.empty() && text.back() == '\\') return "it ends in a backslash, which C++ reads as a line continuation";
  return std::nullopt;
}


std::optional<YAML::Node> load_document(Reader& r, const std::string& text, std::string_view file_kind,
                                        std::string_view one_document_note) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
    if (auto second = second_document(text)) {
      // YAML::Load reads the first and drops the rest without a word.
      r.diags().error(Code::SeveralYamlDocuments, r.loc(*second),
                  fmt::format("{} holds one YAML document: a second one starts here", file_kind))
          .notes.push_back({std::string(one_document_note)});
      return std::nullopt;
    }
    // Aliases let 50 KB stand for 25 million values (5,000 samples that
    // each alias a 5,000-value list): no spec needs a million nodes.
    if (constexpr size_t kMaxExpandedNodes = 1'000'000; expands_past(root, kMaxExpandedNodes)) {
      r.diags().error(Code::InvalidYaml, {r.path(), 1, 1},
                      fmt::format("invalid YAML: its aliases expand it past {} nodes", kMaxExpandedNodes))
          .notes.push_back({"write the repeated part once, or fewer times: a spec needs far fewer nodes"});
      return std::nullopt;
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for it is "bad file".
    r.diags().error(Code::InvalidYaml, r.loc(e.mark), fmt::format("invalid YAML: nested {} levels deep", e.depth()))
        .notes.push_back({"a spec needs a few levels; nothing in one nests this deep"});
    return std::nullopt;
  } catch (const YAML::ParserException& e) {
    r.diags().error(Code::InvalidYaml, r.loc(e.mark), fmt::format("invalid YAML: {}", e.msg));
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    r.diags().error(Code::InvalidYaml, {r.path(), 1, 1}, fmt::format("invalid YAML: {}", e.what()));
    return std::nullopt;
  }
  return root;
}

}  // namespace opgen::load
