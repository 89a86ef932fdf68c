#!/usr/bin/env python3
"""Scrapes HTTP exporters alternately and reports per-scrape cost (bench/scrape_vs_node_exporter).

  scrape_bench.py --scrapes N --warmup W NAME=PID=URL [NAME=PID=URL ...]

For each mode (plain, then gzip: `Accept-Encoding: gzip` as Prometheus sends it), every exporter is
scraped W times (warm-up, not measured), then N times, alternating A B A B ..., each over its own
keep-alive connection as Prometheus does (reopened when the exporter closes it: diskperf_exporter
answers with Connection: close, node_exporter keeps it). Latency is measured on the request that
got the answer; a connect is part of it. Measured per exporter and mode:
  cpu_ms   (utime + stime of the whole process, /proc/PID/stat fields 14 and 15, over the N scrapes) / N
  p50_ms, p99_ms, max_ms   client-side latency: request sent to last body byte received
  bytes    body size as sent (compressed in gzip mode), of the last scrape
  rss_mb   VmRSS (/proc/PID/status) 1 s after the N scrapes (steady state); hwm_mb: VmHWM (peak)
The first exporter is the subject, the others references: ratio = first / other.
Prints a table, and the same figures as JSON on the last line when --json is given.
"""
import argparse
import http.client
import json
import os
import time
import urllib.parse

CLK_TCK = os.sysconf("SC_CLK_TCK")
ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
          "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): utime is field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def percentile(values, p):
    v = sorted(values)
    k = max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


class Target:
    def __init__(self, spec):
        self.name, pid, self.url = spec.split("=", 2)
        self.pid = int(pid)
        u = urllib.parse.urlsplit(self.url)
        self.host, self.port, self.path = u.hostname, u.port, u.path or "/"
        self.conn = None

    def scrape(self, gzip):
        headers = {"Accept": ACCEPT, "User-Agent": "Prometheus/2.42.0", "X-Prometheus-Scrape-Timeout-Seconds": "10"}
        if gzip:
            headers["Accept-Encoding"] = "gzip"
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                t0 = time.perf_counter()
                self.conn.request("GET", self.path, headers=headers)
                r = self.conn.getresponse()
                body = r.read()
                t1 = time.perf_counter()
                if r.status != 200:
                    raise RuntimeError(f"{self.name}: HTTP {r.status}")
                if gzip and r.getheader("Content-Encoding") != "gzip":
                    raise RuntimeError(f"{self.name}: no gzip in the answer")
                return t1 - t0, len(body)
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scrapes", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--modes", default="plain,gzip")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("targets", nargs="+")
    a = ap.parse_args()
    targets = [Target(s) for s in a.targets]
    results = {}
    for mode in a.modes.split(","):
        gz = mode == "gzip"
        for _ in range(a.warmup):
            for t in targets:
                t.scrape(gz)
        lat = {t.name: [] for t in targets}
        size = {}
        cpu0 = {t.name: cpu_seconds(t.pid) for t in targets}
        for _ in range(a.scrapes):
            for t in targets:
                dt, n = t.scrape(gz)
                lat[t.name].append(dt)
                size[t.name] = n
        cpu1 = {t.name: cpu_seconds(t.pid) for t in targets}
        time.sleep(1.0)  # steady state: let both finish post-scrape work (Go's GC, malloc_trim)
        for t in targets:
            results[(t.name, mode)] = {
                "cpu_ms": (cpu1[t.name] - cpu0[t.name]) * 1000.0 / a.scrapes,
                "p50_ms": percentile(lat[t.name], 50) * 1000.0,
                "p99_ms": percentile(lat[t.name], 99) * 1000.0,
                "max_ms": max(lat[t.name]) * 1000.0,
                "bytes": size[t.name],
                "rss_mb": status_kb(t.pid, "VmRSS") / 1024.0,
                "hwm_mb": status_kb(t.pid, "VmHWM") / 1024.0,
            }
    cols = ["cpu_ms", "p50_ms", "p99_ms", "max_ms", "bytes", "rss_mb", "hwm_mb"]
    print(f"{a.scrapes} scrapes per exporter and mode, alternating, after {a.warmup} warm-up scrapes each")
    print(f"{'mode':6} {'exporter':18}" + "".join(f"{c:>12}" for c in cols))
    subject = targets[0].name
    for mode in a.modes.split(","):
        for t in targets:
            r = results[(t.name, mode)]
            print(f"{mode:6} {t.name:18}" + "".join(
                f"{r[c]:12d}" if c == "bytes" else f"{r[c]:12.3f}" for c in cols))
        for t in targets[1:]:
            s, o = results[(subject, mode)], results[(t.name, mode)]
            print(f"{mode:6} {'ratio vs ' + t.name[:9]:18}" + "".join(
                f"{(s[c] / o[c] if o[c] else float('nan')):12.3f}" for c in cols))
    if a.json:
        print(json.dumps({f"{k[0]}/{k[1]}": v for k, v in results.items()}))


if __name__ == "__main__":
    main()
