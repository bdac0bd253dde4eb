// ui/components/shared.js: the colour level of a value from the server's level edges, the ruler's
// step from the server's steps, whole numbers as the app writes them. Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDark, level, numberText, stepFor, whole } from '../../ui/components/shared.js';

test('a value reaches as many levels as edges at or below it', () => {
  const edges = [-0.5, 0, 0.5];  // four levels: below -0.5, -0.5 to 0, 0 to 0.5, 0.5 and up
  assert.deepEqual([-1, -0.5, -0.1, 0, 0.49, 0.5, 7].map((v) => level(v, edges)), [0, 1, 1, 2, 2, 3, 3]);
  assert.equal(level(Number.NaN, edges), -1);  // no value: no level
  assert.equal(level(-Infinity, edges), 0);
  assert.equal(level(Infinity, edges), 3);
  assert.equal(level(0.3, []), 0);  // one level only
});

test('the step is the first of the steps that is at least what is needed', () => {
  const steps = [1, 2, 5, 10, 20, 50, 100];
  assert.equal(stepFor(0.2, steps), 1);
  assert.equal(stepFor(2, steps), 2);
  assert.equal(stepFor(2.01, steps), 5);
  assert.equal(stepFor(11, steps), 20);
  assert.equal(stepFor(1e6, steps), 100);  // past the last step: the last
});

test('whole numbers have thousands separators', () => {
  assert.equal(whole(131072), '131,072');
  assert.equal(whole(0), '0');
});

test('the theme is dark when its background is: the two themes of .streamlit/config.toml, as hex or as the browser computes them', () => {
  assert.equal(isDark('#0E1117'), true);  // [theme.dark]
  assert.equal(isDark('#FFFFFF'), false);  // [theme.light]
  assert.equal(isDark('rgb(14, 17, 23)'), true);
  assert.equal(isDark(' rgb(255, 255, 255) '), false);
  assert.equal(isDark('#767676'), true);  // relative luminance 0.18: under a half
  assert.equal(isDark('#bcbcbc'), false);  // 188/255 = 0.737, linear 0.502: just over
  assert.equal(isDark('var(--unset)'), false);  // nothing to read: the light theme, as the figures are built
});

test("a hover's value follows the app's one number rule: separators, no trailing zeros, scientific only beyond 1e-4 to 1e15", () => {
  assert.equal(numberText(54410.3, 6), '54,410.3');  // never 5.44103e+4
  assert.equal(numberText(131072, 6), '131,072');
  assert.equal(numberText(0.1234567, 6), '0.123457');
  assert.equal(numberText(-1, 6), '-1');  // not -1.00000
  assert.equal(numberText(0, 6), '0');
  assert.equal(numberText(0.000123456789, 6), '0.000123457');  // 1e-4 is still written out
  assert.equal(numberText(2.5e-7, 6), '2.5e-7');
  assert.equal(numberText(-3.14159265e-9, 4), '-3.142e-9');
  assert.equal(numberText(1.5e16, 6), '1.5e+16');  // where JavaScript itself would write 15000000000000000
});
