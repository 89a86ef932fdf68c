#!/usr/bin/env bash
# A write job (4 KiB randwrite) on a probe file in an ext4 filesystem on a
# loop device over a temp file leaves every other byte the probe could reach
# unchanged, and the exporter's exposition with probe families passes promtool.
#
# How "unchanged" is checked: after the exporter has created and laid out its
# probe file (first run done), we take (1) sha256 of every other file, (2) the
# probe file's physical extents (filefrag), (3) sha256 of every free block of
# the filesystem read from the device (ranges from dumpe2fs). More runs write
# into the file; then the exporter stops and the filesystem is unmounted
# (everything flushed) and (1)-(3) are taken again: other files, free space and
# the probe file's placement must be identical, so every data write landed in
# the probe file's own extents. Filesystem metadata (the inode's mtime, the
# journal) is written by the kernel on the file's behalf and is not compared.
source "$(dirname "$0")/lib.sh"

truncate -s 64M "$E2E_TMP/fs.img"
mkfs.ext4 -q -b 4096 -F "$E2E_TMP/fs.img"
attach_loop "$E2E_TMP/fs.img"
dev=$LOOP_DEV
mnt="$E2E_TMP/mnt"
mkdir -p "$mnt"
mount "/dev/$dev" "$mnt"
on_exit "umount '$mnt'"
mkdir "$mnt/probes" "$mnt/db"
for i in 1 2 3; do head -c $((3 * 1048576 + i * 4096)) /dev/urandom >"$mnt/db/table$i.dat"; done
sync

cat >"$E2E_TMP/config.yml" <<YAML
probes:
  - name: logw
    target: $mnt/probes
    rw: randwrite
    bs: 4k
    iodepth: 4
    runtime: 300ms
    interval: 500ms
    file_size: 4m
    max_duty_cycle: 1
YAML
start_exporter "--config=$E2E_TMP/config.yml" "--collector.diskstats.device-include=^$dev\$"
L="probe=\"logw\",target=\"$mnt/probes\""
wait_runs() {
  for _ in $(seq 1 100); do
    OUT=$(scrape)
    r=$(sample_value "$OUT" diskperf_probe_runs_total "$L")
    [ -n "$r" ] && [ "$r" -ge "$1" ] && return 0
    sleep 0.1
  done
  fail "fewer than $1 runs: $(grep 'probe_' <<<"$OUT" | head -20)"
}
wait_runs 1
probe_file="$mnt/probes/.diskperf_probe_logw.dat"
[ "$(stat -c %s "$probe_file")" -eq $((4 * 1048576)) ] || fail "probe file not laid out"

free_sums() {  # sha256 of every free block on the device, group by group
  dumpe2fs "/dev/$dev" 2>/dev/null | sed -n 's/^  Free blocks: //p' | tr ',' '\n' | tr -d ' ' | grep . |
    while IFS=- read -r a b; do
      dd if="/dev/$dev" bs=4096 skip="$a" count=$((${b:-$a} - a + 1)) iflag=direct status=none
    done | sha256sum
}
snapshot() {
  sync
  (cd "$mnt/db" && sha256sum ./*) >"$E2E_TMP/files.$1"
  filefrag -v "$probe_file" | awk '/^ *[0-9]+:/ { print $4, $5 }' >"$E2E_TMP/extents.$1"
  free_sums >"$E2E_TMP/free.$1"
}
snapshot before
[ -s "$E2E_TMP/extents.before" ] || fail "no extents for the probe file"
wait_runs 4
w=$(sample_value "$OUT" diskperf_probe_ios_total "$L,op=\"write\"")
[ "$w" -gt 0 ] || fail "no writes counted"
e=$(sample_value "$OUT" diskperf_probe_errors_total "$L,kind=\"eio\"")
[ "$e" = 0 ] || fail "EIO during the probe"
scrape >"$E2E_TMP/served.txt"
out=$(promtool check metrics <"$E2E_TMP/served.txt" 2>&1) || fail "promtool: $out"
[ -z "$out" ] || fail "promtool reported: $out"
for n in diskperf_probe_clat_seconds_bucket diskperf_probe_last_clat_seconds diskperf_probe_info \
  diskperf_probe_last_iops diskperf_probe_bytes_total diskperf_probe_last_run_start_timestamp_seconds; do
  grep -q "^$n{" "$E2E_TMP/served.txt" || fail "$n missing"
done
grep -q "^diskperf_probe_info{$L,rw=\"randwrite\",bs=\"4096\",iodepth=\"4\"} 1" "$E2E_TMP/served.txt" ||
  fail "info series wrong: $(grep probe_info "$E2E_TMP/served.txt")"
kill "$EXPORTER_PID"
wait "$EXPORTER_PID" || true
umount "$mnt"
mount -o ro "/dev/$dev" "$mnt"
snapshot after
cmp -s "$E2E_TMP/files.before" "$E2E_TMP/files.after" || fail "another file changed"
cmp -s "$E2E_TMP/extents.before" "$E2E_TMP/extents.after" || fail "the probe file moved or grew"
cmp -s "$E2E_TMP/free.before" "$E2E_TMP/free.after" || fail "free space changed"
log "$w writes; other files, free space and the probe file's extents unchanged"
echo "PASS probe_write_safety"
