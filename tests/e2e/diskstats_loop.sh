#!/usr/bin/env bash
# End to end on this host: a loop device's read bytes grow by exactly the
# 1 MiB read from it with O_DIRECT, and it is gone once detached.
source "$(dirname "$0")/lib.sh"

truncate -s 64M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
log "attached $dev"
start_exporter "--collector.diskstats.device-include=^(loop[0-9]+|vda)\$"

before=$(scrape)
[ "$(sample_value "$before" diskperf_scrape_collector_success 'collector="diskstats"')" = 1 ] || fail "diskstats collector failed"
b=$(sample_value "$before" diskperf_disk_read_bytes_total "device=\"$dev\"")
r=$(sample_value "$before" diskperf_disk_reads_completed_total "device=\"$dev\"")
[ -n "$b" ] || fail "$dev missing from the first scrape"

dd if="/dev/$dev" of=/dev/null bs=1M count=1 iflag=direct status=none

after=$(scrape)
a=$(sample_value "$after" diskperf_disk_read_bytes_total "device=\"$dev\"")
r2=$(sample_value "$after" diskperf_disk_reads_completed_total "device=\"$dev\"")
[ "$((a - b))" -eq 1048576 ] || fail "read bytes grew by $((a - b)), want 1048576 ($b -> $a)"
[ "$r2" -gt "$r" ] || fail "reads completed did not grow ($r -> $r2)"
# The exporter's value equals the kernel's own counter (field 3 x 512).
sectors=$(awk -v d="$dev" '$3 == d { print $6 }' /proc/diskstats)
[ "$a" -eq "$((sectors * 512))" ] || fail "exported $a bytes, /proc/diskstats says $((sectors * 512))"
log "read bytes $b -> $a (+1048576), reads completed $r -> $r2"

detach_loop "$dev"
gone=$(scrape)
if grep -q "device=\"$dev\"" <<<"$gone"; then fail "$dev still exported after detach"; fi
[ -n "$(sample_value "$gone" diskperf_disk_read_bytes_total 'device="vda"')" ] || fail "vda missing"
echo "PASS diskstats_loop"
