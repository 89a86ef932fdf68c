#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the daemon
# in the foreground on this host. Extra arguments go to diskperf_exporter.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/diskperf_exporter "$@"
