#!/usr/bin/env python3
"""The live force error as a served page reads it, on the app's own collision (halos as fields)
with the tree: its median and 99th percentile are the tree's (1e-6 to 1e-3 against the f64 sum
of the stars), not the order-one error of a reference that counts the halos' centres as stars;
and after the tree's error-based opening is made ten times coarser from the page, the next
result names the new opening and is larger. Python's standard library (tools/serve_measure.py's
WebSocket client).

usage: served_force_error.py STARBURST [serve options]   (default: --backend cpu -n 4096)
"""
import json
import os
import re
import select
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from serve_measure import Page  # noqa: E402


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        raise SystemExit(1)


def status_until(page, test, seconds):
    """The first status message test(status) accepts; None after `seconds`."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        ready, _, _ = select.select([page.sock], [], [], 0.1)
        if not ready:
            continue
        for binary, payload, _ in page.read():
            if binary:
                continue
            msg = json.loads(payload)
            if msg.get("type") == "status" and test(msg):
                return msg
    return None


def main(app, options):
    server = subprocess.Popen([app, "serve", "--listen", "127.0.0.1:0", "--force", "tree", "--size", "320x180"] +
                              (options or ["--backend", "cpu", "-n", "4096"]),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = []
    url = None
    for line in iter(server.stderr.readline, b""):
        log.append(line)
        m = re.search(rb"drive the run at (http://\S+)", line)
        if m:
            url = m.group(1).decode()
            break
    threading.Thread(target=lambda: log.extend(iter(server.stderr.readline, b"")), daemon=True).start()
    try:
        check(url is not None, "the server starts: " + b"".join(log).decode(errors="replace")[-300:])
        page = Page(url)
        first = status_until(page, lambda s: "force_error" in s, 120)
        check(first is not None, "a live force error arrives within 120 s")
        e = first["force_error"]
        print(f"  {first['method']}: median {e['median']:.3g}, 99% {e['p99']:.3g}, worst {e['worst']:.3g}, "
              f"{e['samples']} stars of {first['bodies']} with {first['halos']} halo fields")
        check(first["halos"] == 2, "the collision's halos are fields")
        check(e["samples"] == 256, "256 stars sampled")
        check(1e-6 < e["median"] < 1e-3 and e["p99"] < 1e-2, "the tree's error: median 1e-6 to 1e-3, 99% under 1e-2")
        alpha = first["alpha"] * 10
        page.send(f"set alpha {alpha:g}")
        coarse = status_until(page, lambda s: "force_error" in s and s["method"] != first["method"], 120)
        check(coarse is not None, f"a result for alpha {alpha:g} arrives within 120 s")
        c = coarse["force_error"]
        print(f"  {coarse['method']}: median {c['median']:.3g}, 99% {c['p99']:.3g}")
        check(abs(coarse["alpha"] - alpha) <= 1e-6 * alpha, "the page's alpha is taken")
        check(c["median"] > 1.5 * e["median"], "ten times the opening's error: a larger median error")
        page.sock.close()
    finally:
        server.kill()
        server.wait()
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
