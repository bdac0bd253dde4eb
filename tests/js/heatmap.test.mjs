// ui/components/heatmap/index.js: its pure functions, on specs written by hand in the form
// core.viz.heatmap sends. Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  announcement, cellAt, decode, description, hoverText, keyStops, label, moveCursor, received, recolour, shown, slotAt, span, zoomRequest,
} from '../../ui/components/heatmap/index.js';

const typed = (values) => ({ dtype: 'f4', bdata: Buffer.from(new Float32Array(values).buffer).toString('base64'), shape: '' });

// two panels of 3 rows by 4 columns: positions 10, 12, 14 (every 2nd of 10..15) by dimensions 0..3;
// the second holds every 2nd row and column's value only (probe 2)
const SPEC = {
  title: 'PE(p, j)', x_title: 'dimension j', y_title: 'position p', digits: 6,
  scales: [{ lo: '−1.00', hi: '+1.00', value: 'value', colours: [[0, 0, 255], [255, 255, 255], [255, 0, 0]] }],
  zoom: { x: true, y: true },
  panels: [
    { title: 'a', range: '', scale: 0, probe: 1, probe_note: '',
      y: { indices: [10, 12, 14], last: 15, ticks: [] }, x: { indices: [0, 1, 2, 3], last: 3, ticks: [] } },
    { title: 'b', range: 'colour range ±2', scale: 0, probe: 2, probe_note: '(hover reads every 2nd row and column)',
      y: { indices: [10, 12, 14], last: 15, ticks: [] }, x: { names: ['w', 'x', 'y', 'z'], indices: [0, 1, 2, 3], last: 3, ticks: [] } },
  ],
};

test('values decode from float32 in base64', () => {
  assert.deepEqual([...decode(typed([0.5, -2, 1e-3]))], [0.5, -2, Math.fround(1e-3)]);
});

test('a pixel offset falls in its slot, and nothing outside the axis', () => {
  assert.equal(slotAt(0, 100, 4), 0);
  assert.equal(slotAt(24.9, 100, 4), 0);
  assert.equal(slotAt(25, 100, 4), 1);
  assert.equal(slotAt(99.9, 100, 4), 3);
  assert.equal(slotAt(100, 100, 4), -1);
  assert.equal(slotAt(-1, 100, 4), -1);
});

test('a slot is named by its word, its bin value, or its true index', () => {
  assert.equal(label({ names: ['cat', 'sat'], indices: [0, 1] }, 1), 'sat');
  assert.equal(label({ values: [0.1, 0.2], indices: [0, 1] }, 1), '0.2');
  assert.equal(label({ indices: [0, 4096] }, 1), '4,096');
});

test('a cell reads its own value and true indices; a probed panel reads the probed cell at or before it', () => {
  const values = new Float32Array([0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]);
  assert.deepEqual(cellAt(SPEC, values, 0, 2, 1), { panel: 0, row: 2, col: 1, y: '14', x: '1', value: 21 });
  const probed = new Float32Array([1.5, -2, 7, 8]);  // rows 0 and 2, columns 0 and 2: 2 x 2 values
  assert.deepEqual(cellAt(SPEC, probed, 1, 1, 3), { panel: 1, row: 0, col: 2, y: '10', x: 'y', value: -2 });
  assert.deepEqual(cellAt(SPEC, probed, 1, 2, 0), { panel: 1, row: 2, col: 0, y: '14', x: 'w', value: 7 });
});

test('the hover says the panel, both axes by their true names, the value to the digits sent, and what a probe reads', () => {
  const cell = { panel: 1, row: 0, col: 2, y: '10', x: 'y', value: Math.fround(0.123456789) };
  assert.equal(hoverText(SPEC, cell), 'b\nposition p: 10\ndimension j: y\nvalue 0.123457\n(hover reads every 2nd row and column)');
  assert.equal(hoverText(SPEC, { ...cell, panel: 0, value: Number.NaN }), 'a\nposition p: 10\ndimension j: y\nno value here');
  assert.equal(announcement(SPEC, { ...cell, panel: 0, value: 1 }), 'a; position p: 10; dimension j: y; value 1');
});

