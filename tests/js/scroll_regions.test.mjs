// ui/assets/scroll_regions.js: a box that scrolls sideways and holds no control is marked, and unmarked once it fits;
// a box that fits has neither its style nor its contents read. Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mark } from '../../ui/assets/scroll_regions.js';

function box({ scrollWidth = 100, clientWidth = 100, overflowX = 'visible', control = false, table = false, marked = false } = {}) {
  const attributes = new Map();
  const el = {
    scrollWidth, clientWidth, overflowX, dataset: {}, searched: 0,
    matches: () => false, closest: () => null,
    querySelector(selector) { this.searched += 1; return (selector === 'table' ? table : control) ? {} : null; },
    hasAttribute: (name) => attributes.has(name), setAttribute: (name, value) => attributes.set(name, value),
    removeAttribute: (name) => attributes.delete(name), getAttribute: (name) => attributes.get(name),
    set tabIndex(value) { attributes.set('tabindex', String(value)); },
  };
  if (marked) { el.tabIndex = 0; el.setAttribute('role', 'region'); el.setAttribute('aria-label', 'scrolls sideways'); el.dataset.peeScroll = '1'; }
  return el;
}

function run(...boxes) {
  const styled = [];
  mark({ querySelectorAll: () => boxes }, (el) => { styled.push(el); return { overflowX: el.overflowX }; });
  return styled;
}

test('a wide box that scrolls and holds no control is marked, with a name that says what scrolls', () => {
  const table = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'auto', table: true });
  run(table);
  assert.equal(table.getAttribute('tabindex'), '0');
  assert.equal(table.getAttribute('role'), 'region');
  assert.equal(table.getAttribute('aria-label'), 'table, scrolls sideways');
  assert.equal(table.dataset.peeScroll, '1');
});

test('a wide box that does not scroll, or holds a control, or has a role of its own, is left alone', () => {
  const clipped = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'hidden' });
  const withControl = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'scroll', control: true });
  const roled = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'auto' });
  roled.setAttribute('role', 'grid');
  run(clipped, withControl, roled);
  for (const el of [clipped, withControl, roled]) assert.equal(el.dataset.peeScroll, undefined);
  assert.equal(roled.getAttribute('role'), 'grid');
  assert.equal(withControl.hasAttribute('tabindex'), false);
});

test('a box that fits has neither its style nor its contents read', () => {
  const fits = box({ scrollWidth: 300, clientWidth: 300, overflowX: 'auto' });
  const oneOver = box({ scrollWidth: 301, clientWidth: 300, overflowX: 'auto' });  // a pixel of rounding is no scrolling
  const wide = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'auto' });
  const styled = run(fits, oneOver, wide);
  assert.deepEqual(styled, [wide]);
  assert.equal(fits.searched + oneOver.searched, 0);
  assert.equal(oneOver.dataset.peeScroll, undefined);
});

test('a box marked before is unmarked once it fits, or once a control is in it', () => {
  const fitsNow = box({ scrollWidth: 300, clientWidth: 300, overflowX: 'auto', marked: true });
  const controlNow = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'auto', control: true, marked: true });
  const still = box({ scrollWidth: 900, clientWidth: 300, overflowX: 'auto', marked: true });
  run(fitsNow, controlNow, still);
  for (const el of [fitsNow, controlNow]) {
    assert.equal(el.dataset.peeScroll, undefined);
    assert.equal(el.hasAttribute('tabindex') || el.hasAttribute('role') || el.hasAttribute('aria-label'), false);
  }
  assert.equal(still.dataset.peeScroll, '1');
  assert.equal(still.getAttribute('role'), 'region');
});
