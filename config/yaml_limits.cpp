#include "config/yaml_limits.h"

#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace diskperf {
namespace {

struct LimitExceeded {
  ConfigError error;
};

// Counts the nodes of one document and the items of each collection, by path ("probes",
// "tiers.disks"), and throws LimitExceeded at the first node past a bound.
class Counter final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string& value) override {
    node(m, &value);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(m, false);
  }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(m, true);
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapEnd() override { stack_.pop_back(); }

 private:
  struct Frame {
    bool map = false;
    std::string path;
    std::size_t items = 0;
    bool at_key = true;  // a mapping's next node is a key
    std::string key;     // a mapping's last scalar key
  };

  [[noreturn]] static void exceeded(const YAML::Mark& m, std::string msg) {
    throw LimitExceeded{{m.line + 1, m.column + 1, std::move(msg)}};
  }

  static std::size_t cap(const Frame& f, std::string& what) {
    what = f.map ? "keys in a mapping" : "items in a list";
    if (f.map) return kMaxCollectionItems;
    if (f.path == "probes") {
      what = "probe jobs";
      return kMaxProbeJobs;
    }
    if (f.path == "tiers.disks" || f.path == "tiers.custom" || f.path == "tiers.vm_sizes") {
      what = "entries in " + f.path;
      return kMaxTierRules;
    }
    return kMaxCollectionItems;
  }

  // One node at the current position; `scalar` is its text when it is a scalar. Returns the path
  // of a collection that starts at this node.
  std::string node(const YAML::Mark& m, const std::string* scalar) {
    if (++nodes_ > kMaxYamlNodes)
      exceeded(m, "the file has more than " + std::to_string(kMaxYamlNodes) + " YAML nodes; parsing stopped here");
    if (stack_.empty()) return "";
    Frame& f = stack_.back();
    if (f.map && !f.at_key) {
      f.at_key = true;
      return f.path.empty() ? f.key : f.path + "." + f.key;
    }
    std::string what;
    const std::size_t limit = cap(f, what);
    if (++f.items > limit)
      exceeded(m, "more than " + std::to_string(limit) + " " + what + " (at most " + std::to_string(limit) +
                      "); parsing stopped here");
    if (f.map) {
      f.at_key = false;
      f.key = scalar ? *scalar : "";
    }
    return f.path + "[]";
  }

  void open(const YAML::Mark& m, bool map) {
    std::string path = node(m, nullptr);
    stack_.push_back({map, std::move(path), 0, true, std::string()});
  }

  std::size_t nodes_ = 0;
  std::vector<Frame> stack_;
};

}  // namespace

std::optional<ConfigError> check_yaml_limits(std::string_view text) {
  std::istringstream in{std::string(text)};
  try {
    YAML::Parser parser(in);
    Counter counter;
    parser.HandleNextDocument(counter);
  } catch (const LimitExceeded& e) {
    return e.error;
  } catch (const YAML::Exception&) {
    return std::nullopt;  // invalid YAML: the full parse reports it where it is
  }
  return std::nullopt;
}

}  // namespace diskperf
