#!/usr/bin/env bash
# Zero-configuration caps from the Azure Instance Metadata Service, end to end, without a tiers:
# section: a loop device throttled by blkio to a P10's caps (500 IOPS, 100 MB/s) is LUN 0 of a
# devfs tree (disk/azure/data/by-lun/0, as azure-vm-utils' udev rules make it); a local stand-in
# for IMDS (tests/tools/fake_imds.py on 127.0.0.1) says LUN 0 is a 1024 GB Premium_LRS disk (P30):
# with the shipped rules and a real Prometheus ProbeBelowTier fires; told 128 GB (P10) it stays
# silent. `check` with no disk arguments exits 1, then 0.
source "$(dirname "$0")/lib.sh"
: "${JSON_GET:?path to json_get}" "${DISKPERF_SOURCE_DIR:?}"
fixtures="$DISKPERF_SOURCE_DIR/tests/fixtures/azure/imds"

truncate -s 512M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup
throttle "$dev" read_iops 500
throttle "$dev" read_bps 100000000

# devfs: the node under its kernel name and azure-vm-utils' LUN link, nothing else.
mkdir -p "$E2E_TMP/dev/disk/azure/data/by-lun"
ln -s "/dev/$dev" "$E2E_TMP/dev/$dev"
ln -s "../../../../$dev" "$E2E_TMP/dev/disk/azure/data/by-lun/0"

cp "$fixtures/p30_lun0.json" "$E2E_TMP/imds.json"
start_fake_imds "$E2E_TMP/imds.json"
imds=(--azure.imds=on "--azure.imds-url=http://127.0.0.1:$IMDS_PORT" --azure.imds-refresh=10s
  "--path.devfs=$E2E_TMP/dev" --azure.perfcounters-file=)

cat >"$E2E_TMP/config.yml" <<YML
collectors:
  diskstats:
    device_include: '^$dev\$'
probes:
  - name: cap
    preset: cap_iops
    target: /dev/$dev
    runtime: 1s
    interval: 3s
    max_duty_cycle: 0.5
YML

start_exporter_in_cgroup --config "$E2E_TMP/config.yml" "${imds[@]}"

caps_are() {  # caps_are IOPS: waits up to 20 s for the disk's IOPS cap
  local m=""
  for _ in $(seq 1 40); do
    m=$(scrape)
    [ "$(sample_value "$m" diskperf_tier_disk_iops_cap "device=\"$dev\"")" = "$1" ] && return 0
    sleep 0.5
  done
  grep -E 'diskperf_(tier_disk|azure_imds)' <<<"$m" >&2 || true
  fail "no IOPS cap $1 for $dev"
}
caps_are 5000
m=$(scrape)
grep -q "^diskperf_tier_disk_info{device=\"$dev\",tier=\"P30\",family=\"premium_ssd\",source=\"imds\"" <<<"$m" ||
  fail "no IMDS tier info for $dev: $(grep diskperf_tier_disk_info <<<"$m")"
[ "$(sample_value "$m" diskperf_azure_imds_up "")" = 1 ] || fail "diskperf_azure_imds_up is not 1"
[ "$(sample_value "$m" diskperf_tier_vm_uncached_iops_cap "")" = 25600 ] || fail "no Standard_E16ds_v5 VM cap"
promtool check metrics <<<"$m" || fail "promtool check metrics with IMDS series"

sed -E 's/^( *)for: [0-9]+m$/\1for: 5s/' "$DISKPERF_SOURCE_DIR/config/prometheus/diskperf.rules.yml" >"$E2E_TMP/rules.yml"
start_prometheus "$E2E_TMP/rules.yml"
alerts() {  # alerts PROMQL: how many series the query returns
  printf '%s' "$(query "$1")" >"$E2E_TMP/q.json"
  local n=0
  while "$JSON_GET" "$E2E_TMP/q.json" "data.result.$n" >/dev/null 2>&1; do n=$((n + 1)); done
  echo "$n"
}
start=$(date +%s) fired=""
for _ in $(seq 1 90); do
  if [ "$(alerts 'ALERTS{alertname="ProbeBelowTier",alertstate="firing"}')" -ge 1 ]; then
    fired=$(($(date +%s) - start)); break
  fi
  sleep 1
done
[ -n "$fired" ] || { tail -5 "$PROM_LOG" >&2; fail "ProbeBelowTier did not fire within 90 s with IMDS saying P30"; }
log "IMDS says P30: ProbeBelowTier fired after ${fired}s"

# IMDS now says 128 GB: a P10. The daemon asks again within its 10 s refresh.
cp "$fixtures/p10_lun0.json" "$E2E_TMP/imds.json"
caps_are 500
changed=$(date +%s) resolved=""
for _ in $(seq 1 60); do
  if [ "$(alerts 'ALERTS{alertname="ProbeBelowTier"}')" -eq 0 ]; then resolved=$(($(date +%s) - changed)); break; fi
  sleep 1
done
[ -n "$resolved" ] || fail "ProbeBelowTier still active 60 s after IMDS said P10"
sleep 15
[ "$(alerts 'max_over_time(ALERTS{alertname="ProbeBelowTier"}[12s])')" -eq 0 ] ||
  fail "ProbeBelowTier pending or firing with IMDS saying P10"
log "IMDS says P10: alert resolved after ${resolved}s and stayed silent"
kill "$EXPORTER_PID"; wait "$EXPORTER_PID" || true

# check with no disk arguments: the disks IMDS names.
set +e
cp "$fixtures/p30_lun0.json" "$E2E_TMP/imds.json"
in_cgroup "$DISKPERF_EXPORTER" check "${imds[@]}" --runtime 3s --output json >"$E2E_TMP/p30.json" 2>"$E2E_TMP/p30.err"
rc30=$?
cp "$fixtures/p10_lun0.json" "$E2E_TMP/imds.json"
in_cgroup "$DISKPERF_EXPORTER" check "${imds[@]}" --runtime 6s >"$E2E_TMP/p10.txt" 2>"$E2E_TMP/p10.err"
rc10=$?
set -e
cat "$E2E_TMP/p30.err" "$E2E_TMP/p10.err" "$E2E_TMP/p10.txt" >&2
[ "$rc30" -eq 1 ] || fail "check, IMDS P30: exit $rc30, want 1: $(cat "$E2E_TMP/p30.json")"
[ "$("$JSON_GET" "$E2E_TMP/p30.json" disks.0.device)" = "$dev" ] || fail "check, IMDS P30: device"
[ "$("$JSON_GET" "$E2E_TMP/p30.json" disks.0.source)" = imds ] || fail "check, IMDS P30: source"
[ "$("$JSON_GET" "$E2E_TMP/p30.json" disks.0.verdict)" = below ] || fail "check, IMDS P30: verdict"
[ "$rc10" -eq 0 ] || fail "check, IMDS P10: exit $rc10, want 0"
grep -Eq "^$dev +[^ ]+ +P10 .* (meets|bursting)\$" "$E2E_TMP/p10.txt" || fail "check, IMDS P10: no P10 row"
echo "PASS imds_tier_alert"
