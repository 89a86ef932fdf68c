#!/usr/bin/env bash
# The probe and fio 3.33 agree on the same shape (8 KiB randread, iodepth 8,
# 3 s) on a loop device throttled to 500 read IOPS: IOPS within 3% of each
# other and of the cap, and each tool's total_ios equals the reads the device
# completed during its run. Each run starts after 0.5 s of idle device, on a
# fresh blk-throttle slice: a run started within one slice (100 ms) of the
# other tool's last I/O inherits that slice's unused credit (up to 50 I/Os
# here, 3%; bench/RESULTS.md).
source "$(dirname "$0")/lib.sh"
: "${JSON_GET:?path to json_get}"
command -v fio >/dev/null || fail "fio is not installed (scripts/install-deps.sh --test)"

truncate -s 256M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup
throttle "$dev" read_iops 500

reads() { awk '{ print $1 + $2 }' "/sys/block/$dev/stat"; }  # reads completed + merged

sleep 0.5
r0=$(reads)
in_cgroup "$DISKPERF_EXPORTER" probe --target "/dev/$dev" --rw randread --bs 8k --iodepth 8 --runtime 3s \
  --output json >"$E2E_TMP/probe.json"
r1=$(reads)
sleep 0.5
r2=$(reads)
in_cgroup fio --name=ref --filename="/dev/$dev" --readonly --ioengine=libaio --direct=1 --rw=randread --bs=8k \
  --iodepth=8 --runtime=3 --time_based --output-format=json >"$E2E_TMP/fio.json"
r3=$(reads)
p=$("$JSON_GET" "$E2E_TMP/probe.json" jobs.0.read.iops)
f=$("$JSON_GET" "$E2E_TMP/fio.json" jobs.0.read.iops)
pn=$("$JSON_GET" "$E2E_TMP/probe.json" jobs.0.read.total_ios)
fn=$("$JSON_GET" "$E2E_TMP/fio.json" jobs.0.read.total_ios)
pb=$("$JSON_GET" "$E2E_TMP/probe.json" jobs.0.read.bw_bytes)
fb=$("$JSON_GET" "$E2E_TMP/fio.json" jobs.0.read.bw_bytes)
log "probe $p IOPS ($pn I/Os, device $((r1 - r0)); $pb B/s), fio $f IOPS ($fn I/Os, device $((r3 - r2)); $fb B/s)"
[ "$pn" -eq "$((r1 - r0))" ] || fail "probe counted $pn I/Os, the device completed $((r1 - r0))"
[ "$fn" -eq "$((r3 - r2))" ] || fail "fio counted $fn I/Os, the device completed $((r3 - r2))"
within_pct "$p" "$f" 3 || fail "probe IOPS $p not within 3% of fio's $f"
within_pct "$p" 500 3 || fail "probe IOPS $p not within 3% of the 500 IOPS cap"
within_pct "$pb" "$fb" 3 || fail "probe bytes/s $pb not within 3% of fio's $fb"
echo "PASS probe_vs_fio"
