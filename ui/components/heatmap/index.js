// The app's heatmaps, painted from what core.viz.heatmap decided (ui/heatmap.py mounts it): one canvas per
// panel, one canvas pixel per cell (the server's PNG of colour levels), scaled up without smoothing; the
// ticks and words along its sides; a key per colour scale; a hover with the cell's panel, true row and
// column and exact value; a PNG download; and, where the page has a window, a box dragged over a panel
// asks the page for that window (double-click: the whole range). A new spec (a slider step) paints the same
// element again in place. Every text, a visitor's words included, is written with textContent only.
import { isDark, numberText, theme, whole } from '../shared.js';

// --- what a cell is and what it says: pure functions (tests/js/heatmap.test.mjs) ---------------------------

// A panel's values from Plotly's typed-array form (float32, base64).
export function decode(typed) {
  const bin = atob(typed.bdata);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

// The slot (drawn row or column) at `offset` pixels into `length` pixels of `count` slots; -1 outside.
export function slotAt(offset, length, count) {
  const slot = Math.floor((offset / length) * count);
  return slot >= 0 && slot < count ? slot : -1;
}

// What a drawn slot of an axis is called: its word, its bin's value, or its true index.
export function label(axis, slot) {
  if (axis.names) return axis.names[slot];
  if (axis.values) return String(axis.values[slot]);
  return whole(axis.indices[slot]);
}

// The one place a cell is read. Panel k's drawn row `row` and column `col` give the cell whose value the
// panel holds there (a big panel holds every probe-th row and column's: the one at or before), its
// names along both axes, and its value (NaN: no value there).
export function cellAt(spec, values, k, row, col) {
  const p = spec.panels[k], every = p.probe || 1;
  const r = Math.floor(row / every) * every, c = Math.floor(col / every) * every;
  const width = Math.ceil(p.x.indices.length / every);
  return { panel: k, row: r, col: c, y: label(p.y, r), x: label(p.x, c), value: values[(r / every) * width + c / every] };
}

// The hover's text for a cell: its panel, its row and column by their true names, its value to the
// spec's digits, and, on a big panel, which cells the hover reads.
export function hoverText(spec, cell) {
  const p = spec.panels[cell.panel];
  const value = Number.isNaN(cell.value) ? 'no value here' : `${spec.scales[p.scale].value} ${numberText(cell.value, spec.digits)}`;
  return [p.title, `${spec.y_title}: ${cell.y}`, `${spec.x_title}: ${cell.x}`, value, p.probe_note].filter(Boolean).join('\n');
}

// The true indices a box from drawn slot `from` to `to` (either way round) covers: from the first
// slot's index to just before the next drawn slot's (past the last slot, to the axis's last index).
export function span(axis, from, to) {
  const a = Math.min(from, to), b = Math.max(from, to), n = axis.indices.length;
  return [axis.indices[a], b + 1 < n ? axis.indices[b + 1] - 1 : axis.last];
}

// What a box over panel k from drawn cell (r0, c0) to (r1, c1) asks the page for: the window of each
// axis that zooms (spec.zoom), [first, last] in true indices; null for an axis the box spans less than
// two slots of, and null altogether when no axis is left.
export function zoomRequest(spec, k, r0, c0, r1, c1) {
  const zoom = spec.zoom, p = spec.panels[k];
  if (!zoom) return null;
  const rows = zoom.y && r0 !== r1 ? span(p.y, r0, r1) : null;
  const cols = zoom.x && c0 !== c1 ? span(p.x, c0, c1) : null;
  return rows || cols ? { rows, cols } : null;
}

// The same, as one line a screen reader announces when the keyboard's cell cursor lands on the cell.
export function announcement(spec, cell) {
  return hoverText(spec, cell).split('\n').join('; ');
}

// The keyboard's cell cursor after a key press on a panel of `rows` by `cols` drawn cells: the arrows move
// it a cell, Page Up and Page Down ten rows, Home and End to the first and last column; it stays on the
// panel. null for any other key (the browser keeps it: Tab still leaves the figure).
export function moveCursor(at, key, rows, cols) {
  const clamp = (v, n) => Math.min(Math.max(v, 0), n - 1);
  if (key === 'Home') return { row: at.row, col: 0 };
  if (key === 'End') return { row: at.row, col: cols - 1 };
  const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], PageUp: [-10, 0], PageDown: [10, 0] }[key];
  return step ? { row: clamp(at.row + step[0], rows), col: clamp(at.col + step[1], cols) } : null;
}

