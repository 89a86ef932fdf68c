#include "collectors/azure/curl_runtime.h"

#include "collectors/dynamic_library.h"

namespace diskperf {

const LibCurlApi& libcurl() {
  constexpr const char* kLib = "libcurl.so.4";
  return load_library_once<LibCurlApi>("libcurl", kLib, [kLib](void* lib, LibCurlApi& api) {
#define DISKPERF_RESOLVE(f) resolve_function(lib, "libcurl", kLib, "curl_" #f, api.f)
    DISKPERF_RESOLVE(global_init);
    DISKPERF_RESOLVE(easy_init);
    DISKPERF_RESOLVE(easy_setopt);
    DISKPERF_RESOLVE(easy_getinfo);
    DISKPERF_RESOLVE(easy_strerror);
    DISKPERF_RESOLVE(easy_cleanup);
    DISKPERF_RESOLVE(multi_init);
    DISKPERF_RESOLVE(multi_add_handle);
    DISKPERF_RESOLVE(multi_remove_handle);
    DISKPERF_RESOLVE(multi_perform);
    DISKPERF_RESOLVE(multi_poll);
    DISKPERF_RESOLVE(multi_info_read);
    DISKPERF_RESOLVE(multi_cleanup);
    DISKPERF_RESOLVE(slist_append);
    DISKPERF_RESOLVE(slist_free_all);
#undef DISKPERF_RESOLVE
    // Once, before any handle and under load_library_once's lock: libcurl's global state, without
    // its TLS back end (IMDS is plain HTTP; initialising OpenSSL costs resident pages for nothing).
    api.global_init(CURL_GLOBAL_NOTHING);
  });
}

}  // namespace diskperf
