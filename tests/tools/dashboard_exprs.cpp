// dashboard_exprs FILE: prints every PromQL expression of a Grafana dashboard JSON, one per line as
// "<panel title>\t<refId>\t<expr>" (panels nested in rows included), and for each templating
// variable of the form label_values(SELECTOR, LABEL) a line "$<name>\tvar\t<SELECTOR>". Exit 1 when
// the file is not a dashboard (no panels) or a target has no expr. For tests/e2e/tier_probe_alert.sh.
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace {
int bad = 0;
void walk(const nlohmann::json& panels) {
  for (const auto& p : panels) {
    const std::string title = p.value("title", "");
    if (p.contains("panels")) walk(p["panels"]);
    if (!p.contains("targets")) {
      if (p.value("type", "") != "row") {
        std::cerr << "panel without targets: " << title << "\n";
        ++bad;
      }
      continue;
    }
    for (const auto& t : p["targets"]) {
      if (!t.contains("expr") || !t["expr"].is_string() || t["expr"].get<std::string>().empty()) {
        std::cerr << "target without expr in panel " << title << "\n";
        ++bad;
        continue;
      }
      std::cout << title << "\t" << t.value("refId", "") << "\t" << t["expr"].get<std::string>() << "\n";
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: dashboard_exprs FILE\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  if (!j.contains("panels") || !j["panels"].is_array() || j["panels"].empty()) {
    std::cerr << argv[1] << ": no panels\n";
    return 1;
  }
  walk(j["panels"]);
  if (j.contains("templating"))
    for (const auto& v : j["templating"].value("list", nlohmann::json::array())) {
      std::string q = v.value("definition", "");
      if (q.rfind("label_values(", 0) != 0) continue;
      q = q.substr(13, q.rfind(',') - 13);
      std::cout << "$" << v.value("name", "") << "\tvar\t" << q << "\n";
    }
  return bad ? 1 : 0;
}
