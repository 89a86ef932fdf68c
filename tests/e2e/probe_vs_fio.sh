#!/usr/bin/env bash
# The probe and fio 3.33 agree on the same shape (8 KiB randread, iodepth 8,
# 3 s) on a loop device throttled to 500 read IOPS: IOPS within 10%.
source "$(dirname "$0")/lib.sh"
: "${JSON_GET:?path to json_get}"
command -v fio >/dev/null || fail "fio is not installed (scripts/install-deps.sh --test)"

truncate -s 256M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup
throttle "$dev" read_iops 500

in_cgroup "$DISKPERF_EXPORTER" probe --target "/dev/$dev" --rw randread --bs 8k --iodepth 8 --runtime 3s \
  --output json >"$E2E_TMP/probe.json"
in_cgroup fio --name=ref --filename="/dev/$dev" --readonly --ioengine=libaio --direct=1 --rw=randread --bs=8k \
  --iodepth=8 --runtime=3 --time_based --output-format=json >"$E2E_TMP/fio.json"
p=$("$JSON_GET" "$E2E_TMP/probe.json" jobs.0.read.iops)
f=$("$JSON_GET" "$E2E_TMP/fio.json" jobs.0.read.iops)
pb=$("$JSON_GET" "$E2E_TMP/probe.json" jobs.0.read.bw_bytes)
fb=$("$JSON_GET" "$E2E_TMP/fio.json" jobs.0.read.bw_bytes)
log "probe $p IOPS ($pb B/s), fio $f IOPS ($fb B/s)"
within_pct "$p" "$f" 10 || fail "probe IOPS $p not within 10% of fio's $f"
within_pct "$pb" "$fb" 10 || fail "probe bytes/s $pb not within 10% of fio's $fb"
echo "PASS probe_vs_fio"
