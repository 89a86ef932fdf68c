# Shared helpers for the end-to-end tests. Source it; it sets `set -euo pipefail`
# and an EXIT trap that undoes everything registered with on_exit (loop devices,
# processes, temp files), in reverse order, also when a test fails.
set -euo pipefail

: "${DISKPERF_EXPORTER:?path to the diskperf_exporter binary}"
E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/diskperf-e2e.XXXXXX")
_cleanups=("rm -rf '$E2E_TMP'")

on_exit() { _cleanups+=("$1"); }
_run_cleanups() {
  local rc=$?
  local i
  for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[$i]}" >/dev/null 2>&1 || true; done
  exit "$rc"
}
trap _run_cleanups EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "--- $*" >&2; }

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if ! ss -Htln "sport = :$p" | grep -q .; then echo "$p"; return 0; fi
  done
  fail "no free port found"
}

# start_exporter ARGS...: starts the daemon on 127.0.0.1 on a kernel-chosen
# port; sets EXPORTER_PID, EXPORTER_PORT, EXPORTER_LOG.
start_exporter() {
  EXPORTER_LOG="$E2E_TMP/exporter.$RANDOM.log"
  : >"$EXPORTER_LOG"  # exists before the loop below reads it, whenever the background job starts
  "$DISKPERF_EXPORTER" --web.listen-address=127.0.0.1:0 "$@" >"$EXPORTER_LOG" 2>&1 &
  EXPORTER_PID=$!
  on_exit "kill $EXPORTER_PID; wait $EXPORTER_PID"
  for _ in $(seq 1 100); do
    EXPORTER_PORT=$(sed -n 's/.*listening on .* (port \([0-9]*\)).*/\1/p' "$EXPORTER_LOG" | head -n1)
    [ -n "$EXPORTER_PORT" ] && return 0
    kill -0 "$EXPORTER_PID" 2>/dev/null || { cat "$EXPORTER_LOG" >&2; fail "exporter exited at start"; }
    sleep 0.05
  done
  cat "$EXPORTER_LOG" >&2
  fail "exporter did not report its port"
}

scrape() { curl -fsS --max-time 5 "http://127.0.0.1:$EXPORTER_PORT${1:-/metrics}"; }

# sample_value TEXT NAME LABELS: value of the line `NAME{LABELS} V` in TEXT,
# or nothing when absent. LABELS is the exact label text, e.g. device="loop64",
# or empty for a series without labels.
sample_value() {
  local want="$2"
  [ -n "${3:-}" ] && want="$2{$3}"
  awk -v want="$want" '$1 == want { print $2; found = 1 } END { exit !found }' <<<"$1" || true
}

# attach_loop FILE: attaches FILE to a new loop device with direct I/O, numbered
# from 64 up so it never touches the host's own loop devices; sets LOOP_DEV to
# its name (loopN). Detaches and removes the device node on exit. Call it
# directly, not in $(...): the cleanup must be registered in this shell.
attach_loop() {
  local n
  for n in $(seq 64 255); do
    [ -e "/sys/block/loop$n" ] && continue
    losetup --direct-io=on "/dev/loop$n" "$1" || continue
    on_exit "losetup -d /dev/loop$n; ${LOOPCTL:-false} remove $n"
    LOOP_DEV="loop$n"
    return 0
  done
  fail "no free loop device number"
}

