#include "daemon/openssl_runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace diskperf {
namespace {

// The sonames of the OpenSSL the daemon is built against (Debian 12: 3.0).
#define DISKPERF_STR2(x) #x
#define DISKPERF_STR(x) DISKPERF_STR2(x)
constexpr const char* kLibCrypto = "libcrypto.so." DISKPERF_STR(OPENSSL_VERSION_MAJOR);
constexpr const char* kLibSsl = "libssl.so." DISKPERF_STR(OPENSSL_VERSION_MAJOR);

void* open_library(const char* name) {
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    throw std::runtime_error(std::string("cannot load OpenSSL (") + name + "): " + (why ? why : "unknown error"));
  }
  return h;
}

template <typename F>
void resolve(void* lib, const char* lib_name, const char* name, F& fn) {
  void* p = dlsym(lib, name);
  if (!p) {
    throw std::runtime_error(std::string("cannot load OpenSSL: ") + name + " is missing from " + lib_name);
  }
  fn = reinterpret_cast<F>(p);
}

std::unique_ptr<OpenSslApi> load() {
  void* crypto = open_library(kLibCrypto);
  void* ssl = open_library(kLibSsl);
  auto api = std::make_unique<OpenSslApi>();
#define DISKPERF_CRYPTO(f) resolve(crypto, kLibCrypto, #f, api->f)
#define DISKPERF_SSL(f) resolve(ssl, kLibSsl, #f, api->f)
  DISKPERF_CRYPTO(ERR_get_error);
  DISKPERF_CRYPTO(ERR_error_string_n);
  DISKPERF_CRYPTO(ERR_clear_error);
  DISKPERF_CRYPTO(EVP_DecodeBlock);
  DISKPERF_CRYPTO(SHA256);
  DISKPERF_CRYPTO(CRYPTO_memcmp);
  DISKPERF_SSL(TLS_server_method);
  DISKPERF_SSL(SSL_CTX_new);
  DISKPERF_SSL(SSL_CTX_free);
  DISKPERF_SSL(SSL_CTX_ctrl);
  DISKPERF_SSL(SSL_CTX_use_certificate_chain_file);
  DISKPERF_SSL(SSL_CTX_use_PrivateKey_file);
  DISKPERF_SSL(SSL_CTX_check_private_key);
  DISKPERF_SSL(SSL_CTX_load_verify_locations);
  DISKPERF_SSL(SSL_CTX_set_verify);
  DISKPERF_SSL(SSL_CTX_set_session_id_context);
#undef DISKPERF_CRYPTO
#undef DISKPERF_SSL
  return api;  // the handles are not closed: the functions stay valid for the process's life
}

}  // namespace

const OpenSslApi& openssl() {
  static std::atomic<const OpenSslApi*> loaded{nullptr};
  static std::mutex mu;
  if (const OpenSslApi* api = loaded.load(std::memory_order_acquire)) return *api;
  std::lock_guard lock(mu);
  if (!loaded.load(std::memory_order_relaxed)) loaded.store(load().release(), std::memory_order_release);
  return *loaded.load(std::memory_order_relaxed);
}

}  // namespace diskperf
