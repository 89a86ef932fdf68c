#!/usr/bin/env bash
# End to end on this host's real /sys, with a loop device attached here: the
# queue collector reads `inflight` at every scrape, the device's size from
# /proc/partitions, and its settings when they are due
# (--collector.queue.settings-max-age), or at once when its size changes or the
# daemon reloads; it keeps two descriptors per device (its directory, inflight)
# and no more. Writes only to the loop device's own settings.
source "$(dirname "$0")/lib.sh"

truncate -s 32M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
s=/sys/block/$dev
ra_file=$s/queue/read_ahead_kb
flags=("--collector.diskstats.device-include=^$dev\$" --azure.perfcounters-file= --no-collector.tier)

start_exporter "${flags[@]}" --collector.queue.settings-max-age=1h
out=$(scrape)
ra0=$(cat "$ra_file")
[ "$(sample_value "$out" diskperf_disk_read_ahead_bytes "device=\"$dev\"")" = $((ra0 * 1024)) ] \
  || fail "read_ahead_bytes of $dev is not $ra0 KiB: $(grep "read_ahead_bytes{device=\"$dev\"" <<<"$out")"
[ "$(sample_value "$out" diskperf_disk_size_bytes "device=\"$dev\"")" = 33554432 ] || fail "$dev size before the resize"

# Descriptors the daemon keeps on the device: its directory and inflight (its size is in
# /proc/partitions, read once per scrape for all devices).
grep -q " $dev\$" /proc/partitions || fail "$dev is not in /proc/partitions"
held=$(find "/proc/$EXPORTER_PID/fd" -lname "*/block/$dev*" -printf '%l\n' | sort)
[ "$(wc -l <<<"$held")" = 2 ] || fail "descriptors held on $dev: want 2, got: $held"
grep -q "/block/$dev\$" <<<"$held" && grep -q "/block/$dev/inflight\$" <<<"$held" ||
  fail "descriptors held on $dev: $held"
log "held on $dev: $(tr '\n' ' ' <<<"$held")"

# A setting written by hand: not read again before it is due (max age 1 h).
ra1=$((ra0 == 256 ? 512 : 256))
echo "$ra1" >"$ra_file"
out=$(scrape)
[ "$(sample_value "$out" diskperf_disk_read_ahead_bytes "device=\"$dev\"")" = $((ra0 * 1024)) ] \
  || fail "read_ahead_bytes of $dev changed before it was due"

# A resize: size at once, and the settings are read again in the same scrape.
truncate -s 64M "$E2E_TMP/disk.img"
losetup -c "/dev/$dev"
[ "$(cat "$s/size")" = 131072 ] || fail "$dev was not resized: size $(cat "$s/size")"
out=$(scrape)
[ "$(sample_value "$out" diskperf_disk_size_bytes "device=\"$dev\"")" = 67108864 ] || fail "$dev size after the resize"
[ "$(sample_value "$out" diskperf_disk_read_ahead_bytes "device=\"$dev\"")" = $((ra1 * 1024)) ] \
  || fail "read_ahead_bytes of $dev not read again after the resize"

# Partitions (BLKPG ioctls, as parted and growpart make): a new one shows at the next scrape, and
# so does one resized in place (growpart: the disk and the listing stay the same; the change shows
# in /proc/partitions) or deleted and added again at another start.
part=${dev}p1
expect_part() {  # expect_part START SIZE (512-byte sectors)
  local got_start got_size
  out=$(scrape)
  got_start=$(sample_value "$out" diskperf_disk_partition_start_bytes "device=\"$part\"")
  got_size=$(sample_value "$out" diskperf_disk_size_bytes "device=\"$part\"")
  [ "$got_start $got_size" = "$(($1 * 512)) $(($2 * 512))" ] \
    || fail "$part: start, size $got_start $got_size, want $(($1 * 512)) $(($2 * 512)) ($3)"
}
addpart "/dev/$dev" 1 2048 20480
on_exit "delpart /dev/$dev 1 2>/dev/null || true"
expect_part 2048 20480 "added"
resizepart "/dev/$dev" 1 40960
[ "$(cat "$s/$part/size")" = 40960 ] || fail "$part was not resized"
expect_part 2048 40960 "resized in place"
delpart "/dev/$dev" 1
addpart "/dev/$dev" 1 4096 40960
expect_part 4096 40960 "added again at another start"
delpart "/dev/$dev" 1
out=$(scrape)
[ -z "$(sample_value "$out" diskperf_disk_size_bytes "device=\"$part\"")" ] || fail "$part still exported after delpart"

# A reload (SIGHUP) builds the collectors anew: the settings are read at the next scrape.
ra2=$((ra1 + 128))
echo "$ra2" >"$ra_file"
[ "$(sample_value "$(scrape)" diskperf_disk_read_ahead_bytes "device=\"$dev\"")" = $((ra1 * 1024)) ] \
  || fail "read_ahead_bytes of $dev changed before it was due (after the resize)"
kill -HUP "$EXPORTER_PID"
got=""
for _ in $(seq 1 50); do
  got=$(sample_value "$(scrape)" diskperf_disk_read_ahead_bytes "device=\"$dev\"")
  [ "$got" = $((ra2 * 1024)) ] && break
  sleep 0.1
done
[ "$got" = $((ra2 * 1024)) ] || fail "read_ahead_bytes of $dev after a reload: $got, want $((ra2 * 1024))"

# A max age of 0: a setting written by hand shows at the next scrape.
kill "$EXPORTER_PID"
wait "$EXPORTER_PID" 2>/dev/null || true
start_exporter "${flags[@]}" --collector.queue.settings-max-age=0
scrape >/dev/null
ra3=$((ra2 + 128))
echo "$ra3" >"$ra_file"
out=$(scrape)
[ "$(sample_value "$out" diskperf_disk_read_ahead_bytes "device=\"$dev\"")" = $((ra3 * 1024)) ] \
  || fail "read_ahead_bytes of $dev with a max age of 0: want $((ra3 * 1024))"
echo "$ra0" >"$ra_file"
echo "PASS queue_settings_refresh"
