#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/CMakeLists.txt) with clang into
# build-fuzz/, replays the kept regression inputs (tests/fuzz/regressions/<target>/),
# then fuzzes each target for a bounded time, seeded from the test fixtures.
# Any crash, sanitizer report, leak or timeout fails the script; the input that
# caused it is kept in build-fuzz/artifacts/ (copy it to regressions/<target>/).
#   tests/fuzz/run.sh                 # FUZZ_SECONDS=30 per target
#   FUZZ_SECONDS=300 tests/fuzz/run.sh fuzz_config   # one target, longer
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$src/build-fuzz}
secs=${FUZZ_SECONDS:-30}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_diskstats fuzz_queue fuzz_dm_table fuzz_perfcounters fuzz_config fuzz_web_config fuzz_imds)

t0=$(date +%s)
CC=clang CXX=clang++ cmake -S "$src/tests/fuzz" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2
echo "fuzz: build took $(($(date +%s) - t0)) s" >&2

# Seed corpora, built now from the fixtures (nothing large is checked in).
seeds=$(mktemp -d "${TMPDIR:-/tmp}/diskperf-fuzz.XXXXXX")
trap 'rm -rf "$seeds"' EXIT
bash "$src/tests/fixtures/make_sysfs_fixtures.sh" "$seeds/sysfs" >/dev/null
mkdir -p "$seeds"/{fuzz_diskstats,fuzz_queue,fuzz_dm_table,fuzz_perfcounters,fuzz_config,fuzz_web_config,fuzz_imds}
i=0
while IFS= read -r f; do cp "$f" "$seeds/fuzz_diskstats/$((i++))"; done < <(find "$src/tests/fixtures" -name diskstats -type f)
while IFS= read -r f; do cp "$f" "$seeds/fuzz_queue/$((i++))"; done < <(find "$seeds/sysfs" -path '*/sys/*' -type f -size -4k)
while IFS= read -r f; do cp "$f" "$seeds/fuzz_dm_table/$((i++))"; done < <(find "$seeds/sysfs" -path '*/dmtables/*' -type f)
cp "$src"/tests/fixtures/azure/PerfCounters.* "$seeds/fuzz_perfcounters/"
cp "$src"/tests/fixtures/azure/imds/*.json "$src"/tests/fuzz/seeds/imds/* "$seeds/fuzz_imds/"
cp "$src"/config/diskperf_exporter.yml "$src"/config/examples/*.yml "$src"/tests/fuzz/seeds/config/* "$seeds/fuzz_config/"
cp "$src"/tests/fuzz/seeds/web_config/* "$seeds/fuzz_web_config/"
cp "$src"/tests/fuzz/seeds/web_config/* "$seeds/fuzz_config/"  # the same YAML reader

mkdir -p "$build/artifacts"
status=0
for t in "${targets[@]}"; do
  bin="$build/$t"
  reg="$src/tests/fuzz/regressions/$t"
  if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
    # Replay every kept crashing input (libFuzzer runs files given as arguments once).
    if ! "$bin" -runs=1 "$reg"/* >"$build/$t.replay.log" 2>&1; then
      tail -n 40 "$build/$t.replay.log" >&2
      echo "FAIL: $t crashes on a kept regression input" >&2
      status=1
      continue
    fi
  fi
  mkdir -p "$build/corpus/$t"
  echo "fuzz: $t for ${secs}s" >&2
  # A fixed seed (FUZZ_SEED) makes a CI run repeatable: the same inputs in the same order.
  if ! "$bin" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" "$seeds/$t" >"$build/$t.log" 2>&1; then
    tail -n 60 "$build/$t.log" >&2
    echo "FAIL: $t found a crash: $(ls -t "$build/artifacts/$t-"* 2>/dev/null | head -n1)" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$build/$t.log" | tr '\n' ' ' >&2
    echo >&2
  fi
done
echo "fuzz: total $(($(date +%s) - t0)) s" >&2
exit $status
