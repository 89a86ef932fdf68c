#!/usr/bin/env bash
# The PromQL of docs/topology.md gives a striped volume's per-member IOPS and
# the busiest member's share (promtool test rules on synthetic series: sdc
# does 100 + 50 IOPS, sdd and sde 25 each).
source "$(dirname "$0")/lib.sh"
iops='rate(diskperf_disk_reads_completed_total[5m]) + rate(diskperf_disk_writes_completed_total[5m])'
per_member="label_replace($iops, \"member_disk\", \"\$1\", \"device\", \"(.+)\") * on (member_disk) group_right diskperf_volume_member_info{kind=\"dm\"}"
cat >"$E2E_TMP/rules.yml" <<'Y'
groups: []
Y
cat >"$E2E_TMP/test.yml" <<Y
rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - {series: 'diskperf_disk_reads_completed_total{device="sdc"}', values: '0+6000x10'}
      - {series: 'diskperf_disk_writes_completed_total{device="sdc"}', values: '0+3000x10'}
      - {series: 'diskperf_disk_reads_completed_total{device="sdd"}', values: '0+1500x10'}
      - {series: 'diskperf_disk_writes_completed_total{device="sdd"}', values: '0+0x10'}
      - {series: 'diskperf_disk_reads_completed_total{device="sde"}', values: '0+1500x10'}
      - {series: 'diskperf_disk_writes_completed_total{device="sde"}', values: '0+0x10'}
      - {series: 'diskperf_volume_member_info{volume="dm-0",kind="dm",name="vg_data-lv_data",uuid="LVM-x",member="sdc",member_disk="sdc"}', values: '1x10'}
      - {series: 'diskperf_volume_member_info{volume="dm-0",kind="dm",name="vg_data-lv_data",uuid="LVM-x",member="sdd",member_disk="sdd"}', values: '1x10'}
      - {series: 'diskperf_volume_member_info{volume="dm-0",kind="dm",name="vg_data-lv_data",uuid="LVM-x",member="sde",member_disk="sde"}', values: '1x10'}
    promql_expr_test:
      - expr: '$per_member'
        eval_time: 10m
        exp_samples:
          - {labels: '{volume="dm-0",kind="dm",name="vg_data-lv_data",uuid="LVM-x",member="sdc",member_disk="sdc"}', value: 150}
          - {labels: '{volume="dm-0",kind="dm",name="vg_data-lv_data",uuid="LVM-x",member="sdd",member_disk="sdd"}', value: 25}
          - {labels: '{volume="dm-0",kind="dm",name="vg_data-lv_data",uuid="LVM-x",member="sde",member_disk="sde"}', value: 25}
      - expr: 'max by (volume, name) ($per_member) / sum by (volume, name) ($per_member)'
        eval_time: 10m
        exp_samples:
          - {labels: '{volume="dm-0",name="vg_data-lv_data"}', value: 0.75}
Y
out=$(cd "$E2E_TMP" && promtool test rules test.yml 2>&1) || fail "promtool test rules: $out"
echo "PASS topology_promql"
