#include "collectors/azure/imds_client.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "collectors/azure/curl_runtime.h"

namespace diskperf {
namespace {

// How long one wait for socket activity lasts before the cancel flag is looked at again: a
// cancelled request ends within this, without the canceller needing the curl handle.
constexpr int kCancelPollMs = 20;

using Easy = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using Multi = std::unique_ptr<CURLM, decltype(&curl_multi_cleanup)>;
using Headers = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

struct Sink {
  std::string body;
  bool over = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t len = size * n;
  if (sink->body.size() + len > ImdsRequest::kMaxBody) {
    sink->over = true;
    return 0;  // anything but len aborts the transfer
  }
  sink->body.append(data, len);
  return len;
}

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(); }

// Every option that keeps the request local, plain, bounded and quiet.
void configure(const LibCurlApi& curl, CURL* c, const std::string& url, std::chrono::milliseconds timeout, curl_slist* headers, Sink* sink,
               char* errbuf) {
  curl.easy_setopt(c, CURLOPT_URL, url.c_str());
  curl.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl.easy_setopt(c, CURLOPT_USERAGENT, "diskperf_exporter");
  // IMDS must be reached directly: an empty proxy and "*" for no_proxy leave http_proxy,
  // HTTP_PROXY, all_proxy and friends unused.
  curl.easy_setopt(c, CURLOPT_PROXY, "");
  curl.easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
  curl.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for resolver timeouts: unsafe with threads
  // 0 would mean no limit to libcurl.
  const long ms = std::max<long>(1, static_cast<long>(timeout.count()));
  curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
  curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(ImdsRequest::kMaxBody));
  curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl.easy_setopt(c, CURLOPT_WRITEDATA, sink);
  curl.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
}

// Runs the transfer to its end, or until *cancel. nullopt when cancelled.
std::optional<CURLcode> run(const LibCurlApi& curl, CURLM* multi, const std::atomic<bool>* cancel) {
  int running = 1;
  while (running > 0) {
    if (cancelled(cancel)) return std::nullopt;
    if (curl.multi_perform(multi, &running) != CURLM_OK) return CURLE_FAILED_INIT;
    if (running > 0 && curl.multi_poll(multi, nullptr, 0, kCancelPollMs, nullptr) != CURLM_OK)
      return CURLE_FAILED_INIT;
  }
  CURLcode code = CURLE_FAILED_INIT;
  int left = 0;
  while (CURLMsg* m = curl.multi_info_read(multi, &left))
    if (m->msg == CURLMSG_DONE) code = m->data.result;
  return code;
}

std::string describe_failure(const LibCurlApi& curl, CURL* c, CURLcode code, const Sink& sink, std::chrono::milliseconds timeout,
                             const char* errbuf) {
  if (code == CURLE_OPERATION_TIMEDOUT) return "timeout after " + std::to_string(timeout.count()) + " ms";
  if ((code == CURLE_WRITE_ERROR && sink.over) || code == CURLE_FILESIZE_EXCEEDED)
    return "body over " + std::to_string(ImdsRequest::kMaxBody) + " bytes";
  if (code == CURLE_COULDNT_CONNECT) {
    long os_errno = 0;
    curl.easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
    if (os_errno == ECONNREFUSED) return "connection refused";
    if (os_errno != 0) return std::string("cannot connect: ") + std::strerror(static_cast<int>(os_errno));
  }
  if (code == CURLE_UNSUPPORTED_PROTOCOL) return "not a plain http:// URL";
  return errbuf[0] ? std::string(errbuf) : std::string(curl.easy_strerror(code));
}

}  // namespace

ImdsResponse ImdsRequest::get(const std::string& base_url, std::chrono::milliseconds timeout,
                              const std::atomic<bool>* cancel) {
  ImdsResponse r;
  if (cancelled(cancel)) {
    r.error = "cancelled";
    return r;
  }
  const LibCurlApi* loaded = nullptr;
  try {
    loaded = &libcurl();
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  const LibCurlApi& curl = *loaded;
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += kImdsComputePath;

  Easy easy(curl.easy_init(), curl.easy_cleanup);
  Multi multi(curl.multi_init(), curl.multi_cleanup);
  Headers headers(curl.slist_append(nullptr, "Metadata: true"), curl.slist_free_all);
  if (!easy || !multi || !headers) {
    r.error = "cannot set up libcurl";
    return r;
  }
  Sink sink;
  char errbuf[CURL_ERROR_SIZE] = "";
  configure(curl, easy.get(), url, timeout, headers.get(), &sink, errbuf);
  curl.multi_add_handle(multi.get(), easy.get());
  const std::optional<CURLcode> code = run(curl, multi.get(), cancel);
  curl.multi_remove_handle(multi.get(), easy.get());

  if (!code) {
    r.error = "cancelled";
    return r;
  }
  if (*code != CURLE_OK) {
    r.error = describe_failure(curl, easy.get(), *code, sink, timeout, errbuf);
    return r;
  }
  curl.easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &r.http_status);
  r.body = std::move(sink.body);
  if (r.http_status != 200) r.error = "HTTP " + std::to_string(r.http_status);
  return r;
}

}  // namespace diskperf
