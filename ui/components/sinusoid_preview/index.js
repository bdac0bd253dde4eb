// /sinusoidal's live preview (ui/sinusoid_preview.py mounts it): its own three sliders redraw the whole
// encoding in the browser on every move, no round trip to the server. The server sends the sidebar's
// settings, its colour scale and level edges, and the ruler's steps; this computes PE(p, j) with
// core.schemes.sinusoidal's formula, one canvas pixel per cell, numbered along its sides (the numbers stay
// in view while a large picture scrolls). Hover reads a cell's exact value; a button hands the settings to
// the sidebar, a link opens the app at them. Text is written with textContent only.
import { isDark, level, stepFor, theme, whole } from '../shared.js';

// --- the picture and its words: pure functions (tests/js/sinusoid_preview.test.mjs) ---------------------

// PE(p, column) for p < L, column < d (even): the paper's interleaved columns (2i: sin, 2i + 1: cos) or,
// `concat`, sines first, as core.schemes.sinusoidal. (L * d) values, row by row.
// A row is the row before turned by each pair's ω (four products a value, where sin and cos cost far more:
// a sidebar step draws up to 2 million cells), and every ANCHOR-th row is sin and cos of p·ω afresh, so
// the rounding of the turns never adds up over more than ANCHOR rows (within 1e-12 of the formula).
const ANCHOR = 64;
export function encode(d, L, base, concat) {
  const pairs = d / 2, pe = new Float64Array(L * d);
  const freq = new Float64Array(pairs), cw = new Float64Array(pairs), sw = new Float64Array(pairs);
  const s = new Float64Array(pairs), c = new Float64Array(pairs);
  for (let i = 0; i < pairs; i++) { freq[i] = Math.pow(base, -(2 * i) / d); cw[i] = Math.cos(freq[i]); sw[i] = Math.sin(freq[i]); }
  for (let p = 0; p < L; p++) {
    if (p % ANCHOR === 0) for (let i = 0; i < pairs; i++) { s[i] = Math.sin(p * freq[i]); c[i] = Math.cos(p * freq[i]); }
    const row = p * d;
    for (let i = 0; i < pairs; i++) {
      const si = s[i], ci = c[i];
      pe[row + (concat ? i : 2 * i)] = si;
      pe[row + (concat ? pairs + i : 2 * i + 1)] = ci;
      s[i] = si * cw[i] + ci * sw[i];
      c[i] = ci * cw[i] - si * sw[i];
    }
  }
  return pe;
}

// The level of every value in BINS equal slices of [-1, 1] whose values all share one level (-1 for a slice
// an edge crosses): a value's slice is one multiplication away, where a search over the edges takes eight
// steps, and a sidebar step repaints up to 2 million cells. A slice's level is read just outside its ends
// (levels rise with the value), so it is exact whatever the rounding of (v + 1) · BINS / 2.
const BINS = 4096;
export function sliceLevels(edges) {
  const half = BINS / 2, table = new Int16Array(BINS);
  for (let b = 0; b < BINS; b++) {
    const lo = level(b / half - 1 - 1e-9, edges), hi = level((b + 1) / half - 1 + 1e-9, edges);
    table[b] = lo === hi ? lo : -1;
  }
  return table;
}

// The RGBA bytes of the values at their colour levels (the server's edges) in the scale's colours: the
// level of the value's slice, or, in a slice an edge crosses (and outside ±1), the search over the edges.
// Each cell's four bytes are written as one 32-bit word, in the machine's byte order.
const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
export function paint(values, edges, colours) {
  const e = Float64Array.from(edges), table = sliceLevels(e), half = BINS / 2;
  const words = new Uint32Array(colours.map(([r, g, b]) => (LITTLE ? ((255 << 24) | (b << 16) | (g << 8) | r) : ((r << 24) | (g << 16) | (b << 8) | 255)) >>> 0));
  const rgba = new Uint8ClampedArray(4 * values.length), out = new Uint32Array(rgba.buffer);
  for (let k = 0; k < values.length; k++) {
    const v = values[k], b = Math.floor((v + 1) * half);
    const at = b >= 0 && b < BINS ? table[b] : -1;
    out[k] = words[at < 0 ? level(v, e) : at];
  }
  return rgba;
}

