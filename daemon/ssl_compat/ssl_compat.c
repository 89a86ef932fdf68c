/* libssl.so / libcrypto.so shims for Debian 12's CivetWeb 1.15.
 *
 * CivetWeb loads OpenSSL at run time with dlopen("libssl.so") and
 * dlopen("libcrypto.so") (unversioned names that only libssl-dev ships) and
 * looks up each function by name. One of them, SSL_get_peer_certificate,
 * is no longer exported by OpenSSL 3 (renamed SSL_get1_peer_certificate,
 * same semantics: it returns a new reference); CivetWeb then calls a null
 * pointer after every TLS handshake. diskperf_exporter carries its own
 * libssl.so and libcrypto.so in a private directory found through the
 * executable's DT_RPATH: they depend on the real libssl.so.3 and
 * libcrypto.so.3 (so every other lookup resolves there) and add the one
 * missing name. */
#include <openssl/ssl.h>

#ifdef DISKPERF_SSL_SHIM
#undef SSL_get_peer_certificate /* OpenSSL 3 defines it as a macro for the new name */
X509 *SSL_get_peer_certificate(const SSL *ssl);
X509 *SSL_get_peer_certificate(const SSL *ssl) { return SSL_get1_peer_certificate(ssl); }
#endif
