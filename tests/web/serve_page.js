// The served page in a real browser: `starburst serve` on a free localhost port, Debian's Chromium
// headless driven through the DevTools protocol. The driver's page shows the galaxies (a screenshot
// checked with check_image), its dt and softening sliders dragged by the mouse and its keys pressed
// change the run (read back from the page's readout, then from the save SIGINT writes); a page with
// the view token cannot drive; junk, messages too long, cut short or never finished, and wrong doors
// leave the server running and its save whole. Every wait is for a condition, with a deadline.
// usage: node serve_page.js STARBURST CHECK_IMAGE CHROMIUM OUT_DIR
'use strict';
const {spawn, execFileSync} = require('child_process');
const fs = require('fs');
const path = require('path');
const {connect} = require('./ws.js');

const [app, checkImage, chromium, out] = process.argv.slice(2);
const WAIT_MS = Number(process.env.STARBURST_WEB_WAIT_MS || 120000);
let failures = 0;
const ok = (what) => console.log(`ok: ${what}`);
const fail = (what) => { console.log(`FAIL: ${what}`); failures++; };
const check = (cond, what) => (cond ? ok(what) : fail(what));
const children = [];

// Resolves once test() holds, polled; rejects with what at the deadline.
async function until(test, what, ms = WAIT_MS) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await test();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// A line of a child's output matching re, as it comes.
function lineOf(stream, re, what) {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} in ${WAIT_MS} ms: ${text.slice(-400)}`)), WAIT_MS);
    stream.on('data', (d) => {
      text += d;
      const m = text.match(re);
      if (m) { clearTimeout(timer); resolve(m); }
    });
  });
}

// The DevTools protocol over one browser-wide socket; sessions are pages.
class DevTools {
  constructor(ws) {
    this.ws = ws;
    this.id = 0;
    this.waiting = new Map();
    ws.on('message', (text) => {
      const m = JSON.parse(text);
      if (m.id && this.waiting.has(m.id)) {
        const {resolve, reject} = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (m.error) reject(new Error(JSON.stringify(m.error)));
        else resolve(m.result);
      }
    });
  }
  call(method, params = {}, sessionId) {
    const id = ++this.id;
    this.ws.send(JSON.stringify({id, method, params, sessionId}));
    return new Promise((resolve, reject) => this.waiting.set(id, {resolve, reject}));
  }
  async open(url) {
    const {targetId} = await this.call('Target.createTarget', {url});
    const {sessionId} = await this.call('Target.attachToTarget', {targetId, flatten: true});
    const page = {
      eval: async (expr) => {
        const r = await this.call('Runtime.evaluate', {expression: expr, returnByValue: true, awaitPromise: true}, sessionId);
        if (r.exceptionDetails) throw new Error(`${expr}: ${JSON.stringify(r.exceptionDetails).slice(0, 300)}`);
        return r.result.value;
      },
      call: (method, params) => this.call(method, params, sessionId),
    };
    await page.call('Page.enable');
    await page.call('Emulation.setDeviceMetricsOverride', {width: 1400, height: 900, deviceScaleFactor: 1, mobile: false});
    return page;
  }
}

const status = (page) => page.eval('window.starburst && window.starburst.status');
const readout = (page) => page.eval("document.getElementById('readout').textContent");
// The readout's "dt X  softening Y" as numbers.
async function readoutValues(page) {
  const m = (await readout(page)).match(/dt (\S+) {2}softening (\S+) {2}damping (\S+)/);
  return m ? {dt: Number(m[1]), softening: Number(m[2]), damping: Number(m[3])} : null;
}
const near = (a, b) => Math.abs(a - b) <= 2e-3 * Math.max(Math.abs(a), Math.abs(b));

// Drags a slider's thumb by the mouse, from where its value puts it, by a fraction of its width.
async function dragSlider(page, id, by) {
  const box = await page.eval(`(() => { const e = document.getElementById('${id}'); e.scrollIntoView();
    const r = e.getBoundingClientRect(); return {x: r.left, y: r.top + r.height / 2, w: r.width, v: Number(e.value)}; })()`);
  const thumb = 8; // half the thumb: its centre runs from thumb to w - thumb
  const from = box.x + thumb + (box.w - 2 * thumb) * box.v / 1000;
  const to = Math.max(box.x + thumb, Math.min(box.x + box.w - thumb, from + by * box.w));
  const mouse = (type, x) => page.call('Input.dispatchMouseEvent', {type, x, y: box.y, button: 'left', buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1});
  await mouse('mouseMoved', from);
  await mouse('mousePressed', from);
  for (let i = 1; i <= 8; i++) await mouse('mouseMoved', from + (to - from) * i / 8);
  await mouse('mouseReleased', to);
}

async function key(page, k, code, vk, modifiers = 0) {
  await page.call('Input.dispatchKeyEvent', {type: 'keyDown', key: k, code, windowsVirtualKeyCode: vk, modifiers, text: k === ' ' ? ' ' : undefined});
  await page.call('Input.dispatchKeyEvent', {type: 'keyUp', key: k, code, windowsVirtualKeyCode: vk, modifiers});
}

// A raw client at the WebSocket's door with the given token and Origin: 'open' or why not.
async function door(host, token, origin, protocol = 'starburst') {
  try {
    const c = await connect(`ws://${host}/ws?token=${token}`, {origin, protocol});
    c.destroy();
    return 'open';
  } catch (e) {
    return e.message;
  }
}

