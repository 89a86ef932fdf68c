#!/usr/bin/env bash
# A real Prometheus server on 127.0.0.1 scrapes the daemon every second; its
# HTTP API reports up == 1 and the loop device's reads-completed series.
source "$(dirname "$0")/lib.sh"

truncate -s 16M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
start_exporter "--collector.diskstats.device-include=^(loop[0-9]+|vda)\$"
dd if="/dev/$dev" of=/dev/null bs=4k count=10 iflag=direct status=none

start_prometheus
up="" series=""
for _ in $(seq 1 60); do
  up=$(query 'up{job="diskperf"}')
  series=$(query "diskperf_disk_reads_completed_total{device=\"$dev\"}")
  if grep -q '"value":\[[0-9.]*,"1"\]' <<<"$up" && grep -q "\"device\":\"$dev\"" <<<"$series"; then break; fi
  sleep 1
done
grep -q '"value":\[[0-9.]*,"1"\]' <<<"$up" || { tail -20 "$PROM_LOG" >&2; fail "up != 1: $up"; }
grep -q "\"device\":\"$dev\"" <<<"$series" || fail "no reads-completed series for $dev: $series"
reads=$(sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p' <<<"$series")
[ "$reads" -ge 10 ] || fail "Prometheus saw $reads reads completed on $dev, want >= 10"
log "Prometheus: up=1, diskperf_disk_reads_completed_total{device=\"$dev\"}=$reads"
echo "PASS prometheus_scrape"
