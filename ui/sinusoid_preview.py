"""An in-browser preview of the sinusoidal encoding (an `st.components.v2` component).

Its own three sliders (d_model, max_len, base) redraw the whole encoding in the browser on every
move, with no round trip to the server: the page sends the sidebar's settings and the app's
diverging colour scale when the tab opens and again when a sidebar setting changes (the preview
starts over there), and the component's JavaScript computes PE(p, i) itself, with the
formula core.schemes.sinusoidal uses (the paper's interleaved columns, or sines first), one
canvas pixel per cell, coloured on the same 255 levels as the app's image heatmaps
(core.viz.charts.heatmap_trace: level = round((v + 1) / 2 * 254)), with numbered rows and
columns along its sides that stay in view while a large picture scrolls. Hovering a cell reads
its exact value; a button hands the preview's settings to the sidebar (every figure follows), and a link
opens the app at them.

Nothing a visitor types reaches the component's HTML: the data are numbers and the app's own
colours, and the component writes text with textContent only.
"""

from __future__ import annotations

import functools
from urllib.parse import urlparse

import streamlit as st

from core.viz import charts, wire
from ui.params import BASE
from ui.sidebar import set_shared

NAME = "pee.sinusoid_preview"
D_RANGE = (2, 1024)  # the preview's own slider ranges (the sidebar's may be larger: the preview clamps into these)
L_RANGE = (8, 2048)
BASE_EXPONENTS = (0.3, 7.0)  # the base slider moves log10(base) in steps of 0.01 (base 2 to 10 million: within the app's own range)
BASE_RANGE = (max(BASE.lo, 2.0), min(BASE.hi, 1e7))

HTML = """
<div class="pee-sp">
  <div class="pee-sp-controls">
    <label>d_model <input type="range" class="pee-sp-d" step="2"><output class="pee-sp-d-out"></output></label>
    <label>max_len <input type="range" class="pee-sp-L" step="1"><output class="pee-sp-L-out"></output></label>
    <label>base <input type="range" class="pee-sp-base" step="0.01"><output class="pee-sp-base-out"></output></label>
  </div>
  <div class="pee-sp-title"></div>
  <div class="pee-sp-frame">
    <div class="pee-sp-ylabel">position p (rows, top to bottom)</div>
    <div class="pee-sp-scroll">
      <div class="pee-sp-plot">
        <div class="pee-sp-yticks"></div><canvas class="pee-sp-canvas"></canvas>
        <div class="pee-sp-corner"></div><div class="pee-sp-xticks"></div>
      </div>
    </div>
  </div>
  <div class="pee-sp-note"></div>
  <div class="pee-sp-xlabel">dimension (columns, left to right); colour: value, blue −1, white 0, red +1</div>
  <div class="pee-sp-readout">Hover a cell for its exact value.</div>
  <div class="pee-sp-actions">
    <button type="button" class="pee-sp-apply">Use these settings in the sidebar</button>
    <a class="pee-sp-link" target="_self">A link to the app at these settings</a>
  </div>
</div>
"""

