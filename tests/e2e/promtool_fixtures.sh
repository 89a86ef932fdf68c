#!/usr/bin/env bash
# `promtool check metrics` finds no problem in `diskperf_exporter metrics`
# output on the sysfs fixture trees (queue and topology series of an Azure VM
# with a striped LV, an NVMe RAID0 stack, partition members, garbage values).
source "$(dirname "$0")/lib.sh"
: "${DISKPERF_SYSFS_FIXTURES:?path to the generated sysfs fixture trees}"
procfs="$(dirname "$0")/../fixtures/diskstats/linux-5.5"

for sc in azure nvme-stack partitions; do
  f=$DISKPERF_SYSFS_FIXTURES/$sc
  "$DISKPERF_EXPORTER" metrics "--path.sysfs=$f/sys" "--path.procfs=$procfs" "--path.devfs=$f/dev" \
    "--collector.topology.dm-table-dir=$f/dmtables" "--collector.diskstats.device-include=." >"$E2E_TMP/$sc.txt"
  out=$(promtool check metrics <"$E2E_TMP/$sc.txt" 2>&1) || fail "promtool ($sc): $out"
  [ -z "$out" ] || fail "promtool ($sc) reported: $out"
  for c in queue topology; do
    [ "$(sample_value "$(cat "$E2E_TMP/$sc.txt")" diskperf_scrape_collector_success "collector=\"$c\"")" = 1 ] \
      || fail "$c collector failed on $sc"
  done
  grep -q '^diskperf_volume_member_info' "$E2E_TMP/$sc.txt" || fail "no membership series on $sc"
  log "$sc: $(grep -c '^diskperf_\(disk\|volume\)_' "$E2E_TMP/$sc.txt") queue/topology/diskstats samples, promtool clean"
done
# Without a table directory the live source is used: this fixture devfs has no mapper/control.
f=$DISKPERF_SYSFS_FIXTURES/azure
"$DISKPERF_EXPORTER" metrics "--path.sysfs=$f/sys" "--path.procfs=$procfs" "--path.devfs=$f/dev" >"$E2E_TMP/live.txt"
grep -qF "diskperf_volume_dm_table_available{volume=\"dm-0\",reason=\"no device-mapper control node $f/dev/mapper/control\"} 0" \
  "$E2E_TMP/live.txt" || fail "table-unavailable series missing"
out=$(promtool check metrics <"$E2E_TMP/live.txt" 2>&1) || fail "promtool (live): $out"
[ -z "$out" ] || fail "promtool (live) reported: $out"
echo "PASS promtool_fixtures"
