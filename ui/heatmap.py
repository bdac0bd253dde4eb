"""A grid of small heatmaps painted by the browser (an `st.components.v2` component).

core.viz.panel_grid says what the grid shows (each panel's values, colour range, true row and
column indices or words, and ticks; the title, the note, the axis titles, and each colour scale's
255 colours and key); this component paints it: one canvas per panel, one canvas pixel per cell,
scaled up without smoothing, its rows and columns numbered (or named) along its sides; a key per
colour scale; a box that reads the hovered cell's panel, true row and column indices (or words)
and exact value; and a button that saves the grid, keys included, as a PNG, as Plotly's camera
does for the app's other figures. A slider step sends new data to the same component, which
paints its canvases again in place: no chart is rebuilt. The Plotly version of /compare's 13
panels (26 axes) cost 2.4 times as much per step.

Nothing reaches the component's HTML as markup: it writes every text, a visitor's words on
/attention's axes included, with textContent only.
"""

from __future__ import annotations

import functools
import streamlit as st

NAME = "pee.panel_grid"

HTML = """
<div class="pee-pg">
  <div class="pee-pg-title"></div>
  <div class="pee-pg-note"></div>
  <div class="pee-pg-key">
    <span class="pee-pg-keys"></span>
    <button type="button" class="pee-pg-save" title="Download this grid as a PNG image">Download PNG</button>
  </div>
  <div class="pee-pg-body">
    <div class="pee-pg-ylabel"></div>
    <div class="pee-pg-grid"></div>
  </div>
  <div class="pee-pg-xlabel"></div>
  <div class="pee-pg-tip" hidden></div>
</div>
"""

CSS = """
.pee-pg { font-family: inherit; font-size: 12px; color: #1F2430; position: relative; }
.pee-pg-title { font-size: 16px; line-height: 1.3; }
.pee-pg-note { font-size: 12px; color: #555; margin: 0.1rem 0 0.3rem; }
.pee-pg-key { display: flex; align-items: center; gap: 0.4rem; font-size: 11px; color: #555; margin-bottom: 0.4rem; font-variant-numeric: tabular-nums; }
.pee-pg-keys { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 1.2rem; }
.pee-pg-keys > span { display: inline-flex; align-items: center; gap: 0.4rem; }
.pee-pg-save { margin-left: auto; flex: none; white-space: nowrap; font: inherit; font-size: 12px; padding: 0.15rem 0.6rem;
  border: 1px solid #ccc; border-radius: 0.4rem;
  background: #fff; color: #1F2430; cursor: pointer; }
.pee-pg-save:hover { border-color: #B2182B; color: #B2182B; }
.pee-pg-bar { display: inline-block; width: 160px; height: 10px; border: 1px solid #ccc; }
.pee-pg-body { display: flex; align-items: stretch; gap: 0.2rem; }
.pee-pg-ylabel, .pee-pg-xlabel { font-size: 12px; color: #444; text-align: center; }
.pee-pg-ylabel { writing-mode: vertical-rl; transform: rotate(180deg); }
.pee-pg-xlabel { margin-top: 0.2rem; }
.pee-pg-grid { flex: 1; min-width: 0; display: grid; gap: 14px 20px; }
.pee-pg-panel { display: grid; grid-template-columns: 40px minmax(0, 1fr); grid-template-rows: auto 190px 16px; }
.pee-pg-ptitle { grid-column: 2; text-align: center; line-height: 1.3; white-space: pre-line; margin-bottom: 2px; }
.pee-pg-ptitle:empty { margin: 0; }  /* a grid of one panel: the grid's title says it all, no line above the panel */
.pee-pg-yt, .pee-pg-xt { position: relative; font-size: 10px; color: #555; font-variant-numeric: tabular-nums; }
.pee-pg-xt { grid-column: 2; }
.pee-pg-yt > span { position: absolute; right: 5px; transform: translateY(-50%); line-height: 1; white-space: nowrap; }
.pee-pg-xt > span { position: absolute; top: 3px; transform: translateX(-50%); line-height: 1; white-space: nowrap; }
.pee-pg-xt.pee-pg-words > span { top: 5px; transform: translateX(-100%) rotate(-40deg); transform-origin: right top; }  /* words: turned, end at cell */
.pee-pg-yt > i { position: absolute; right: 0; width: 3px; border-top: 1px solid #888; }
.pee-pg-xt > i { position: absolute; top: 0; height: 3px; border-left: 1px solid #888; }
.pee-pg canvas { width: 100%; height: 100%; display: block; box-sizing: border-box; border: 1px solid #ddd; image-rendering: pixelated; cursor: crosshair; }
.pee-pg-tip { position: absolute; z-index: 5; pointer-events: none; background: #fff; border: 1px solid #888; border-radius: 3px;
  padding: 3px 6px; white-space: pre; font-size: 12px; font-variant-numeric: tabular-nums; box-shadow: 0 1px 3px rgba(0,0,0,0.2); }
"""

