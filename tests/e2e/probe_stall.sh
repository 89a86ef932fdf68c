#!/usr/bin/env bash
# A probe on a disk that stops answering: the exporter runs in a blkio cgroup
# that caps its loop device at 1 read IOPS; the job (4 KiB randread, iodepth
# 32, timeout 2 s, interval 1 s) must be reported stalled within timeout +
# one interval (+0.5 s of polling slack), every scrape meanwhile must answer
# within 100 ms, and once the throttle is lifted the probe recovers: stalled
# back to 0 and new runs finish without new timeouts.
source "$(dirname "$0")/lib.sh"

truncate -s 64M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup
throttle "$dev" read_iops 1
cat >"$E2E_TMP/config.yml" <<YAML
probes:
  - name: stall
    target: /dev/$dev
    rw: randread
    bs: 4k
    iodepth: 32
    runtime: 1s
    interval: 1s
    timeout: 2s
    max_duty_cycle: 1
YAML
t0=$(date +%s.%N)
# Join the cgroup before exec, so the first run is throttled too.
DISKPERF_REAL=$DISKPERF_EXPORTER
DISKPERF_EXPORTER=$E2E_TMP/in_cgroup.sh
printf '#!/bin/sh\necho $$ > "%s/cgroup.procs" && exec "%s" "$@"\n' "$BLKIO_CG" "$DISKPERF_REAL" >"$DISKPERF_EXPORTER"
chmod +x "$DISKPERF_EXPORTER"
start_exporter "--config=$E2E_TMP/config.yml" "--collector.diskstats.device-include=^$dev\$"

# scrape_timed: scrape into $OUT and fail when it took 100 ms or more.
scrape_timed() {
  local t
  t=$(curl -fsS --max-time 5 -o "$E2E_TMP/scrape.txt" -w '%{time_total}' "http://127.0.0.1:$EXPORTER_PORT/metrics")
  awk -v t="$t" 'BEGIN { exit !(t < 0.1) }' || fail "scrape took ${t}s (limit 0.1 s)"
  OUT=$(cat "$E2E_TMP/scrape.txt")
}
L="probe=\"stall\",target=\"/dev/$dev\""
stalled_at=""
for _ in $(seq 1 60); do
  scrape_timed
  if [ "$(sample_value "$OUT" diskperf_probe_stalled "$L")" = 1 ]; then stalled_at=$(date +%s.%N); break; fi
  sleep 0.1
done
[ -n "$stalled_at" ] || fail "never reported stalled"
elapsed=$(awk -v a="$t0" -v b="$stalled_at" 'BEGIN { printf "%.2f", b - a }')
log "stalled after ${elapsed}s"
awk -v e="$elapsed" 'BEGIN { exit !(e <= 2 + 1 + 0.5) }' || fail "stalled reported after ${elapsed}s > timeout 2s + interval 1s"
for _ in $(seq 1 10); do scrape_timed; sleep 0.1; done  # still fast while the worker waits
[ "$(sample_value "$OUT" diskperf_probe_stalled "$L")" = 1 ] || fail "stall cleared while throttled"

throttle "$dev" read_iops 0
log "throttle lifted"
recovered=""
for _ in $(seq 1 50); do
  scrape_timed
  if [ "$(sample_value "$OUT" diskperf_probe_stalled "$L")" = 0 ]; then recovered=1; break; fi
  sleep 0.1
done
[ -n "$recovered" ] || fail "still stalled 5 s after the throttle was lifted"
# The stalled run is published once it has drained.
for _ in $(seq 1 30); do
  scrape_timed
  timeouts=$(sample_value "$OUT" diskperf_probe_errors_total "$L,kind=\"timeout\"")
  [ "$timeouts" -ge 1 ] && break
  sleep 0.1
done
[ "$timeouts" -ge 1 ] || fail "no timeout counted"
runs=$(sample_value "$OUT" diskperf_probe_runs_total "$L")
sleep 2.5
scrape_timed
runs2=$(sample_value "$OUT" diskperf_probe_runs_total "$L")
timeouts2=$(sample_value "$OUT" diskperf_probe_errors_total "$L,kind=\"timeout\"")
iops=$(sample_value "$OUT" diskperf_probe_last_iops "$L,op=\"read\"")
log "runs $runs -> $runs2, timeouts $timeouts -> $timeouts2, last IOPS $iops"
[ "$runs2" -ge "$((runs + 1))" ] || fail "no new run after recovery"
[ "$timeouts2" = "$timeouts" ] || fail "new timeouts after recovery"
awk -v i="$iops" 'BEGIN { exit !(i > 100) }' || fail "last run IOPS $iops after recovery"
echo "PASS probe_stall"