async function main() {
  fs.mkdirSync(out, {recursive: true});
  const save = path.join(out, 'served.tipsy');
  for (const f of [save, `${save}.ini`]) fs.rmSync(f, {force: true});
  const server = spawn(app, ['serve', '--backend', 'cpu', '-n', '2048', '--size', '640x360', '--listen', '127.0.0.1:0', '--save', save],
    {cwd: out, stdio: ['ignore', 'ignore', 'pipe']});
  children.push(server);
  let log = '';
  server.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({code, signal})));
  const [, driveUrl, viewUrl] = await until(() => log.match(/drive the run at (http:\/\/\S+)\n.*watch it at (http:\/\/\S+)/),
    'the addresses to open');
  check(log.split('\n')[0].includes('drive the run at http://127.0.0.1:'), `the first line is the drive address: ${log.split('\n')[0]}`);
  const host = new URL(driveUrl).host, driveToken = new URL(driveUrl).searchParams.get('token');
  const viewToken = new URL(viewUrl).searchParams.get('token');
  check(driveToken.length === 48 && viewToken.length === 48 && driveToken !== viewToken, 'two tokens of 48 hex digits');

  // The doors: a wrong token, none, another site's Origin, no Origin.
  const origin = `http://${host}`;
  const wrong = driveToken.slice(0, -1) + (driveToken.endsWith('0') ? '1' : '0');
  check((await door(host, wrong, origin)) !== 'open', 'a token one digit off is refused');
  check((await door(host, '', origin)) !== 'open', 'no token is refused');
  check((await door(host, driveToken, 'http://evil.example')) !== 'open', "another site's Origin is refused");
  check((await door(host, driveToken, undefined)) !== 'open', 'no Origin is refused');
  // A client that names no protocol comes in by the same door: the token is still asked.
  check((await door(host, wrong, origin, undefined)) !== 'open', 'no protocol and a wrong token is refused');
  check((await door(host, driveToken, origin)) === 'open', 'the drive token and this Origin open');

  const browser = spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--remote-debugging-port=0', `--user-data-dir=${path.join(out, 'chromium-profile')}`, 'about:blank'],
  {stdio: ['ignore', 'ignore', 'pipe']});
  children.push(browser);
  const [, devtoolsUrl] = await lineOf(browser.stderr, /DevTools listening on (ws:\/\/\S+)/, 'DevTools address');
  const cdp = new DevTools(await connect(devtoolsUrl));

  // ---- the driver's page
  const drive = await cdp.open(driveUrl);
  await until(async () => (await drive.eval('window.starburst && window.starburst.role')) === 'drive', 'the page to drive');
  await until(async () => (await drive.eval('window.starburst.drawn')) >= 5, 'five frames drawn');
  const rect = await drive.eval(`(() => { const r = document.getElementById('view').getBoundingClientRect();
    return {x: r.left, y: r.top, width: r.width, height: r.height}; })()`);
  const shot = await drive.call('Page.captureScreenshot', {format: 'png', clip: {...rect, scale: 1}});
  const png = path.join(out, 'page-view.png');
  fs.writeFileSync(png, Buffer.from(shot.data, 'base64'));
  try {
    console.log(execFileSync(checkImage, [png, '--clusters', '2']).toString().trim());
    ok('the page shows the two galaxies lit');
  } catch (e) {
    fail(`the page's view: ${e.stdout}`);
  }
  const text = await readout(drive);
  check(/t [\d.]+ Myr/.test(text) && /dE\/E0 /.test(text) && /N 2048/.test(text) && /frames\/s delivered [\d.]+/.test(text) &&
    /method \S+/.test(text), `the readout: ${text.replace(/\n/g, ' | ')}`);
  await until(async () => /frames\/s delivered [1-9]/.test(await readout(drive)), 'frames/s delivered above 1');

  // The sliders, dragged by the mouse: dt down, softening up; the readout and the server agree.
  const start = await status(drive);
  await dragSlider(drive, 'dt', -0.2);
  const dt = await until(async () => { const s = await status(drive); return !near(s.dt, start.dt) && s.dt; }, 'dt to change');
  check(dt < start.dt, `dt dragged down: ${start.dt} -> ${dt}`);
  await dragSlider(drive, 'softening', 0.08);
  const soft1 = await until(async () => { const s = await status(drive); return !near(s.softening, start.softening) && s.softening; }, 'softening to change');
  check(soft1 > start.softening, `softening dragged up: ${start.softening} -> ${soft1}`);
  // ctrl+Z takes the softening back whole; the drag again sets it anew.
  await key(drive, 'z', 'KeyZ', 90, 2);
  await until(async () => near((await status(drive)).softening, start.softening), 'ctrl+Z to take the softening back');
  ok('ctrl+Z on the page took back the softening');
  await dragSlider(drive, 'softening', 0.05);
  const soft = await until(async () => { const s = await status(drive); return !near(s.softening, start.softening) && s.softening; }, 'softening to change again');
  const shown = await until(async () => { const v = await readoutValues(drive); return v && near(v.dt, dt) && near(v.softening, soft) && v; }, 'the readout to show them');
  ok(`the readout shows dt ${shown.dt}, softening ${shown.softening}`);
  // Space pauses, as in the window.
  const wasPaused = (await status(drive)).paused;
  await key(drive, ' ', 'Space', 32);
  await until(async () => (await status(drive)).paused !== wasPaused, 'space to pause');
  const paused = !wasPaused;
  check(/\n(paused|running)$/.test(await readout(drive)) && (await readout(drive)).endsWith(paused ? 'paused' : 'running'), `space: the readout says ${paused ? 'paused' : 'running'}`);

  // ---- a page with the view token watches and cannot drive
  const watch = await cdp.open(viewUrl);
  await until(async () => (await watch.eval('window.starburst && window.starburst.role')) === 'watch', 'the page to watch');
  await until(async () => (await watch.eval('window.starburst.drawn')) >= 3, "the watcher's frames");
  check(await watch.eval("document.getElementById('controls').disabled"), "the watcher's controls are off");
  await watch.eval("window.starburst.send('set dt 0.001')");
  const refusal = await until(() => watch.eval("window.starburst.replies.find((r) => !r.ok)"), 'a refusal');
  check(/watches/.test(refusal.text), `the watcher's dt refused: ${refusal.text}`);
  const frameThen = (await status(drive)).frame;
  await until(async () => (await status(drive)).frame >= frameThen + 3, 'three more frames');
  check(near((await status(drive)).dt, dt), `dt unchanged by the watcher: ${(await status(drive)).dt}`);

  // ---- a raw client with the drive token: junk, too long, cut short, never finished
  const raw = await connect(`ws://${host}/ws?token=${driveToken}`, {origin, protocol: 'starburst'});
  const replies = [];
  raw.on('message', (d, binary) => { if (!binary && d.includes('"reply"')) replies.push(JSON.parse(d)); });
  const bad = ['junk', 'set dt', 'set dt 1 2', 'set nothing 1', 'set dt 1;rm', 'key escape', 'orbit 1e999 0', 'zoom nan',
    'x'.repeat(100000), 'set dt \u00ff'];
  for (const b of bad) raw.send(b);
  raw.sendBinary(Buffer.from([0, 1, 2, 3, 255]));
  await until(() => replies.length >= bad.length + 1, 'an answer to each bad message');
  check(replies.length === bad.length + 1 && replies.every((r) => !r.ok), `each bad message refused once: ${replies.map((r) => r.text).slice(0, 4).join(' / ')} ...`);
  check(replies.some((r) => /100000 bytes: the most is 256/.test(r.text)), 'the long one refused for its length');
  // A value out of range is brought in as the panel brings a typed one, with the panel's words.
  raw.send('set damping 5');
  const fitted = await until(() => replies.find((r) => r.ok && /damping/.test(r.text)), 'an answer to damping 5');
  check(/^damping 5 is above the range .*: set to 1$/.test(fitted.text), `damping 5: ${fitted.text}`);
  await until(async () => (await status(drive)).damping === 1, 'damping 1');
  // A message in three pieces is one message.
  raw.raw(Buffer.concat([raw.frame(1, 'set dam', false), raw.frame(0, 'ping 0.9', false), raw.frame(0, '99', true)]));
  await until(async () => near((await status(drive)).damping, 0.999), 'a message in pieces to set damping 0.999');
  ok('a message in three pieces: damping 0.999');
  // Cut short: a frame that claims 1 MB and sends ten bytes, then its socket gone; and a message
  // begun and never finished, its socket left open.
  const cut = await connect(`ws://${host}/ws?token=${driveToken}`, {origin, protocol: 'starburst'});
  cut.raw(cut.frame(1, 'x'.repeat(1 << 20)).subarray(0, 24));
  cut.destroy();
  raw.raw(raw.frame(1, 'set dt 0.', false));
  const half = require('net').connect(Number(new URL(driveUrl).port), '127.0.0.1');
  half.write('GET /ws?token=' + driveToken + ' HTTP/1.1\r\nHost: ' + host + '\r\nUpg');
  const before = (await status(drive)).frame;
  await until(async () => (await status(drive)).frame >= before + 5 && (await drive.eval('window.starburst.drawn')) > 0, 'the run to go on');
  check(near((await status(drive)).dt, dt), `dt as the sliders left it: ${(await status(drive)).dt}`);
  const drawn = await drive.eval('window.starburst.drawn');
  await until(async () => (await drive.eval('window.starburst.drawn')) > drawn, 'the driver to get frames still');
  ok('the server runs on and the driver gets frames');
  half.destroy();
  raw.destroy();

  // ---- SIGINT: the run saved as the window saves it
  const sent = await status(drive);
  server.kill('SIGINT');
  const end = await until(() => exited.then((e) => e), 'the server to stop', WAIT_MS);
  check(end.signal === 'SIGINT' && /interrupted by SIGINT: saved /.test(log), `SIGINT: ended by it, saved (${end.signal || end.code})`);
  const ini = fs.existsSync(`${save}.ini`) ? fs.readFileSync(`${save}.ini`, 'utf8') : '';
  const value = (k) => { const m = ini.match(new RegExp(`^${k} = (\\S+)$`, 'm')); return m ? Number(m[1]) : NaN; };
  check(near(value('dt'), dt) && near(value('softening'), soft) && near(value('damping'), 0.999),
    `the save holds dt ${value('dt')}, softening ${value('softening')}, damping ${value('damping')} (the page: ${sent.dt}, ${sent.softening}, ${sent.damping})`);
  try {
    execFileSync(app, ['--headless', '--backend', 'cpu', '--load', save, '--frames', '1', '--quiet'], {cwd: out, stdio: 'pipe'});
    ok('the save loads');
  } catch (e) {
    fail(`the save does not load: ${e.stderr}`);
  }
  const served = log.match(/served \d+ frames.*/);
  if (served) console.log(served[0]);
}

main().catch((e) => fail(e.message)).finally(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  console.log(`${failures ? 'FAILED' : 'passed'}: ${failures} failure(s)`);
  process.exit(failures ? 1 : 0);
});
