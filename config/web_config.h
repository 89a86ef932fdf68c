#pragma once
// The web configuration file (--web.config.file), in the format of
// Prometheus's exporter-toolkit (docs/web-configuration.md there):
//
//   tls_server_config:
//     cert_file: /etc/diskperf_exporter/tls.crt
//     key_file: /etc/diskperf_exporter/tls.key
//     client_auth_type: RequireAndVerifyClientCert  # NoClientCert (default),
//         # RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven
//     client_ca_file: /etc/diskperf_exporter/ca.crt
//     min_version: TLS12                             # TLS10..TLS13, default TLS12
//   http_server_config:
//     headers: { X-Frame-Options: deny }
//   basic_auth_users:
//     alice: $2y$10$...                              # bcrypt hash
//
// Parsing is pure; paths are checked for existence by the daemon.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"

namespace diskperf {

enum class ClientAuth { none, request, require_any, verify_if_given, require_and_verify };

struct TlsServerConfig {
  std::string cert_file;
  std::string key_file;
  ClientAuth client_auth = ClientAuth::none;
  std::string client_ca_file;
  int min_version = 0x0303;  ///< TLS protocol version number: 0x0301 TLS 1.0 .. 0x0304 TLS 1.3
};

struct WebConfig {
  std::optional<TlsServerConfig> tls;
  std::map<std::string, std::string> headers;           ///< added to every response
  std::map<std::string, std::string> basic_auth_users;  ///< user -> bcrypt hash
};

struct WebConfigResult {
  std::optional<WebConfig> config;  ///< set only when `errors` is empty
  std::vector<ConfigError> errors;
};

WebConfigResult parse_web_config(std::string_view yaml_text);

}  // namespace diskperf
