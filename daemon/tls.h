#pragma once
// Builds the OpenSSL server context for CivetWeb from tls_server_config.

#include <string>

#include "config/web_config.h"

namespace diskperf {

/// Sets up `ssl_ctx` (an SSL_CTX*, as void* to keep OpenSSL out of headers,
/// created by CivetWeb) with the certificate chain, key, minimum protocol
/// version and client certificate policy of `tls`. Throws
/// std::runtime_error naming the file and OpenSSL's reason when a file
/// cannot be loaded or the key does not match.
void configure_server_ssl_ctx(void* ssl_ctx, const TlsServerConfig& tls);

/// Checks `tls` on a scratch context, so that a bad file is reported before
/// the server starts. Throws as configure_server_ssl_ctx, and when a file is
/// not a regular file (a FIFO would block OpenSSL's open).
void check_tls_config(const TlsServerConfig& tls);

}  // namespace diskperf
