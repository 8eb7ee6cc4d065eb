// The served page: the view as JPEG frames over a WebSocket, the panel's controls as HTML, the
// window's keys and mouse. It holds no state of the run: every value shown comes from the server's
// readout, and every change goes to the server as one line (src/serve/serve_msg.h), which checks it
// as the window's panel checks a typed value.
'use strict';
(() => {
  const token = new URLSearchParams(location.search).get('token') || '';
  const canvas = document.getElementById('view');
  const view = canvas.getContext('2d');
  const $ = (id) => document.getElementById(id);
  // What the page has seen, for a person and for the test that drives it.
  const page = {
    role: null, status: null, open: false, closed: false,
    received: 0, drawn: 0, badFrames: 0, delivered: 0, replies: [], sent: [],
  };
  window.starburst = page;
  let socket = null;

  function send(text) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(text);
    page.sent.push(text);
    if (page.sent.length > 50) page.sent.shift();
    return true;
  }
  page.send = send;
  const drives = () => page.role === 'drive';

  // ---- frames: the newest drawn, one decode at a time; those that come meanwhile replace each other
  let decoding = false, waiting = null;
  async function draw(blob) {
    decoding = true;
    try {
      const image = await createImageBitmap(blob);
      if (canvas.width !== image.width || canvas.height !== image.height) {
        canvas.width = image.width;
        canvas.height = image.height;
      }
      view.drawImage(image, 0, 0);
      image.close();
      page.drawn++;
      drawnSince++;
    } catch (e) {
      page.badFrames++;
    }
    decoding = false;
    if (waiting) {
      const next = waiting;
      waiting = null;
      draw(next);
    }
  }
  function onFrame(blob) {
    page.received++;
    if (decoding) waiting = blob;
    else draw(blob);
  }
  let drawnSince = 0, since = performance.now();
  setInterval(() => {
    const now = performance.now();
    page.delivered = drawnSince / ((now - since) / 1000);
    drawnSince = 0;
    since = now;
    showReadout();
  }, 500);

  // ---- the readout and the controls, from the server's status
  const fmt = (v, digits = 4) => (Number.isFinite(v) ? Number(v).toPrecision(digits).replace(/\.?0+(e|$)/, '$1') : '-');
  function showReadout() {
    const s = page.status;
    if (!s) return;
    const lines = [
      s.time_text || `t ${fmt(s.time)}`,
      `dE/E0 ${s.energy_valid ? Number(s.energy).toExponential(2) : '-'}`,
      `N ${s.bodies}${s.halos ? ` stars + ${s.halos} halo fields` : ''}`,
      `frames/s delivered ${page.delivered.toFixed(1)} (server ${fmt(s.fps, 3)} frames/s)`,
      `method ${s.method} (${s.backend})${s.force_error ? `; force error p99 ${Number(s.force_error.p99).toExponential(1)}` : ''}`,
      `force ${s.force}${s.force_running && s.force !== s.force_running ? ` (runs ${s.force_running})` : ''}  colour ${s.color}`,
      `dt ${fmt(s.dt)}  softening ${fmt(s.softening)}  damping ${fmt(s.damping)}  steps/frame ${s.steps}`,
      s.paused ? 'paused' : 'running',
    ];
    $('readout').textContent = lines.join('\n');
  }

  // A slider's position 0 .. 1000 for a value in the server's range, and back.
  function toSlider(input, v, range) {
    const [lo, hi] = range;
    const f = input.dataset.scale === 'log' && lo > 0 ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo);
    return Math.round(1000 * Math.min(1, Math.max(0, f)));
  }
  function fromSlider(input, pos, range) {
    const [lo, hi] = range;
    const f = pos / 1000;
    const v = input.dataset.scale === 'log' && lo > 0 ? lo * Math.pow(hi / lo, f) : lo + f * (hi - lo);
    return input.dataset.whole ? Math.round(v) : Number(v.toPrecision(4));
  }
  const sliders = ['dt', 'softening', 'damping', 'steps', 'theta', 'alpha', 'point_size', 'exposure', 'mass_ratio',
    'pericentre', 'eccentricity', 'inclination_a', 'inclination_b'].map((id) => $(id));
  const typed = [...document.querySelectorAll('input.typed')];
  const touched = {}; // when the person last changed each control: the server's value waits a moment
  // A control follows the server once the person has left it a moment: a field being typed into,
  // not until it is left.
  const settled = (id) => performance.now() - (touched[id] || 0) > 600 &&
    !(document.activeElement === $(id) && (id.endsWith('-value') || $(id).type === 'number'));

  // A select's options as the server names them; rebuilt only when the names change.
  function fillSelect(select, names, none) {
    const want = (none ? [none] : []).concat(names);
    const have = [...select.options].map((o) => o.textContent);
    if (have.length === want.length && have.every((t, i) => t === want[i])) return;
    select.textContent = '';
    want.forEach((name, i) => {
      const o = document.createElement('option');
      o.textContent = name;
      o.value = none ? String(i - 1) : name;
      select.appendChild(o);
    });
  }
  function follow(id, value) {
    if (settled(id)) $(id).value = value;
  }

  function showControls(s) {
    for (const input of sliders) {
      const field = input.dataset.field, range = s.ranges[field];
      if (!range) continue;
      const v = field === 'alpha' && !(s.alpha > 0) ? s.alpha_kept : s[field];
      if (settled(`${field}-value`)) $(`${field}-value`).value = fmt(s[field]);
      if (settled(field)) input.value = toSlider(input, v, range);
    }
    $('pause').textContent = s.paused ? 'Resume' : 'Pause';
    // The force combo: what was asked, what runs; the fmm is the CPU backend's, as in the panel.
    fillSelect($('force'), s.forces || []);
    for (const o of $('force').options) o.disabled = o.value === 'fmm' && s.cuda;
    follow('force', s.force);
    $('force-running').textContent = s.force_running ? `runs ${s.force_running}` : '';
    // theta and alpha act on the tree and the fmm alone; theta waits while the tree opens by error.
    const byError = s.alpha > 0;
    $('theta').disabled = $('theta-value').disabled = !s.tree || (byError && !s.fmm);
    $('alpha').disabled = $('alpha-value').disabled = !s.tree || !byError;
    $('by-error').disabled = !s.tree;
    if (settled('by-error')) $('by-error').checked = byError;
    fillSelect($('color'), s.colors || []);
    follow('color', s.color);
    if (s.next) {
      fillSelect($('scene'), s.scenes || []);
      follow('scene', s.next.scene);
      if (s.ranges.bodies) [$('bodies').min, $('bodies').max] = s.ranges.bodies;
      follow('bodies', s.next.bodies);
      follow('seed', s.next.seed);
      if (settled('live-halo')) $('live-halo').checked = s.next.halo === 'live';
      // The encounter's controls where the scene chosen is the collision, as in the panel.
      $('encounter').hidden = s.next.scene !== s.encounter_scene;
      $('pericentre-note').textContent = s.pericentre_note ? `pericentre ${s.pericentre_note}` : '';
    }
    fillSelect($('preset'), s.presets || [], '(none)');
    follow('preset', String(s.preset));
    // The timeline's slider, under the view as in the window: at two keyframes and more.
    const tl = s.timeline || {count: 0, shown: -1, text: ''};
    $('timeline-text').textContent = tl.text;
    $('timeline').disabled = !drives() || tl.count < 2;
    // Its ends and handle follow the run only while the person leaves it: a drag keeps its scale.
    if (settled('timeline') && !scrubbing) {
      $('timeline').max = Math.max(0, tl.count - 1);
      $('timeline').value = tl.shown >= 0 ? tl.shown : Math.max(0, tl.count - 1);
    }
  }

  let noticeId = -1;
  function onStatus(s) {
    page.status = s;
    showControls(s);
    if (s.notice_id !== noticeId) {
      noticeId = s.notice_id;
      $('notice').textContent = s.notice || '';
    }
    if (s.alarm) $('error').textContent = s.alarm;
    showReadout();
  }

  function onText(text) {
    let m;
    try {
      m = JSON.parse(text);
    } catch (e) {
      return;
    }
    if (m.type === 'status') onStatus(m);
    else if (m.type === 'hello') {
      page.role = m.role;
      $('role').textContent = drives() ? 'Driving: the controls change the run.'
        : 'Watching: the page with the driver\'s token changes the run.';
      $('controls').disabled = !drives();
      $('timeline').disabled = !drives();
    } else if (m.type === 'reply') {
      page.replies.push(m);
      if (page.replies.length > 50) page.replies.shift();
      if (!m.ok) $('error').textContent = m.text;
      else if (m.text) $('notice').textContent = m.text;
    }
  }

  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`, 'starburst');
    socket.binaryType = 'blob';
    socket.onopen = () => { page.open = true; $('state').textContent = ''; };
    socket.onclose = () => {
      page.open = false;
      page.closed = true;
      $('state').textContent = page.role ? 'the server closed the connection' : 'refused: open the address the server printed, with its token';
    };
    socket.onmessage = (e) => (typeof e.data === 'string' ? onText(e.data) : onFrame(e.data));
  }

  // ---- what the person does: each sent at most once every 16 ms, the newest kept; sent(), where
  // given, is told once its message went. A timer, not an animation frame: a tab that is not shown
  // gets none of those, and a driver's page in a tab behind another still drives.
  const queued = new Map();
  let flushing = false;
  function queue(key, text, sent) {
    queued.set(key, {text, sent});
    if (!flushing) {
      flushing = true;
      setTimeout(() => {
        flushing = false;
        for (const q of queued.values()) {
          send(q.text);
          if (q.sent) q.sent();
        }
        queued.clear();
      }, 16);
    }
  }

  for (const input of sliders) {
    const field = input.dataset.field;
    const value = () => fromSlider(input, Number(input.value), page.status.ranges[field]);
    // While dragged, the value shows here; it is sent when the slider is let go, one change that
    // ctrl+Z takes back whole, as the window's panel does.
    input.addEventListener('input', () => {
      if (!drives() || !page.status) return;
      touched[field] = performance.now();
      $(`${field}-value`).value = fmt(value());
    });
    input.addEventListener('change', () => {
      if (!drives() || !page.status) return;
      touched[field] = performance.now();
      queue(`set ${field}`, `set ${field} ${value()}`);
    });
  }
  // A value typed beside a slider, sent with Enter as the panel's ctrl+click field takes it: the
  // server reads it (a unit such as 200pc included) and brings it into the range.
  for (const box of typed) {
    const field = box.dataset.field;
    box.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { box.blur(); return; }
      if (e.key !== 'Enter' || !drives()) return;
      const text = box.value.trim().replace(/\s+/g, '');
      if (text) send(`set ${field} ${text}`);
      touched[`${field}-value`] = performance.now();
      box.blur();
    });
  }
  // Each choice of the panel, as one message.
  const onChange = (id, message) => $(id).addEventListener('change', () => {
    if (!drives() || !page.status) return;
    touched[id] = performance.now();
    const text = message($(id));
    if (text) send(text);
  });
  onChange('force', (e) => `force ${e.value}`);
  onChange('by-error', (e) => `set alpha ${e.checked ? page.status.alpha_kept : 0}`);
  onChange('color', (e) => `color ${e.value}`);
  onChange('scene', (e) => `scene ${e.value}`);
  onChange('bodies', (e) => (e.value.trim() ? `bodies ${e.value.trim()}` : null));
  onChange('seed', (e) => (e.value.trim() ? `seed ${e.value.trim()}` : null));
  onChange('live-halo', (e) => `halo ${e.checked ? 'live' : 'field'}`);
  // A preset is a whole new run: the arrow keys move through the list without running each preset
  // they pass (Chromium sends a change for every one); Enter runs the one shown, Escape or leaving
  // the list puts back the one running. A click in the list's popup runs its choice at once.
  const presetList = $('preset');
  let presetByKeys = false;
  const presetMessage = () => (Number(presetList.value) >= 0 ? `preset ${presetList.value}` : null);
  const presetBack = () => {
    presetByKeys = false;
    if (page.status) presetList.value = String(page.status.preset);
  };
  presetList.addEventListener('keydown', (e) => {
    if (['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown'].includes(e.key)) {
      presetByKeys = true;
      touched.preset = performance.now();
    } else if (e.key === 'Enter' && presetByKeys) {
      presetByKeys = false;
      touched.preset = performance.now();
      const text = drives() && page.status ? presetMessage() : null;
      if (text) send(text);
    } else if (e.key === 'Escape') presetBack();
  });
  presetList.addEventListener('blur', () => { if (presetByKeys) presetBack(); });
  onChange('preset', () => (presetByKeys ? null : presetMessage()));
  // The timeline's slider shows each keyframe it passes, as the window's does.
  let scrubbing = false;
  $('timeline').addEventListener('pointerdown', () => { scrubbing = true; });
  for (const end of ['pointerup', 'pointercancel', 'change']) $('timeline').addEventListener(end, () => { scrubbing = false; });
  $('timeline').addEventListener('input', () => {
    if (!drives()) return;
    touched.timeline = performance.now();
    queue('timeline', `timeline seek ${$('timeline').value}`);
  });

  function sendKey(name) {
    if (drives()) send(`key ${name}`);
  }
  for (const b of document.querySelectorAll('button[data-key]')) {
    b.addEventListener('click', () => {
      sendKey(b.dataset.key);
      b.blur(); // space goes to the page's keys, not to the button again
    });
  }

  const keyNames = {' ': 'space', '.': 'period', Backspace: 'backspace', Home: 'home', s: 's', S: 's',
    r: 'r', R: 'r', a: 'a', A: 'a', m: 'm', M: 'm', d: 'd', D: 'd', g: 'g', G: 'g', t: 't', T: 't'};
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || (t.tagName === 'INPUT' && t.type !== 'range'))) return;
    let name = null;
    const k = e.key;
    if (e.ctrlKey && (k === 'z' || k === 'Z')) name = e.shiftKey ? 'ctrl+shift+z' : 'ctrl+z';
    else if (e.ctrlKey && (k === 'y' || k === 'Y')) name = 'ctrl+y';
    else if (k === 'ArrowLeft' || k === 'ArrowRight') {
      if (t && t.type === 'range') return; // the slider's own keys
      name = (e.ctrlKey ? 'ctrl+' : e.shiftKey && k === 'ArrowLeft' ? 'shift+' : '') + (k === 'ArrowLeft' ? 'left' : 'right');
    } else if (!e.ctrlKey && !e.altKey && !e.metaKey) name = keyNames[k] || null;
    if (!name) return;
    e.preventDefault();
    sendKey(name);
  });

  // The mouse and touch on the view: in frame pixels, as the window's drags are in its pixels.
  const pointers = new Map();
  let drag = null, pinch = 0;
  const scale = () => canvas.width / canvas.clientWidth;
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('pointerdown', (e) => {
    canvas.focus();
    canvas.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
    drag = {pan: e.button === 1 || e.button === 2 || e.shiftKey, dx: 0, dy: 0};
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = Math.hypot(a.x - b.x, a.y - b.y);
    }
  });
  canvas.addEventListener('pointermove', (e) => {
    const was = pointers.get(e.pointerId);
    if (!was || !drag || !drives()) return;
    pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (pinch > 0 && d > 0) zoomBy(Math.log2(d / pinch) * 4);
      pinch = d;
      return;
    }
    drag.dx += (e.clientX - was.x) * scale();
    drag.dy += (e.clientY - was.y) * scale();
    const verb = drag.pan ? 'pan' : 'orbit';
    // What is queued is the sum since the last send: it starts again once sent.
    const moved = drag;
    queue('camera', `${verb} ${drag.dx.toFixed(2)} ${drag.dy.toFixed(2)}`, () => { moved.dx = 0; moved.dy = 0; });
  });
  const up = (e) => {
    pointers.delete(e.pointerId);
    if (pointers.size === 0) drag = null;
    pinch = 0;
  };
  canvas.addEventListener('pointerup', up);
  canvas.addEventListener('pointercancel', up);
  let turns = 0;
  function zoomBy(t) {
    turns = Math.max(-20, Math.min(20, turns + t));
    queue('zoom', `zoom ${turns.toFixed(3)}`, () => { turns = 0; });
  }
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (!drives()) return;
    const lines = e.deltaMode === 1 ? e.deltaY / 3 : e.deltaMode === 2 ? e.deltaY * 10 : e.deltaY / 100;
    zoomBy(-lines);
  }, {passive: false});

  connect();
})();
