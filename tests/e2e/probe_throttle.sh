#!/usr/bin/env bash
# The probe measures what a blkio cgroup v1 throttle lets through, on a loop
# device over a temp file: 500 read IOPS (8 KiB randread, iodepth 8, 3 s) and
# 20 MB/s (256 KiB reads): reported IOPS and bytes/s within 10% of the caps.
source "$(dirname "$0")/lib.sh"
: "${JSON_GET:?path to json_get}"

truncate -s 256M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup

throttle "$dev" read_iops 500
in_cgroup "$DISKPERF_EXPORTER" probe --target "/dev/$dev" --rw randread --bs 8k --iodepth 8 --runtime 3s \
  --output json >"$E2E_TMP/iops.json"
iops=$("$JSON_GET" "$E2E_TMP/iops.json" jobs.0.read.iops)
ios=$("$JSON_GET" "$E2E_TMP/iops.json" jobs.0.read.total_ios)
log "500 IOPS cap: probe reports $iops IOPS ($ios I/Os)"
within_pct "$iops" 500 10 || fail "probe IOPS $iops not within 10% of 500"
[ "$("$JSON_GET" "$E2E_TMP/iops.json" jobs.0.read.io_bytes)" -eq "$((ios * 8192))" ] || fail "io_bytes != total_ios x 8 KiB"
p99=$("$JSON_GET" "$E2E_TMP/iops.json" "jobs.0.read.clat_ns.percentile.[99.000000]")
[ -n "$p99" ] && [ "$p99" -gt 0 ] || fail "no clat p99"

throttle "$dev" read_iops 0
throttle "$dev" read_bps 20000000
in_cgroup "$DISKPERF_EXPORTER" probe --target "/dev/$dev" --rw read --bs 256k --iodepth 4 --runtime 3s \
  --output json >"$E2E_TMP/bps.json"
bw=$("$JSON_GET" "$E2E_TMP/bps.json" jobs.0.read.bw_bytes)
log "20 MB/s cap: probe reports $bw bytes/s"
within_pct "$bw" 20000000 10 || fail "probe bytes/s $bw not within 10% of 20000000"
echo "PASS probe_throttle"
