#!/usr/bin/env bash
# A device whose kernel name holds '/' (cciss/c0d0, sysfs: cciss!c0d0) has one name in every
# collector: a real Prometheus, scraping the daemon on the `cciss` fixture tree, joins its queue
# and diskstats series, and its volume's member, on their labels. The series carry the NUL of
# the fixture's vendor string as U+FFFD (the scrape would fail on an invalid label value).
source "$(dirname "$0")/lib.sh"
: "${DISKPERF_SYSFS_FIXTURES:?the generated sysfs fixture trees}"
fx="$DISKPERF_SYSFS_FIXTURES/cciss"
[ -d "$fx/sys/block" ] || fail "no fixture tree at $fx (build the sysfs_fixtures target)"

start_exporter "--path.procfs=$fx/proc" "--path.sysfs=$fx/sys" "--path.devfs=$fx/dev" \
  "--collector.topology.dm-table-dir=$fx/dmtables" --azure.perfcounters-file=
text=$(scrape)
grep -q '^diskperf_disk_reads_completed_total{device="cciss/c0d0"} 51234$' <<<"$text" ||
  fail "no diskstats series for cciss/c0d0: $(grep reads_completed <<<"$text")"
! grep -q 'cciss!' <<<"$text" || fail "the sysfs spelling leaks: $(grep 'cciss!' <<<"$text" | head -3)"

start_prometheus
# results EXPR: the number of series of an instant query, once Prometheus has scraped.
results() { query "$1" | jq -r '.data.result | length' 2>/dev/null || echo 0; }
join='diskperf_disk_reads_completed_total * on(device) group_left(vendor) diskperf_disk_info{device="cciss/c0d0"}'
for _ in $(seq 1 60); do
  [ "$(results "$join")" = 1 ] && break
  sleep 1
done
answer=$(query "$join")
[ "$(jq -r '.data.result | length' <<<"$answer")" = 1 ] || { tail -20 "$PROM_LOG" >&2; fail "join on(device): $answer"; }
[ "$(jq -r '.data.result[0].metric.device' <<<"$answer")" = cciss/c0d0 ] || fail "joined device: $answer"
[ "$(jq -r '.data.result[0].value[1]' <<<"$answer")" = 51234 ] || fail "joined value: $answer"
[ "$(jq -r '.data.result[0].metric.vendor' <<<"$answer")" = $'HP\uFFFDCOMPAQ' ] || fail "vendor label: $answer"
log "diskstats x queue on(device): $(jq -c '.data.result[0].metric' <<<"$answer")"

# The same join with the queue's size gauge, and with the volume's member disk.
size='diskperf_disk_size_bytes * on(device) diskperf_disk_reads_completed_total{device="cciss/c0d0"}'
[ "$(results "$size")" = 1 ] || fail "size x reads on(device): $(query "$size")"
member='label_replace(diskperf_disk_reads_completed_total, "member_disk", "$1", "device", "(.+)")
  * on(member_disk) group_right diskperf_volume_member_info{volume="dm-0"}'
[ "$(results "$member")" = 1 ] || fail "reads x member_info on(member_disk): $(query "$member")"
echo "PASS device_names_promql"
