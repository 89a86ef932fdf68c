#!/usr/bin/env bash
# Configs far past the caps: 699,000 list items in 4 MB, and 200,000 probes of
# one name. validate-config, a start and a SIGHUP reload each print or log at
# most 20 errors plus one line counting the rest, and peak memory stays under
# 10 x the file size + 30 MB. A config of 999 duplicate names (within the caps)
# reports its first 20 errors and one line with the count of the other 978.
source "$(dirname "$0")/lib.sh"

items="$E2E_TMP/items.yml"
dupes="$E2E_TMP/dupes.yml"
within="$E2E_TMP/within.yml"
# repeat N LINE: LINE N times.
repeat() { awk -v n="$1" -v l="$2" 'BEGIN { for (i = 0; i < n; i++) print l }'; }
{ echo "probes:"; repeat 699000 "  - x"; } >"$items"
{ echo "probes:"; repeat 200000 "- name: a"; } >"$dupes"
{ echo "probes:"; repeat 999 "- {name: a, target: /dev/null}"; } >"$within"

# rss_limit_kb FILE: 10 x the file size + 30 MB, in KiB.
rss_limit_kb() { echo $(($(stat -c %s "$1") * 10 / 1024 + 30 * 1024)); }
# measure FILE ARGS...: runs the exporter under /usr/bin/time -v; sets LINES (lines it wrote to
# stdout and stderr) and RSS_KB (peak resident set). It must fail.
measure() {
  local f=$1
  shift
  if /usr/bin/time -v -o "$E2E_TMP/time.txt" timeout 60 "$DISKPERF_EXPORTER" "$@" >"$E2E_TMP/out.txt" 2>&1; then
    fail "accepted $f: $(head -n 5 "$E2E_TMP/out.txt")"
  fi
  LINES=$(wc -l <"$E2E_TMP/out.txt")
  RSS_KB=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$E2E_TMP/time.txt")
}

for f in "$items" "$dupes"; do
  limit=$(rss_limit_kb "$f")
  measure "$f" validate-config "$f"
  log "validate-config $(basename "$f") ($(stat -c %s "$f") bytes): $LINES lines, peak RSS ${RSS_KB} KiB"
  [ "$LINES" -le 21 ] || fail "validate-config wrote $LINES lines: $(head -n 3 "$E2E_TMP/out.txt")"
  [ "$RSS_KB" -le "$limit" ] || fail "validate-config peak RSS ${RSS_KB} KiB > ${limit} KiB"
  grep -q "^$f:1002:[0-9]*: more than 1000 probe jobs" "$E2E_TMP/out.txt" || fail "no cap error: $(head -n 3 "$E2E_TMP/out.txt")"
  measure "$f" --web.listen-address=127.0.0.1:0 --config "$f"
  log "start with $(basename "$f"): $LINES log lines, peak RSS ${RSS_KB} KiB"
  [ "$LINES" -le 23 ] || fail "start logged $LINES lines: $(head -n 3 "$E2E_TMP/out.txt")"
  [ "$RSS_KB" -le "$limit" ] || fail "start peak RSS ${RSS_KB} KiB > ${limit} KiB"
done

measure "$within" validate-config "$within"
log "validate-config of 999 duplicate names: $LINES lines"
[ "$LINES" -eq 21 ] || fail "expected 20 errors and a count, got $LINES lines: $(cat "$E2E_TMP/out.txt")"
[ "$(grep -c "duplicate probe name 'a'" "$E2E_TMP/out.txt")" = 20 ] || fail "not the first 20 errors"
tail -n 1 "$E2E_TMP/out.txt" | grep -qx "$within: 978 more error(s) not shown (the first 20 are)" ||
  fail "last line: $(tail -n 1 "$E2E_TMP/out.txt")"

# Reload: the daemon keeps running; the log grows by the capped errors and a few lines.
cfg="$E2E_TMP/config.yml"
echo "probes: []" >"$cfg"
start_exporter --config "$cfg"
for f in "$items" "$dupes" "$within"; do
  before=$(wc -l <"$EXPORTER_LOG")
  cp "$f" "$cfg"
  kill -HUP "$EXPORTER_PID"
  for _ in $(seq 1 100); do grep -q "rejected; the running config stays" <(tail -n +"$((before + 1))" "$EXPORTER_LOG") && break; sleep 0.1; done
  added=$(($(wc -l <"$EXPORTER_LOG") - before))
  hwm=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$EXPORTER_PID/status")
  log "reload with $(basename "$f"): $added log lines, daemon peak RSS ${hwm} KiB"
  [ "$added" -le 23 ] || fail "reload logged $added lines"
  [ "$hwm" -le "$(rss_limit_kb "$f")" ] || fail "daemon peak RSS ${hwm} KiB after reloading $(basename "$f")"
  [ "$(sample_value "$(scrape)" diskperf_config_last_reload_successful '')" = 0 ] || fail "reload accepted"
done
echo "PASS bad_input_big"