// What panel k's canvas says it draws (its text alternative): the figure, the panel, its size with the
// first and last row and column, its colour range, and how to read its cells by keyboard.
export function description(spec, k) {
  const p = spec.panels[k], scale = spec.scales[p.scale], rows = p.y.indices.length, cols = p.x.indices.length;
  const ends = (axis, n) => (n ? `${label(axis, 0)} to ${label(axis, n - 1)}` : 'none');
  const range = p.range || `colour range ${scale.lo} to ${scale.hi}`;
  return [
    `Heatmap: ${spec.title}${p.title ? `, ${p.title}` : ''}`,
    `${whole(rows)} rows (${spec.y_title} ${ends(p.y, rows)}) by ${whole(cols)} columns (${spec.x_title} ${ends(p.x, cols)})`,
    `${range} (${scale.value})`,
    'arrow keys read one cell at a time',
  ].join('; ');
}

// A scale as the visitor's theme shows it: a signed scale's dark-theme twin (its colours, and its key's note) in the
// dark theme, the scale itself otherwise.
export function shown(scale, dark) {
  return dark && scale.dark ? { ...scale, colours: scale.dark.colours, note: scale.dark.note } : scale;
}

// A panel's pixels (RGBA bytes) in another scale's colours, in place: each pixel drawn in colour level k of `from`
// (the server's palette PNG) takes colour k of `to`; a see-through pixel (a blank cell) stays as it is.
export function recolour(rgba, from, to) {
  const index = new Map();
  from.forEach(([r, g, b], k) => { const key = (r << 16) | (g << 8) | b; if (!index.has(key)) index.set(key, k); });
  for (let i = 0; i < rgba.length; i += 4) {
    if (rgba[i + 3] === 0) continue;
    const k = index.get((rgba[i] << 16) | (rgba[i + 1] << 8) | rgba[i + 2]);
    if (k !== undefined) [rgba[i], rgba[i + 1], rgba[i + 2]] = to[k];
  }
  return rgba;
}

// The stops of a colour key's bar, [share of its length, colour], on screen and in the PNG alike.
export function keyStops(colours) {
  const last = colours.length - 1;
  return [0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => Math.round((k * last) / 8)).map((i) => [i / last, `rgb(${colours[i].join(',')})`]);
}

// --- the component --------------------------------------------------------------------------------------

const ZOOM_PX = 4; // a press that moves less than this is a click, not a box

