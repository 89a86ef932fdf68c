#!/usr/bin/env bash
# Quick start, command 2 (and CI, via .ci/run): install what is missing,
# build, and run every test: unit tests, then end-to-end tests on this host
# (loop devices, promtool, a real Prometheus). Needs root for losetup.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure --timeout 300
cd "$OLDPWD"
# Issue 8: unit tests under ASan+UBSan (build-asan/), then each libFuzzer
# target for FUZZ_SECONDS (default 30; build-fuzz/). Any report fails.
tests/sanitize/run.sh
tests/fuzz/run.sh