# detach_loop loopN: detaches and removes the node now.
detach_loop() {
  local n=${1#loop}
  losetup -d "/dev/$1"
  "${LOOPCTL:?path to loopctl}" remove "$n"
}

# blkio_cgroup: creates a child of the cgroup v1 blkio controller, removed on
# exit; sets BLKIO_CG to its directory. Processes started with in_cgroup run in it.
blkio_cgroup() {
  local root=${BLKIO_ROOT:-/sys/fs/cgroup/blkio}
  [ -w "$root" ] || fail "no writable cgroup v1 blkio controller at $root"
  BLKIO_CG="$root/diskperf-e2e.$$.$RANDOM"
  mkdir "$BLKIO_CG"
  on_exit "rmdir '$BLKIO_CG'"
}

# throttle DEV KIND VALUE: sets blkio.throttle.KIND_device (read_iops, read_bps,
# write_iops, write_bps) for /dev/DEV in BLKIO_CG; VALUE 0 lifts the limit.
throttle() {
  local mm
  mm=$(cat "/sys/block/$1/dev")
  echo "$mm $3" >"$BLKIO_CG/blkio.throttle.$2_device"
}

# start_exporter_in_cgroup ARGS...: start_exporter, with the daemon a process of BLKIO_CG.
start_exporter_in_cgroup() {
  cat >"$E2E_TMP/in_cgroup.sh" <<SH
#!/bin/sh
echo \$\$ > "$BLKIO_CG/cgroup.procs" && exec "$DISKPERF_EXPORTER" "\$@"
SH
  chmod +x "$E2E_TMP/in_cgroup.sh"
  local real=$DISKPERF_EXPORTER
  DISKPERF_EXPORTER="$E2E_TMP/in_cgroup.sh"
  start_exporter "$@"
  DISKPERF_EXPORTER=$real
}

# in_cgroup CMD ARGS...: runs CMD as a process of BLKIO_CG.
in_cgroup() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$BLKIO_CG" "$@"; }

# within_pct A B PCT: true when |A - B| <= PCT% of B.
within_pct() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; }

# start_prometheus [RULES_FILE]: a Prometheus server on 127.0.0.1 with a temp
# data dir, scraping the exporter (EXPORTER_PORT) every second and evaluating
# RULES_FILE (if given) every second; sets PROM_PORT and PROM_LOG. Stopped on
# exit.
start_prometheus() {
  command -v prometheus >/dev/null || fail "prometheus not installed (Debian package prometheus)"
  PROM_PORT=$(free_port)
  PROM_LOG="$E2E_TMP/prometheus.log"
  {
    printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
    [ -n "${1:-}" ] && printf "rule_files: ['%s']\n" "$1"
    printf 'scrape_configs:\n  - job_name: diskperf\n    static_configs:\n'
    printf "      - targets: ['127.0.0.1:%s']\n" "$EXPORTER_PORT"
  } >"$E2E_TMP/prometheus.yml"
  prometheus --config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$PROM_LOG" 2>&1 &
  local pid=$!
  on_exit "kill $pid; wait $pid"
}

# query PROMQL: the Prometheus API's JSON answer (empty when it does not answer).
query() {
  curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" 2>/dev/null || true
}

# start_fake_imds DOCUMENT: the stand-in for the Azure Instance Metadata Service
# (tests/tools/fake_imds.py) on 127.0.0.1, answering with DOCUMENT (re-read at each
# request); sets IMDS_PORT, IMDS_MODE_FILE (write ok, 500, 429, garbage, slow or hang
# to it) and IMDS_COUNT_FILE (requests received). Stopped on exit.
start_fake_imds() {
  command -v python3 >/dev/null || fail "python3 not installed (Debian package python3)"
  IMDS_MODE_FILE="$E2E_TMP/imds.mode" IMDS_COUNT_FILE="$E2E_TMP/imds.count"
  echo ok >"$IMDS_MODE_FILE"
  rm -f "$E2E_TMP/imds.port"
  python3 "$(dirname "${BASH_SOURCE[0]}")/../tools/fake_imds.py" --document "$1" --port-file "$E2E_TMP/imds.port" \
    --mode-file "$IMDS_MODE_FILE" --count-file "$IMDS_COUNT_FILE" >"$E2E_TMP/imds.log" 2>&1 &
  local pid=$!
  on_exit "kill $pid; wait $pid"
  for _ in $(seq 1 100); do
    IMDS_PORT=$(cat "$E2E_TMP/imds.port" 2>/dev/null || true)
    [ -n "$IMDS_PORT" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$E2E_TMP/imds.log" >&2; fail "fake IMDS exited at start"; }
    sleep 0.05
  done
  fail "fake IMDS did not report its port"
}

# imds_requests: how many requests the fake IMDS received.
imds_requests() { cat "$IMDS_COUNT_FILE" 2>/dev/null || echo 0; }
