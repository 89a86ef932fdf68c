#!/usr/bin/env bash
# Builds the unit tests with AddressSanitizer (and LeakSanitizer) and
# UndefinedBehaviorSanitizer into build-asan/ and runs them. Any report fails
# the script (-fno-sanitize-recover: UBSan aborts like ASan). -O0 -g1 keeps
# the build short (2.6x less compile time than -O1 -g; the tests run ~2x
# slower); the tests are the same as in build/. GCC warns falsely about
# maybe-uninitialized std::function members in <regex> under ASan: that one
# warning is off here.
#   tests/sanitize/run.sh [CATCH2 ARGS...]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${ASAN_BUILD_DIR:-$src/build-asan}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
t0=$(date +%s)
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O0 -g1 $san -Wno-maybe-uninitialized" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" >/dev/null
cmake --build "$build" -j2 --target unit_tests
t1=$(date +%s)
echo "asan: build took $((t1 - t0)) s" >&2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build/tests"
./unit_tests "$@"
echo "asan: unit tests took $(($(date +%s) - t1)) s" >&2
