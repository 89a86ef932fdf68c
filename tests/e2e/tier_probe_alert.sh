#!/usr/bin/env bash
# The main end-to-end test of the tier caps (issue 6), on real parts:
#  - a loop device throttled by a blkio cgroup to a P10's caps (500 IOPS, 100 MB/s);
#  - the daemon, run in that cgroup, configures it as a P30 (5000 IOPS, 200 MB/s) with a
#    cap-seeking probe job (preset cap_iops: 4 KiB randread, iodepth 256);
#  - a real Prometheus on 127.0.0.1 with the shipped rules (the `for:` durations shortened to 5 s)
#    scrapes it every second: ProbeBelowTier must fire within 60 s;
#  - every PromQL expression of the shipped Grafana dashboard runs against that Prometheus: all
#    valid, and the main panels return data;
#  - configured as a P10 (SIGHUP reload), ProbeBelowTier resolves and stays silent (neither
#    pending nor firing) while the probe delivers >= 90% of what the P10 allows;
#  - `check --disk /dev/loopN=P30` says below (exit 1), `=P10` meets (exit 0), a bad path exit 2.
source "$(dirname "$0")/lib.sh"
: "${JSON_GET:?path to json_get}" "${DASHBOARD_EXPRS:?path to dashboard_exprs}" "${DISKPERF_SOURCE_DIR:?}"

truncate -s 512M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
blkio_cgroup
throttle "$dev" read_iops 500
throttle "$dev" read_bps 100000000

write_config() {  # write_config TIER
  cat >"$E2E_TMP/config.yml" <<YML
collectors:
  diskstats:
    device_include: '^$dev\$'
  azure:
    perfcounters_file: ''
tiers:
  disks:
    - {device: $dev, tier: $1}
probes:
  - name: cap
    preset: cap_iops
    target: /dev/$dev
    runtime: 1s
    interval: 3s
    max_duty_cycle: 0.5
YML
}
write_config P30

# The daemon, in the throttled cgroup.
start_exporter_in_cgroup --config "$E2E_TMP/config.yml"
m=$(scrape)
[ "$(sample_value "$m" diskperf_tier_disk_iops_cap "device=\"$dev\"")" = 5000 ] || fail "no P30 IOPS cap for $dev"
[ "$(sample_value "$m" diskperf_tier_disk_burst_iops_cap "device=\"$dev\"")" = "" ] || fail "P30 bursts without bursting: true"
grep -q "^diskperf_tier_disk_info{device=\"$dev\",tier=\"P30\",family=\"premium_ssd\",source=\"builtin\"" <<<"$m" ||
  fail "no tier info for $dev"
promtool check metrics <<<"$m" || fail "promtool check metrics on the tier series"
[ "$(sample_value "$m" diskperf_tier_probe_iops_cap 'probe="cap",target="/dev/'"$dev"'"')" = 5000 ] ||
  fail "no probe cap: $(grep diskperf_tier_probe <<<"$m" || true)"

# Prometheus with the shipped rules, `for:` shortened.
sed -E 's/^( *)for: [0-9]+m$/\1for: 5s/' "$DISKPERF_SOURCE_DIR/config/prometheus/diskperf.rules.yml" >"$E2E_TMP/rules.yml"
grep -q 'for: 10m' "$E2E_TMP/rules.yml" && fail "for: not overridden"
start_prometheus "$E2E_TMP/rules.yml"
result_count() {  # result_count JSON
  printf '%s' "$1" >"$E2E_TMP/q.json"
  local n=0
  while "$JSON_GET" "$E2E_TMP/q.json" "data.result.$n" >/dev/null 2>&1; do n=$((n + 1)); done
  echo "$n"
}
value_of() { printf '%s' "$1" >"$E2E_TMP/q.json"; "$JSON_GET" "$E2E_TMP/q.json" data.result.0.value.1 2>/dev/null || true; }

firing='ALERTS{alertname="ProbeBelowTier",alertstate="firing"}'
start=$(date +%s)
fired=""
for _ in $(seq 1 90); do
  r=$(query "$firing")
  if [ "$(result_count "$r")" -ge 1 ]; then fired=$(($(date +%s) - start)); break; fi
  sleep 1
