#!/usr/bin/env bash
# `check` shows its progress only when stdout is a terminal: under a pseudo
# terminal (script(1)) the "probing ..." lines appear and are erased before
# the table; with stdout redirected to a file they do not appear at all.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || fail "script(1) missing (Debian package bsdutils)"
truncate -s 64M "$E2E_TMP/disk.img"
attach_loop "$E2E_TMP/disk.img"
dev=$LOOP_DEV
script -qec "'$DISKPERF_EXPORTER' check --disk /dev/$dev=P10 --runtime 300ms" "$E2E_TMP/typescript" >/dev/null 2>&1 || true
grep -q "probing /dev/$dev (4k randread, iodepth 256" "$E2E_TMP/typescript" || fail "no progress on a terminal: $(cat "$E2E_TMP/typescript")"
grep -q $'\r\033\[K' "$E2E_TMP/typescript" || fail "the progress line is not erased before the table"
grep -q "^DEVICE\|^device" "$E2E_TMP/typescript" || grep -qi "verdict" "$E2E_TMP/typescript" || fail "no table on a terminal"
"$DISKPERF_EXPORTER" check --disk "/dev/$dev=P10" --runtime 300ms >"$E2E_TMP/out.txt" 2>/dev/null || true
grep -q "probing" "$E2E_TMP/out.txt" && fail "progress written to a file"
grep -qi "verdict" "$E2E_TMP/out.txt" || fail "no table when redirected: $(cat "$E2E_TMP/out.txt")"
echo "PASS check_tty"
