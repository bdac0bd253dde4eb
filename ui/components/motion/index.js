// Hands that turn with the position (ui/motion.py mounts it): /sinusoidal's clock, one dial per sin/cos pair,
// and /rope's query pairs turning. Play, Step and the position slider move the position in the browser, one
// frame per screen refresh, no round trip to the server. The server decides everything but the drawing:
// which pairs, each one's frequency ω (core's own numbers), its vector at position 0 and its turning sense,
// the labels, the speeds, the trail's length and the glide of a step. The point of a dial at position p is
// that vector turned by p·ω; the numbers written are those at the whole position p. Text is written with
// textContent only; the colours are the theme's (style.css).
import { whole } from '../shared.js';

// --- pure functions (tests/js/motion.test.mjs) ---------------------------------------------------------

// The point of `dial` at position p: its vector at 0, (x0, y0), turned by turn·p·ω (turn +1 turns
// counter-clockwise: RoPE's x·cos − y·sin, x·sin + y·cos; the sinusoid's hand is (0, 1) turned by −p·ω,
// which is (sin pω, cos pω): straight up at 0, then clockwise, like a clock's hand).
export function point(dial, p) {
  const a = dial.turn * p * dial.omega, c = Math.cos(a), s = Math.sin(a);
  return [dial.x0 * c - dial.y0 * s, dial.x0 * s + dial.y0 * c];
}

// The whole position a shown (possibly fractional) position has reached; a glide ending at a whole
// position lands there within rounding.
export const wholeAt = (p) => Math.floor(p + 1e-9);

// The whole positions the trail marks: the last `length` reached, newest last.
export function trail(p, length) {
  const last = wholeAt(p), out = [];
  for (let k = Math.max(0, last - length + 1); k <= last; k++) out.push(k);
  return out;
}

// Where the position is while playing: `from` plus one position per `ms` since `t0`, gliding through
// fractional positions (or, `jumps`, from whole to whole: reduced motion), never past `end`.
export function playing(from, t0, now, ms, end, jumps) {
  const p = from + Math.max(0, now - t0) / ms;
  return Math.min(jumps ? Math.floor(p) : p, end);
}

// What a dial says under itself: its two coordinates at the whole position p, a negative one with a minus
// sign (−) as the app's other numbers; a value that rounds to zero is 0.000, never −0.000.
export function values(dial, p) {
  const fixed = (v) => { const t = v.toFixed(3); return t === '-0.000' ? '0.000' : t.replace('-', '−'); };
  const [x, y] = point(dial, p);
  return `${dial.x_name} ${fixed(x)}, ${dial.y_name} ${fixed(y)}`;
}

// A RoPE dial with a key: the key's hand is its own vector at 0, (key.x0, key.y0), turned like the query's by the same
// pθ, the key at position n and the query `offset` positions later, at m = n + offset (the slider moves n, so both).
export function keyPoint(dial, n) {
  return point({ ...dial, x0: dial.key.x0, y0: dial.key.y0 }, n);
}

// The angle from the key's hand to the query's, in degrees in (−180, 180], counter-clockwise positive: both turn by
// nθ, so it is the angle between them at 0 plus offset·θ, whatever n is.
export function between(dial, n, offset) {
  const [qx, qy] = point(dial, n + offset), [kx, ky] = keyPoint(dial, n);
  return Math.atan2(kx * qy - ky * qx, kx * qx + ky * qy) * 180 / Math.PI;
}

// What a dial with a key says under itself: the angle between the hands, to a tenth of a degree, a minus sign (−)
// for clockwise, never −0.0; and on a second line its two parts, since part of it (at offset 0, all) is the random q and k's own angle
// at position 0, which no position changes: that own angle, and the turn the offset adds, offset·θ (whole turns and all,
// so the parts add up to the angle give or take whole turns of 360°); a part breaks onto a narrow dial's next line whole.
export function angleText(dial, n, offset) {
  const deg = (v) => { const t = v.toFixed(1); return `${t === '-0.0' ? '0.0' : t.replace('-', '−')}°`; };
  const turned = dial.turn * offset * dial.omega * 180 / Math.PI;
  return `angle from k to q: ${deg(between(dial, n, offset))}\nbefore rotation\u00a0${deg(between(dial, 0, 0))} + offset\u00a0${offset}·θ\u00a0${deg(turned)}`;
}

// What the readout adds under RoPE's dials: the dot product q·k of the pairs drawn (each pair's two hands), the query at
// m = n + offset and the key at n. Each pair's share is |q||k| cos(angle between), and both hands turn by the same nθ,
// so the sum is the same at every n: the score depends on the offset alone. `of` is how many pairs the head has.
export function scoreText(dials, n, offset, of) {
  let sum = 0;
  for (const dial of dials) {
    const [qx, qy] = point(dial, n + offset), [kx, ky] = keyPoint(dial, n);
    sum += qx * kx + qy * ky;
  }
  const t = sum.toFixed(3), shown = t === '-0.000' ? '0.000' : t.replace('-', '−');
  const which = dials.length === of ? 'q·k' : `q·k over these ${dials.length} of its ${of} pairs`;
  return `${which} = ${shown}, the same at every n`;
}

