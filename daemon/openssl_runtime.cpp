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

// Loads library `name` and resolves Api's functions with `resolve_all`, once.
template <typename Api, typename Resolve>
const Api& load_once(const char* name, Resolve resolve_all) {
  static std::atomic<const Api*> loaded{nullptr};
  static std::mutex mu;
  if (const Api* api = loaded.load(std::memory_order_acquire)) return *api;
  std::lock_guard lock(mu);
  if (!loaded.load(std::memory_order_relaxed)) {
    void* lib = open_library(name);
    auto api = std::make_unique<Api>();
    resolve_all(lib, *api);
    // The handle is not closed: the functions stay valid for the process's life.
    loaded.store(api.release(), std::memory_order_release);
  }
  return *loaded.load(std::memory_order_relaxed);
}

}  // namespace

const LibCryptoApi& libcrypto() {
  return load_once<LibCryptoApi>(kLibCrypto, [](void* lib, LibCryptoApi& api) {
#define DISKPERF_RESOLVE(f) resolve(lib, kLibCrypto, #f, api.f)
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
  return load_once<LibSslApi>(kLibSsl, [](void* lib, LibSslApi& api) {
#define DISKPERF_RESOLVE(f) resolve(lib, kLibSsl, #f, api.f)
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
