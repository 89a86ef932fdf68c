#!/usr/bin/env bash
# TLS and basic auth from a web config file (exporter-toolkit format), with a
# CA and certificates made by openssl now: 401 without or with wrong
# credentials, 200 with the right ones; plain HTTP to the TLS port fails; a
# TLS version below min_version is refused; RequireAndVerifyClientCert
# refuses a client without a certificate; basic auth works over plain HTTP;
# OpenSSL is not loaded without TLS or basic auth; a bad web config refuses
# to start.
source "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || fail "openssl missing"
cd "$E2E_TMP"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout ca.key -out ca.crt 2>/dev/null
mkcert() {  # mkcert NAME CN [serverAuth|clientAuth]
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=%s\n' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
}
mkcert server 127.0.0.1 serverAuth
mkcert client test-client clientAuth
# bcrypt hash of "s3cret", made with libcrypt by the test tool mkbcrypt.
hash=$("${MKBCRYPT:?path to mkbcrypt}" s3cret)
cat >web.yml <<YML
tls_server_config:
  cert_file: $E2E_TMP/server.crt
  key_file: $E2E_TMP/server.key
  min_version: TLS12
http_server_config:
  headers:
    X-Frame-Options: deny
basic_auth_users:
  alice: '$hash'
YML
start_exporter --web.config.file "$E2E_TMP/web.yml"
url="https://127.0.0.1:$EXPORTER_PORT/metrics"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert ca.crt "$@" || true; }
[ "$(code "$url")" = 401 ] || fail "no credentials: not 401"
[ "$(code -u alice:wrong "$url")" = 401 ] || fail "wrong password: not 401"
[ "$(code -u bob:s3cret "$url")" = 401 ] || fail "unknown user: not 401"
[ "$(code -u alice:s3cret "$url")" = 200 ] || fail "right password: not 200"
curl -s --max-time 5 --cacert ca.crt -u alice:s3cret -D headers.txt -o body.txt "$url"
grep -qi '^X-Frame-Options: deny' headers.txt || fail "configured header missing"
grep -q '^diskperf_build_info' body.txt || fail "no metrics over TLS"
[ "$(code "https://127.0.0.1:$EXPORTER_PORT/-/healthy")" = 401 ] || fail "/-/healthy not protected"
if curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$EXPORTER_PORT/metrics"; then fail "plain HTTP to the TLS port worked"; fi
if curl -s --max-time 5 -o /dev/null --cacert ca.crt -u alice:s3cret --tlsv1.1 --tls-max 1.1 "$url"; then
  fail "TLS 1.1 accepted below min_version TLS12"
fi
[ "$(code -u alice:s3cret --tlsv1.2 --tls-max 1.2 "$url")" = 200 ] || fail "TLS 1.2 refused"

# Client certificates required and verified.
cat >mtls.yml <<YML
tls_server_config:
  cert_file: $E2E_TMP/server.crt
  key_file: $E2E_TMP/server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: $E2E_TMP/ca.crt
  min_version: TLS13
YML
start_exporter --web.config.file "$E2E_TMP/mtls.yml"
url="https://127.0.0.1:$EXPORTER_PORT/metrics"
[ "$(code "$url")" = 000 ] || fail "client without certificate was served"
[ "$(code --cert client.crt --key client.key "$url")" = 200 ] || fail "client with certificate refused"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=rogue -keyout rogue.key -out rogue.crt 2>/dev/null
[ "$(code --cert rogue.crt --key rogue.key "$url")" = 000 ] || fail "client certificate from another CA accepted"
if curl -s --max-time 5 -o /dev/null --cacert ca.crt --cert client.crt --key client.key --tls-max 1.2 "$url"; then
  fail "TLS 1.2 accepted below min_version TLS13"
fi

# OpenSSL is loaded only when needed: basic auth over plain HTTP loads libcrypto,
# not libssl (and works, HEAD included); a daemon without a web config maps
# neither libssl nor libcrypto.
printf 'basic_auth_users:\n  alice: %s\n' "'$hash'" >auth.yml
start_exporter --web.config.file "$E2E_TMP/auth.yml"
url="http://127.0.0.1:$EXPORTER_PORT/metrics"
[ "$(code "$url")" = 401 ] || fail "plain HTTP, no credentials: not 401"
[ "$(code -u alice:s3cret "$url")" = 200 ] || fail "plain HTTP, right password: not 200"
[ "$(code -I "$url")" = 401 ] || fail "HEAD without credentials: not 401"
[ "$(code -I -u alice:s3cret "$url")" = 200 ] || fail "HEAD with the right password: not 200"
# A password with a NUL byte after the right one (crypt_r stops at the NUL) is refused.
nul_auth="Authorization: Basic $(printf 'alice:s3cret\0x' | base64)"
[ "$(code -H "$nul_auth" "$url")" = 401 ] || fail "password with a NUL byte appended: not 401"
grep -q 'libcrypto\.so' "/proc/$EXPORTER_PID/maps" || fail "basic auth without libcrypto mapped?"
if grep -E 'libssl\.so' "/proc/$EXPORTER_PID/maps"; then fail "libssl mapped for basic auth without TLS"; fi
start_exporter
[ "$(code "http://127.0.0.1:$EXPORTER_PORT/metrics")" = 200 ] || fail "no web config: not 200"
if grep -E 'lib(ssl|crypto)\.so' "/proc/$EXPORTER_PID/maps"; then fail "OpenSSL mapped without TLS or basic auth"; fi

# Invalid web configs refuse to start, with a clear message.
printf 'tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n' >missing.yml
if "$DISKPERF_EXPORTER" --web.listen-address=127.0.0.1:0 --web.config.file missing.yml 2>err.txt; then fail "started with missing cert"; fi
grep -q "TLS: cert_file /nonexistent.crt" err.txt || fail "unclear message: $(cat err.txt)"
# A FIFO (or any file that is not a regular one) as cert_file or key_file: a
# clear error, not a start that blocks forever in open() (SIGTERM is blocked
# then: only SIGKILL ended it).
mkfifo cert.fifo
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$E2E_TMP/cert.fifo" "$E2E_TMP/server.key" >fifo.yml
rc=0; timeout -s KILL 10 "$DISKPERF_EXPORTER" --web.listen-address=127.0.0.1:0 --web.config.file fifo.yml 2>err.txt || rc=$?
[ "$rc" = 1 ] || fail "FIFO cert_file: exit code $rc, not 1 (137: hung at start): $(cat err.txt)"
grep -q "TLS: cert_file $E2E_TMP/cert.fifo is not a regular file" err.txt || fail "unclear message: $(cat err.txt)"
printf 'basic_auth_users:\n  alice: plaintext\ntls_server_config:\n  min_version: TLS9\n' >bad.yml
if "$DISKPERF_EXPORTER" --web.listen-address=127.0.0.1:0 --web.config.file bad.yml 2>err.txt; then fail "started with a bad web config"; fi
grep -q "bad.yml:2:10: basic_auth_users.alice is not a bcrypt hash" err.txt || fail "unclear message: $(cat err.txt)"
grep -q "bad.yml:4:16: tls_server_config.min_version must be" err.txt || fail "unclear message: $(cat err.txt)"
echo "PASS tls_auth"
