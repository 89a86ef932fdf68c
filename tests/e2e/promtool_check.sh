#!/usr/bin/env bash
# `promtool check metrics` finds no problem in the exposition: served over
# HTTP by the daemon, and printed by `diskperf_exporter metrics`.
source "$(dirname "$0")/lib.sh"

truncate -s 16M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
start_exporter "--collector.diskstats.device-include=^(loop[0-9]+|vda)\$"
scrape >"$E2E_TMP/served.txt"
grep -q "device=\"$dev\"" "$E2E_TMP/served.txt" || fail "$dev not in the exposition"
out=$(promtool check metrics <"$E2E_TMP/served.txt" 2>&1) || fail "promtool (served): $out"
[ -z "$out" ] || fail "promtool (served) reported: $out"

"$DISKPERF_EXPORTER" metrics "--collector.diskstats.device-include=." >"$E2E_TMP/printed.txt"
out=$(promtool check metrics <"$E2E_TMP/printed.txt" 2>&1) || fail "promtool (metrics command): $out"
[ -z "$out" ] || fail "promtool (metrics command) reported: $out"

# Each collector's families are there, and the landing page and health answer.
for name in diskperf_disk_reads_completed_total process_cpu_seconds_total diskperf_build_info \
  diskperf_scrape_collector_success; do
  grep -q "^$name" "$E2E_TMP/served.txt" || fail "$name missing"
done
scrape /-/healthy | grep -q Healthy || fail "/-/healthy"
scrape / | grep -q 'href="/metrics"' || fail "landing page has no link to /metrics"
echo "PASS promtool_check"