CSS = """
.pee-sp { font-family: inherit; font-size: 14px; }
.pee-sp-controls { display: flex; flex-wrap: wrap; gap: 1.5rem; margin-bottom: 0.5rem; }
.pee-sp-controls label { display: flex; align-items: center; gap: 0.5rem; }
.pee-sp-controls output { min-width: 5.5em; font-variant-numeric: tabular-nums; }
.pee-sp-title { font-size: 16px; margin: 0.25rem 0; }
.pee-sp-frame { display: flex; align-items: stretch; gap: 0.25rem; }
.pee-sp-ylabel { writing-mode: vertical-rl; transform: rotate(180deg); text-align: center; font-size: 12px; color: #555; }
.pee-sp-scroll { flex: 1; min-width: 0; max-height: 470px; overflow: auto; }  /* 7 + 422 + 18 px fit, with room for a horizontal scroll bar */
.pee-sp-plot { display: grid; grid-template-columns: 44px minmax(0, 1fr); padding: 7px 14px 0 0; }  /* room for the first and last numbers */
.pee-sp-canvas { display: block; box-sizing: border-box; image-rendering: pixelated; border: 1px solid #ddd; }
/* the rulers: tick numbers at the centres of their rows and columns; they stay in view while the picture scrolls */
.pee-sp-yticks, .pee-sp-xticks, .pee-sp-corner {
  position: sticky; background: #fff; z-index: 1; font-size: 11px; color: #555; font-variant-numeric: tabular-nums;
}
.pee-sp-yticks { left: 0; }
.pee-sp-xticks { bottom: 0; height: 18px; }
.pee-sp-corner { left: 0; bottom: 0; z-index: 2; }
.pee-sp-yticks > *, .pee-sp-xticks > * { position: absolute; white-space: nowrap; }
.pee-sp-yticks > span { right: 7px; transform: translateY(-50%); line-height: 1; }
.pee-sp-yticks > i { right: 0; width: 4px; border-top: 1px solid #888; }
.pee-sp-xticks > span { top: 5px; transform: translateX(-50%); line-height: 1; }
.pee-sp-xticks > i { top: 0; height: 4px; border-left: 1px solid #888; }
.pee-sp-note { font-size: 12px; color: #555; }
.pee-sp-xlabel { font-size: 12px; color: #555; text-align: center; margin-top: 0.25rem; }
.pee-sp-readout { font-variant-numeric: tabular-nums; margin: 0.25rem 0; min-height: 1.4em; }
.pee-sp-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 1.5rem; margin-top: 0.25rem; }
.pee-sp-apply { font: inherit; padding: 0.3rem 0.75rem; border: 1px solid #B2182B; border-radius: 0.5rem; background: #fff; color: #B2182B; cursor: pointer; }
.pee-sp-apply:hover { background: #B2182B; color: #fff; }
"""

JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector('.pee-sp');
  // Streamlit runs this again on the same DOM when the data change (a sidebar move): the previous
  // run's listeners go first, or every move would draw once per run so far
  if (root._peeCleanup) root._peeCleanup();
  const q = (c) => root.querySelector(c);
  const dIn = q('.pee-sp-d'), LIn = q('.pee-sp-L'), bIn = q('.pee-sp-base');
  const canvas = q('.pee-sp-canvas');
  const lut = data.lut;  // 255 colours [r, g, b]
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

  // PE(p, column): the paper's interleaved columns (2i: sin, 2i + 1: cos) or sines first, as core.schemes.sinusoidal
  function encode() {
    d = Number(dIn.value); L = Number(LIn.value);
    const pairs = d / 2, concat = data.layout === 'concat';
    const freq = new Float64Array(pairs);
    for (let i = 0; i < pairs; i++) freq[i] = Math.pow(base, -(2 * i) / d);
    pe = new Float64Array(L * d);
    for (let p = 0; p < L; p++) {
      for (let i = 0; i < pairs; i++) {
        const a = p * freq[i];
        const sinCol = concat ? i : 2 * i;
        const cosCol = concat ? pairs + i : 2 * i + 1;
        pe[p * d + sinCol] = Math.sin(a);
        pe[p * d + cosCol] = Math.cos(a);
      }
    }
  }

  // tick numbers 0, step, 2·step, ... at the centre of their cells, at least `gap` screen pixels
  // apart (step 1, 2 or 5 times a power of ten); the positions are shares of the canvas's length,
  // so they stay on their cells when the window resizes
  function ruler(el, cells, pixels, gap, side) {
    const need = gap * cells / Math.max(pixels, 1);
    let step = 1;
    for (let unit = 1; step < need && unit <= cells; unit *= 10) {
      step = [1, 2, 5].map((f) => f * unit).find((s) => s >= need) || 10 * unit;
    }
    const parts = [];
    for (let v = 0; v < cells; v += step) {
      const at = `${(v + 0.5) / cells * 100}%`;
      const mark = document.createElement('i'), label = document.createElement('span');
      mark.style[side] = at; label.style[side] = at;
      label.textContent = v.toLocaleString('en-US');
      if (v === 0 && side === 'left' && pixels / cells < 12) label.style.transform = 'none';  // narrow cells: 0 starts at its column, not under the corner
      if (side === 'top' && (cells - v - 0.5) * pixels / cells < 6) label.style.transform = 'translateY(-100%)';  // the last row's number ends at it
      parts.push(mark, label);
    }
    el.replaceChildren(...parts);
    el.dataset.step = String(step);
  }

  // never fewer screen pixels than cells: a canvas shrunk to fit would drop rows and columns and
  // show moiré that is not in the encoding, so past the box's size the picture scrolls instead.
  // Run on every draw and whenever the box changes size (a window or the sidebar resized).
  function fit() {
    const fitH = 420, tall = L > fitH;
    canvas.style.height = `${(tall ? L : fitH) + 2}px`;  // first: a tall picture's scroll bar narrows the box measured next
    const fitW = q('.pee-sp-scroll').clientWidth - q('.pee-sp-yticks').offsetWidth - 16;  // less the plot's right padding and the border
    const wide = fitW > 0 && d > fitW;
    canvas.style.width = wide ? `${d + 2}px` : '100%';  // + its 1-pixel border on each side (border-box)
    q('.pee-sp-plot').style.width = wide ? 'max-content' : '';
    ruler(q('.pee-sp-xticks'), d, wide ? d : fitW, 56, 'left');
    ruler(q('.pee-sp-yticks'), L, tall ? L : fitH, 22, 'top');
    q('.pee-sp-note').textContent = (wide || tall)
      ? `One screen pixel per cell: scroll the picture to see all ${tall ? `${L.toLocaleString('en-US')} rows` : ''}` +
        `${tall && wide ? ' and ' : ''}${wide ? `${d.toLocaleString('en-US')} columns` : ''}.`
      : '';
  }

  function draw() {
    encode();
    canvas.width = d; canvas.height = L;  // one pixel per cell; CSS scales it up, pixelated
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(d, L);
    for (let k = 0; k < L * d; k++) {
      const level = Math.round((clamp(pe[k], -1, 1) + 1) / 2 * 254);
      const c = lut[level];
      img.data[4 * k] = c[0]; img.data[4 * k + 1] = c[1]; img.data[4 * k + 2] = c[2]; img.data[4 * k + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    fit();
    const baseText = base.toLocaleString('en-US', { maximumSignificantDigits: 6 });
    q('.pee-sp-d-out').textContent = d.toLocaleString('en-US');
    q('.pee-sp-L-out').textContent = L.toLocaleString('en-US');
    q('.pee-sp-base-out').textContent = baseText;
    q('.pee-sp-title').textContent =
      `Sinusoidal encoding, every cell: positions 0 to ${(L - 1).toLocaleString('en-US')} (rows) × ` +
      `${d.toLocaleString('en-US')} dimensions (columns), base ${baseText}, ` +
      (data.layout === 'concat' ? 'sines first, then cosines' : 'interleaved (sin, cos, ...)') + ' — drawn in your browser';
    const params = new URLSearchParams({ d_model: String(d), max_len: String(L), base: String(base), layout: data.layout });
    q('.pee-sp-link').href = `${data.path}?${params}`;
    root.dataset.drawn = `${d},${L},${base}`;  // what the canvas shows (read by the browser tests)
    root.dataset.draws = String(Number(root.dataset.draws || 0) + 1);  // draws so far: one per move (read by the browser tests)
    q('.pee-sp-readout').textContent = 'Hover a cell for its exact value.';
  }

  function readout(ev) {
    const r = canvas.getBoundingClientRect();  // the drawing starts inside the border
    const col = Math.floor((ev.clientX - r.left - canvas.clientLeft) / canvas.clientWidth * d);
    const row = Math.floor((ev.clientY - r.top - canvas.clientTop) / canvas.clientHeight * L);
    if (col < 0 || col >= d || row < 0 || row >= L) return;
    const pair = data.layout === 'concat' ? col % (d / 2) : Math.floor(col / 2);
    const kind = (data.layout === 'concat' ? col < d / 2 : col % 2 === 0) ? 'sin' : 'cos';
    q('.pee-sp-readout').textContent =
      `position ${row.toLocaleString('en-US')}, dimension ${col.toLocaleString('en-US')} (${kind} of pair ${pair}): ` + pe[row * d + col].toFixed(6);
  }

  const moveBase = () => { base = clamp(Number(Math.pow(10, Number(bIn.value)).toPrecision(6)), data.base_range[0], data.base_range[1]); draw(); };
  dIn.addEventListener('input', draw); LIn.addEventListener('input', draw); bIn.addEventListener('input', moveBase);
  canvas.addEventListener('mousemove', readout);
  // the sidebar takes the preview's settings: one message to the server, which checks them (ui.sidebar.set_shared)
  const apply = () => setTriggerValue('apply', { d_model: d, max_len: L, base: base });
  q('.pee-sp-apply').addEventListener('click', apply);
  let pending = 0;
  const resized = new ResizeObserver(() => { if (!pending) pending = requestAnimationFrame(() => { pending = 0; fit(); }); });
  resized.observe(q('.pee-sp-scroll'));
  draw();
  const cleanup = () => {
    dIn.removeEventListener('input', draw); LIn.removeEventListener('input', draw); bIn.removeEventListener('input', moveBase);
    canvas.removeEventListener('mousemove', readout);
    q('.pee-sp-apply').removeEventListener('click', apply);
    resized.disconnect();
    if (pending) cancelAnimationFrame(pending);
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


def page_path(url: str | None) -> str:
    """The page's own path from its address (/sinusoidal, or /pe/sinusoidal behind a proxy), for
    the preview's link: absolute, so an address ending in a slash does not break it."""
    path = urlparse(url or "").path.rstrip("/")
    return path or "/sinusoidal"


def preview_data(d_model: int, max_len: int, base: float, layout: str, path: str = "/sinusoidal") -> dict:
    """What the component is sent (on the first draw and again whenever these change): the
    sidebar's settings (it brings them within its own ranges), the column layout, the app's
    diverging scale as 255 RGB colours, and the page's path for its link."""
    return {
        "d_model": int(d_model),
        "max_len": int(max_len),
        "base": float(base),
        "layout": layout,
        "lut": wire.colour_lut(charts.DIVERGING, 255).tolist(),
        "d_range": list(D_RANGE),
        "L_range": list(L_RANGE),
        "base_exponents": list(BASE_EXPONENTS),
        "base_range": list(BASE_RANGE),
        "path": path,
    }


KEY = "sin_preview"
REFUSED = "_sin_preview_refused"  # set by _apply when the settings sent could not be used


def _apply() -> None:
    """'Use these settings in the sidebar': the settings the preview sent become the sidebar's,
    checked there (ui.sidebar.set_shared), and the whole app runs again: the preview's tab runs
    as a fragment (ui/tabs.py), and the sidebar, the link and the other tabs follow only a
    full run. A message with a setting that is not a usable number changes nothing and says so."""
    got = st.session_state.get(KEY)
    if set_shared(got.get("apply") if hasattr(got, "get") else None):
        st.rerun(scope="app")  # from a callback (Streamlit 1.67): this interaction's run becomes the whole app's
    st.session_state[REFUSED] = True


def sinusoid_preview(d_model: int, max_len: int, base: float, layout: str) -> None:
    """Mount the preview, starting at these settings."""
    _renderer()(data=preview_data(d_model, max_len, base, layout, page_path(st.context.url)), key=KEY, height="content", on_apply_change=_apply)
    if st.session_state.pop(REFUSED, False):
        st.warning("The preview sent settings the app cannot use; the sidebar is unchanged.", icon=":material/block:")
