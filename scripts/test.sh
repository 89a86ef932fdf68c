#!/usr/bin/env bash
# Quick start, command 2 (and CI, via .ci/run): install what is missing,
# build, and run every test: the unit tests under ASan+UBSan (build-asan/),
# each libFuzzer target for FUZZ_SECONDS (default 30; build-fuzz/), then the
# full CTest suite: unit, integration and end-to-end tests on this host (loop
# devices, blkio throttling, fio, promtool, a real Prometheus, dpkg). Needs
# root. Any failure or sanitizer report fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
scripts/build.sh
tests/sanitize/run.sh
tests/fuzz/run.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure --timeout 300