done
ratio=$(value_of "$(query 'diskperf:probe_reachable_iops:ratio')")
iops=$(value_of "$(query 'diskperf:probe_iops:last')")
[ -n "$fired" ] || { tail -5 "$PROM_LOG" >&2; fail "ProbeBelowTier did not fire within 90 s (ratio $ratio)"; }
log "configured as P30: ProbeBelowTier fired after ${fired}s; probe $iops IOPS = $ratio of 5000"
[ "$fired" -le 60 ] || fail "ProbeBelowTier took ${fired}s (> 60 s)"
r=$(query "$firing")
printf '%s' "$r" >"$E2E_TMP/q.json"
[ "$("$JSON_GET" "$E2E_TMP/q.json" data.result.0.metric.tier)" = P30 ] || fail "alert labels: $r"
[ "$("$JSON_GET" "$E2E_TMP/q.json" data.result.0.metric.device)" = "$dev" ] || fail "alert labels: $r"

# The dashboard: every expression valid; the main panels return data.
main_panels=("IOPS per disk (dashed: tier cap)" "Throughput per disk (dashed: tier cap)"
  "Consumed % of the IOPS and throughput caps" "Average latency per I/O (await)"
  "Average queue size (aqu-sz) and I/Os in flight" "Tiers and caps"
  "Probe completion latency percentiles (last run)" "Probe completion latency (histogram)"
  "Probe IOPS against what the tier allows" "Probe results (last run)")
