#!/usr/bin/env bash
# The Azure Instance Metadata Service client when IMDS misbehaves, against the local stand-in
# (tests/tools/fake_imds.py on 127.0.0.1): auto mode off Azure sends no request, on Azure it does;
# a proxy in the environment is not used; 500, 429 and garbage keep the last good document with
# diskperf_azure_imds_up 0 and one log line per failure streak; a hung IMDS never slows a scrape
# (each under 100 ms) and SIGTERM still stops the daemon within 2 s.
source "$(dirname "$0")/lib.sh"
: "${DISKPERF_SOURCE_DIR:?}" "${DISKPERF_SYSFS_FIXTURES:?}"
doc="$DISKPERF_SOURCE_DIR/tests/fixtures/azure/imds/scsi_vm.json"
start_fake_imds "$doc"
url="--azure.imds-url=http://127.0.0.1:$IMDS_PORT"

# The stand-in answers as IMDS does: 400 without the Metadata header, 200 with it.
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$IMDS_PORT/metadata/instance/compute?api-version=2021-05-01")
[ "$code" = 400 ] || fail "fake IMDS without Metadata: true answered $code, want 400"
echo 0 >"$IMDS_COUNT_FILE"

# Auto mode: a sysfs tree whose DMI is not Azure's gets no request; Azure's DMI gets one.
for vendor in "QEMU" "Microsoft Corporation"; do
  root="$E2E_TMP/sys-${vendor// /_}"
  cp -a "$DISKPERF_SYSFS_FIXTURES/azure/sys" "$root"
  mkdir -p "$root/class/dmi/id"
  echo "$vendor" >"$root/class/dmi/id/sys_vendor"
  echo "7783-7084-3265-9085-8269-3286-77" >"$root/class/dmi/id/chassis_asset_tag"
  before=$(imds_requests)
  "$DISKPERF_EXPORTER" metrics "$url" "--path.sysfs=$root" --azure.perfcounters-file= >"$E2E_TMP/m.txt" 2>"$E2E_TMP/m.err"
  after=$(imds_requests)
  if [ "$vendor" = QEMU ]; then
    [ "$after" -eq "$before" ] || fail "auto mode sent $((after - before)) requests to IMDS on a non-Azure host"
    grep -q '^diskperf_azure_imds' "$E2E_TMP/m.txt" && fail "IMDS series on a non-Azure host"
  else
    [ "$after" -eq $((before + 1)) ] || fail "auto mode on an Azure VM sent $((after - before)) requests, want 1"
    [ "$(sample_value "$(cat "$E2E_TMP/m.txt")" diskperf_azure_imds_up "")" = 1 ] || fail "metrics: imds_up not 1"
  fi
done
log "auto mode: no request off Azure, one on Azure"

# A proxy in the environment is never used (IMDS must be reached directly).
http_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 \
  "$DISKPERF_EXPORTER" metrics --azure.imds=on "$url" --azure.perfcounters-file= >"$E2E_TMP/m.txt" 2>&1
[ "$(sample_value "$(cat "$E2E_TMP/m.txt")" diskperf_azure_imds_up "")" = 1 ] || fail "IMDS not reached with a proxy set"

# The one-shot commands end at SIGTERM while IMDS hangs, instead of waiting out the timeout.
echo hang >"$IMDS_MODE_FILE"
for cmd in metrics check; do
  t0=$(date +%s.%N)
  "$DISKPERF_EXPORTER" "$cmd" --azure.imds=on "$url" --azure.imds-timeout=60s --azure.perfcounters-file= \
    >/dev/null 2>&1 &
  pid=$!
  sleep 1
  kill -TERM "$pid"
  rc=0
  wait "$pid" || rc=$?
  took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a - 1 }')
  [ "$rc" -ne 0 ] || fail "$cmd exited 0 after SIGTERM"
  awk -v t="$took" 'BEGIN { exit !(t < 2) }' || fail "$cmd took ${took}s to end at SIGTERM while IMDS hangs"
done
echo ok >"$IMDS_MODE_FILE"
log "metrics and check end at SIGTERM while IMDS hangs"

# The daemon: good document first, then failures.
start_exporter --azure.imds=on "$url" --azure.imds-refresh=10s --azure.imds-timeout=1s --azure.perfcounters-file=
wait_up() {  # wait_up VALUE SECONDS
  for _ in $(seq 1 $(($2 * 2))); do
    [ "$(sample_value "$(scrape)" diskperf_azure_imds_up "")" = "$1" ] && return 0
    sleep 0.5
  done
  fail "diskperf_azure_imds_up did not become $1 within $2 s: $(grep imds "$EXPORTER_LOG" | tail -3)"
}
wait_up 1 5
m=$(scrape)
grep -q '^diskperf_tier_vm_info{vm_size="Standard_E16ds_v5",source="imds"' <<<"$m" ||
  fail "no VM size from IMDS: $(grep diskperf_tier_vm <<<"$m")"
good=$(sample_value "$m" diskperf_azure_imds_last_success_timestamp_seconds "")
for mode in 500 429 garbage; do
  echo "$mode" >"$IMDS_MODE_FILE"
  wait_up 0 25
  m=$(scrape)
  grep -q '^diskperf_tier_vm_info{vm_size="Standard_E16ds_v5",source="imds"' <<<"$m" ||
    fail "IMDS $mode: the last good document was not kept"
  [ "$(sample_value "$m" diskperf_azure_imds_last_success_timestamp_seconds "")" = "$good" ] ||
    fail "IMDS $mode: last success time moved"
  echo ok >"$IMDS_MODE_FILE"
  wait_up 1 25
  good=$(sample_value "$(scrape)" diskperf_azure_imds_last_success_timestamp_seconds "")
  log "IMDS $mode: up 0, last good document kept; up 1 again"
done
warnings=$(grep -c 'azure imds: .*failed' "$EXPORTER_LOG" || true)
[ "$warnings" -eq 3 ] || fail "want one warning per failure streak (3), got $warnings: $(grep imds "$EXPORTER_LOG")"
requests=$(imds_requests)
kill "$EXPORTER_PID"; wait "$EXPORTER_PID" || true

# A hung IMDS: scrapes stay fast and SIGTERM stops the daemon within 2 s.
echo hang >"$IMDS_MODE_FILE"
start_exporter --azure.imds=on "$url" --azure.imds-timeout=60s --azure.perfcounters-file=
sleep 1
slowest=0
for _ in $(seq 1 10); do
  t=$(curl -fsS -o /dev/null -w '%{time_total}' --max-time 5 "http://127.0.0.1:$EXPORTER_PORT/metrics")
  slowest=$(awk -v a="$t" -v b="$slowest" 'BEGIN { print (a > b) ? a : b }')
done
awk -v s="$slowest" 'BEGIN { exit !(s < 0.1) }' || fail "a scrape took ${slowest}s while IMDS hangs (want < 0.1 s)"
[ "$(sample_value "$(scrape)" diskperf_azure_imds_up "")" = 0 ] || fail "imds_up is not 0 while IMDS hangs"
t0=$(date +%s.%N)
kill -TERM "$EXPORTER_PID"
wait "$EXPORTER_PID" || true
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
awk -v t="$took" 'BEGIN { exit !(t < 2) }' ||
  fail "SIGTERM took ${took}s while an IMDS request hangs (want < 2 s): $(tail -3 "$EXPORTER_LOG")"
log "hung IMDS: slowest of 10 scrapes ${slowest}s; SIGTERM to exit ${took}s; $requests requests before"
echo "PASS imds_failures"
