#!/usr/bin/env bash
# The shipped unit: `systemd-analyze verify` is clean and
# `systemd-analyze security --offline=true` rates its exposure 2.0 or lower.
source "$(dirname "$0")/lib.sh"
unit_src="$(dirname "$0")/../../systemd/diskperf_exporter.service"
command -v systemd-analyze >/dev/null || fail "systemd-analyze missing (Debian package systemd)"

# verify checks that ExecStart exists: point it at the binary under test.
mkdir -p "$E2E_TMP/unit"
unit="$E2E_TMP/unit/diskperf_exporter.service"
sed "s|^ExecStart=/usr/bin/diskperf_exporter|ExecStart=$DISKPERF_EXPORTER|" "$unit_src" >"$unit"
out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify reported: $out"

sec=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
level=$(sed -n 's/.*Overall exposure level for diskperf_exporter.service: \([0-9.]*\).*/\1/p' <<<"$sec")
[ -n "$level" ] || fail "no exposure level in: $sec"
awk -v l="$level" 'BEGIN { exit !(l <= 2.0) }' || fail "exposure level $level > 2.0"
# The hardening the issue names is really there.
for key in Type=notify WatchdogSec= SupplementaryGroups=disk NoNewPrivileges=yes ProtectSystem=strict \
  DevicePolicy=closed SystemCallFilter=@system-service MemoryDenyWriteExecute=yes CapabilityBoundingSet=; do
  grep -q "^$key" "$unit_src" || fail "unit lacks $key"
done
# The probe's libaio system calls pass the unit's filter: allowed by
# @system-service (through @aio) and not denied by ~@privileged @resources.
grep -qE "^\s+@aio$" <<<"$(systemd-analyze syscall-filter @system-service)" || fail "@aio not in @system-service"
allowed=$(systemd-analyze syscall-filter @aio)
denied=$(systemd-analyze syscall-filter @privileged @resources)
for sc in io_setup io_submit io_getevents io_destroy io_cancel; do
  grep -qE "^\s+$sc\$" <<<"$allowed" || fail "$sc is not in @aio"
  grep -qE "^\s+$sc\$" <<<"$denied" && fail "$sc is denied by the unit's ~@privileged @resources"
done
grep -q "^SystemCallFilter=~@privileged @resources$" "$unit_src" || fail "the deny list the test checked is not the unit's"
# Stopping waits about one probe timeout for I/O in flight (plus 2 s): the unit must allow the longest.
max_timeout=$(sed -n 's/.*kMaxProbeTimeout{\([0-9]*\)}.*/\1/p' "$(dirname "$0")/../../probes/probe_job.h")
stop_sec=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)s$/\1/p' "$unit_src")
[ -n "$max_timeout" ] && [ -n "$stop_sec" ] || fail "no kMaxProbeTimeout or TimeoutStopSec=<n>s found"
[ "$stop_sec" -ge $((max_timeout + 10)) ] || fail "TimeoutStopSec=${stop_sec}s does not fit a ${max_timeout}s probe timeout"
echo "exposure level $level"
echo "PASS systemd_unit"
