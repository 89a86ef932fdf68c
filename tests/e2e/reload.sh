#!/usr/bin/env bash
# Config reload: SIGHUP and POST /-/reload apply a valid change, reject an
# invalid one (the running config stays, reload gauge 0), and
# validate-config names line and column. SIGTERM stops the daemon cleanly.
source "$(dirname "$0")/lib.sh"

cfg="$E2E_TMP/config.yml"
printf 'collectors:\n  diskstats:\n    device_include: "^vda$"\n' >"$cfg"
start_exporter --config "$cfg" --web.enable-lifecycle
has() { grep -q "diskperf_disk_reads_completed_total{device=\"$1\"}" <<<"$2"; }
gauge() { sample_value "$1" diskperf_config_last_reload_successful ''; }

out=$(scrape)
has vda "$out" || fail "vda missing"
has zram0 "$out" && fail "zram0 exported though not included"
[ "$(gauge "$out")" = 1 ] || fail "initial reload gauge not 1"
t0=$(sample_value "$out" diskperf_config_last_reload_success_timestamp_seconds '')

# A valid change through SIGHUP.
sleep 1.1
printf 'collectors:\n  diskstats:\n    device_include: "^(vda|zram0)$"\n' >"$cfg"
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 50); do out=$(scrape); has zram0 "$out" && break; sleep 0.1; done
has zram0 "$out" || fail "SIGHUP did not apply the new config"
[ "$(gauge "$out")" = 1 ] || fail "reload gauge not 1 after a good reload"
t1=$(sample_value "$out" diskperf_config_last_reload_success_timestamp_seconds '')
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b > a) }' || fail "success timestamp did not move ($t0 -> $t1)"

# An invalid change through SIGHUP: rejected, the running config stays.
printf 'collectors:\n  diskstats:\n    device_include: "(("\n' >"$cfg"
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 50); do out=$(scrape); [ "$(gauge "$out")" = 0 ] && break; sleep 0.1; done
[ "$(gauge "$out")" = 0 ] || fail "reload gauge not 0 after a bad reload"
has zram0 "$out" || fail "the running config was lost"
grep -q "config.yml:3:21: collectors.diskstats.device_include is not a valid regular expression" "$EXPORTER_LOG" ||
  fail "bad reload not logged with line and column"
kill -0 "$EXPORTER_PID" || fail "daemon died on a bad config"

# The same through POST /-/reload.
code=$(curl -s -o "$E2E_TMP/body" -w '%{http_code}' -X POST "http://127.0.0.1:$EXPORTER_PORT/-/reload")
[ "$code" = 500 ] || fail "POST /-/reload with a bad config answered $code"
grep -q "config.yml:3:21" "$E2E_TMP/body" || fail "POST /-/reload body lacks the error: $(cat "$E2E_TMP/body")"
printf 'collectors:\n  diskstats:\n    device_include: "^zram0$"\n' >"$cfg"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$EXPORTER_PORT/-/reload")
[ "$code" = 200 ] || fail "POST /-/reload with a good config answered $code"
out=$(scrape)
has vda "$out" && fail "vda still exported after reload"
has zram0 "$out" || fail "zram0 missing after reload"
[ "$(gauge "$out")" = 1 ] || fail "gauge not back to 1"

# validate-config: line and column, non-zero exit; OK on a good file.
printf 'collectors:\n  diskstat:\n    x: 1\n' >"$E2E_TMP/bad.yml"
if "$DISKPERF_EXPORTER" validate-config "$E2E_TMP/bad.yml" >"$E2E_TMP/v.out" 2>"$E2E_TMP/v.err"; then fail "validate-config accepted a bad file"; fi
grep -qx "$E2E_TMP/bad.yml:2:3: unknown key 'diskstat' in collectors" "$E2E_TMP/v.err" || fail "validate-config: $(cat "$E2E_TMP/v.err")"
"$DISKPERF_EXPORTER" validate-config "$cfg" | grep -q ": OK" || fail "validate-config rejected a good file"

# Lifecycle API off by default.
start_exporter
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$EXPORTER_PORT/-/reload")
[ "$code" = 403 ] || fail "POST /-/reload without --web.enable-lifecycle answered $code"

# SIGTERM: exit 0 within 5 s.
kill -TERM "$EXPORTER_PID"
for _ in $(seq 1 50); do kill -0 "$EXPORTER_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$EXPORTER_PID" 2>/dev/null && fail "daemon still running 5 s after SIGTERM"
wait "$EXPORTER_PID" && rc=0 || rc=$?
[ "$rc" = 0 ] || fail "exit status $rc after SIGTERM"
echo "PASS reload"