test('a box covers the true indices from its first slot to just before the slot after its last', () => {
  const axis = SPEC.panels[0].y;  // 10, 12, 14; the axis covers up to 15
  assert.deepEqual(span(axis, 0, 1), [10, 13]);
  assert.deepEqual(span(axis, 2, 1), [12, 15]);  // either way round; past the last slot, to the axis's last index
  assert.deepEqual(zoomRequest(SPEC, 0, 0, 1, 1, 3), { rows: [10, 13], cols: [1, 3] });
  assert.deepEqual(zoomRequest(SPEC, 0, 1, 1, 1, 2), { rows: null, cols: [1, 2] });  // one row: that axis stays
  assert.equal(zoomRequest(SPEC, 0, 1, 1, 1, 1), null);  // one cell: nothing to zoom to
  assert.equal(zoomRequest({ ...SPEC, zoom: undefined }, 0, 0, 0, 2, 3), null);  // a page without windows
  assert.deepEqual(zoomRequest({ ...SPEC, zoom: { x: true, y: false } }, 0, 0, 0, 2, 3), { rows: null, cols: [0, 3] });
});

test('the keyboard cursor moves a cell per arrow, ten rows a page, and stays on the panel', () => {
  const at = { row: 5, col: 2 };
  assert.deepEqual(moveCursor(at, 'ArrowUp', 20, 4), { row: 4, col: 2 });
  assert.deepEqual(moveCursor(at, 'ArrowRight', 20, 4), { row: 5, col: 3 });
  assert.deepEqual(moveCursor({ row: 5, col: 3 }, 'ArrowRight', 20, 4), { row: 5, col: 3 });
  assert.deepEqual(moveCursor(at, 'PageDown', 20, 4), { row: 15, col: 2 });
  assert.deepEqual(moveCursor(at, 'PageUp', 20, 4), { row: 0, col: 2 });
  assert.deepEqual(moveCursor(at, 'End', 20, 4), { row: 5, col: 3 });
  assert.deepEqual(moveCursor(at, 'Home', 20, 4), { row: 5, col: 0 });
  assert.equal(moveCursor(at, 'Tab', 20, 4), null);
});

test('a canvas says what it draws: figure, panel, size, first and last indices, range', () => {
  assert.equal(
    description(SPEC, 0),
    'Heatmap: PE(p, j), a; 3 rows (position p 10 to 14) by 4 columns (dimension j 0 to 3); colour range −1.00 to +1.00 (value); arrow keys read one cell at a time',
  );
  assert.match(description(SPEC, 1), /by 4 columns \(dimension j w to z\); colour range ±2 \(value\)/);
});

test('a key bar has nine stops from the first colour to the last', () => {
  const colours = Array.from({ length: 255 }, (_, i) => [i, 0, 254 - i]);
  const stops = keyStops(colours);
  assert.equal(stops.length, 9);
  assert.deepEqual(stops[0], [0, 'rgb(0,0,254)']);
  assert.deepEqual(stops[8], [1, 'rgb(254,0,0)']);
  assert.deepEqual(stops[4], [127 / 254, 'rgb(127,0,127)']);
});

test('received reads the bytes of a JSON spec, and passes anything else as it came', () => {
  const spec = { title: 'PE(p, i) for ω = 1/10000', panels: [{ zmin: -1, zmax: 1 }], key: 'k', zoom: { y: true, x: false } };
  assert.deepEqual(received(new TextEncoder().encode(JSON.stringify(spec))), spec);
  assert.equal(received(spec), spec);
  assert.equal(received(null), null);
});

test('in the dark theme a signed scale shows its twin; a pixel of level k takes the twin\'s colour k', () => {
  const light = [[0, 0, 255], [255, 255, 255], [255, 0, 0]], dark = [[150, 200, 220], [43, 47, 56], [244, 165, 130]];
  const signed = { lo: '−1', hi: '+1', note: '(value; white: 0)', colours: light, dark: { colours: dark, note: '(value; dark grey: 0)' } };
  assert.deepEqual(shown(signed, true).colours, dark);
  assert.equal(shown(signed, true).note, '(value; dark grey: 0)');
  assert.equal(shown(signed, true).lo, '−1');  // the rest of the scale as sent
  assert.equal(shown(signed, false), signed);
  const unsigned = { lo: '0', hi: '1', note: '(value)', colours: [[68, 1, 84], [253, 231, 37]] };
  assert.equal(shown(unsigned, true), unsigned);  // a sequential scale reads on either background
  // four pixels: level 0, level 1 (white: 0), a blank cell (see-through, its bytes left alone), level 2
  const pixels = new Uint8ClampedArray([0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 255, 0, 0, 255]);
  assert.deepEqual([...recolour(pixels, light, dark)], [150, 200, 220, 255, 43, 47, 56, 255, 255, 255, 255, 0, 244, 165, 130, 255]);
});