"$DASHBOARD_EXPRS" "$DISKPERF_SOURCE_DIR/config/grafana/diskperf.json" >"$E2E_TMP/exprs.tsv"
n_expr=0 n_data=0
while IFS=$'\t' read -r title ref expr; do
  q=${expr//'$__rate_interval'/1m}
  q=${q//'$instance'/.+}
  q=${q//'$device'/.+}
  q=${q//'$volume'/.+}
  r=$(curl -sS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$q")
  grep -q '"status":"success"' <<<"$r" || fail "dashboard panel '$title' $ref: invalid PromQL: $q -> $r"
  n_expr=$((n_expr + 1))
  c=$(result_count "$r")
  [ "$c" -gt 0 ] && n_data=$((n_data + 1))
  for p in "${main_panels[@]}"; do
    if [ "$p" = "$title" ] && [ "$ref" = A ] && [ "$c" -eq 0 ]; then fail "main panel '$title' returns no data: $q"; fi
  done
  if [ "$ref" = var ] && [ "$c" -eq 0 ]; then
    [ "$title" = '$volume' ] || fail "variable $title returns no data: $q"  # no volume in this test
  fi
done <"$E2E_TMP/exprs.tsv"
[ "$n_expr" -ge 25 ] || fail "only $n_expr expressions found in the dashboard"
log "dashboard: $n_expr expressions valid, $n_data return data, ${#main_panels[@]} main panels checked"

# Configured as P10: the alert resolves and stays silent.
write_config P10
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 30); do
  [ "$(sample_value "$(scrape)" diskperf_tier_disk_iops_cap "device=\"$dev\"")" = 500 ] && break
  sleep 0.5
done
[ "$(sample_value "$(scrape)" diskperf_tier_disk_iops_cap "device=\"$dev\"")" = 500 ] || fail "reload to P10 not applied"
# The first run after a reload may overlap the old configuration's last run (both share the
# cgroup's throttle): start judging after two runs of the new configuration.
for _ in $(seq 1 40); do
  runs=$(sample_value "$(scrape)" diskperf_probe_runs_total 'probe="cap",target="/dev/'"$dev"'"')
  [ "${runs:-0}" -ge 2 ] && break
  sleep 0.5
done
[ "${runs:-0}" -ge 2 ] || fail "the probe did not run twice after the reload"
reloaded=$(date +%s)
resolved=""
for _ in $(seq 1 60); do
  if [ "$(result_count "$(query 'ALERTS{alertname="ProbeBelowTier"}')")" -eq 0 ]; then
    resolved=$(($(date +%s) - reloaded)); break
  fi
  sleep 1
done
[ -n "$resolved" ] || fail "ProbeBelowTier still active 60 s after reconfiguring as P10"
sleep 15  # three 5 s `for:` windows and at least four probe runs
quiet=$(query 'max_over_time(ALERTS{alertname="ProbeBelowTier"}[12s])')
[ "$(result_count "$quiet")" -eq 0 ] ||
  fail "ProbeBelowTier pending or firing as P10: $quiet; ratios: $(query 'diskperf:probe_reachable_iops:ratio[40s]')"
ratio=$(value_of "$(query 'min_over_time(diskperf:probe_reachable_iops:ratio[12s])')")
[ -n "$ratio" ] || fail "no probe ratio as P10"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.9) }' || fail "probe delivered $ratio of a P10 (< 0.9)"
log "configured as P10: alert resolved after ${resolved}s and stayed silent; lowest probe ratio $ratio"

# `check`, with the daemon stopped (its probe would share the cgroup's throttle).
kill "$EXPORTER_PID"; wait "$EXPORTER_PID" || true
set +e
in_cgroup "$DISKPERF_EXPORTER" check --disk "/dev/$dev=P30" --runtime 3s --output json >"$E2E_TMP/p30.json" 2>"$E2E_TMP/p30.err"
rc30=$?
in_cgroup "$DISKPERF_EXPORTER" check --disk "/dev/$dev=P10" --runtime 6s >"$E2E_TMP/p10.txt" 2>"$E2E_TMP/p10.err"
rc10=$?
"$DISKPERF_EXPORTER" check --disk "/nonexistent/disk=P30" --runtime 1s >/dev/null 2>"$E2E_TMP/bad.err"
rcbad=$?
set -e
cat "$E2E_TMP/p30.err" "$E2E_TMP/p10.err" >&2
[ "$rc30" -eq 1 ] || fail "check as P30: exit $rc30, want 1: $(cat "$E2E_TMP/p30.json")"
[ "$("$JSON_GET" "$E2E_TMP/p30.json" disks.0.verdict)" = below ] || fail "check as P30: $(cat "$E2E_TMP/p30.json")"
[ "$("$JSON_GET" "$E2E_TMP/p30.json" disks.0.tier)" = P30 ] || fail "check as P30: tier"
iops30=$("$JSON_GET" "$E2E_TMP/p30.json" disks.0.iops)
within_pct "$iops30" 500 10 || fail "check as P30 measured $iops30 IOPS, want 500 +- 10%"
log "check as P30: exit 1, verdict below, $iops30 IOPS of 5000"
cat "$E2E_TMP/p10.txt" >&2
[ "$rc10" -eq 0 ] || fail "check as P10: exit $rc10, want 0"
grep -Eq "^$dev +- +P10 .* meets\$" "$E2E_TMP/p10.txt" || fail "check as P10: no meets row"
# Without --disk: the disks come from the config's tiers.disks rules (here P10 for the loop device).
set +e
in_cgroup "$DISKPERF_EXPORTER" check --config "$E2E_TMP/config.yml" --runtime 3s >"$E2E_TMP/cfg.txt" 2>&1
rccfg=$?
set -e
cat "$E2E_TMP/cfg.txt" >&2
[ "$rccfg" -eq 0 ] || fail "check --config (P10): exit $rccfg, want 0"
grep -Eq "^$dev +- +P10 .* (meets|bursting)\$" "$E2E_TMP/cfg.txt" || fail "check --config: no P10 row for $dev"
[ "$(grep -c . "$E2E_TMP/cfg.txt")" -eq 2 ] || fail "check --config: want one disk row"
[ "$rcbad" -eq 2 ] || fail "check with a bad path: exit $rcbad, want 2"
grep -q "is not a block device" "$E2E_TMP/bad.err" || fail "check with a bad path: $(cat "$E2E_TMP/bad.err")"
echo "PASS tier_probe_alert"
