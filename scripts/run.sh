#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build the daemon (not the
# tests: no test packages needed), and run it in the foreground on this host,
# on port 9859 of every address. Extra arguments go to diskperf_exporter
# (e.g. --web.listen-address=127.0.0.1:9859).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --daemon
exec "${BUILD_DIR:-build}/diskperf_exporter" "$@"
