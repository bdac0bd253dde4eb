// ui/components/motion/index.js: where a hand points, the trail, the playing position and the words under
// a dial, against values worked by hand. Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { angleText, between, columns, keyPoint, playing, point, scoreText, trail, values, wholeAt } from '../../ui/components/motion/index.js';

const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} is not ${b}`);
const clock = { omega: 0.5, turn: -1, x0: 0, y0: 1, x_name: 'sin', y_name: 'cos' };

test("the sinusoid's hand is (sin pω, cos pω): up at 0, a quarter turn clockwise at pω = π/2", () => {
  assert.deepEqual(point(clock, 0), [0, 1]);
  const [x, y] = point(clock, Math.PI);  // pω = π/2: pointing right
  close(x, 1); close(y, 0);
  const [x3, y3] = point(clock, 3);
  assert.equal(x3, Math.sin(1.5)); assert.equal(y3, Math.cos(1.5));  // exactly the formula's numbers
});

test("RoPE's pair turns counter-clockwise by pθ and keeps its length", () => {
  const pair = { omega: 0.25, turn: 1, x0: 3, y0: 4 };
  const [x, y] = point(pair, 2 * Math.PI);  // pθ = π/2: (3, 4) becomes (−4, 3)
  close(x, -4); close(y, 3);
  for (const p of [0, 1, 7.5, 1000]) { const [a, b] = point(pair, p); close(Math.hypot(a, b), 5); }
});

test('the trail marks the last whole positions reached, newest last, none before 0', () => {
  assert.deepEqual(trail(0, 4), [0]);
  assert.deepEqual(trail(2.7, 4), [0, 1, 2]);
  assert.deepEqual(trail(10, 4), [7, 8, 9, 10]);
  assert.deepEqual(trail(9.9999999999, 4), [7, 8, 9, 10]);  // a glide that ends at 10 within rounding has reached it
  assert.equal(wholeAt(3.5), 3);
});

test('playing moves one position per ms since it started, gliding or (reduced motion) from whole to whole, and stops at the end', () => {
  assert.equal(playing(5, 1000, 1000, 100, 50, false), 5);
  assert.equal(playing(5, 1000, 1250, 100, 50, false), 7.5);
  assert.equal(playing(5, 1000, 1250, 100, 50, true), 7);
  assert.equal(playing(5, 1000, 99999, 100, 50, false), 50);
  assert.equal(playing(5, 1000, 900, 100, 50, false), 5);  // a frame stamped before the press: not backwards
});

test('a dial writes its two coordinates at the position to 3 decimals, negatives with a minus sign, never −0.000', () => {
  assert.equal(values(clock, 0), 'sin 0.000, cos 1.000');
  assert.equal(values(clock, 2), 'sin 0.841, cos 0.540');  // sin 1, cos 1
  assert.equal(values(clock, 6), 'sin 0.141, cos −0.990');  // sin 3, cos 3
  assert.equal(values({ ...clock, omega: 1 }, Math.PI), 'sin 0.000, cos −1.000');  // sin π is 1.2e-16
  assert.equal(values({ ...clock, omega: -1e-9 }, 1), 'sin 0.000, cos 1.000');  // sin is −1e-9
});

test("a key's hand turns like the query's, the angle between them is the one at 0 plus offset·θ, written to a tenth of a degree", () => {
  const dial = { omega: Math.PI / 6, turn: 1, x0: 1, y0: 0, key: { x0: 0, y0: 2 } };  // q along x, k along y: k to q is −90° at 0
  const [kx, ky] = keyPoint(dial, 3);  // 3 · 30° = 90°: (0, 2) becomes (−2, 0)
  close(kx, -2); close(ky, 0);
  for (const n of [0, 1, 2.5, 100]) close(between(dial, n, 0), -90);
  for (const n of [0, 7, 1000]) assert.ok(Math.abs(between(dial, n, 2) + 30) < 1e-9);  // −90° + 2 · 30° (to rounding of 500 rad)
  close(between(dial, 0, 9), 180);  // −90° + 270° is 180°: the range is (−180, 180]
  // the angle, then its parts: the two vectors' own −90° at 0, which no position changes, and the offset's 2 · 30°
  assert.equal(angleText(dial, 5, 2), "angle from k to q: −30.0°\nbefore rotation\u00a0−90.0° + offset\u00a02·θ\u00a060.0°");
  // whole turns kept in the offset's part: 9 · 30° = 270°, and −90° + 270° is the 180° drawn
  assert.equal(angleText(dial, 0, 9), "angle from k to q: 180.0°\nbefore rotation\u00a0−90.0° + offset\u00a09·θ\u00a0270.0°");
  assert.equal(angleText({ ...dial, key: { x0: 1, y0: -1e-9 } }, 0, 0), "angle from k to q: 0.0°\nbefore rotation\u00a00.0° + offset\u00a00·θ\u00a00.0°");  // 5.7e-8°, never −0.0
});

test("the readout's q·k is the sum of the drawn pairs' dot products, the same at every n, and says when pairs are left out", () => {
  // pair 0: q (1, 0) and k (0, 2), ω = 0.5; pair 1: q (3, 1) and k (1, 1), ω = 0.1. At offset 2, pair 0's hands are 90° + 2·0.5 rad
  // apart: 1·2·cos(π/2 − 1) = 2 sin 1; pair 1's: |q||k| cos(angle) with the angle from k to q at 0 (−26.57°) plus 0.2 rad.
  const dials = [{ omega: 0.5, turn: 1, x0: 1, y0: 0, key: { x0: 0, y0: 2 } }, { omega: 0.1, turn: 1, x0: 3, y0: 1, key: { x0: 1, y0: 1 } }];
  const want = 2 * Math.sin(1) + Math.sqrt(10) * Math.sqrt(2) * Math.cos(Math.atan2(1, 3) - Math.PI / 4 + 0.2);
  for (const n of [0, 3, 250]) {
    const said = Number(scoreText(dials, n, 2, 2).match(/^q·k = (−?[0-9.]+), the same at every n$/)[1].replace('−', '-'));
    assert.ok(Math.abs(said - want) < 5e-4, `${said} at n = ${n}, want ${want}`);
  }
  assert.match(scoreText(dials, 0, 2, 32), /^q·k over these 2 of its 32 pairs = /);
  assert.equal(scoreText([{ omega: 1, turn: 1, x0: 1, y0: 0, key: { x0: 0, y0: 1 } }], 0, 0, 1), 'q·k = 0.000, the same at every n');  // never −0.000
});

test('large dials go at most three to a row, in rows as even as the count allows', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(columns), [1, 2, 3, 2, 3, 3]);
});
