// A small WebSocket client over a plain TCP socket (RFC 6455), for the tests: it speaks to
// Chromium's DevTools and to `starburst serve`, and it can send what a browser never would (junk,
// a message cut short, a frame that claims more bytes than come). Node's own WebSocket is not in
// every Node the tests run on. Messages in: 'message' (data, binary); 'close'.
'use strict';
const net = require('net');
const crypto = require('crypto');
const {EventEmitter} = require('events');

class Client extends EventEmitter {
  constructor(socket) {
    super();
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.pieces = [];
    this.pieceBinary = false;
    this.closed = false;
    socket.on('data', (d) => this.take(d));
    socket.on('close', () => { this.closed = true; this.emit('close'); });
    socket.on('error', () => {});
  }

  // One frame, masked as a client's must be; opcode 1 text, 2 binary, 0 continuation.
  frame(opcode, payload, fin = true) {
    const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    const head = [((fin ? 0x80 : 0) | opcode)];
    if (data.length < 126) head.push(0x80 | data.length);
    else if (data.length < 65536) head.push(0x80 | 126, data.length >> 8, data.length & 255);
    else {
      head.push(0x80 | 127, 0, 0, 0, 0);
      head.push((data.length >>> 24) & 255, (data.length >>> 16) & 255, (data.length >>> 8) & 255, data.length & 255);
    }
    const mask = crypto.randomBytes(4);
    const body = Buffer.alloc(data.length);
    for (let i = 0; i < data.length; i++) body[i] = data[i] ^ mask[i & 3];
    return Buffer.concat([Buffer.from(head), mask, body]);
  }

  send(text) { this.raw(this.frame(1, text)); }
  sendBinary(buf) { this.raw(this.frame(2, buf)); }
  raw(buf) { if (!this.closed) this.socket.write(buf); }
  close() { this.raw(this.frame(8, Buffer.alloc(0))); this.socket.end(); }
  destroy() { this.socket.destroy(); }

  take(d) {
    this.buffer = Buffer.concat([this.buffer, d]);
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0, opcode = b[0] & 15;
      let len = b[1] & 127, at = 2;
      if (len === 126) { if (b.length < 4) return; len = b.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (b.length < 10) return; len = Number(b.readBigUInt64BE(2)); at = 10; }
      if (b[1] & 0x80) at += 4; // servers do not mask
      if (b.length < at + len) return;
      const payload = b.subarray(at, at + len);
      this.buffer = b.subarray(at + len);
      if (opcode === 8) { this.socket.end(); continue; }
      if (opcode === 9) { this.raw(this.frame(10, payload)); continue; }
      if (opcode === 10) continue;
      if (opcode !== 0) this.pieceBinary = opcode === 2;
      this.pieces.push(Buffer.from(payload));
      if (fin) {
        const whole = Buffer.concat(this.pieces);
        this.pieces = [];
        this.emit('message', this.pieceBinary ? whole : whole.toString('utf8'), this.pieceBinary);
      }
    }
  }
}

// Opens ws://host:port/path; resolves to a Client, or rejects with the server's status line.
function connect(url, {origin, protocol, timeoutMs = 10000} = {}) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname);
    const key = crypto.randomBytes(16).toString('base64');
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`${url}: no answer in ${timeoutMs} ms`)); }, timeoutMs);
    let head = Buffer.alloc(0);
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
    socket.on('connect', () => {
      const lines = [`GET ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`, 'Upgrade: websocket', 'Connection: Upgrade',
        `Sec-WebSocket-Key: ${key}`, 'Sec-WebSocket-Version: 13'];
      if (origin) lines.push(`Origin: ${origin}`);
      if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
      socket.write(lines.join('\r\n') + '\r\n\r\n');
    });
    const onData = (d) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.removeListener('data', onData);
      clearTimeout(timer);
      const status = head.subarray(0, head.indexOf('\r\n')).toString();
      if (!/^HTTP\/1\.1 101/.test(status)) {
        socket.destroy();
        reject(new Error(`refused: ${status}`));
        return;
      }
      const c = new Client(socket);
      resolve(c);
      const rest = head.subarray(end + 4);
      if (rest.length) c.take(rest);
    };
    socket.on('data', onData);
    socket.on('close', () => { clearTimeout(timer); reject(new Error(`${url}: closed before the handshake ended`)); });
  });
}

module.exports = {connect};
