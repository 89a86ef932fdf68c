// json_get FILE PATH: prints the value at PATH (dot-separated keys, numeric
// array indices; a key containing dots is written in [brackets], e.g.
// jobs.0.read.clat_ns.percentile.[99.000000]) of a JSON file, for the e2e
// tests that compare `diskperf_exporter probe --output json` with fio
// --output-format=json without python or jq. Exit 1 when absent.
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: json_get FILE PATH\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  nlohmann::json j;
  try {
    // fio prints notes before the JSON on some errors: skip to the first '{'.
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    j = nlohmann::json::parse(text.substr(std::min(text.find('{'), text.size())));
  } catch (const std::exception& e) {
    std::cerr << "json_get: " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  const nlohmann::json* cur = &j;
  std::string path = argv[2];
  std::size_t i = 0;
  while (i < path.size()) {
    std::string key;
    if (path[i] == '[') {
      std::size_t end = path.find(']', i);
      key = path.substr(i + 1, end - i - 1);
      i = end + 2;
    } else {
      std::size_t end = path.find('.', i);
      if (end == std::string::npos) end = path.size();
      key = path.substr(i, end - i);
      i = end + 1;
    }
    if (cur->is_array() && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
      std::size_t k = std::stoul(key);
      if (k >= cur->size()) return 1;
      cur = &(*cur)[k];
    } else if (cur->is_object() && cur->contains(key)) {
      cur = &(*cur)[key];
    } else {
      return 1;
    }
  }
  if (cur->is_string()) std::cout << cur->get<std::string>() << "\n";
  else std::cout << cur->dump() << "\n";
  return 0;
}
