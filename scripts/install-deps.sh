#!/usr/bin/env bash
# Installs the Debian 12 packages diskperf_exporter needs that are missing.
#   scripts/install-deps.sh         build and run
#   scripts/install-deps.sh --test  also what the tests need
#   scripts/install-deps.sh --bench also what bench/ needs (not CI)
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config git prometheus-cpp-dev libcivetweb-dev zlib1g-dev
  libaio-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev libsystemd-dev libssl-dev libcrypt-dev
  libdevmapper-dev libre2-dev nlohmann-json3-dev libcurl4-openssl-dev)
test_pkgs=(catch2 curl util-linux bsdutils iproute2 fio prometheus systemd openssl
  clang libclang-rt-14-dev  # clang, libclang-rt: libFuzzer targets (tests/fuzz/run.sh)
  prometheus-node-exporter python3)  # bench/scrape_vs_node_exporter, run small (e2e scrape_bench_smoke)
bench_pkgs=(linux-perf)

want=("${build_pkgs[@]}")
[ "${1:-}" = "--test" ] && want+=("${test_pkgs[@]}")
[ "${1:-}" = "--bench" ] && want+=("${test_pkgs[@]}" "${bench_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "installing: ${missing[*]}" >&2
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