// How many dials to a row where the column has room for large ones: at most three, and the rows as even as the count allows
// (four as two and two, five as three and two, six as three and three).
export function columns(n) {
  return n <= 3 ? Math.max(n, 1) : Math.ceil(n / Math.ceil(n / 3));
}

// --- the component --------------------------------------------------------------------------------------

const SVG = 'http://www.w3.org/2000/svg';
const R = 40;  // a dial's radius in its 100-unit box
const ARC = 13;  // the radius of the arc that marks the angle between a key's hand and a query's

// The arc from the direction `from` (radians, counter-clockwise from the x axis) through `sweep` radians, in the
// SVG's y-down coordinates (so a counter-clockwise sweep is SVG's negative sense, sweep-flag 0).
function arcPath(from, sweep) {
  const x1 = ARC * Math.cos(from), y1 = -ARC * Math.sin(from), x2 = ARC * Math.cos(from + sweep), y2 = -ARC * Math.sin(from + sweep);
  return `M ${x1} ${y1} A ${ARC} ${ARC} 0 0 ${sweep > 0 ? 0 : 1} ${x2} ${y2}`;
}

// A hand's name just past its tip, on the line from the centre (tips at the centre leave it there).
function name(text, x, y) {
  const r = Math.hypot(x, y), k = r > 0 ? 1 / r : 0, out = R + 10;
  text.setAttribute('x', x * k * out); text.setAttribute('y', -y * k * out);
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent.appendChild(e);
  return e;
}