// What Python sent: the bytes of the spec's JSON (ui/heatmap.py writes it once per figure, not on every run),
// read here into the spec; anything else as it came.
export function received(data) {
  return data instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(data)) : data;
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const data = received(component.data);
  const root = parentElement.querySelector('.pee-hm');
  // Streamlit runs this again on the same DOM when the data change (a slider step): the previous run's
  // listeners go first
  if (root._peeCleanup) root._peeCleanup();
  const q = (c) => root.querySelector(c);
  q('.pee-hm-title').textContent = data.title;
  q('.pee-hm-note').textContent = data.note;
  q('.pee-hm-xlabel').textContent = data.x_title;
  q('.pee-hm-ylabel').textContent = data.y_title;
  q('.pee-hm-hint').textContent = data.zoom ? data.zoom.hint : '';
  const gradient = (colours) => `linear-gradient(to right, ${keyStops(colours).map(([at, c]) => `${c} ${(at * 100).toFixed(1)}%`).join(', ')})`;
  const dark = isDark(theme(root).background);  // signed values in the dark theme's scale, whose 0 is not a white glare
  const scales = data.scales.map((scale) => shown(scale, dark));
  q('.pee-hm-keys').replaceChildren(...scales.map((scale) => {
    const key = document.createElement('span');
    const parts = [['pee-hm-lo', scale.lo], ['pee-hm-bar', ''], ['pee-hm-hi', scale.hi], ['pee-hm-keynote', scale.note]].map(([cls, text]) => {
      const part = document.createElement('span'); part.className = cls; part.textContent = text; return part;
    });
    parts[1].style.background = gradient(scale.colours);
    key.append(...parts);
    return key;
  }));
  // room for the tick labels: numbers, or words (a row label as wide as the longest word; column words turned)
  const longest = (axis) => Math.max(0, ...axis.ticks.map(([, text]) => text.length));
  const named = (key) => data.panels.some((p) => p[key].names);
  // tick labels at 13 pixels, as large as Plotly's: about 8 pixels a character, a number's row label right of 5 pixels of air
  const yRoom = Math.min(160, 14 + 8 * Math.max(3, ...data.panels.map((p) => longest(p.y))));
  const xRoom = named('x') ? Math.min(130, 16 + 5.6 * Math.max(...data.panels.map((p) => longest(p.x)))) : 20;
  const grid = q('.pee-hm-grid');
  const n = Math.max(1, data.columns);
  // a panel's canvas keeps at least 130 pixels beside its row labels
  grid.style.gridTemplateColumns = `repeat(auto-fill, minmax(max(${Math.max(170, yRoom + 130)}px, calc((100% - ${(n - 1) * 20}px) / ${n})), 1fr))`;

  function ticks(el, axis, side) {
    const parts = [];
    for (const [share, text] of axis.ticks) {
      const mark = document.createElement('i'), words = document.createElement('span');
      mark.style[side] = words.style[side] = `${share * 100}%`;
      words.textContent = text;
      parts.push(mark, words);
    }
    el.replaceChildren(...parts);
  }

  const loads = [];
  const painted = data.panels.map((p, k) => {
    const rows = p.y.indices.length, cols = p.x.indices.length;
    const el = document.createElement('div'); el.className = 'pee-hm-panel';
    el.style.gridTemplateRows = `auto ${data.panel_height}px ${xRoom}px`;
    el.style.gridTemplateColumns = `${yRoom}px minmax(0, 1fr)`;
    const title = document.createElement('div'); title.className = 'pee-hm-ptitle';
    title.textContent = p.range ? `${p.title}\n${p.range}` : p.title;
    const yt = document.createElement('div'); yt.className = 'pee-hm-yt'; ticks(yt, p.y, 'top');
    const xt = document.createElement('div'); xt.className = p.x.names ? 'pee-hm-xt pee-hm-words' : 'pee-hm-xt'; ticks(xt, p.x, 'left');
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(cols, 1); canvas.height = Math.max(rows, 1);
    canvas.dataset.panel = String(k);
    canvas.tabIndex = 0;  // focusable: the arrow keys move a cell cursor (below)
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', description(data, k));
    const picture = new Image();  // the server's palette PNG of the cells' colour levels, decoded by the browser
    picture.src = p.image;
    loads.push(picture.decode().then(() => {
      const ctx = canvas.getContext('2d');
      ctx.drawImage(picture, 0, 0);
      const scale = data.scales[p.scale];
      if (scales[p.scale] !== scale) {  // the dark theme's colours for the same levels
        const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height);
        recolour(pixels.data, scale.colours, scales[p.scale].colours);
        ctx.putImageData(pixels, 0, 0);
      }
    }));
    el.append(title, yt, canvas, document.createElement('div'), xt);
    return { el, canvas, values: decode(p.z), rows, cols, cursor: { row: 0, col: 0 } };
  });
  grid.replaceChildren(...painted.map((d) => d.el));
  // paints so far, counted once every picture is on its canvas (read by the browser tests)
  const paints = Number(root.dataset.paints || 0) + 1;
  root.dataset.paints = String(paints);
  Promise.all(loads).then(() => {
    if (Number(root.dataset.paints) === paints) { root.dataset.draws = String(paints); root.dataset.title = data.title; root.dataset.key = data.key; }
  });

  // the drawn cell under the pointer: {k, row, col}, or null off every panel
  function under(ev, k = ev.target.dataset ? ev.target.dataset.panel : undefined) {
    if (k === undefined) return null;
    const d = painted[Number(k)], rect = d.canvas.getBoundingClientRect();
    const col = slotAt(ev.clientX - rect.left - d.canvas.clientLeft, d.canvas.clientWidth, d.cols);
    const row = slotAt(ev.clientY - rect.top - d.canvas.clientTop, d.canvas.clientHeight, d.rows);
    return col < 0 || row < 0 ? null : { k: Number(k), row, col };
  }

  const tip = q('.pee-hm-tip'), box = q('.pee-hm-box');
  function place(el, left, top) {
    const frame = root.getBoundingClientRect();
    el.style.left = `${Math.min(left - frame.left + 14, frame.width - el.offsetWidth - 4)}px`;
    el.style.top = `${top - frame.top + 14}px`;
  }
  let drag = null;  // a box being drawn: where it started
  function hover(ev) {
    const at = drag ? null : under(ev);
    if (!at) { tip.hidden = true; return; }
    tip.textContent = hoverText(data, cellAt(data, painted[at.k].values, at.k, at.row, at.col));
    tip.hidden = false;
    place(tip, ev.clientX, ev.clientY);
  }
  const leave = () => { tip.hidden = true; };

  // the box: from the cell pressed to the cell under the pointer, snapped to whole cells
  function press(ev) {
    const at = data.zoom && ev.button === 0 ? under(ev) : null;
    if (!at) return;
    ev.preventDefault();
    drag = { ...at, x: ev.clientX, y: ev.clientY, row1: at.row, col1: at.col };
  }
  function stretch(ev) {
    if (!drag) return;
    const d = painted[drag.k], rect = d.canvas.getBoundingClientRect(), frame = root.getBoundingClientRect();
    const clamp = (v, hi) => Math.min(Math.max(v, 0), hi - 1);
    drag.row1 = clamp(Math.floor(((ev.clientY - rect.top - d.canvas.clientTop) / d.canvas.clientHeight) * d.rows), d.rows);
    drag.col1 = clamp(Math.floor(((ev.clientX - rect.left - d.canvas.clientLeft) / d.canvas.clientWidth) * d.cols), d.cols);
    const cellW = d.canvas.clientWidth / d.cols, cellH = d.canvas.clientHeight / d.rows;
    const left = rect.left + d.canvas.clientLeft + Math.min(drag.col, drag.col1) * cellW, top = rect.top + d.canvas.clientTop + Math.min(drag.row, drag.row1) * cellH;
    box.style.left = `${left - frame.left}px`; box.style.top = `${top - frame.top}px`;
    box.style.width = `${(Math.abs(drag.col1 - drag.col) + 1) * cellW}px`; box.style.height = `${(Math.abs(drag.row1 - drag.row) + 1) * cellH}px`;
    box.hidden = Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < ZOOM_PX;
    tip.hidden = true;
  }
  function release(ev) {
    if (!drag) return;
    stretch(ev);
    const moved = Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) >= ZOOM_PX;
    const request = moved ? zoomRequest(data, drag.k, drag.row, drag.col, drag.row1, drag.col1) : null;
    drag = null;
    box.hidden = true;
    if (request) { root.dataset.zoom = JSON.stringify(request); setTriggerValue('zoom', request); }
  }
  function reset(ev) {
    if (!data.zoom || !under(ev)) return;
    root.dataset.zoom = 'reset';
    setTriggerValue('zoom', { reset: true });
  }

  // the keyboard's cell cursor: a focused panel shows it on its cell and announces that cell (panel, row,
  // column and exact value) in the live region, which also shows it for sighted keyboard users
  const live = q('.pee-hm-live'), cursorBox = q('.pee-hm-cursor');
  function showCursor(k) {
    const d = painted[k], { row, col } = d.cursor, rect = d.canvas.getBoundingClientRect(), frame = root.getBoundingClientRect();
    const cellW = d.canvas.clientWidth / d.cols, cellH = d.canvas.clientHeight / d.rows;
    cursorBox.style.left = `${rect.left + d.canvas.clientLeft + col * cellW - frame.left}px`;
    cursorBox.style.top = `${rect.top + d.canvas.clientTop + row * cellH - frame.top}px`;
    cursorBox.style.width = `${Math.max(cellW, 4)}px`; cursorBox.style.height = `${Math.max(cellH, 4)}px`;
    cursorBox.hidden = false;
    live.textContent = announcement(data, cellAt(data, d.values, k, row, col));
    root.dataset.cursor = `${k},${row},${col}`;  // read by the browser tests
  }
  const panelOf = (ev) => (ev.target.dataset && ev.target.dataset.panel !== undefined ? Number(ev.target.dataset.panel) : null);
  function keyed(ev) {
    const k = panelOf(ev);
    if (k === null) return;
    const d = painted[k], next = moveCursor(d.cursor, ev.key, d.rows, d.cols);
    if (!next) return;
    ev.preventDefault();  // the arrows move the cursor, not the page
    d.cursor = next;
    showCursor(k);
  }
  const focused = (ev) => { const k = panelOf(ev); if (k !== null && painted[k].rows && painted[k].cols) showCursor(k); };
  const unfocused = () => { cursorBox.hidden = true; };

  // the figure as one PNG (what Plotly's camera button gives its figures): title, note, every panel with
  // its title, range and ticks, at twice the screen's scale, cells kept sharp, in the theme's colours
  function save() {
    const colour = theme(root), font = (px) => `${px}px ${colour.font}`;
    const measure = document.createElement('canvas').getContext('2d');
    measure.font = font(13);
    const widest = (key) => Math.max(0, ...data.panels.flatMap((p) => p[key].ticks.map(([, text]) => measure.measureText(text).width)));
    // panels 220 pixels wide; as tall, or 12 pixels a row where every row is named by a word; room beside them for their labels
    const size = 220, tall = named('y') ? Math.max(size, 12 * Math.max(...painted.map((d) => d.rows))) : size;
    const gapX = Math.max(56, Math.ceil(widest('y')) + 16), gapY = 64 + (named('x') ? Math.ceil(0.65 * widest('x')) : 0);
    const top = 112 + 16 * data.scales.length, left = gapX, cols = Math.min(n, painted.length);
    const rowsOfPanels = Math.ceil(painted.length / cols);
    const width = left + cols * (size + gapX), height = top + rowsOfPanels * (tall + gapY) + 24;
    const out = document.createElement('canvas');
    out.width = 2 * width; out.height = 2 * height;
    const ctx = out.getContext('2d');
    ctx.scale(2, 2);
    ctx.fillStyle = colour.background; ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = colour.text; ctx.font = font(16); ctx.textAlign = 'left';
    ctx.fillText(data.title, 12, 24);
    ctx.globalAlpha = 0.7; ctx.font = font(12);
    // the note in up to three lines of the image's width, then the axes, then a line per colour key
    const lines = [''];
    for (const word of data.note.split(' ')) {
      const line = lines[lines.length - 1] ? `${lines[lines.length - 1]} ${word}` : word;
      if (ctx.measureText(line).width > width - 24 && lines[lines.length - 1]) lines.push(word); else lines[lines.length - 1] = line;
    }
    lines.slice(0, 3).forEach((line, i) => ctx.fillText(i === 2 && lines.length > 3 ? `${line} …` : line, 12, 44 + 16 * i));
    let row = 44 + 16 * Math.min(lines.length, 3);
    ctx.fillText(`rows: ${data.y_title}; columns: ${data.x_title}`, 12, row);
    for (const scale of scales) {
      row += 16;
      ctx.fillText(scale.lo, 12, row);
      const barX = 18 + ctx.measureText(scale.lo).width, bar = ctx.createLinearGradient(barX, 0, barX + 120, 0);
      for (const [at, c] of keyStops(scale.colours)) bar.addColorStop(at, c);
      ctx.globalAlpha = 1; ctx.fillStyle = bar; ctx.fillRect(barX, row - 9, 120, 10);
      ctx.globalAlpha = 0.7; ctx.fillStyle = colour.text; ctx.fillText(`${scale.hi} ${scale.note}`, barX + 126, row);
    }
    data.panels.forEach((p, k) => {
      const d = painted[k], x = left + (k % cols) * (size + gapX), y = top + Math.floor(k / cols) * (tall + gapY) + 30;
      ctx.globalAlpha = 1; ctx.fillStyle = colour.text; ctx.font = font(12); ctx.textAlign = 'center';
      ctx.fillText(p.title, x + size / 2, y - 18);
      ctx.globalAlpha = 0.7;
      if (p.range) ctx.fillText(p.range, x + size / 2, y - 4);
      ctx.globalAlpha = 1; ctx.imageSmoothingEnabled = false;
      ctx.drawImage(d.canvas, x, y, size, tall);
      ctx.strokeStyle = colour.border; ctx.strokeRect(x + 0.5, y + 0.5, size - 1, tall - 1);
      ctx.globalAlpha = 0.7; ctx.font = font(13);
      for (const [share, text] of p.x.ticks) {
        if (!p.x.names) { ctx.fillText(text, x + share * size, y + tall + 15); continue; }
        ctx.save(); ctx.translate(x + share * size, y + tall + 6); ctx.rotate(-0.7); ctx.textAlign = 'right'; ctx.fillText(text, 0, 3); ctx.restore();
      }
      ctx.textAlign = 'right';
      for (const [share, text] of p.y.ticks) ctx.fillText(text, x - 4, y + share * tall + 3);
    });
    const link = document.createElement('a');
    link.href = out.toDataURL('image/png');
    link.download = data.file;
    link.click();
  }

  const saveButton = q('.pee-hm-save');
  const listeners = [
    [saveButton, 'click', save], [grid, 'mousemove', hover], [grid, 'mouseleave', leave], [grid, 'mousedown', press],
    [grid, 'dblclick', reset], [window, 'mousemove', stretch], [window, 'mouseup', release],
    [grid, 'keydown', keyed], [grid, 'focusin', focused], [grid, 'focusout', unfocused],
  ];
  for (const [el, type, fn] of listeners) el.addEventListener(type, fn);
  tip.hidden = true; box.hidden = true; cursorBox.hidden = true; live.textContent = '';
  const cleanup = () => {
    for (const [el, type, fn] of listeners) el.removeEventListener(type, fn);
    root._peeCleanup = null;
  };
  root._peeCleanup = cleanup;
  return cleanup;
}
