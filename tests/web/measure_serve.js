// Frames delivered to one viewer: starts `starburst serve` with the options given, opens its
// WebSocket with the drive token as a page does, and counts the frames and bytes that arrive over
// SECONDS (after the first frame). Prints one line, then the server's own line of what it served.
// usage: node measure_serve.js STARBURST SECONDS [serve options...]
'use strict';
const {spawn} = require('child_process');
const {connect} = require('./ws.js');

const [app, seconds, ...options] = process.argv.slice(2);
const server = spawn(app, ['serve', '--listen', '127.0.0.1:0', ...options], {stdio: ['ignore', 'ignore', 'pipe']});
let log = '';
server.stderr.on('data', (d) => { log += d; });
const exited = new Promise((resolve) => server.on('exit', resolve));

(async () => {
  let m;
  while (!(m = log.match(/drive the run at (http:\/\/\S+)/))) {
    if (server.exitCode !== null) throw new Error(log);
    await new Promise((r) => setTimeout(r, 20));
  }
  const u = new URL(m[1]);
  const ws = await connect(`ws://${u.host}/ws${u.search}`, {origin: `http://${u.host}`, protocol: 'starburst'});
  let frames = 0, bytes = 0, first = 0, status = null;
  const done = new Promise((resolve) => {
    ws.on('message', (d, binary) => {
      if (!binary) {
        if (d.includes('"status"')) status = JSON.parse(d);
        return;
      }
      const now = Date.now();
      if (!first) { first = now; return; }
      frames++;
      bytes += d.length;
      if (now - first >= seconds * 1000) resolve(now - first);
    });
  });
  const ms = await done;
  ws.destroy();
  console.log(`delivered ${(frames / (ms / 1000)).toFixed(1)} frames/s to one viewer over ${(ms / 1000).toFixed(1)} s, ` +
    `${(bytes / frames).toFixed(0)} bytes a frame (${(bytes / (ms / 1000) / 1e6).toFixed(2)} MB/s); the server ran ` +
    `${status.fps.toFixed(1)} frames/s, ${status.steps_per_s.toFixed(1)} steps/s`);
  server.kill('SIGINT');
  await exited;
  const served = log.match(/served \d+ frames.*/);
  console.log(served ? served[0] : log.slice(-300));
})().catch((e) => { console.log(`measure_serve: ${e.message}`); server.kill('SIGKILL'); process.exit(1); });
