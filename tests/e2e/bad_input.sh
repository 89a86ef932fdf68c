#!/usr/bin/env bash
# Bad input at run time: the daemon keeps serving when /proc/diskstats is
# missing, reports the collector as failed, logs it once, and recovers when
# the file comes back. A bad config file is refused with line and column.
source "$(dirname "$0")/lib.sh"

mkdir -p "$E2E_TMP/proc"
start_exporter "--path.procfs=$E2E_TMP/proc" "--collector.diskstats.device-include=."
for _ in 1 2 3; do
  out=$(scrape)
  [ "$(sample_value "$out" diskperf_scrape_collector_success 'collector="diskstats"')" = 0 ] || fail "success not 0"
  [ "$(sample_value "$out" diskperf_scrape_collector_success 'collector="process"')" = 1 ] || fail "process failed"
done
[ "$(grep -c 'collector diskstats failed' "$EXPORTER_LOG")" = 1 ] || fail "failure not logged exactly once"
grep -q "open $E2E_TMP/proc/diskstats: No such file or directory" "$EXPORTER_LOG" || fail "error message unclear"

printf '8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n' >"$E2E_TMP/proc/diskstats"
out=$(scrape)
[ "$(sample_value "$out" diskperf_scrape_collector_success 'collector="diskstats"')" = 1 ] || fail "no recovery"
[ "$(sample_value "$out" diskperf_disk_read_bytes_total 'device="sda"')" = 1536 ] || fail "sda read bytes"
grep -q 'collector diskstats recovered' "$EXPORTER_LOG" || fail "recovery not logged"

printf 'garbage \001\002 line\n8 0 sda 1 2\n' >"$E2E_TMP/proc/diskstats"
out=$(scrape)
[ "$(sample_value "$out" diskperf_diskstats_rejected_lines '')" = 2 ] || fail "rejected lines not counted"

printf 'collectors:\n  diskstats:\n    device_exclud: x\n' >"$E2E_TMP/bad.yml"
if "$DISKPERF_EXPORTER" metrics --config "$E2E_TMP/bad.yml" >"$E2E_TMP/out" 2>"$E2E_TMP/err"; then
  fail "a bad config was accepted"
fi
grep -q "bad.yml:3:5: unknown key 'device_exclud' in collectors.diskstats" "$E2E_TMP/err" || fail "config error: $(cat "$E2E_TMP/err")"
if "$DISKPERF_EXPORTER" metrics "--path.procfs=$E2E_TMP/proc" >/dev/full 2>"$E2E_TMP/err"; then
  fail "metrics reported success writing to a full device"
fi
grep -q "cannot write the exposition" "$E2E_TMP/err" || fail "write error unclear: $(cat "$E2E_TMP/err")"
if "$DISKPERF_EXPORTER" --web.listen-address=nonsense 2>"$E2E_TMP/err"; then fail "bad listen address accepted"; fi
grep -q "not host:port" "$E2E_TMP/err" || fail "listen address error unclear: $(cat "$E2E_TMP/err")"
echo "PASS bad_input"
