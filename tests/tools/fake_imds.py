#!/usr/bin/env python3
"""A stand-in for the Azure Instance Metadata Service, for the end-to-end tests (stdlib only).

Serves GET /metadata/instance/compute?api-version=... on 127.0.0.1 as IMDS does, in a mode that
a test can switch while it runs. Flags:
  --document FILE     the compute document (JSON) served; re-read at each request
  --port-file FILE    where the port (chosen by the kernel unless --port) is written once listening
  --port N            listen on port N instead (default 0: any free port)
  --mode MODE         ok (default), 500, 429, garbage (200 with a body that is not JSON),
                      slow (the document after --slow-seconds), hang (no answer until killed)
  --mode-file FILE    re-read at each request: its first word is the mode (else --mode)
  --slow-seconds S    delay of mode slow (default 3)
  --count-file FILE   the number of requests received (any path, any answer), rewritten at each
                      request; counting goes on from the number in it (a test may reset it to 0)
Like IMDS: 400 with a JSON error without the header `Metadata: true`, with X-Forwarded-For, or
without api-version; 404 for any other path. Exits 0 on SIGTERM or SIGINT, even mid-hang.
"""

import argparse
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = ("ok", "500", "429", "garbage", "slow", "hang")
COMPUTE_PATH = "/metadata/instance/compute"
NEWEST_VERSIONS = ["2025-04-07", "2024-07-17", "2024-03-15"]


def write_atomically(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


class State:
    def __init__(self, args):
        self.args = args
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.count = 0

    def counted(self):
        with self.lock:
            # Counted on from what the file says, so that a test may reset it (echo 0 >FILE).
            if self.args.count_file:
                try:
                    with open(self.args.count_file, encoding="utf-8") as f:
                        self.count = int(f.read().strip() or 0)
                except (OSError, ValueError):
                    pass
            self.count += 1
            if self.args.count_file:
                write_atomically(self.args.count_file, f"{self.count}\n")
            return self.count

    def mode(self):
        if self.args.mode_file:
            try:
                with open(self.args.mode_file, encoding="utf-8") as f:
                    words = f.read().split()
                if words:
                    return words[0]
            except OSError:
                pass
        return self.args.mode


class Handler(BaseHTTPRequestHandler):
    server_version = "FakeIMDS/1.0"
    state = None  # set in main()

    def log_message(self, fmt, *args):
        sys.stderr.write("fake_imds: %s %s\n" % (self.address_string(), fmt % args))
        sys.stderr.flush()

    def reply(self, code, body, content_type="application/json; charset=utf-8"):
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error_json(self, code, message, **extra):
        self.reply(code, json.dumps(dict(error=message, **extra)))

    def do_GET(self):
        self.state.counted()
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if self.headers.get("Metadata", "").strip().lower() != "true" or "X-Forwarded-For" in self.headers:
            return self.error_json(400, "Bad request. Required metadata header not specified")
        if url.path.rstrip("/") != COMPUTE_PATH:
            return self.error_json(404, "Not found")
        if not query.get("api-version", [""])[0]:
            return self.error_json(400, "Bad request. api-version is invalid or was not specified in the request.",
                                   **{"newest-versions": NEWEST_VERSIONS})
        self.answer(self.state.mode())

    def answer(self, mode):
        stopping = self.state.stopping
        if mode == "hang":
            stopping.wait()  # the connection stays open, silent, until the server stops
            return
        if mode == "500":
            return self.error_json(500, "Internal server error")
        if mode == "429":
            return self.error_json(429, "Too many requests")
        if mode == "garbage":
            return self.reply(200, "<html><body>Service Unavailable</body></html>\n", "text/html")
        if mode == "slow" and stopping.wait(self.state.args.slow_seconds):
            return
        if mode not in ("ok", "slow"):
            return self.error_json(500, f"fake_imds: unknown mode {mode!r}")
        try:
            with open(self.state.args.document, "rb") as f:
                document = f.read()
        except OSError as e:
            return self.error_json(500, f"fake_imds: cannot read the document: {e}")
        self.reply(200, document)


def parse_args(argv):
    p = argparse.ArgumentParser(description="Stand-in for the Azure Instance Metadata Service (tests only).")
    p.add_argument("--document", required=True, help="compute document (JSON), re-read at each request")
    p.add_argument("--port-file", help="write the listening port here")
    p.add_argument("--port", type=int, default=0, help="port to listen on (default 0: chosen by the kernel)")
    p.add_argument("--mode", default="ok", choices=MODES, help="how to answer (default ok)")
    p.add_argument("--mode-file", help="file whose first word overrides --mode, re-read at each request")
    p.add_argument("--slow-seconds", type=float, default=3.0, help="delay of mode slow (default 3)")
    p.add_argument("--count-file", help="requests received so far, rewritten at each request")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    state = State(args)
    Handler.state = state
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True  # a hung answer never holds up the exit
    if args.count_file:
        write_atomically(args.count_file, "0\n")

    def on_signal(_signo, _frame):
        state.stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    serving.start()
    port = server.server_address[1]
    if args.port_file:
        write_atomically(args.port_file, f"{port}\n")
    sys.stderr.write(f"fake_imds: listening on 127.0.0.1:{port}\n")
    sys.stderr.flush()
    while not state.stopping.wait(0.2):
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
