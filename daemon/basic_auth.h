#pragma once
// HTTP basic authentication (RFC 7617) against bcrypt hashes, as
// exporter-toolkit's basic_auth_users. Hashes are checked with libcrypt's
// crypt_r and compared in constant time; a successful check is remembered
// (keyed by a SHA-256 of user and password) so that a scrape does not pay
// bcrypt's cost every time.

#include <map>
#include <mutex>
#include <set>
#include <string>

namespace diskperf {

class BasicAuth {
 public:
  /// `users`: user name -> bcrypt hash. With any user, libcrypto is loaded
  /// here (libcrypto()); throws std::runtime_error when it cannot be.
  explicit BasicAuth(std::map<std::string, std::string> users);
  /// Whether authentication is configured at all.
  bool enabled() const { return !users_.empty(); }
  /// Checks an Authorization header value ("Basic base64(user:pass)").
  bool check(const char* authorization_header) const;

 private:
  std::map<std::string, std::string> users_;
  mutable std::mutex mu_;
  mutable std::set<std::string> verified_;  // SHA-256 digests of "user\0password"
};

}  // namespace diskperf
