#!/usr/bin/env bash
# The shipped Prometheus files: `promtool check rules` on config/prometheus/diskperf.rules.yml,
# `promtool test rules` on every tests/rules/*.yml (each alert firing and not firing), and
# `promtool check config` on the example fleet configuration (azure_sd_configs).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
command -v promtool >/dev/null || { echo "FAIL: promtool not installed" >&2; exit 1; }
promtool check rules "$here/config/prometheus/diskperf.rules.yml"
cd "$here/tests/rules"
promtool test rules ./*.yml
promtool check config "$here/config/prometheus/prometheus-azure-fleet.yml"
# Every alert of the rules file has a test that expects it to fire.
for a in $(sed -n 's/^ *- alert: //p' "$here/config/prometheus/diskperf.rules.yml"); do
  grep -q "alertname: $a\$" ./*.yml || { echo "FAIL: alert $a has no promtool test" >&2; exit 1; }
  grep -A3 "alertname: $a\$" ./*.yml | grep -q "exp_labels" || { echo "FAIL: alert $a is never tested firing" >&2; exit 1; }
  grep -A2 "alertname: $a\$" ./*.yml | grep -q "exp_alerts: \[\]" || { echo "FAIL: alert $a is never tested not firing" >&2; exit 1; }
done
echo "PASS promtool_rules"
