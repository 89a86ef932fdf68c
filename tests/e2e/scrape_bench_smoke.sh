#!/usr/bin/env bash
# bench/scrape_vs_node_exporter works end to end (issue 9), on a small fixture so that it takes
# seconds: the generator's host (disks with their queue files, LVM volumes striped over 4 disks),
# both exporters serving it on 127.0.0.1, the scrape loop, and the table of figures and ratios.
# The figures themselves are benchmark results (bench/RESULTS.md), not asserted here.
source "$(dirname "$0")/lib.sh"
: "${DISKPERF_BUILD_DIR:?build directory}"
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v prometheus-node-exporter >/dev/null || fail "prometheus-node-exporter missing (scripts/install-deps.sh --test)"

# The generator: 10 disks (two of them the OS disks), 2 volumes each striped over 4 of the others,
# every queue file of a disk.
fx="$E2E_TMP/fx"
python3 "$root/bench/make_large_host_fixture.py" "$fx" --disks 10 --volumes 2 >/dev/null
[ "$(ls "$fx/sys/block" | grep -c '^sd')" = 10 ] || fail "expected 10 disks in $fx/sys/block"
[ "$(ls "$fx/sys/block" | grep -c '^dm-')" = 2 ] || fail "expected 2 dm volumes"
for f in nr_requests max_sectors_kb read_ahead_kb logical_block_size rotational scheduler; do
  [ -f "$fx/sys/block/sda/queue/$f" ] || fail "sda has no queue/$f"
done
[ "$(ls "$fx/sys/block/dm-0/slaves" | wc -l)" = 4 ] || fail "dm-0 is not over 4 disks"
out=$("$DISKPERF_EXPORTER" metrics --path.procfs="$fx/proc" --path.sysfs="$fx/sys" --path.devfs="$fx/dev" \
  --collector.topology.dm-table-dir="$fx/dmtables" --azure.perfcounters-file= 2>/dev/null)
for v in dm-0 dm-1; do
  [ "$(sample_value "$out" diskperf_volume_dm_stripes "volume=\"$v\",segment=\"0\"")" = 4 ] || fail "$v: stripes is not 4"
  [ "$(grep -c "^diskperf_volume_member_info{volume=\"$v\"" <<<"$out")" = 4 ] || fail "$v: not 4 members"
done

# The benchmark itself, fixture part, 5 scrapes per exporter and mode.
table=$(DISKS=10 VOLUMES=2 SCRAPES=5 WARMUP=1 BUILD_DIR="$DISKPERF_BUILD_DIR" WORK_DIR="$E2E_TMP/work" \
  "$root/bench/scrape_vs_node_exporter" fixture 2>&1) || fail "bench failed: $table"
log "$table"
grep -q "diskperf_exporter exports .* devices: 12 (diskstats)" <<<"$table" || fail "diskperf_exporter does not export the 12 devices"
grep -q "node_exporter exports .* devices: 12 (diskstats)" <<<"$table" || fail "node_exporter does not export the 12 devices"
for mode in plain gzip; do
  for who in diskperf_exporter node_exporter "ratio vs node_expo"; do
    # mode, exporter, then 7 numbers: cpu_ms p50_ms p99_ms max_ms bytes rss_mb hwm_mb
    grep -Eq "^$mode +$who( +[0-9]+(\.[0-9]+)?){7}\$" <<<"$table" || fail "no $mode row for $who"
  done
done
echo "PASS scrape_bench_smoke"
