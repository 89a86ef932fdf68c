#!/usr/bin/env bash
# A write job whose directory already holds something at its probe file path
# that is not the exporter's own file (a symbolic link, a hard link, a FIFO,
# another user's file) is refused when the config is validated: by
# validate-config and by a SIGHUP reload (which keeps the running config),
# with the job's file, line and column; and validation writes nothing.
source "$(dirname "$0")/lib.sh"

dir="$E2E_TMP/probes"
mkdir -p "$dir"
echo "database page" >"$E2E_TMP/db.dat"
sum_before=$(sha256sum "$E2E_TMP/db.dat")
cfg="$E2E_TMP/config.yml"
write_job() { printf 'probes:\n  - name: w\n    target: %s\n    rw: randwrite\n    file_size: 1m\n' "$dir" >"$1"; }
write_job "$cfg"
pf="$dir/.diskperf_probe_w.dat"

# shape NAME: puts that shape at the probe file path.
shape() {
  rm -f "$pf"
  case "$1" in
    symlink) ln -s "$E2E_TMP/db.dat" "$pf" ;;
    hardlink) ln "$E2E_TMP/db.dat" "$pf" ;;
    fifo) mkfifo "$pf" ;;
    other_user) echo x >"$pf" && chown 65534:65534 "$pf" ;;
  esac
}
# listing: what is in the probe directory (name, type, links, size, mtime, owner).
listing() { find "$dir" -mindepth 1 -printf '%f %y %n %s %T@ %U\n' | sort; }
declare -A why=([symlink]="exists and is not a regular file" [hardlink]="has 2 links" [fifo]="exists and is not a regular file"
  [other_user]="is owned by uid 65534")
for s in symlink hardlink fifo other_user; do
  shape "$s"
  before=$(listing)
  if timeout 10 "$DISKPERF_EXPORTER" validate-config "$cfg" >"$E2E_TMP/v.out" 2>"$E2E_TMP/v.err"; then
    fail "validate-config accepted a $s at the probe file path"
  fi
  grep -q "^$cfg:2:5: probe 'w': $pf ${why[$s]}" "$E2E_TMP/v.err" || fail "$s: $(cat "$E2E_TMP/v.err")"
  [ "$before" = "$(listing)" ] || fail "validate-config changed $dir ($s)"
  log "validate-config refused the $s: $(head -n1 "$E2E_TMP/v.err")"
done
rm -f "$pf"
timeout 10 "$DISKPERF_EXPORTER" validate-config "$cfg" >/dev/null || fail "validate-config refused an empty directory"
[ -z "$(ls -A "$dir")" ] || fail "validate-config created $(ls -A "$dir")"
[ "$sum_before" = "$(sha256sum "$E2E_TMP/db.dat")" ] || fail "the linked file changed"

# Reload: the running config (no probes) stays, the error names the job's line and column.
echo "probes: []" >"$cfg"
start_exporter --config "$cfg"
for s in symlink fifo; do
  shape "$s"
  write_job "$cfg"
  n=$(grep -c "config error" "$EXPORTER_LOG" || true)
  kill -HUP "$EXPORTER_PID"
  for _ in $(seq 1 50); do [ "$(grep -c "config error" "$EXPORTER_LOG" || true)" -gt "$n" ] && break; sleep 0.1; done
  grep -q "config error: $cfg:2:5: probe 'w': $pf ${why[$s]}" "$EXPORTER_LOG" || fail "reload with a $s: $(cat "$EXPORTER_LOG")"
  [ "$(sample_value "$(scrape)" diskperf_config_last_reload_successful '')" = 0 ] || fail "reload with a $s succeeded"
  grep -q "^diskperf_probe_runs_total" <<<"$(scrape)" && fail "the refused job runs"
done
[ "$sum_before" = "$(sha256sum "$E2E_TMP/db.dat")" ] || fail "the linked file changed"
rm -f "$pf"
kill -HUP "$EXPORTER_PID"
for _ in $(seq 1 50); do
  [ "$(sample_value "$(scrape)" diskperf_config_last_reload_successful '')" = 1 ] && break
  sleep 0.1
done
[ "$(sample_value "$(scrape)" diskperf_config_last_reload_successful '')" = 1 ] || fail "valid reload refused"
echo "PASS probe_foreign_file"
