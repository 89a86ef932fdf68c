#include "daemon/basic_auth.h"

#include <crypt.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "daemon/openssl_runtime.h"

namespace diskperf {
namespace {

std::string decode_base64(std::string_view in) {
  std::string out(in.size() / 4 * 3 + 3, '\0');
  const int n = libcrypto().EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                            reinterpret_cast<const unsigned char*>(in.data()),
                                            static_cast<int>(in.size()));
  if (n < 0 || in.size() % 4 != 0) return {};
  std::size_t pad = 0;
  if (!in.empty() && in.back() == '=') ++pad;
  if (in.size() > 1 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

std::string sha256(std::string_view s) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  libcrypto().SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d);
  return std::string(reinterpret_cast<char*>(d), sizeof d);
}

}  // namespace

BasicAuth::BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {
  // Loaded now: a daemon that cannot load it fails at start, not at the first request.
  if (enabled()) libcrypto();
}

bool BasicAuth::check(const char* header) const {
  if (!enabled()) return true;
  if (!header) return false;
  std::string_view h(header);
  if (h.size() < 6 || strncasecmp(header, "Basic ", 6) != 0) return false;
  h.remove_prefix(6);
  while (!h.empty() && h.front() == ' ') h.remove_prefix(1);
  std::string plain = decode_base64(h);
  std::size_t colon = plain.find(':');
  if (colon == std::string::npos) return false;
  std::string user = plain.substr(0, colon);
  std::string pass = plain.substr(colon + 1);
  // crypt_r reads the password as a C string: "s3cret\0x" must not pass for "s3cret".
  if (pass.find('\0') != std::string::npos) return false;
  auto it = users_.find(user);
  if (it == users_.end()) {
    // Spend a bcrypt check all the same, so that the answer time does not tell which users exist.
    auto data = std::make_unique<crypt_data>();
    crypt_r(pass.c_str(), users_.begin()->second.c_str(), data.get());
    return false;
  }
  std::string key = sha256(user + std::string(1, '\0') + pass);
  {
    std::lock_guard lock(mu_);
    if (verified_.count(key)) return true;
  }
  auto data = std::make_unique<crypt_data>();
  const char* got = crypt_r(pass.c_str(), it->second.c_str(), data.get());
  const std::string& want = it->second;
  if (!got || std::strlen(got) != want.size() || libcrypto().CRYPTO_memcmp(got, want.data(), want.size()) != 0) {
    return false;
  }
  std::lock_guard lock(mu_);
  if (verified_.size() > 1024) verified_.clear();
  verified_.insert(std::move(key));
  return true;
}

}  // namespace diskperf
