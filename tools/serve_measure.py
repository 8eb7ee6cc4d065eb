#!/usr/bin/env python3
"""What a served run delivers, measured as its pages receive it: frames a second to each of K
viewers, bytes a frame and a second, the server's own frame and step rates, and the time from a
slider's value sent to the first frame drawn with it. Python's standard library alone, so it runs
on a GPU server beside `starburst serve` with nothing installed.

usage: serve_measure.py STARBURST SECONDS [--viewers K] [--latency N] [--frame FILE.jpg] [--]
                        [serve options...]

It starts `STARBURST serve --listen 127.0.0.1:0 [serve options]`, opens K WebSockets with the
drive token as a page does (the first drives; the others watch, with the view token), counts what
arrives over SECONDS after each one's first frame, and with --latency sends N exposure values from
the driving page, one at a time, timing each to the first frame that shows it: each frame names
the loop's frame it was drawn in (a JPEG comment, "starburst frame N"), and the readout names the
frame whose end it describes. Prints one line per figure, then the server's own closing line;
--frame keeps the last frame the first page received, to look at.
"""
import base64
import json
import os
import re
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

FRAME_COMMENT = re.compile(rb"starburst frame (\d+)")


class Page:
    """One WebSocket, as the page opens it: the starburst protocol, the Origin of the server."""

    def __init__(self, url, origin=None):
        u = urllib.parse.urlsplit(url)
        origin = origin or f"http://{u.netloc}"
        self.sock = socket.create_connection((u.hostname, u.port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /ws?{u.query} HTTP/1.1\r\nHost: {u.netloc}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                   f"Sec-WebSocket-Protocol: starburst\r\nOrigin: {origin}\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("the server closed the connection during the handshake")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise RuntimeError("refused: " + status.split(b"\r\n")[0].decode(errors="replace"))
        self.buf = bytearray(rest)
        self.sock.setblocking(False)
        self.frames = self.bytes = 0
        self.first = self.last = None
        self.status = None
        self.statuses = []  # (arrival, loop frame, step) of each readout over the measured seconds

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        body = bytes(b ^ mask[i & 3] for i, b in enumerate(data))
        assert len(data) < 126
        self.sock.setblocking(True)
        self.sock.sendall(bytes([0x81, 0x80 | len(data)]) + mask + body)
        self.sock.setblocking(False)

    def read(self):
        """The whole messages that have come: (binary, payload, arrival time) each."""
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return []
        if not chunk:
            raise RuntimeError("the server closed the connection")
        now = time.monotonic()
        self.buf += chunk
        out = []
        while len(self.buf) >= 2:
            b = self.buf
            opcode, n, at = b[0] & 15, b[1] & 127, 2
            if n == 126:
                if len(b) < 4:
                    break
                n, at = struct.unpack(">H", b[2:4])[0], 4
            elif n == 127:
                if len(b) < 10:
                    break
                n, at = struct.unpack(">Q", b[2:10])[0], 10
            if len(b) < at + n:
                break
            payload = bytes(b[at:at + n])
            del b[:at + n]
            if opcode in (1, 2):
                out.append((opcode == 2, payload, now))
        return out


def frame_number(jpeg):
    m = FRAME_COMMENT.search(jpeg[:256])
    return int(m.group(1)) if m else None


def pump(pages, until, on_message):
    """Reads every page until time `until` or until on_message returns True."""
    while time.monotonic() < until:
        ready, _, _ = select.select([p.sock for p in pages], [], [], 0.05)
        for p in pages:
            if p.sock not in ready:
                continue
            for binary, payload, now in p.read():
                if on_message(p, binary, payload, now):
                    return True
    return False


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    app, seconds, rest = argv[0], float(argv[1]), argv[2:]
    viewers, latency, keep = 1, 0, None
    while rest and rest[0] in ("--viewers", "--latency", "--frame"):
        if rest[0] == "--viewers":
            viewers = int(rest[1])
        elif rest[0] == "--latency":
            latency = int(rest[1])
        else:
            keep = rest[1]
        rest = rest[2:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    server = subprocess.Popen([app, "serve", "--listen", "127.0.0.1:0", *rest],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = b""
    urls = []
    drain = None
    try:
        deadline = time.monotonic() + 120
        while len(urls) < 2:
            line = server.stderr.readline()
            if not line or time.monotonic() > deadline:
                raise RuntimeError("the server did not start: " + log.decode(errors="replace")[-500:])
            log += line
            m = re.search(rb"(drive the run|watch it) at (http://\S+)", line)
            if m:
                urls.append(m.group(2).decode())
        # The rest of what the server says is kept as it comes, so that its pipe never fills.
        rest_of_log = []
        drain = threading.Thread(target=lambda: rest_of_log.extend(iter(server.stderr.readline, b"")), daemon=True)
        drain.start()
        pages = [Page(urls[0])] + [Page(urls[1]) for _ in range(viewers - 1)]

        def count(p, binary, payload, now):
            if not binary:
                msg = json.loads(payload)
                if msg.get("type") == "status":
                    p.status = msg
                    if p.first is not None:
                        p.statuses.append((now, msg.get("frame", 0), msg.get("step", 0)))
                return False
            if p.first is None:
                p.first = now
                return False
            p.frames += 1
            p.bytes += len(payload)
            p.last = now
            if keep and p is pages[0]:
                p.kept = payload
            return False

        pump(pages, time.monotonic() + 120, lambda p, b, d, n: count(p, b, d, n) or all(q.first for q in pages))
        start = time.monotonic()
        pump(pages, start + seconds, count)
        rates = [p.frames / (p.last - p.first) for p in pages if p.frames > 1]
        total = sum(p.bytes for p in pages)
        frames = sum(p.frames for p in pages)
        span = max(p.last for p in pages) - min(p.first for p in pages)
        # The server's own rates over the same seconds, from the frame and step its readouts name
        # (the readout's fps is the last moment's, which a frame held up now and then does not move).
        s0, s1 = pages[0].statuses[0], pages[0].statuses[-1]
        wall = max(s1[0] - s0[0], 1e-9)
        print(f"viewers {viewers}: delivered {statistics.mean(rates):.1f} frames/s a viewer "
              f"(lowest {min(rates):.1f}), {total / max(frames, 1):.0f} bytes a frame, "
              f"{total / span / viewers / 1e6:.2f} MB/s a viewer; the server ran "
              f"{(s1[1] - s0[1]) / wall:.1f} frames/s, {(s1[2] - s0[2]) / wall:.1f} steps/s over the same seconds")

        if latency:
            driver = pages[0]
            waits = []
            for k in range(latency):
                value = 0.5 if k % 2 == 0 else 2.0
                state = {"frame": None}
                sent = time.monotonic()
                driver.send(f"set exposure {value}")

                def shown(p, binary, payload, now):
                    if p is not driver:
                        return False
                    if not binary:
                        msg = json.loads(payload)
                        if msg.get("type") == "status" and state["frame"] is None and \
                                abs(msg.get("exposure", -1) - value) < 1e-6 * value:
                            state["frame"] = msg["frame"]
                        return False
                    n = frame_number(payload)
                    if state["frame"] is not None and n is not None and n >= state["frame"]:
                        waits.append((now - sent) * 1e3)
                        return True
                    return False

                if not pump(pages, sent + 5, shown):
                    raise RuntimeError(f"no frame showed exposure {value} within 5 s")
                pump(pages, time.monotonic() + 0.1, lambda *a: False)
            waits.sort()
            print(f"slider to frame: median {statistics.median(waits):.1f} ms, "
                  f"90th percentile {waits[int(0.9 * (len(waits) - 1))]:.1f} ms, "
                  f"largest {waits[-1]:.1f} ms over {len(waits)} values")
        if keep and getattr(pages[0], "kept", None):
            with open(keep, "wb") as f:
                f.write(pages[0].kept)
        for p in pages:
            p.sock.close()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        if drain:
            drain.join(timeout=5)
            log += b"".join(rest_of_log)
    served = re.search(rb"served \d+ frames.*", log)
    print(served.group(0).decode() if served else log.decode(errors="replace")[-300:])
    loop = re.search(rb"the loop's frame.*", log)
    if loop:
        print(loop.group(0).decode())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (RuntimeError, OSError) as e:
        print(f"serve_measure: {e}", file=sys.stderr)
        sys.exit(1)