export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector('.pee-mo');
  if (root._peeCleanup) root._peeCleanup();
  const q = (c) => root.querySelector(c);
  const playBtn = q('.pee-mo-play'), stepBtn = q('.pee-mo-step'), backBtn = q('.pee-mo-back');
  const slider = q('.pee-mo-p'), speedSel = q('.pee-mo-speed'), readout = q('.pee-mo-readout'), box = q('.pee-mo-dials');
  const still = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const end = data.max_position, offset = data.offset ?? 0;
  q('.pee-mo-title').textContent = data.title;
  q('.pee-mo-plabel').textContent = data.offset === undefined ? 'Position p' : 'Key position n';
  slider.max = end;

  speedSel.replaceChildren(...data.speeds.map((s, k) => { const o = document.createElement('option'); o.value = String(k); o.textContent = s.label; return o; }));
  speedSel.value = String(root._peeSpeed ?? data.speed_index);

  // the dials: a face, its axes, the hand at position 0 (dashed), the trail of whole positions, the hand
  const dials = data.dials.map((dial) => {
    const wrap = document.createElement('div');
    wrap.className = 'pee-mo-dial';
    const half = dial.key ? 57 : 50;  // room around the face for the hands' names, inside the picture
    const svg = el('svg', { viewBox: `${-half} ${-half} ${2 * half} ${2 * half}`, 'aria-hidden': 'true', focusable: 'false' }, wrap);
    el('circle', { class: 'pee-mo-face', cx: 0, cy: 0, r: R }, svg);
    el('line', { class: 'pee-mo-axis', x1: -R, y1: 0, x2: R, y2: 0 }, svg);
    el('line', { class: 'pee-mo-axis', x1: 0, y1: -R, x2: 0, y2: R }, svg);
    if (!dial.key) {  // with a key, its hand is the reference: no line at position 0
      const [sx, sy] = point(dial, 0);
      el('line', { class: 'pee-mo-start', x1: 0, y1: 0, x2: sx * R * data.radius_scale, y2: -sy * R * data.radius_scale }, svg);
    }
    const dots = Array.from({ length: data.trail }, (_, k) => el('circle', { class: 'pee-mo-trail', r: 2.2, opacity: ((k + 1) / data.trail) * 0.6 }, svg));
    const arc = dial.key ? el('path', { class: 'pee-mo-angle' }, svg) : null;
    const keyHand = dial.key ? el('line', { class: 'pee-mo-key', x1: 0, y1: 0, x2: 0, y2: 0 }, svg) : null;
    const keyName = dial.key ? el('text', { class: 'pee-mo-kname' }, svg) : null;
    if (keyName) keyName.textContent = 'k';
    const hand = el('line', { class: 'pee-mo-hand', x1: 0, y1: 0, x2: 0, y2: 0 }, svg);
    const tip = el('circle', { class: 'pee-mo-tip', r: 4 }, svg);
    const qName = dial.key ? el('text', { class: 'pee-mo-qname' }, svg) : null;
    if (qName) qName.textContent = 'q';
    const text = (cls, t) => { const d = document.createElement('div'); d.className = cls; d.textContent = t; wrap.appendChild(d); return d; };
    text('pee-mo-label', dial.label);
    text('pee-mo-sub', dial.sub);
    const value = text('pee-mo-value', '');
    return { dial, dots, hand, tip, value, arc, keyHand, keyName, qName };
  });
  box.replaceChildren(...dials.map((d) => d.hand.ownerSVGElement.parentElement));
  root.classList.toggle('pee-mo-large', Boolean(data.large));
  box.style.setProperty('--pee-mo-cols', String(columns(dials.length)));  // used by large dials on a wide column only (style.css)

  let p = Math.min(root._peeP ?? 0, end), shownWhole = -1, play = null, glide = null, raf = 0;
  const ms = () => data.speeds[Number(speedSel.value)].ms;

  // a frame moves the hands; the trail and the words change once per whole position
  function draw() {
    const scale = R * data.radius_scale, w = wholeAt(p), reached = w !== shownWhole;
    const marks = reached ? trail(p, data.trail) : null;
    for (const { dial, dots, hand, tip, arc, keyHand, keyName, qName } of dials) {
      const [x, y] = point(dial, p + offset);
      hand.setAttribute('x2', x * scale); hand.setAttribute('y2', -y * scale);
      tip.setAttribute('cx', x * scale); tip.setAttribute('cy', -y * scale);
      if (dial.key) {
        const [kx, ky] = keyPoint(dial, p);
        keyHand.setAttribute('x2', kx * scale); keyHand.setAttribute('y2', -ky * scale);
        name(keyName, kx, ky); name(qName, x, y);
        arc.setAttribute('d', arcPath(Math.atan2(ky, kx), between(dial, p, offset) * Math.PI / 180));
      }
      if (!reached) continue;
      dots.forEach((dot, k) => {
        const at = marks[k - (dots.length - marks.length)];
        if (at === undefined) { dot.setAttribute('visibility', 'hidden'); return; }
        const [tx, ty] = point(dial, at + offset);
        dot.setAttribute('visibility', 'visible'); dot.setAttribute('cx', tx * scale); dot.setAttribute('cy', -ty * scale);
      });
    }
    if (reached) {
      shownWhole = w;
      const said = (d) => (d.dial.key ? angleText(d.dial, w, offset) : values(d.dial, w));
      for (const d of dials) d.value.textContent = said(d);
      const at = data.offset === undefined ? `position p = ${whole(w)}` : `key at n = ${whole(w)}, query at m = ${whole(w + offset)}`;
      readout.textContent = data.offset === undefined ? at : `${at}; ${scoreText(data.dials, w, offset, data.pairs)}`;
      slider.value = String(w);
      slider.setAttribute('aria-valuetext', at);
      box.setAttribute('aria-label', `${data.description} Now ${at}: ${dials.map((d) => `${d.dial.label}, ${said(d)}`).join('; ')}.`);
    }
    root._peeP = p;
    root.dataset.drawn = String(w);  // the whole position shown (read by the browser tests)
    root.dataset.frames = String(Number(root.dataset.frames || 0) + 1);  // frames drawn so far (the browser test counts them per second)
  }

  function frame(now) {
    raf = 0;
    if (play) {
      p = playing(play.from, play.t0, now, ms(), end, still);
      if (p >= end) stop();
    } else if (glide) {
      const t = Math.min(1, (now - glide.t0) / data.glide_ms);
      p = glide.from + (glide.to - glide.from) * t;
      if (t >= 1) { p = glide.to; glide = null; }
    }
    draw();
    if (play || glide) raf = requestAnimationFrame(frame);
  }
  const kick = () => { if (!raf) raf = requestAnimationFrame(frame); };

  function setPlaying(on) {
    playBtn.textContent = on ? 'Pause' : 'Play';  // its name says what a press does (no aria-pressed beside a changing name)
    readout.setAttribute('aria-live', on ? 'off' : 'polite');  // no announcement per position while it plays
  }
  function stop() {
    if (play) p = wholeAt(p);  // paused on a whole position: the picture and its numbers agree
    play = null; setPlaying(false);
  }
  function toggle() {
    if (play) { stop(); kick(); return; }
    glide = null;
    if (wholeAt(p) >= end) p = 0;  // at the last position: play again from the start
    play = { from: wholeAt(p), t0: performance.now() };
    setPlaying(true);
    kick();
  }
  function stepBy(k) {
    const from = play ? p : (glide ? glide.to : p);
    stop();
    const to = Math.min(Math.max(wholeAt(from + 1e-9) + k, 0), end);
    if (still || k < 0) { glide = null; p = to; } else glide = { from: p, to, t0: performance.now() };
    kick();
  }
  const scrub = () => { stop(); glide = null; p = Number(slider.value); kick(); };
  const speed = () => { root._peeSpeed = Number(speedSel.value); if (play) play = { from: p, t0: performance.now() }; };

  const listeners = [[playBtn, 'click', toggle], [stepBtn, 'click', () => stepBy(1)], [backBtn, 'click', () => stepBy(-1)],
    [slider, 'input', scrub], [speedSel, 'change', speed]];
  for (const [e, type, fn] of listeners) e.addEventListener(type, fn);
  setPlaying(false);
  draw();
  const cleanup = () => {
    for (const [e, type, fn] of listeners) e.removeEventListener(type, fn);
    if (raf) cancelAnimationFrame(raf);
    root._peeCleanup = null;
  };
  root._peeCleanup = cleanup;
  return cleanup;
}
