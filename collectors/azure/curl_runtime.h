#pragma once
// libcurl, loaded when IMDS is first asked (collectors/dynamic_library.h): a daemon that never
// asks, as on any host that is not an Azure VM, never maps it nor the TLS, Kerberos and LDAP
// libraries Debian's libcurl pulls in.

#include <curl/curl.h>

namespace diskperf {

/// The libcurl functions the IMDS client calls, typed as in the headers it is built against.
struct LibCurlApi {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

/// libcurl.so.4's functions, loaded and curl_global_init'ed at the first call (thread-safe).
/// Throws std::runtime_error with dlerror()'s reason when it cannot be loaded.
const LibCurlApi& libcurl();

}  // namespace diskperf