JS = """
export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector('.pee-pg');
  // Streamlit runs this again on the same DOM when the data change (a slider step): the previous
  // run's listeners go first
  if (root._peeCleanup) root._peeCleanup();
  const q = (c) => root.querySelector(c);
  const fmt = (v) => v.toLocaleString('en-US');
  q('.pee-pg-title').textContent = data.title;
  q('.pee-pg-note').textContent = data.note;
  q('.pee-pg-xlabel').textContent = data.x_title;
  q('.pee-pg-ylabel').textContent = data.y_title;
  // one key per colour scale (255 levels [r, g, b] each): its ends, a bar of its colours, what its values are;
  // the bar's stops, [share of its length, colour], on screen and in the PNG alike
  const stops = (colours) => [0, 32, 64, 95, 127, 159, 191, 222, 254].map((k) => [k / 254, `rgb(${colours[k].join(',')})`]);
  const gradient = (colours) => `linear-gradient(to right, ${stops(colours).map(([at, c]) => `${c} ${(at * 100).toFixed(1)}%`).join(', ')})`;
  q('.pee-pg-keys').replaceChildren(...data.scales.map((scale) => {
    const key = document.createElement('span');
    const parts = [['pee-pg-lo', scale.lo], ['pee-pg-bar', ''], ['pee-pg-hi', scale.hi], ['pee-pg-keynote', scale.note]].map(([cls, text]) => {
      const part = document.createElement('span'); part.className = cls; part.textContent = text; return part;
    });
    parts[1].style.background = gradient(scale.colours);
    key.append(...parts);
    return key;
  }));
  // room for the tick labels: numbers, or words (a row label as wide as the longest word; column words turned)
  const longest = (axis) => Math.max(0, ...axis.ticks.map(([, label]) => label.length));
  const named = (key) => data.panels.some((p) => p[key].names);
  const yRoom = named('y') ? Math.min(160, 12 + 6.5 * Math.max(...data.panels.map((p) => longest(p.y)))) : 40;
  const xRoom = named('x') ? Math.min(110, 14 + 4.5 * Math.max(...data.panels.map((p) => longest(p.x)))) : 16;
  const grid = q('.pee-pg-grid');
  const n = Math.max(1, data.columns);
  // a panel's canvas keeps at least 130 pixels beside its row labels
  grid.style.gridTemplateColumns = `repeat(auto-fill, minmax(max(${Math.max(170, yRoom + 130)}px, calc((100% - ${(n - 1) * 20}px) / ${n})), 1fr))`;

  function values(typed) {
    const bin = atob(typed.bdata);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Float32Array(bytes.buffer);
  }

  function ticks(el, axis, side) {
    const parts = [];
    for (const [share, label] of axis.ticks) {
      const mark = document.createElement('i'), text = document.createElement('span');
      mark.style[side] = text.style[side] = `${share * 100}%`;
      text.textContent = label;
      parts.push(mark, text);
    }
    el.replaceChildren(...parts);
  }

  const loads = [];
  const painted = data.panels.map((p, k) => {
    const z = values(p.z), rows = p.y.indices.length, cols = p.x.indices.length;
    const el = document.createElement('div'); el.className = 'pee-pg-panel';
    el.style.gridTemplateRows = `auto ${data.panel_height}px ${xRoom}px`;
    el.style.gridTemplateColumns = `${yRoom}px minmax(0, 1fr)`;
    const title = document.createElement('div'); title.className = 'pee-pg-ptitle';
    title.textContent = p.range ? `${p.title}\\n${p.range}` : p.title;
    const yt = document.createElement('div'); yt.className = 'pee-pg-yt'; ticks(yt, p.y, 'top');
    const xt = document.createElement('div'); xt.className = p.x.names ? 'pee-pg-xt pee-pg-words' : 'pee-pg-xt'; ticks(xt, p.x, 'left');
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(cols, 1); canvas.height = Math.max(rows, 1);
    canvas.dataset.panel = String(k);
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${p.title}: ${rows} rows by ${cols} columns${p.range ? ', ' + p.range : ''}`);
    const ctx = canvas.getContext('2d');
    if (p.image) {  // a large panel: its levels as a palette PNG (the server's), decoded by the browser
      const picture = new Image();
      picture.src = p.image;
      loads.push(picture.decode().then(() => ctx.drawImage(picture, 0, 0)));
    } else {
      const colours = data.scales[p.scale].colours;
      const img = ctx.createImageData(canvas.width, canvas.height);
      const span = p.zmax > p.zmin ? p.zmax - p.zmin : 1;
      for (let i = 0; i < rows * cols; i++) {
        const v = z[i];
        if (Number.isNaN(v)) continue;  // no value: see-through, as a heatmap leaves a gap
        const level = Math.round(Math.min(Math.max((v - p.zmin) / span, 0), 1) * 254);
        const c = colours[level];
        img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
      }
      ctx.putImageData(img, 0, 0);
    }
    el.append(title, yt, canvas, document.createElement('div'), xt);
    return { el, canvas, z, rows, cols, p };
  });
  grid.replaceChildren(...painted.map((d) => d.el));
  // paints so far, counted once every picture is on its canvas (read by the browser tests)
  const paints = Number(root.dataset.paints || 0) + 1;
  root.dataset.paints = String(paints);
  Promise.all(loads).then(() => {
    if (Number(root.dataset.paints) === paints) { root.dataset.draws = String(paints); root.dataset.title = data.title; }
  });

  const tip = q('.pee-pg-tip');
  function hover(ev) {
    const k = ev.target.dataset ? ev.target.dataset.panel : undefined;
    if (k === undefined) { tip.hidden = true; return; }
    const d = painted[Number(k)], rect = d.canvas.getBoundingClientRect();
    const col = Math.floor((ev.clientX - rect.left - d.canvas.clientLeft) / d.canvas.clientWidth * d.cols);
    const row = Math.floor((ev.clientY - rect.top - d.canvas.clientTop) / d.canvas.clientHeight * d.rows);
    if (col < 0 || col >= d.cols || row < 0 || row >= d.rows) { tip.hidden = true; return; }
    // a PNG panel's values are every k-th row and column: the hover reads the cell at or before the one
    // pointed at, names it, and says so
    const every = d.p.probe || 1, r = Math.floor(row / every), c = Math.floor(col / every);
    const v = d.z[r * Math.ceil(d.cols / every) + c];
    const name = (axis, i) => (axis.names ? axis.names[i] : fmt(axis.indices[i]));  // a word, or the true index
    tip.textContent = (d.p.title ? `${d.p.title}\\n` : '') +
      `${data.y_title}: ${name(d.p.y, r * every)}\\n${data.x_title}: ${name(d.p.x, c * every)}\\n` +
      (Number.isNaN(v) ? 'no value here' : `${data.scales[d.p.scale].value} ${Number(v.toPrecision(6))}`) +
      (every > 1 ? `\\n(hover reads every ${every}${every === 2 ? 'nd' : every === 3 ? 'rd' : 'th'} row and column)` : '');
    const box = root.getBoundingClientRect();
    tip.hidden = false;
    const left = ev.clientX - box.left + 14, top = ev.clientY - box.top + 14;
    tip.style.left = `${Math.min(left, box.width - tip.offsetWidth - 4)}px`;
    tip.style.top = `${top}px`;
  }
  const leave = () => { tip.hidden = true; };

  // the grid as one PNG (what Plotly's camera button gives its figures): title, note, every panel
  // with its title, range and end ticks, at twice the screen's scale, cells kept sharp
  function save() {
    const measure = document.createElement('canvas').getContext('2d');
    measure.font = '10px sans-serif';
    const widest = (key) => Math.max(0, ...painted.flatMap((d) => d.p[key].ticks.map(([, label]) => measure.measureText(label).width)));
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
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = '#1F2430'; ctx.font = '16px sans-serif'; ctx.textAlign = 'left';
    ctx.fillText(data.title, 12, 24);
    ctx.fillStyle = '#555'; ctx.font = '12px sans-serif';
    // the note in up to three lines of the image's width, then the axes, then a line per colour key
    const lines = [''];
    for (const word of data.note.split(' ')) {
      const line = lines[lines.length - 1] ? `${lines[lines.length - 1]} ${word}` : word;
      if (ctx.measureText(line).width > width - 24 && lines[lines.length - 1]) lines.push(word); else lines[lines.length - 1] = line;
    }
    lines.slice(0, 3).forEach((line, i) => ctx.fillText(i === 2 && lines.length > 3 ? `${line} …` : line, 12, 44 + 16 * i));
    let row = 44 + 16 * Math.min(lines.length, 3);
    ctx.fillText(`rows: ${data.y_title}; columns: ${data.x_title}`, 12, row);
    for (const scale of data.scales) {
      row += 16;
      ctx.fillStyle = '#555';
      ctx.fillText(scale.lo, 12, row);
      const barX = 18 + ctx.measureText(scale.lo).width, bar = ctx.createLinearGradient(barX, 0, barX + 120, 0);
      for (const [at, c] of stops(scale.colours)) bar.addColorStop(at, c);
      ctx.fillStyle = bar; ctx.fillRect(barX, row - 9, 120, 10);
      ctx.fillStyle = '#555'; ctx.fillText(`${scale.hi} ${scale.note}`, barX + 126, row);
    }
    painted.forEach((d, k) => {
      const x = left + (k % cols) * (size + gapX), y = top + Math.floor(k / cols) * (tall + gapY) + 30;
      ctx.fillStyle = '#1F2430'; ctx.font = '12px sans-serif'; ctx.textAlign = 'center';
      ctx.fillText(d.p.title, x + size / 2, y - 18);
      if (d.p.range) { ctx.fillStyle = '#555'; ctx.fillText(d.p.range, x + size / 2, y - 4); }
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(d.canvas, x, y, size, tall);
      ctx.strokeStyle = '#ddd'; ctx.strokeRect(x + 0.5, y + 0.5, size - 1, tall - 1);
      ctx.fillStyle = '#555'; ctx.font = '10px sans-serif';
      for (const [share, label] of d.p.x.ticks) {
        if (!d.p.x.names) { ctx.fillText(label, x + share * size, y + tall + 12); continue; }
        ctx.save(); ctx.translate(x + share * size, y + tall + 6); ctx.rotate(-0.7); ctx.textAlign = 'right'; ctx.fillText(label, 0, 3); ctx.restore();
      }
      ctx.textAlign = 'right';
      for (const [share, label] of d.p.y.ticks) ctx.fillText(label, x - 4, y + share * tall + 3);
    });
    const link = document.createElement('a');
    link.href = out.toDataURL('image/png');
    link.download = data.file;
    link.click();
  }
  const saveButton = q('.pee-pg-save');
  saveButton.addEventListener('click', save);
  grid.addEventListener('mousemove', hover);
  grid.addEventListener('mouseleave', leave);
  tip.hidden = true;
  const cleanup = () => {
    grid.removeEventListener('mousemove', hover);
    grid.removeEventListener('mouseleave', leave);
    saveButton.removeEventListener('click', save);
    root._peeCleanup = null;
  };
  root._peeCleanup = cleanup;
  return cleanup;
}
"""

@functools.cache
def _renderer():
    """The component, registered once per process (its name, HTML, CSS and JavaScript never change)."""
    return st.components.v2.component(NAME, html=HTML, css=CSS, js=JS, isolate_styles=False)


def panel_grid(spec: dict, *, key: str) -> None:
    """Paint a core.viz.panel_grid.panel_grid spec, under a key of its own (the component keeps its
    canvases across reruns and paints them again when the spec changes)."""
    _renderer()(data={**spec, "file": f"{key}.png"}, key=key, height="content")