// A ruler along `cells` rows or columns drawn over `pixels`: numbers 0, step, 2·step, ... at least `gap`
// pixels apart, the step the first of the server's steps that leaves that room.
export function ruler(cells, pixels, gap, steps) {
  const step = stepFor((gap * cells) / Math.max(pixels, 1), steps);
  const values = [];
  for (let v = 0; v < cells; v += step) values.push(v);
  return { step, values };
}

// What the readout says of the cell at `row`, `col`.
export function readout(pe, d, row, col, concat) {
  const pair = concat ? col % (d / 2) : Math.floor(col / 2);
  const kind = (concat ? col < d / 2 : col % 2 === 0) ? 'sin' : 'cos';
  return `position ${whole(row)}, dimension ${whole(col)} (${kind} of pair ${pair}): ${pe[row * d + col].toFixed(6)}`;
}

// --- the component --------------------------------------------------------------------------------------

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector('.pee-sp');
  // Streamlit runs this again on the same DOM when the data change (a sidebar move): the previous
  // run's listeners go first, or every move would draw once per run so far
  if (root._peeCleanup) root._peeCleanup();
  const q = (c) => root.querySelector(c);
  const dIn = q('.pee-sp-d'), LIn = q('.pee-sp-L'), bIn = q('.pee-sp-base');
  const canvas = q('.pee-sp-canvas');
  q('.pee-sp-own').textContent = data.note;  // the server's sentence: these sliders' ranges against the sidebar's
  const concat = data.layout === 'concat';
  const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
  dIn.min = data.d_range[0]; dIn.max = data.d_range[1];
  LIn.min = data.L_range[0]; LIn.max = data.L_range[1];
  bIn.min = data.base_exponents[0]; bIn.max = data.base_exponents[1];
  dIn.value = clamp(2 * Math.round(data.d_model / 2), data.d_range[0], data.d_range[1]);
  LIn.value = clamp(data.max_len, data.L_range[0], data.L_range[1]);
  // the sidebar's base exactly, until the base slider moves (its steps of 0.01 in log10 would round 500 to 501.187)
  let base = clamp(data.base, data.base_range[0], data.base_range[1]);
  bIn.value = Math.log10(base);
  let pe = null, d = 0, L = 0;

  // tick numbers at the centre of their cells; the positions are shares of the canvas's length, so they
  // stay on their cells when the window resizes
  function drawRuler(el, cells, pixels, gap, side) {
    const { step, values } = ruler(cells, pixels, gap, data.tick_steps);
    const parts = [];
    for (const v of values) {
      const at = `${((v + 0.5) / cells) * 100}%`;
      const mark = document.createElement('i'), label = document.createElement('span');
      mark.style[side] = at; label.style[side] = at;
      label.textContent = whole(v);
      if (v === 0 && side === 'left' && pixels / cells < 12) label.style.transform = 'none';  // narrow cells: 0 starts at its column, not under the corner
      if (side === 'top' && ((cells - v - 0.5) * pixels) / cells < 6) label.style.transform = 'translateY(-100%)';  // the last row's number ends at it
      parts.push(mark, label);
    }
    el.replaceChildren(...parts);
    el.dataset.step = String(step);
  }

  // never fewer screen pixels than cells: a canvas shrunk to fit would drop rows and columns and show
  // moiré that is not in the encoding, so past the box's size the picture scrolls instead. Run on every
  // draw and whenever the box changes size (a window or the sidebar resized).
  function fit() {
    const fitH = 420, tall = L > fitH;
    canvas.style.height = `${(tall ? L : fitH) + 2}px`;  // first: a tall picture's scroll bar narrows the box measured next
    const fitW = q('.pee-sp-scroll').clientWidth - q('.pee-sp-yticks').offsetWidth - 16;  // less the plot's right padding and the border
    const wide = fitW > 0 && d > fitW;
    canvas.style.width = wide ? `${d + 2}px` : '100%';  // + its 1-pixel border on each side (border-box)
    q('.pee-sp-plot').style.width = wide ? 'max-content' : '';
    drawRuler(q('.pee-sp-xticks'), d, wide ? d : fitW, 56, 'left');
    drawRuler(q('.pee-sp-yticks'), L, tall ? L : fitH, 22, 'top');
    q('.pee-sp-note').textContent = (wide || tall)
      ? `One screen pixel per cell: scroll the picture to see all ${tall ? `${whole(L)} rows` : ''}` +
        `${tall && wide ? ' and ' : ''}${wide ? `${whole(d)} columns` : ''}.`
      : '';
  }

  function draw() {
    d = Number(dIn.value); L = Number(LIn.value);
    pe = encode(d, L, base, concat);
    canvas.width = d; canvas.height = L;  // one pixel per cell; CSS scales it up, pixelated
    const colours = isDark(theme(root).background) ? data.dark_colours : data.colours;  // the heatmaps' scale in the visitor's theme
    canvas.getContext('2d').putImageData(new ImageData(paint(pe, data.edges, colours), d, L), 0, 0);
    fit();
    const baseText = base.toLocaleString('en-US', { maximumSignificantDigits: 6 });
    q('.pee-sp-d-out').textContent = whole(d);
    q('.pee-sp-L-out').textContent = whole(L);
    q('.pee-sp-base-out').textContent = baseText;
    q('.pee-sp-title').textContent =
      `Sinusoidal encoding, every cell: positions 0 to ${whole(L - 1)} (rows) × ${whole(d)} dimensions (columns), base ${baseText}, ` +
      (concat ? 'sines first, then cosines' : 'interleaved (sin, cos, ...)') + ' — drawn in your browser';
    const params = new URLSearchParams({ d_model: String(d), max_len: String(L), base: String(base), layout: data.layout });
    q('.pee-sp-link').href = `${data.path}?${params}`;
    root.dataset.drawn = `${d},${L},${base}`;  // what the canvas shows (read by the browser tests)
    root.dataset.draws = String(Number(root.dataset.draws || 0) + 1);  // draws so far: one per move (read by the browser tests)
    q('.pee-sp-readout').textContent = 'Hover a cell for its exact value.';
  }

  function hover(ev) {
    const r = canvas.getBoundingClientRect();  // the drawing starts inside the border
    const col = Math.floor(((ev.clientX - r.left - canvas.clientLeft) / canvas.clientWidth) * d);
    const row = Math.floor(((ev.clientY - r.top - canvas.clientTop) / canvas.clientHeight) * L);
    if (col < 0 || col >= d || row < 0 || row >= L) return;
    q('.pee-sp-readout').textContent = readout(pe, d, row, col, concat);
  }

  const moveBase = () => { base = clamp(Number(Math.pow(10, Number(bIn.value)).toPrecision(6)), data.base_range[0], data.base_range[1]); draw(); };
  // the sidebar takes the preview's settings: one message to the server, which checks them (ui.sidebar.set_shared)
  const apply = () => setTriggerValue('apply', { d_model: d, max_len: L, base: base });
  const listeners = [[dIn, 'input', draw], [LIn, 'input', draw], [bIn, 'input', moveBase], [canvas, 'mousemove', hover], [q('.pee-sp-apply'), 'click', apply]];
  for (const [el, type, fn] of listeners) el.addEventListener(type, fn);
  let pending = 0;
  const resized = new ResizeObserver(() => { if (!pending) pending = requestAnimationFrame(() => { pending = 0; fit(); }); });
  resized.observe(q('.pee-sp-scroll'));
  draw();
  const cleanup = () => {
    for (const [el, type, fn] of listeners) el.removeEventListener(type, fn);
    resized.disconnect();
    if (pending) cancelAnimationFrame(pending);
    root._peeCleanup = null;
  };
  root._peeCleanup = cleanup;
  return cleanup;
}
