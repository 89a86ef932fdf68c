#!/usr/bin/env bash
# Configures and builds into ./build (BUILD_DIR to change).
#   scripts/build.sh            the daemon and every test (scripts/test.sh; needs catch2)
#   scripts/build.sh --daemon   the daemon alone, tests off (scripts/run.sh; no test packages needed)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
testing=ON
target=()
if [ "${1:-}" = "--daemon" ]; then
  testing=OFF
  target=(--target diskperf_exporter)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" -DBUILD_TESTING="$testing" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" "${target[@]}"
