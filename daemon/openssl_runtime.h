#pragma once
// OpenSSL, loaded when it is first needed: TLS (tls_server_config) uses libssl
// and libcrypto, basic authentication (basic_auth_users) libcrypto alone; a
// daemon with neither never maps libssl and libcrypto (1.7 MB of resident pages, 10% of the daemon's RSS on
// a 1,200-device host; measured in bench/RESULTS.md). CivetWeb loads OpenSSL
// the same way, by file name, when it starts a TLS listener.

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>

namespace diskperf {

/// The libcrypto functions the daemon calls (basic auth, TLS errors), with
/// the types of their declarations in the OpenSSL 3 headers it is built against.
struct LibCryptoApi {
  decltype(&::ERR_get_error) ERR_get_error;
  decltype(&::ERR_error_string_n) ERR_error_string_n;
  decltype(&::ERR_clear_error) ERR_clear_error;
  decltype(&::EVP_DecodeBlock) EVP_DecodeBlock;
  decltype(&::SHA256) SHA256;
  decltype(&::CRYPTO_memcmp) CRYPTO_memcmp;
};

/// The libssl functions the daemon calls (TLS server context).
struct LibSslApi {
  decltype(&::TLS_server_method) TLS_server_method;
  decltype(&::SSL_CTX_new) SSL_CTX_new;
  decltype(&::SSL_CTX_free) SSL_CTX_free;
  decltype(&::SSL_CTX_ctrl) SSL_CTX_ctrl;  ///< behind the SSL_CTX_set_min_proto_version macro
  decltype(&::SSL_CTX_use_certificate_chain_file) SSL_CTX_use_certificate_chain_file;
  decltype(&::SSL_CTX_use_PrivateKey_file) SSL_CTX_use_PrivateKey_file;
  decltype(&::SSL_CTX_check_private_key) SSL_CTX_check_private_key;
  decltype(&::SSL_CTX_load_verify_locations) SSL_CTX_load_verify_locations;
  decltype(&::SSL_CTX_set_verify) SSL_CTX_set_verify;
  decltype(&::SSL_CTX_set_session_id_context) SSL_CTX_set_session_id_context;
};

/// libcrypto.so.3's functions, the library loaded at the first call
/// (thread-safe; later calls return the same object, and the library stays
/// loaded). Throws std::runtime_error naming the library or function and
/// dlerror()'s reason when it cannot be loaded; a later call tries again.
const LibCryptoApi& libcrypto();

/// libssl.so.3's functions (and libcrypto, which it needs), loaded as libcrypto() is.
const LibSslApi& libssl();

}  // namespace diskperf
