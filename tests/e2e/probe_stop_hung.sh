#!/usr/bin/env bash
# Stopping while a disk hangs: the exporter runs in a blkio cgroup that caps
# its loop device at 1 read IOPS, with a cap_iops job (iodepth 256) and a 3 s
# timeout. SIGTERM mid-run must end the process within timeout + 2 s (the
# kernel holds an exiting process until its AIO is done, so this bounds the
# I/O the probe keeps in flight). Then reload: the job is removed and added
# back while the stopped run's I/O drains; the job must say it waits
# (diskperf_probe_waiting_for_drain 1 and a log line), then run again.
source "$(dirname "$0")/lib.sh"

truncate -s 64M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup
throttle "$dev" read_iops 1
timeout_s=3
job() {  # job NAME
  printf '  - name: %s\n    preset: cap_iops\n    target: /dev/%s\n    runtime: 2s\n' "$1" "$dev"
  printf '    interval: 2500ms\n    timeout: %ss\n    max_duty_cycle: 1\n' "$timeout_s"
}
cfg="$E2E_TMP/config.yml"
{ echo "probes:"; job hung; } >"$cfg"
DISKPERF_REAL=$DISKPERF_EXPORTER
DISKPERF_EXPORTER=$E2E_TMP/in_cgroup.sh
printf '#!/bin/sh\necho $$ > "%s/cgroup.procs" && exec "%s" "$@"\n' "$BLKIO_CG" "$DISKPERF_REAL" >"$DISKPERF_EXPORTER"
chmod +x "$DISKPERF_EXPORTER"
L="probe=\"hung\",target=\"/dev/$dev\""

# stop_time PID: sends SIGTERM; sets STOP_S (seconds until the process exited) and STOP_RC.
stop_time() {
  local t0 t1
  t0=$(date +%s%N)
  kill -TERM "$1"
  wait "$1" && STOP_RC=0 || STOP_RC=$?
  t1=$(date +%s%N)
  STOP_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
}

# 1. SIGTERM 1.5 s into the first run (before any I/O has timed out).
start_exporter "--config=$cfg" "--collector.diskstats.device-include=^$dev\$"
sleep 1.5
stop_time "$EXPORTER_PID"
s=$STOP_S
log "stop during a run at 1 IOPS, iodepth 256: ${s}s (exit status $STOP_RC)"
[ "$STOP_RC" = 0 ] || fail "exit status $STOP_RC"
awk -v s="$s" -v t="$timeout_s" 'BEGIN { exit !(s <= t + 2) }' || fail "stop took ${s}s > timeout ${timeout_s}s + 2 s"

# 2. SIGTERM once the run has I/O past its timeout (stalled).
start_exporter "--config=$cfg" "--collector.diskstats.device-include=^$dev\$"
for _ in $(seq 1 100); do
  [ "$(sample_value "$(scrape)" diskperf_probe_stalled "$L")" = 1 ] && break
  sleep 0.1
done
[ "$(sample_value "$(scrape)" diskperf_probe_stalled "$L")" = 1 ] || fail "never stalled at 1 IOPS"
stop_time "$EXPORTER_PID"
s=$STOP_S
log "stop while stalled at 1 IOPS, iodepth 256: ${s}s (exit status $STOP_RC)"
[ "$STOP_RC" = 0 ] || fail "exit status $STOP_RC"
awk -v s="$s" -v t="$timeout_s" 'BEGIN { exit !(s <= t + 2) }' || fail "stop took ${s}s > timeout ${timeout_s}s + 2 s"

# 3. Remove the job while its run has I/O in flight, add it back: it waits for that I/O, says so, runs again.
start_exporter "--config=$cfg" "--collector.diskstats.device-include=^$dev\$"
sleep 1.5
echo "probes: []" >"$cfg"
t0=$(date +%s.%N)
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 100); do grep -q "probes: 0 job(s)" "$EXPORTER_LOG" && break; sleep 0.05; done
grep -q "probes: 0 job(s)" "$EXPORTER_LOG" || fail "job not removed: $(cat "$EXPORTER_LOG")"
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
# The reload leaves the run's I/O in flight to the drain list instead of waiting for it.
awk -v t="$took" 'BEGIN { exit !(t < 1.5) }' || fail "removing the job by reload took ${took}s (I/O awaited?)"
log "reload removing the job with I/O in flight: ${took}s"
{ echo "probes:"; job hung; } >"$cfg"
kill -HUP "$EXPORTER_PID"
waiting=""
for _ in $(seq 1 50); do
  out=$(scrape)
  [ "$(sample_value "$out" diskperf_probe_waiting_for_drain "$L")" = 1 ] && { waiting=1; break; }
  sleep 0.1
done
[ -n "$waiting" ] || fail "re-added job never showed diskperf_probe_waiting_for_drain 1: $(grep -i probe <<<"$out")"
[ "$(sample_value "$out" diskperf_probe_runs_total "$L")" = 0 ] || fail "a run finished while waiting"
grep -q "probe 'hung': waiting for [0-9]* I/O(s) that a stopped run left in flight on" "$EXPORTER_LOG" ||
  fail "no log line says why the job waits: $(cat "$EXPORTER_LOG")"
throttle "$dev" read_iops 0
for _ in $(seq 1 100); do
  out=$(scrape)
  [ "$(sample_value "$out" diskperf_probe_waiting_for_drain "$L")" = 0 ] &&
    [ "$(sample_value "$out" diskperf_probe_runs_total "$L")" -ge 1 ] && break
  sleep 0.1
done
[ "$(sample_value "$out" diskperf_probe_waiting_for_drain "$L")" = 0 ] || fail "still waiting for drain when unthrottled"
[ "$(sample_value "$out" diskperf_probe_runs_total "$L")" -ge 1 ] || fail "no run after the drain"
grep -q "probe 'hung': the earlier I/O on .* has finished" "$EXPORTER_LOG" || fail "no log line for the end of the wait"
echo "PASS probe_stop_hung"
