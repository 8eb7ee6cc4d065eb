// The served page in a real browser: `starburst serve` on a free localhost port, Debian's Chromium
// headless driven through the DevTools protocol. The driver's page shows the galaxies (a screenshot
// checked with check_image), its dt and softening sliders dragged by the mouse and its keys pressed
// change the run (read back from the page's readout, then from the save SIGINT writes); a page with
// the view token cannot drive; junk, messages too long, cut short or never finished, and wrong doors
// leave the server running and its save whole. Then the rest of the panel, used as a person uses it
// (a force chosen from its list, values typed beside the sliders, the colour, a scene and its N and
// seed with Reset, a preset, the timeline scrubbed and space to resume), each read back from the
// status the page gets and from the app's own readout file (STARBURST_READOUT); and the panel's
// messages with bad values refused, one line each, nothing changed. Every wait is for a condition,
// with a deadline.
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
    const r = e.getBoundingClientRect(); return {x: r.left, y: r.top + r.height / 2, w: r.width,
    f: (Number(e.value) - Number(e.min)) / Math.max(1, Number(e.max) - Number(e.min))}; })()`);
  const thumb = 8; // half the thumb: its centre runs from thumb to w - thumb
  const from = box.x + thumb + (box.w - 2 * thumb) * box.f;
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

// A click on an element's middle, by the mouse.
async function click(page, id) {
  const at = await page.eval(`(() => { const e = document.getElementById('${id}'); e.scrollIntoView({block: 'center'});
    const r = e.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const at = document.elementFromPoint(x, y); return {x, y, at: at && (at.id || at.tagName)}; })()`);
  for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
    await page.call('Input.dispatchMouseEvent', {type, x: at.x, y: at.y, button: 'left', buttons: type === 'mousePressed' ? 1 : 0, clickCount: 1});
}

// A choice from a list as the keyboard makes it: the list given the focus (as Tab gives it; a
// click would open its popup, which headless Chromium keeps open over the next click), then Down
// or Up until the option whose text is `text` is chosen (each move is a change the page sends).
async function choose(page, id, text) {
  await page.eval(`document.getElementById('${id}').focus()`);
  const where = () => page.eval(`(() => { const e = document.getElementById('${id}');
    return {at: e.selectedIndex, want: [...e.options].findIndex((o) => o.textContent === ${JSON.stringify(text)})}; })()`);
  for (let i = 0; i < 64; i++) {
    const {at, want} = await where();
    if (want < 0) throw new Error(`#${id} offers no '${text}'`);
    if (at === want) {
      // Enter takes the choice, closing the popup where the arrows opened one.
      await page.call('Input.dispatchKeyEvent', {type: 'keyDown', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r'});
      await page.call('Input.dispatchKeyEvent', {type: 'keyUp', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13});
      return;
    }
    if (want > at) await key(page, 'ArrowDown', 'ArrowDown', 40);
    else await key(page, 'ArrowUp', 'ArrowUp', 38);
  }
  throw new Error(`#${id}: '${text}' not reached by the arrow keys`);
}

