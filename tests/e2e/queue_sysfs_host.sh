#!/usr/bin/env bash
# End to end on this host's real /sys: for a loop device attached here, the
# host's own loop devices and the virtio disk vda, every value the queue
# collector exposes equals what this script reads from the sysfs files.
source "$(dirname "$0")/lib.sh"

truncate -s 32M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
out=$("$DISKPERF_EXPORTER" metrics "--collector.diskstats.device-include=^(loop[0-9]+|vda)\$")
[ "$(sample_value "$out" diskperf_scrape_collector_success 'collector="queue"')" = 1 ] || fail "queue collector failed"
[ "$(sample_value "$out" diskperf_scrape_collector_success 'collector="topology"')" = 1 ] || fail "topology collector failed"

# expect NAME DEVICE WANT: the exported sample equals WANT, or is absent when WANT is empty.
expect() {
  local got
  got=$(sample_value "$out" "$1" "device=\"$2\"")
  [ "$got" = "$3" ] || fail "$1{device=\"$2\"} = '$got', sysfs says '$3'"
}
kb() { [ -r "$1" ] && echo $(($(cat "$1") * 1024)) || true; }
raw() { [ -r "$1" ] && tr -d ' \n' <"$1" || true; }

checked=0
for d in "$dev" loop0 vda; do
  s=/sys/block/$d
  [ -d "$s" ] || fail "$s missing"
  expect diskperf_disk_queue_depth "$d" "$(raw "$s/device/queue_depth")"
  expect diskperf_disk_nr_requests "$d" "$(raw "$s/queue/nr_requests")"
  expect diskperf_disk_max_sectors_bytes "$d" "$(kb "$s/queue/max_sectors_kb")"
  expect diskperf_disk_max_hw_sectors_bytes "$d" "$(kb "$s/queue/max_hw_sectors_kb")"
  expect diskperf_disk_read_ahead_bytes "$d" "$(kb "$s/queue/read_ahead_kb")"
  expect diskperf_disk_logical_block_size_bytes "$d" "$(raw "$s/queue/logical_block_size")"
  expect diskperf_disk_physical_block_size_bytes "$d" "$(raw "$s/queue/physical_block_size")"
  expect diskperf_disk_minimum_io_size_bytes "$d" "$(raw "$s/queue/minimum_io_size")"
  expect diskperf_disk_optimal_io_size_bytes "$d" "$(raw "$s/queue/optimal_io_size")"
  expect diskperf_disk_rotational "$d" "$(raw "$s/queue/rotational")"
  expect diskperf_disk_size_bytes "$d" "$(($(cat "$s/size") * 512))"
  expect diskperf_disk_hw_queues "$d" "$(ls "$s/mq" | wc -l)"
  # In-flight counts move while the host's own disk is busy (other builds, the
  # journal): gather again until the file reads the same just before and just
  # after a gather that exports that value (20 tries at most).
  ok=""
  for _ in $(seq 1 20); do
    read -r r w <"$s/inflight"
    now=$("$DISKPERF_EXPORTER" metrics "--collector.diskstats.device-include=^$d\$")
    read -r r2 w2 <"$s/inflight"
    [ "$r $w" = "$r2 $w2" ] || continue
    [ "$(sample_value "$now" diskperf_disk_inflight_requests "device=\"$d\",op=\"read\"")" = "$r" ] || continue
    [ "$(sample_value "$now" diskperf_disk_inflight_requests "device=\"$d\",op=\"write\"")" = "$w" ] || continue
    ok=1
    break
  done
  [ -n "$ok" ] || fail "$d inflight: exported values never matched $s/inflight in 20 tries"
  sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$s/queue/scheduler")
  wc=$(cat "$s/queue/write_cache")
  model=$( [ -r "$s/device/model" ] && sed 's/^ *//;s/ *$//' "$s/device/model" || true)
  vendor=$( [ -r "$s/device/vendor" ] && sed 's/^ *//;s/ *$//' "$s/device/vendor" || true)
  grep -qF "diskperf_disk_info{device=\"$d\",scheduler=\"$sched\",write_cache=\"$wc\",model=\"$model\",vendor=\"$vendor\"," <<<"$out" \
    || fail "info series of $d: want scheduler=$sched write_cache=$wc model=$model vendor=$vendor; got: $(grep "diskperf_disk_info{device=\"$d\"" <<<"$out")"
  checked=$((checked + 1))
done
# The attached loop device: its size is the backing file's, and it has no SCSI queue depth.
[ "$(sample_value "$out" diskperf_disk_size_bytes "device=\"$dev\"")" = 33554432 ] || fail "$dev size"
[ -z "$(sample_value "$out" diskperf_disk_queue_depth "device=\"$dev\"")" ] || fail "$dev has a queue_depth series"
# No volume on this host: no topology series.
if grep -q '^diskperf_volume_' <<<"$out"; then fail "unexpected volume series"; fi
log "checked $checked devices ($dev loop0 vda) against /sys"

detach_loop "$dev"
gone=$("$DISKPERF_EXPORTER" metrics "--collector.diskstats.device-include=^(loop[0-9]+|vda)\$")
if grep -q "device=\"$dev\"" <<<"$gone"; then fail "$dev still exported after detach"; fi
echo "PASS queue_sysfs_host"
