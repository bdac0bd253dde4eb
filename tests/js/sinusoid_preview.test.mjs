// ui/components/sinusoid_preview/index.js: the encoding it computes, its colours, its rulers and its
// readout, against values worked by hand. Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode, paint, readout, ruler, sliceLevels } from '../../ui/components/sinusoid_preview/index.js';
import { level } from '../../ui/components/shared.js';

const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} is not ${b}`);

test('PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i + 1) = cos(...), interleaved or sines first', () => {
  const pe = encode(4, 3, 100, false);  // d = 4: frequencies 1 and 100^(-1/2) = 0.1
  assert.equal(pe.length, 12);
  assert.deepEqual([...pe.slice(0, 4)], [0, 1, 0, 1]);  // position 0
  close(pe[4], Math.sin(1)); close(pe[5], Math.cos(1)); close(pe[6], Math.sin(0.1)); close(pe[7], Math.cos(0.1));
  const concat = encode(4, 3, 100, true);
  close(concat[8], Math.sin(2)); close(concat[9], Math.sin(0.2)); close(concat[10], Math.cos(2)); close(concat[11], Math.cos(0.2));
});

test('every value is within 1e-12 of sin(p·ω) and cos(p·ω), over rows far from where the turning starts afresh', () => {
  for (const [d, base, concat] of [[64, 10000, false], [128, 2, true], [2, 1e8, false]]) {
    const L = 2048, pe = encode(d, L, base, concat);
    for (let p = 0; p < L; p++) {
      for (let i = 0; i < d / 2; i++) {
        const a = p * Math.pow(base, -(2 * i) / d);
        close(pe[p * d + (concat ? i : 2 * i)], Math.sin(a));
        close(pe[p * d + (concat ? d / 2 + i : 2 * i + 1)], Math.cos(a));
      }
    }
  }
});

test('each value is painted in the colour of its level, opaque', () => {
  const rgba = paint([-1, 0.2], [0], [[0, 0, 255], [255, 0, 0]]);  // sines and cosines: never NaN
  assert.deepEqual([...rgba.slice(0, 8)], [0, 0, 255, 255, 255, 0, 0, 255]);
  assert.equal(rgba.length, 8);
});

test("painting by slices gives every value its own level's colour: at, just below and just above every edge, at ±1 and beyond", () => {
  const edges = Array.from({ length: 254 }, (_, k) => -1 + (2 * (k + 1)) / 255);  // the server's 255 levels over ±1
  const colours = Array.from({ length: 255 }, (_, k) => [k, (7 * k) % 256, 255 - k]);  // a colour per level, all different
  const values = [-1.5, -1, 1, 1.5, 0, -0];
  for (const e of edges) values.push(e, e - 1e-16, e + 1e-16, e - 2e-16, e + 2e-16, e * (1 - 1e-15));
  for (let k = 0; k < 20000; k++) values.push(Math.sin(k * 0.7318));
  const rgba = paint(values, edges, colours);
  values.forEach((v, k) => {
    const c = colours[level(v, edges)];
    assert.deepEqual([...rgba.slice(4 * k, 4 * k + 4)], [...c, 255], `value ${v}`);
  });
  const table = sliceLevels(edges);
  assert.ok(table.filter((t) => t >= 0).length > 0.9 * table.length);  // most slices need no search
});

test('a ruler numbers every step cells, the smallest step that keeps the numbers gap pixels apart', () => {
  const steps = [1, 2, 5, 10, 20, 50];
  assert.deepEqual(ruler(10, 400, 30, steps), { step: 1, values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] });  // 40 px a cell
  assert.deepEqual(ruler(100, 400, 30, steps), { step: 10, values: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90] });  // 7.5 needed
});

test('the readout names the position, the dimension, sin or cos of which pair, and the value to 6 decimals', () => {
  const pe = encode(4, 3, 100, false);
  assert.equal(readout(pe, 4, 1, 3, false), `position 1, dimension 3 (cos of pair 1): ${Math.cos(0.1).toFixed(6)}`);
  const concat = encode(4, 3, 100, true);
  assert.equal(readout(concat, 4, 2, 1, true), `position 2, dimension 1 (sin of pair 1): ${Math.sin(0.2).toFixed(6)}`);
});