// Text typed into a field as a person types it: clicked, all of it selected, the text, Enter.
async function type(page, id, text) {
  await click(page, id);
  const focused = await page.eval('document.activeElement && document.activeElement.id');
  if (focused !== id) {
    const dbg = await page.eval(`(() => { const e = document.getElementById('${id}'); const r = e.getBoundingClientRect();
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return JSON.stringify({r, at: at && (at.id || at.tagName), y: scrollY}); })()`);
    throw new Error(`a click on #${id} gave the focus to #${focused}: ${dbg}`);
  }
  await page.call('Input.dispatchKeyEvent', {type: 'keyDown', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2, commands: ['selectAll']});
  await page.call('Input.dispatchKeyEvent', {type: 'keyUp', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2});
  await page.call('Input.insertText', {text});
  await page.call('Input.dispatchKeyEvent', {type: 'keyDown', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r'});
  await page.call('Input.dispatchKeyEvent', {type: 'keyUp', key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13});
}

// The app's own readout (STARBURST_READOUT): "key value" a line.
function appReadout(file) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) { return {}; }
  const r = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(' ');
    if (at > 0) r[line.slice(0, at)] = line.slice(at + 1);
  }
  return r;
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
  const readoutFile = path.join(out, 'readout.txt');
  const server = spawn(app, ['serve', '--backend', 'cpu', '-n', '2048', '--size', '640x360', '--listen', '127.0.0.1:0', '--save', save],
    {cwd: out, stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, STARBURST_READOUT: readoutFile}});
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
  check(await watch.eval("document.getElementById('controls').disabled && document.getElementById('timeline').disabled"),
    "the watcher's controls and timeline are off");
  check(await watch.eval("(() => { const e = document.getElementById('force'); return e.matches(':disabled'); })()"),
    "the watcher's force list is off with them");
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

  await panelControls(drive, readoutFile);
  await panelRefusals(drive, await connect(`ws://${host}/ws?token=${driveToken}`, {origin, protocol: 'starburst'}));

  // ---- SIGINT: the run saved as the window saves it
  const sent = await status(drive);
  server.kill('SIGINT');
  const end = await until(() => exited.then((e) => e), 'the server to stop', WAIT_MS);
  check(end.signal === 'SIGINT' && /interrupted by SIGINT: saved /.test(log), `SIGINT: ended by it, saved (${end.signal || end.code})`);
  const ini = fs.existsSync(`${save}.ini`) ? fs.readFileSync(`${save}.ini`, 'utf8') : '';
  const value = (k) => { const m = ini.match(new RegExp(`^${k} = (\\S+)$`, 'm')); return m ? Number(m[1]) : NaN; };
  // The sliders' dt and softening, and the damping typed in pieces, gave way to the preset's own
  // (the panel's section above): the save holds what the page showed last.
  check(near(value('dt'), sent.dt) && near(value('softening'), sent.softening) && near(value('damping'), sent.damping),
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

// The rest of the panel, used on the page as a person uses it; each effect read from the status
// the page gets and from the app's readout file.
async function panelControls(drive, readoutFile) {
  const app = () => appReadout(readoutFile);
  // The force: the tree chosen from the list; the app runs it and says so.
  await choose(drive, 'force', 'tree');
  await until(async () => { const s = await status(drive); return s.force === 'tree' && s.force_running === 'tree'; }, 'force tree');
  await until(() => app().force === 'tree' && app().force_choice === 'tree', "the app's readout: force tree");
  check(/force tree\b/.test(await readout(drive)), 'force tree: the status, the app and the page\'s readout agree');
  // By the angle: "by error" unticked (alpha 0), theta then typed beside its slider.
  check(!(await drive.eval("document.getElementById('theta').disabled")) || (await status(drive)).alpha > 0, 'theta offered with the tree');
  if ((await status(drive)).alpha > 0) {
    await click(drive, 'by-error');
    await until(async () => (await status(drive)).alpha === 0, '"by error" unticked: alpha 0');
  }
  await until(() => drive.eval("!document.getElementById('theta-value').disabled"), 'theta offered by the angle');
  await type(drive, 'theta-value', '0.7');
  await until(async () => near((await status(drive)).theta, 0.7), 'theta 0.7 typed');
  await until(() => near(Number(app().theta), 0.7) && Number(app().alpha) === 0, "the app's readout: theta 0.7, alpha 0");
  await until(async () => /tree, theta 0\.70/.test((await status(drive)).method), 'the method line: theta 0.70');
  ok(`theta typed: ${(await status(drive)).method}`);
  // A value the parameter table refuses: one line, theta as it was.
  await type(drive, 'theta-value', 'abc');
  const said = await until(async () => { const t = await drive.eval("document.getElementById('error').textContent"); return /abc/.test(t) && t; }, 'the page to say why abc is refused');
  check(near((await status(drive)).theta, 0.7), `theta abc refused, theta stays: ${said}`);
  // Above the parameter table's range: brought in, with the panel's words.
  await type(drive, 'exposure-value', '5000');
  await until(async () => (await status(drive)).exposure === 1000, 'exposure 5000 brought to 1000');
  const fitted = await until(async () => { const t = await drive.eval("document.getElementById('notice').textContent"); return /exposure 5000/.test(t) && t; }, 'the page to say so');
  check(/exposure 5000 is above the range .*: set to 1000$/.test(fitted), `exposure 5000: ${fitted}`);
  await type(drive, 'exposure-value', '1.5');
  await type(drive, 'point_size-value', '2.5');
  await until(async () => { const s = await status(drive); return near(s.point_size, 2.5) && near(s.exposure, 1.5); }, 'point size 2.5, exposure 1.5');
  await until(() => near(Number(app().point_size), 2.5) && near(Number(app().exposure), 1.5), "the app's readout: point size 2.5, exposure 1.5");
  ok('point size and exposure typed');
  // The colour mode.
  await choose(drive, 'color', 'speed');
  await until(async () => (await status(drive)).color === 'speed' && app().color_mode === '1', 'colour by speed');
  ok('colour by speed');

  // The scene section: disk, 1024 bodies, seed 5, live halos, then R on the view.
  const before = await status(drive);
  await choose(drive, 'scene', 'disk');
  await type(drive, 'bodies', '1024');
  await type(drive, 'seed', '5');
  if (!(await drive.eval("document.getElementById('live-halo').checked"))) await click(drive, 'live-halo');
  await until(async () => { const n = (await status(drive)).next; return n.scene === 'disk' && n.bodies === 1024 && n.seed === 5 && n.halo === 'live'; },
    'the next scene: disk, 1024, seed 5, live');
  check((await status(drive)).running.scene === before.running.scene, 'nothing built before the reset');
  await click(drive, 'view');
  await key(drive, 'r', 'KeyR', 82);
  const built = await until(async () => { const s = await status(drive); return s.running.scene === 'disk' && s.running.seed === 5 && s.bodies === 1024 && s.halos === 0 && s; },
    'R to build the disk of 1024 bodies, seed 5, live halo');
  await until(() => app().bodies === '1024' && app().live_halo === '1' && app().field_halos === '0', "the app's readout: 1024 bodies, live halo");
  ok(`R built it: ${built.notice}`);

  // The collision's encounter: offered with the collision, typed (a length with its unit), a
  // slider dragged, nothing built until R; R builds it.
  check(await drive.eval("document.getElementById('encounter').hidden"), 'no encounter controls for the disk');
  await choose(drive, 'scene', 'collision');
  await until(() => drive.eval("!document.getElementById('encounter').hidden"), 'the encounter offered with the collision');
  await type(drive, 'mass_ratio-value', '0.3');
  await type(drive, 'pericentre-value', '20kpc');
  await type(drive, 'inclination_b-value', '-120');
  await until(async () => { const s = await status(drive); return near(s.mass_ratio, 0.3) && near(s.pericentre, 20 / 2.6) && near(s.inclination_b, -120); },
    'mass ratio 0.3, pericentre 20 kpc, inclination B -120 typed');
  await until(() => drive.eval("/20\\.0 kpc/.test(document.getElementById('pericentre-note').textContent)"), 'the page says 20.0 kpc');
  const tilt = (await status(drive)).inclination_a;
  await dragSlider(drive, 'inclination_a', 0.25);
  await until(async () => (await status(drive)).inclination_a > tilt + 30, 'inclination A dragged up');
  check(app().encounter_built === '0' && (await status(drive)).running.scene === 'disk', 'the encounter waits for R: the disk runs');
  await click(drive, 'view');
  await key(drive, 'r', 'KeyR', 82);
  const met = await until(() => near(Number(app().built_mass_ratio), 0.3) && near(Number(app().built_inclination_b), -120) &&
    near(Number(app().built_pericentre), 20 / 2.6) && Number(app().built_inclination_a) > tilt + 30 && app(), 'R to build the encounter');
  ok(`the encounter built: mass ratio ${met.built_mass_ratio}, pericentre ${met.built_pericentre}, tilts ${met.built_inclination_a} and ${met.built_inclination_b}`);

  // The arrow keys pass presets without running them: the run goes on as it was, Escape puts the
  // list back; Enter (in choose) runs the one shown.
  await click(drive, 'view');
  if ((await status(drive)).paused) await key(drive, ' ', 'Space', 32);
  const unrun = await until(async () => { const s = await status(drive); return !s.paused && s; }, 'the run going');
  await drive.eval("document.getElementById('preset').focus()");
  await key(drive, 'ArrowDown', 'ArrowDown', 40);
  await key(drive, 'ArrowDown', 'ArrowDown', 40);
  const passed = Number(await drive.eval("document.getElementById('preset').value"));
  check(passed !== unrun.preset, `the arrow keys moved the list (to ${passed}, from ${unrun.preset})`);
  const later = await until(async () => { const s = await status(drive); return s.step > unrun.step + 20 && s; },
    'the run going on past the presets passed');
  check(later.preset === unrun.preset && later.running.scene === unrun.running.scene && later.step > unrun.step,
    `no preset run by the arrow keys: preset ${later.preset}, scene ${later.running.scene}`);
  await key(drive, 'Escape', 'Escape', 27);
  check(Number(await drive.eval("document.getElementById('preset').value")) === unrun.preset, 'Escape put the list back');
  // A preset from its list: its scene runs, the list shows it chosen.
  await choose(drive, 'preset', 'Plummer sphere');
  const preset = await until(async () => { const s = await status(drive); return s.presets[s.preset] === 'Plummer sphere' && s.running.scene === 'plummer' && s; },
    'the Plummer sphere preset');
  await until(() => Number(app().preset) === preset.preset, "the app's readout: the preset's index");
  check(/Plummer sphere/.test(preset.notice), `the preset: ${preset.notice}`);

  // The timeline: the run goes on to some keyframes, the slider dragged back, space resumes.
  // The keys go to the view, as in the window; a list keeps its own while it has the focus.
  await click(drive, 'view');
  if ((await status(drive)).paused) await key(drive, ' ', 'Space', 32);
  await until(async () => { const s = await status(drive); return !s.paused && s.timeline.count >= 20; }, 'twenty keyframes');
  await dragSlider(drive, 'timeline', -0.5);
  const shown = await until(async () => { const s = await status(drive); return s.timeline.shown >= 0 && s.paused && s; }, 'a past keyframe shown');
  check(shown.timeline.shown < shown.timeline.count - 1 && /keyframe \d+\/\d+/.test(shown.timeline.text),
    `scrubbed to keyframe ${shown.timeline.shown}: ${shown.timeline.text}`);
  await until(() => Number(app().timeline_view) === shown.timeline.shown, "the app's readout: the keyframe shown");
  check((await drive.eval("document.getElementById('timeline-text').textContent")) === shown.timeline.text ||
    /keyframe/.test(await drive.eval("document.getElementById('timeline-text').textContent")), 'the page shows the timeline\'s line');
  // Space resumes from the keyframe shown, as in the window: the run goes on from there.
  await click(drive, 'view');
  await key(drive, ' ', 'Space', 32);
  await until(async () => { const s = await status(drive); return !s.paused && s.timeline.shown === -1 && s.step > shown.step; }, 'space to resume from it');
  ok('space resumed the run from the keyframe shown');
}

// The panel's messages with bad values, from a client with the drive token: each refused with one
// line, the controls as they were.
async function panelRefusals(drive, raw) {
  const replies = [];
  raw.on('message', (d, binary) => { if (!binary && d.includes('"reply"')) replies.push(JSON.parse(d)); });
  const was = await status(drive);
  const bad = ['force warp', 'halo dark', 'scene nope', 'scene a/b', 'color none', 'bodies x', 'seed -', 'preset 999',
    'preset No such preset', 'timeline seek 99999', 'timeline seek -1', 'timeline play', 'preset'];
  for (const b of bad) raw.send(b);
  await until(() => replies.length >= bad.length, 'an answer to each bad panel message');
  check(replies.length === bad.length && replies.every((r) => !r.ok && r.text && !r.text.includes('\n')),
    `each refused with one line: ${replies.map((r) => r.text).slice(0, 3).join(' / ')} ...`);
  const now = await status(drive);
  const same = (s) => JSON.stringify([s.force, s.color, s.next, s.preset, s.running]);
  check(same(now) === same(was), `nothing changed: ${same(now)}`);
  raw.destroy();
}

main().catch((e) => fail(e.message)).finally(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  console.log(`${failures ? 'FAILED' : 'passed'}: ${failures} failure(s)`);
  process.exit(failures ? 1 : 0);
});
