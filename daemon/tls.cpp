#include "daemon/tls.h"

#include <sys/stat.h>

#include <stdexcept>

#include "daemon/openssl_runtime.h"

namespace diskperf {
namespace {

std::string openssl_error() {
  const LibCryptoApi& crypto = libcrypto();
  unsigned long e = crypto.ERR_get_error();
  char buf[256];
  crypto.ERR_error_string_n(e, buf, sizeof buf);
  crypto.ERR_clear_error();
  return buf;
}

}  // namespace

void configure_server_ssl_ctx(void* ssl_ctx, const TlsServerConfig& tls) {
  const LibSslApi& ssl = libssl();
  SSL_CTX* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  auto fail = [&](const std::string& what) { throw std::runtime_error("TLS: " + what + ": " + openssl_error()); };
  // SSL_CTX_set_min_proto_version(ctx, v) is a macro for this call.
  if (ssl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, tls.min_version, nullptr) != 1) {
    fail("cannot set min_version");
  }
  if (ssl.SSL_CTX_use_certificate_chain_file(ctx, tls.cert_file.c_str()) != 1) fail("cert_file " + tls.cert_file);
  if (ssl.SSL_CTX_use_PrivateKey_file(ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    fail("key_file " + tls.key_file);
  }
  if (ssl.SSL_CTX_check_private_key(ctx) != 1) fail("key_file does not match cert_file");
  if (!tls.client_ca_file.empty() &&
      ssl.SSL_CTX_load_verify_locations(ctx, tls.client_ca_file.c_str(), nullptr) != 1) {
    fail("client_ca_file " + tls.client_ca_file);
  }
  int mode = SSL_VERIFY_NONE;
  switch (tls.client_auth) {
    case ClientAuth::none: break;
    case ClientAuth::request: mode = SSL_VERIFY_PEER; break;  // accepts any (see callback)
    case ClientAuth::require_any: mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
    case ClientAuth::verify_if_given: mode = SSL_VERIFY_PEER; break;
    case ClientAuth::require_and_verify: mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
  }
  bool verify = tls.client_auth == ClientAuth::verify_if_given || tls.client_auth == ClientAuth::require_and_verify;
  // Without verification, a presented certificate is accepted whatever its issuer.
  SSL_verify_cb accept_any = [](int, X509_STORE_CTX*) { return 1; };
  ssl.SSL_CTX_set_verify(ctx, mode, verify ? nullptr : accept_any);
  ssl.SSL_CTX_set_session_id_context(ctx, reinterpret_cast<const unsigned char*>("diskperf"), 8);
}

void check_tls_config(const TlsServerConfig& tls) {
  // OpenSSL opens the files with fopen(): a FIFO blocked the start for ever
  // (with SIGTERM blocked). A file that does not exist is left to OpenSSL's message.
  for (const auto& [what, path] : {std::pair<const char*, const std::string&>{"cert_file", tls.cert_file},
                                   {"key_file", tls.key_file}, {"client_ca_file", tls.client_ca_file}}) {
    struct stat st {};
    if (!path.empty() && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      throw std::runtime_error(std::string("TLS: ") + what + " " + path + " is not a regular file");
    }
  }
  const LibSslApi& ssl = libssl();
  SSL_CTX* ctx = ssl.SSL_CTX_new(ssl.TLS_server_method());
  if (!ctx) throw std::runtime_error("TLS: SSL_CTX_new: " + openssl_error());
  try {
    configure_server_ssl_ctx(ctx, tls);
  } catch (...) {
    ssl.SSL_CTX_free(ctx);
    throw;
  }
  ssl.SSL_CTX_free(ctx);
}

}  // namespace diskperf
