#!/usr/bin/env bash
# Probe jobs and config reload: a job added by SIGHUP starts without a
# restart while the unchanged job keeps running and keeps its counters; a
# removed job disappears; an invalid config is rejected and every job keeps
# running. Then SIGTERM during a probe run: the daemon waits for the I/O in
# flight and exits 0 within 5 s.
source "$(dirname "$0")/lib.sh"

truncate -s 64M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
job() {  # job NAME RUNTIME INTERVAL
  printf '  - name: %s\n    target: /dev/%s\n    rw: randread\n    bs: 4k\n    iodepth: 1\n' "$1" "$dev"
  printf '    runtime: %s\n    interval: %s\n    max_duty_cycle: 1\n' "$2" "$3"
}
cfg="$E2E_TMP/config.yml"
{ echo "probes:"; job a 50ms 300ms; } >"$cfg"
start_exporter --config "$cfg"
runs() { sample_value "$1" diskperf_probe_runs_total "probe=\"$2\",target=\"/dev/$dev\""; }
wait_runs() {  # wait_runs NAME MIN: until the job has at least MIN runs (10 s at most)
  local out n
  for _ in $(seq 1 100); do
    out=$(scrape); n=$(runs "$out" "$1")
    [ -n "$n" ] && [ "$n" -ge "$2" ] && { echo "$n"; return 0; }
    sleep 0.1
  done
  fail "job $1 did not reach $2 runs (last: ${n:-absent})"
}
a1=$(wait_runs a 3)

# Add job b: it starts; a keeps its counters (no reset to 0).
{ echo "probes:"; job a 50ms 300ms; job b 50ms 300ms; } >"$cfg"
kill -HUP "$EXPORTER_PID"
wait_runs b 2 >/dev/null
a2=$(runs "$(scrape)" a)
[ "$a2" -ge "$a1" ] || fail "job a lost its counters on reload ($a1 -> $a2)"
grep -q "probes: 2 job(s), 1 unchanged" "$EXPORTER_LOG" || fail "reload did not keep job a as unchanged"

# Invalid config: rejected, both jobs keep running.
printf 'probes:\n  - name: a\n    target: /dev/%s\n    rw: write\n' "$dev" >"$cfg"
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 50); do
  out=$(scrape); [ "$(sample_value "$out" diskperf_config_last_reload_successful '')" = 0 ] && break; sleep 0.1
done
[ "$(sample_value "$out" diskperf_config_last_reload_successful '')" = 0 ] || fail "bad config not rejected"
a3=$(runs "$out" a); b3=$(runs "$out" b)
wait_runs a $((a3 + 2)) >/dev/null
wait_runs b $((b3 + 2)) >/dev/null

# Remove job b (and change nothing else): b disappears, a goes on.
{ echo "probes:"; job a 50ms 300ms; } >"$cfg"
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 50); do out=$(scrape); [ -z "$(runs "$out" b)" ] && break; sleep 0.1; done
[ -z "$(runs "$out" b)" ] || fail "removed job b still exported"
a4=$(runs "$out" a)
[ "$a4" -ge "$a3" ] || fail "job a lost its counters ($a3 -> $a4)"

# Host checks at validation: a region past the end of the target and a
# missing target are refused with the job's line and column, by
# validate-config and by a reload (which keeps the running jobs).
printf 'probes:\n  - name: big\n    target: /dev/%s\n    size: 1g\n  - name: gone\n    target: /dev/nonexistent-disk\n' "$dev" >"$E2E_TMP/bad.yml"
if "$DISKPERF_EXPORTER" validate-config "$E2E_TMP/bad.yml" 2>"$E2E_TMP/v.err"; then fail "validate-config accepted bad targets"; fi
grep -q "bad.yml:2:5: probe 'big': .*" "$E2E_TMP/v.err" || fail "region error: $(cat "$E2E_TMP/v.err")"
grep -q "bad.yml:5:5: probe 'gone': .*No such file or directory" "$E2E_TMP/v.err" || fail "missing target: $(cat "$E2E_TMP/v.err")"
cp "$E2E_TMP/bad.yml" "$cfg"
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 50); do
  out=$(scrape); [ "$(sample_value "$out" diskperf_config_last_reload_successful '')" = 0 ] && break; sleep 0.1
done
[ "$(sample_value "$out" diskperf_config_last_reload_successful '')" = 0 ] || fail "bad targets not rejected on reload"
wait_runs a $(($(runs "$out" a) + 1)) >/dev/null

# SIGTERM during a run: a 3 s run every 3.5 s; stop 1 s into it.
{ echo "probes:"; job long 3s 3500ms; } >"$cfg"
kill -HUP "$EXPORTER_PID"
sleep 1.3
t0=$(date +%s%N)
kill -TERM "$EXPORTER_PID"
for _ in $(seq 1 50); do kill -0 "$EXPORTER_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$EXPORTER_PID" 2>/dev/null && fail "daemon still running 5 s after SIGTERM during a probe run"
wait "$EXPORTER_PID" && rc=0 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" = 0 ] || fail "exit status $rc after SIGTERM during a probe run"
log "stopped ${ms} ms after SIGTERM during a 3 s probe run"
echo "PASS probe_reload"
