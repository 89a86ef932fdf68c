#!/usr/bin/env bash
# Builds the .deb with CPack, installs it with dpkg -i, checks the binary, the
# unit, the conffile and the system user, runs the installed binary's
# `metrics` once, then purges the package and checks it left nothing behind.
source "$(dirname "$0")/lib.sh"
: "${DISKPERF_BUILD_DIR:?the CMake build directory}"
if dpkg-query -W -f='${Status}' diskperf-exporter 2>/dev/null | grep -q "install ok installed"; then
  fail "diskperf-exporter is already installed on this machine; this test will not remove an operator's install"
fi

(cd "$E2E_TMP" && cpack -G DEB --config "$DISKPERF_BUILD_DIR/CPackConfig.cmake" -B "$E2E_TMP/pkg" >/dev/null)
deb=$(ls "$E2E_TMP"/pkg/diskperf-exporter_*_amd64.deb)
on_exit "dpkg --purge diskperf-exporter"
dpkg-deb -f "$deb" Depends | grep -q libcivetweb1 || fail "Depends lacks libcivetweb1: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -f "$deb" Depends | grep -q adduser || fail "Depends lacks adduser"
dpkg-deb -f "$deb" Depends | grep -q libcurl4 || fail "Depends lacks libcurl4 (dlopened for Azure IMDS)"
dpkg -i "$deb" >"$E2E_TMP/dpkg.log" 2>&1 || { cat "$E2E_TMP/dpkg.log" >&2; fail "dpkg -i failed"; }

/usr/bin/diskperf_exporter --version | grep -q "^diskperf_exporter 0\." || fail "installed --version"
unit=/usr/lib/systemd/system/diskperf_exporter.service
[ -f "$unit" ] || fail "unit not installed"
out=$(systemd-analyze verify "$unit" 2>&1) || fail "installed unit does not verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify on the installed unit: $out"
grep -qx /etc/diskperf_exporter/config.yml /var/lib/dpkg/info/diskperf-exporter.conffiles || fail "config is not a conffile"
getent passwd diskperf_exporter >/dev/null || fail "system user not created"
id -nG diskperf_exporter | grep -qw disk || fail "system user not in group disk"
/usr/bin/diskperf_exporter validate-config /etc/diskperf_exporter/config.yml >/dev/null || fail "shipped config invalid"
/usr/bin/diskperf_exporter metrics --config /etc/diskperf_exporter/config.yml >"$E2E_TMP/m.txt" || fail "installed metrics"
grep -q '^diskperf_scrape_collector_success{collector="diskstats"} 1' "$E2E_TMP/m.txt" || fail "installed binary: diskstats failed"
[ -f /usr/share/diskperf_exporter/examples/sap-hana-azure.yml ] || fail "examples not installed"
for f in prometheus/diskperf.rules.yml prometheus/prometheus-azure-fleet.yml grafana/diskperf.json tiers.csv \
    vm_sizes.csv examples/azure-tiers.yml; do
  [ -f "/usr/share/diskperf_exporter/$f" ] || fail "$f not installed"
done
promtool check config /usr/share/diskperf_exporter/prometheus/prometheus-azure-fleet.yml >/dev/null ||
  fail "installed fleet example: promtool check config fails"
nm -D --defined-only /usr/lib/diskperf_exporter/libssl.so | grep -q " SSL_get_peer_certificate$" || fail "TLS shim not installed"

dpkg --purge diskperf-exporter >/dev/null 2>&1 || fail "purge failed"
[ ! -e /usr/bin/diskperf_exporter ] || fail "binary left after purge"
[ ! -e /etc/diskperf_exporter/config.yml ] || fail "conffile left after purge"
getent passwd diskperf_exporter >/dev/null && fail "system user left after purge"
echo "PASS deb_package"
