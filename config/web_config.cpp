#include "config/web_config.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "config/yaml_error.h"

namespace diskperf {
namespace {

struct Errors {
  std::vector<ConfigError> list;
  void add(const YAML::Node& n, std::string msg) { list.push_back(node_error(n, std::move(msg))); }
  bool map_with(const YAML::Node& n, const std::string& where, const std::set<std::string>& keys) {
    return check_mapping(list, n, where, keys);
  }
  std::map<std::string, std::string> string_map(const YAML::Node& n, const std::string& where) {
    std::map<std::string, std::string> out;
    if (!n.IsMap()) {
      add(n, where + " must be a mapping");
      return out;
    }
    for (const auto& kv : n) {
      if (!check_key(list, kv.first, where)) continue;
      if (out.count(kv.first.Scalar())) add(kv.first, "duplicate key '" + kv.first.Scalar() + "' in " + where);
      else if (!kv.second.IsScalar()) add(kv.second, where + "." + kv.first.Scalar() + " must be a string");
      else out[kv.first.Scalar()] = kv.second.Scalar();
    }
    return out;
  }
};

// RFC 9110 token: the characters a header name may have.
bool is_http_token(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (std::isalnum(c)) continue;
    if (std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos) return false;
  }
  return true;
}

// Headers that frame the response or answer authentication: only the server sets them.
bool is_framing_header(const std::string& name) {
  static const char* const kReserved[] = {"content-length", "content-type", "content-encoding", "transfer-encoding",
                                          "connection", "www-authenticate", "cache-control", "keep-alive"};
  std::string lower;
  for (unsigned char c : name) lower.push_back(static_cast<char>(std::tolower(c)));
  for (const char* r : kReserved)
    if (lower == r) return true;
  return false;
}

}  // namespace

namespace {

WebConfigResult parse_web_config_unguarded(std::string_view text) {
  WebConfigResult r;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    r.errors.push_back(yaml_exception_error(e, "invalid YAML: "));
    return r;
  }
  WebConfig cfg;
  Errors err;
  if (root && !root.IsNull() &&
      err.map_with(root, "the web config", {"tls_server_config", "http_server_config", "basic_auth_users"})) {
    if (const YAML::Node tls = root["tls_server_config"]; tls && !tls.IsNull()) {
      if (err.map_with(tls, "tls_server_config",
                       {"cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version"})) {
        TlsServerConfig t;
        if (tls["cert_file"]) t.cert_file = tls["cert_file"].as<std::string>("");
        if (tls["key_file"]) t.key_file = tls["key_file"].as<std::string>("");
        if (t.cert_file.empty()) err.add(tls, "tls_server_config.cert_file is required");
        if (t.key_file.empty()) err.add(tls, "tls_server_config.key_file is required");
        if (const YAML::Node a = tls["client_auth_type"]) {
          static const std::map<std::string, ClientAuth> kinds = {
              {"NoClientCert", ClientAuth::none},
              {"RequestClientCert", ClientAuth::request},
              {"RequireAnyClientCert", ClientAuth::require_any},
              {"VerifyClientCertIfGiven", ClientAuth::verify_if_given},
              {"RequireAndVerifyClientCert", ClientAuth::require_and_verify}};
          auto it = kinds.find(a.as<std::string>(""));
          if (it == kinds.end()) err.add(a, "tls_server_config.client_auth_type '" + a.as<std::string>("") +
                                                 "' is not one of NoClientCert, RequestClientCert, "
                                                 "RequireAnyClientCert, VerifyClientCertIfGiven, "
                                                 "RequireAndVerifyClientCert");
          else t.client_auth = it->second;
        }
        if (tls["client_ca_file"]) t.client_ca_file = tls["client_ca_file"].as<std::string>("");
        if ((t.client_auth == ClientAuth::verify_if_given || t.client_auth == ClientAuth::require_and_verify) &&
            t.client_ca_file.empty()) {
          err.add(tls, "tls_server_config.client_ca_file is required to verify client certificates");
        }
        if (const YAML::Node v = tls["min_version"]) {
          static const std::map<std::string, int> versions = {
              {"TLS10", 0x0301}, {"TLS11", 0x0302}, {"TLS12", 0x0303}, {"TLS13", 0x0304}};
          auto it = versions.find(v.as<std::string>(""));
          if (it == versions.end()) err.add(v, "tls_server_config.min_version must be TLS10, TLS11, TLS12 or TLS13");
          else t.min_version = it->second;
        }
        cfg.tls = std::move(t);
      }
    }
    if (const YAML::Node h = root["http_server_config"]; h && !h.IsNull()) {
      if (err.map_with(h, "http_server_config", {"headers"}) && h["headers"]) {
        cfg.headers = err.string_map(h["headers"], "http_server_config.headers");
        for (const auto& [k, v] : cfg.headers) {
          if (!is_http_token(k) || v.find_first_of("\r\n") != std::string::npos)
            err.add(h["headers"], "http_server_config.headers." + k + " has a forbidden character");
          else if (is_framing_header(k))
            err.add(h["headers"], "http_server_config.headers." + k + " is set by the server and cannot be configured");
        }
      }
    }
    if (const YAML::Node u = root["basic_auth_users"]; u && !u.IsNull()) {
      cfg.basic_auth_users = err.string_map(u, "basic_auth_users");
      for (const auto& [user, hash] : cfg.basic_auth_users) {
        if (!(hash.rfind("$2a$", 0) == 0 || hash.rfind("$2b$", 0) == 0 || hash.rfind("$2y$", 0) == 0) ||
            hash.size() != 60) {
          err.add(u[user], "basic_auth_users." + user + " is not a bcrypt hash ($2y$..., 60 characters)");
        } else if (int cost = std::atoi(hash.substr(4, 2).c_str()); !std::isdigit(static_cast<unsigned char>(hash[4])) ||
                   !std::isdigit(static_cast<unsigned char>(hash[5])) || hash[6] != '$' || cost < 4 || cost > 17) {
          // crypt_r fails on costs outside 4-31, and each step doubles the time of every login:
          // cost 17 already takes seconds.
          err.add(u[user], "basic_auth_users." + user + " has a bcrypt cost outside 4-17");
        }
        if (user.find(':') != std::string::npos) err.add(u, "basic_auth_users: user name '" + user + "' contains ':'");
      }
    }
  }
  r.errors = std::move(err.list);
  if (r.errors.empty()) r.config = std::move(cfg);
  return r;
}

}  // namespace

WebConfigResult parse_web_config(std::string_view text) {
  // Validation must never throw: a yaml-cpp exception from a shape the checks
  // did not foresee becomes an error instead of ending the daemon.
  try {
    return parse_web_config_unguarded(text);
  } catch (const YAML::Exception& e) {
    WebConfigResult r;
    r.errors.push_back(yaml_exception_error(e, "invalid configuration: "));
    return r;
  }
}

}  // namespace diskperf
