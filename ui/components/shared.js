// What the app's browser components share. ui/components/__init__.py puts this file in place of
// the line that imports it, since a component's script reaches the browser as one module.

// A whole number as the app writes it (131,072).
export const whole = (n) => n.toLocaleString('en-US');

// A value as the app writes it on hover (core.viz.charts.hover_format's rule): `digits` significant digits without
// trailing zeros, thousands separated (54,410.3), scientific only beyond 1e-4 to 1e15 (2.5e-7, 1.5e+16).
export function numberText(v, digits) {
  const a = Math.abs(v);
  if (a !== 0 && Number.isFinite(v) && (a < 1e-4 || a >= 1e15)) {
    const [m, e] = v.toExponential(digits - 1).split('e');
    return `${m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '') : m}e${e}`;
  }
  return Number(v.toPrecision(digits)).toLocaleString('en-US', { maximumFractionDigits: 20 });
}

// A value's colour level: how many of the level edges it reaches. The server decides the edges
// (core.viz.heatmap.level_edges) and sends them; NaN has no level (-1).
export function level(value, edges) {
  if (Number.isNaN(value)) return -1;
  let lo = 0, hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] <= value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// The smallest of the steps the server sent (1, 2, 5, 10, 20, ...) that is at least `need`.
export function stepFor(need, steps) {
  return steps.find((s) => s >= need) ?? steps[steps.length - 1];
}

// Whether a background colour ('#0e1117', 'rgb(14, 17, 23)') is dark: its relative luminance under a half. The
// theme's background says which theme the visitor has (Streamlit passes it as a CSS variable).
export function isDark(background) {
  const hex = /^#([0-9a-f]{6})$/i.exec(background.trim());
  const parts = hex ? [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)) : (background.match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
  if (parts.length < 3) return false;
  const [r, g, b] = parts.map((c) => c / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5;
}

// The theme's colours as values a canvas can draw with (Streamlit passes them as CSS variables).
export function theme(el) {
  const css = getComputedStyle(el);
  const read = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    text: read('--st-text-color', '#1F2430'),
    background: read('--st-background-color', '#FFFFFF'),
    border: read('--st-border-color', '#D5DAE5'),
    font: read('--st-font', 'sans-serif'),
  };
}
