#!/usr/bin/env bash
# The azure collector end to end: `diskperf_exporter metrics` on both
# PerfCounters samples is `promtool check metrics` clean and has the disks;
# the flag beats the config file; an empty value disables the collector; an
# absent file reports present 0 and the collector succeeds.
source "$(dirname "$0")/lib.sh"
fixtures="$(cd "$(dirname "$0")/../fixtures/azure" && pwd)"

for sample in managed premium-unmanaged; do
  file="$fixtures/PerfCounters.$sample.sample"
  "$DISKPERF_EXPORTER" metrics "--azure.perfcounters-file=$file" >"$E2E_TMP/$sample.txt"
  out=$(promtool check metrics <"$E2E_TMP/$sample.txt" 2>&1) || fail "promtool ($sample): $out"
  [ -z "$out" ] || fail "promtool ($sample) reported: $out"
  text=$(cat "$E2E_TMP/$sample.txt")
  [ "$(sample_value "$text" diskperf_azure_disk_sla_iops 'device="sdc"')" = 7500 ] || fail "$sample: sdc SLA IOPS"
  grep -q '^diskperf_azure_perfcounters_present 1$' "$E2E_TMP/$sample.txt" || fail "$sample: not present"
  grep -q '^diskperf_scrape_collector_success{collector="azure"} 1$' "$E2E_TMP/$sample.txt" ||
    fail "$sample: collector failed"
  [ "$(grep -c '^diskperf_azure_disk_info{' "$E2E_TMP/$sample.txt")" = 5 ] || fail "$sample: not 5 disks"
done
grep -q '^diskperf_azure_storage_ops{storage_account="samplestd01",op="write"} 1840$' \
  "$E2E_TMP/premium-unmanaged.txt" || fail "storage account ops"

# Config file sets the path; the flag wins over it; '' disables.
printf 'collectors:\n  azure:\n    perfcounters_file: %s\n' "$fixtures/PerfCounters.managed.sample" >"$E2E_TMP/c.yml"
"$DISKPERF_EXPORTER" metrics --config "$E2E_TMP/c.yml" >"$E2E_TMP/cfg.txt"
grep -q 'disk_name="vm-sample-01-datadisk00"' "$E2E_TMP/cfg.txt" || fail "config path not used"
"$DISKPERF_EXPORTER" metrics --config "$E2E_TMP/c.yml" \
  "--azure.perfcounters-file=$fixtures/PerfCounters.premium-unmanaged.sample" >"$E2E_TMP/flag.txt"
grep -q 'disk_name="vm-sample-01-data00.vhd"' "$E2E_TMP/flag.txt" || fail "flag did not win over config"
"$DISKPERF_EXPORTER" metrics --config "$E2E_TMP/c.yml" --azure.perfcounters-file= >"$E2E_TMP/off.txt"
! grep -q 'diskperf_azure_' "$E2E_TMP/off.txt" || fail "empty flag did not disable the collector"
! grep -q 'collector="azure"' "$E2E_TMP/off.txt" || fail "disabled collector still runs"

# Absent file: present 0, success, nothing at warning level.
"$DISKPERF_EXPORTER" metrics "--azure.perfcounters-file=$E2E_TMP/none/PerfCounters" \
  >"$E2E_TMP/absent.txt" 2>"$E2E_TMP/absent.log"
grep -q '^diskperf_azure_perfcounters_present 0$' "$E2E_TMP/absent.txt" || fail "absent: present not 0"
grep -q '^diskperf_scrape_collector_success{collector="azure"} 1$' "$E2E_TMP/absent.txt" || fail "absent: failed"
! grep -Eiq 'warn|error' "$E2E_TMP/absent.log" || fail "absent file logged: $(cat "$E2E_TMP/absent.log")"
out=$(promtool check metrics <"$E2E_TMP/absent.txt" 2>&1) || fail "promtool (absent): $out"
echo "PASS azure_perfcounters"
