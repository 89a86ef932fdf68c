#include "daemon/openssl_runtime.h"

#include "collectors/dynamic_library.h"

namespace diskperf {
namespace {

// The sonames of the OpenSSL the daemon is built against (Debian 12: 3.0).
#define DISKPERF_STR2(x) #x
#define DISKPERF_STR(x) DISKPERF_STR2(x)
constexpr const char* kLibCrypto = "libcrypto.so." DISKPERF_STR(OPENSSL_VERSION_MAJOR);
constexpr const char* kLibSsl = "libssl.so." DISKPERF_STR(OPENSSL_VERSION_MAJOR);

}  // namespace

const LibCryptoApi& libcrypto() {
  return load_library_once<LibCryptoApi>("OpenSSL", kLibCrypto, [](void* lib, LibCryptoApi& api) {
#define DISKPERF_RESOLVE(f) resolve_function(lib, "OpenSSL", kLibCrypto, #f, api.f)
    DISKPERF_RESOLVE(ERR_get_error);
    DISKPERF_RESOLVE(ERR_error_string_n);
    DISKPERF_RESOLVE(ERR_clear_error);
    DISKPERF_RESOLVE(EVP_DecodeBlock);
    DISKPERF_RESOLVE(SHA256);
    DISKPERF_RESOLVE(CRYPTO_memcmp);
#undef DISKPERF_RESOLVE
  });
}

const LibSslApi& libssl() {
  libcrypto();  // its errors are read through libcrypto's ERR_ functions
  return load_library_once<LibSslApi>("OpenSSL", kLibSsl, [](void* lib, LibSslApi& api) {
#define DISKPERF_RESOLVE(f) resolve_function(lib, "OpenSSL", kLibSsl, #f, api.f)
    DISKPERF_RESOLVE(TLS_server_method);
    DISKPERF_RESOLVE(SSL_CTX_new);
    DISKPERF_RESOLVE(SSL_CTX_free);
    DISKPERF_RESOLVE(SSL_CTX_ctrl);
    DISKPERF_RESOLVE(SSL_CTX_use_certificate_chain_file);
    DISKPERF_RESOLVE(SSL_CTX_use_PrivateKey_file);
    DISKPERF_RESOLVE(SSL_CTX_check_private_key);
    DISKPERF_RESOLVE(SSL_CTX_load_verify_locations);
    DISKPERF_RESOLVE(SSL_CTX_set_verify);
    DISKPERF_RESOLVE(SSL_CTX_set_session_id_context);
#undef DISKPERF_RESOLVE
  });
}

}  // namespace diskperf
