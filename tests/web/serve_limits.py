#!/usr/bin/env python3
"""The served run's limits, tried as a crowd and a flood would (and first, where the machine has
an IPv6 loopback, a page served on [::1]): 32 pages open and the 33rd is
refused, a page that closes makes room for another; a page with no token, a wrong one or another
site's Origin is refused; a burst of 600 messages from the driving page gets the rate's one line
back, the messages over it are dropped, the run goes on sending frames, and a second later a value
sent is taken again. Python's standard library (tools/serve_measure.py's WebSocket client).

usage: serve_limits.py STARBURST OUT_DIR
"""
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from serve_measure import Page  # noqa: E402


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        raise SystemExit(1)


def refused(url, origin=None):
    """The handshake's first line where it is refused; None where it opens."""
    try:
        page = Page(url, origin)
    except (RuntimeError, OSError) as e:
        return str(e) or type(e).__name__
    page.sock.close()
    return None


def wait_for(page, test, seconds):
    """Reads page until test(binary, payload) is true; False after `seconds`."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        ready, _, _ = select.select([page.sock], [], [], 0.05)
        if ready:
            for binary, payload, _ in page.read():
                if test(binary, payload):
                    return True
    return False


def start(app, listen, save):
    """The server, its two addresses and its log (read on as it comes)."""
    server = subprocess.Popen([app, "serve", "--listen", listen, "--backend", "cpu", "-n", "512",
                               "--size", "320x180", "--save", save],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = []
    urls = {}
    for line in iter(server.stderr.readline, b""):
        log.append(line)
        m = re.search(rb"(drive the run|watch it) at (http://\S+)", line)
        if m:
            urls[m.group(1)] = m.group(2).decode()
        if len(urls) == 2:
            break
    threading.Thread(target=lambda: log.extend(iter(server.stderr.readline, b"")), daemon=True).start()
    if len(urls) < 2:
        server.kill()
        check(False, f"the server on {listen} starts: " + b"".join(log).decode(errors="replace")[-300:])
    return server, urls, log


def ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def main(app, out):
    os.makedirs(out, exist_ok=True)
    if ipv6_loopback():
        server, urls, _ = start(app, "[::1]:0", os.path.join(out, "six.tipsy"))
        try:
            check(urls[b"drive the run"].startswith("http://[::1]:"), "an IPv6 address is served in brackets")
            page = Page(urls[b"drive the run"])
            check(wait_for(page, lambda binary, payload: binary, 30), "a page over IPv6 gets a frame")
            page.sock.close()
        finally:
            server.kill()
            server.wait()
    else:
        print("skip: this machine has no IPv6 loopback")
    server, urls, log = start(app, "127.0.0.1:0", os.path.join(out, "limits.tipsy"))
    try:
        drive, watch = urls[b"drive the run"], urls[b"watch it"]
        u = urllib.parse.urlsplit(watch)
        base = f"http://{u.netloc}/"
        check(refused(base + "?token=") is not None, "a page with an empty token is refused")
        check(refused(base + "?token=" + "0" * 48) is not None, "a page with a wrong token is refused")
        check(refused(watch, origin="http://evil.example") is not None, "a page from another site's Origin is refused")

        driver = Page(drive)
        pages = [driver] + [Page(watch) for _ in range(31)]
        check(len(pages) == 32, "32 pages open")
        why = refused(watch)
        check(why is not None, f"the 33rd page is refused ({why})")
        pages.pop().sock.close()
        # The server learns of the close on its own thread: the next page may wait a moment for it.
        for _ in range(100):
            if refused(watch) is None:
                break
            time.sleep(0.05)
        else:
            check(False, "a page closed makes room for another")
        check(True, "a page closed makes room for another")

        for k in range(600):
            driver.send(f"set exposure {1.0 + (k % 7) * 0.1:.1f}")
        said = wait_for(driver, lambda b, d: not b and b"too many messages" in d, 10)
        check(said, "a burst of 600 messages gets the rate's line back")
        frames = 0

        def counted(binary, payload):
            nonlocal frames
            frames += binary
            return frames >= 5
        check(wait_for(driver, counted, 30), "the run goes on sending frames after the burst")
        time.sleep(1.1)  # the rate's allowance fills again over a second
        driver.send("set exposure 2.5")

        def taken(binary, payload):
            if binary:
                return False
            msg = json.loads(payload)
            return msg.get("type") == "status" and abs(msg.get("exposure", 0) - 2.5) < 1e-6
        check(wait_for(driver, taken, 30), "a second later a value sent is taken")
        for p in pages:
            p.sock.close()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            rc = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            rc = None
    text = b"".join(log).decode(errors="replace")
    check(rc in (-signal.SIGINT, 128 + signal.SIGINT), f"the server ends by SIGINT (status {rc})")
    check("interrupted by SIGINT: saved" in text and os.path.getsize(os.path.join(out, "limits.tipsy")) > 0,
          "the run was saved")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
