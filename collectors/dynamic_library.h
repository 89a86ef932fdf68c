#pragma once
// A shared library loaded by name when first needed (dlopen), for the libraries a daemon that does
// not use them should not map: OpenSSL (TLS, basic auth) and libcurl (Azure IMDS). The handle is
// never closed, so the resolved functions stay valid for the process's life.

#include <dlfcn.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace diskperf {

/// dlopen(name); throws std::runtime_error "cannot load <what> (<name>): <dlerror>".
inline void* open_library(const char* what, const char* name) {
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    throw std::runtime_error(std::string("cannot load ") + what + " (" + name + "): " + (why ? why : "unknown error"));
  }
  return h;
}

/// fn = the function `name` of `lib`; throws "cannot load <what>: <name> is missing from <lib_name>".
template <typename F>
void resolve_function(void* lib, const char* what, const char* lib_name, const char* name, F& fn) {
  void* p = dlsym(lib, name);
  if (!p) throw std::runtime_error(std::string("cannot load ") + what + ": " + name + " is missing from " + lib_name);
  fn = reinterpret_cast<F>(p);
}

/// Loads `name` and fills an Api with `resolve_all(lib, api)` at the first call (thread-safe); later
/// calls return the same Api. A failed load throws, and a later call tries again. Each call site's
/// lambda is a type of its own, so each has its own Api.
template <typename Api, typename Resolve>
const Api& load_library_once(const char* what, const char* name, Resolve resolve_all) {
  static std::atomic<const Api*> loaded{nullptr};
  static std::mutex mu;
  if (const Api* api = loaded.load(std::memory_order_acquire)) return *api;
  std::lock_guard lock(mu);
  if (!loaded.load(std::memory_order_relaxed)) {
    void* lib = open_library(what, name);
    auto api = std::make_unique<Api>();
    resolve_all(lib, *api);
    loaded.store(api.release(), std::memory_order_release);
  }
  return *loaded.load(std::memory_order_relaxed);
}

}  // namespace diskperf
