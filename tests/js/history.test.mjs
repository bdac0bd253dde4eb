// ui/assets/history.js: a push to the page already shown replaces its entry; a push to another page stays a push.
// Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { install, lastSegment, samePage, showQuery, watchBack } from '../../ui/assets/history.js';

const HERE = 'https://demo.example/rope?d_model=128';

test('the same path with another query string, or no URL at all, is the same page', () => {
  assert.equal(samePage(HERE, '/rope?d_model=128&max_len=256&base=10000'), true);
  assert.equal(samePage(HERE, '?d_model=2'), true);
  assert.equal(samePage(HERE, 'https://demo.example/rope'), true);
  assert.equal(samePage(HERE, undefined), true);
});

test('another path, or another origin, is another page', () => {
  assert.equal(samePage(HERE, '/sinusoidal?d_model=128'), false);
  assert.equal(samePage(HERE, '/'), false);
  assert.equal(samePage(HERE, '/rope/'), false);
  assert.equal(samePage(HERE, 'https://other.example/rope'), false);
});

function fakeWindow(start = HERE) {
  // a history of entries as the browser keeps them: a push drops what was ahead of the current entry
  const entries = [start];
  let at = 0;
  const url = () => new URL(entries[at]);
  const listeners = {};
  const win = { addEventListener(type, listener) { listeners[type] = listener; }, fire(type) { listeners[type](); }, location: { get href() { return entries[at]; }, get pathname() { return url().pathname; },
    get search() { return url().search; }, get hash() { return url().hash; } } };
  win.history = {
    pushState(state, title, url) { entries.splice(at + 1, Infinity, new URL(url, entries[at]).href); at += 1; },
    replaceState(state, title, url) { entries[at] = new URL(url, entries[at]).href; },
    get length() { return entries.length; },
    state: null,
  };
  return { win, entries };
}

test('a page load writing its settings one by one leaves one entry; a link adds one', () => {
  const { win, entries } = fakeWindow();
  assert.equal(install(win), true);
  for (const query of ['?d_model=128&max_len=256', '?d_model=128&max_len=256&base=10000', '?d_model=128&max_len=256&base=10000&head_dim=64']) {
    win.history.pushState({}, '', `/rope${query}`);
  }
  assert.deepEqual(entries, ['https://demo.example/rope?d_model=128&max_len=256&base=10000&head_dim=64']);
  win.history.pushState({}, '', '/sinusoidal?d_model=128&max_len=256&base=10000');
  win.history.pushState({}, '', '/sinusoidal?d_model=256&max_len=256&base=10000');
  assert.equal(win.history.length, 2);
  assert.equal(entries[1], 'https://demo.example/sinusoidal?d_model=256&max_len=256&base=10000');
});

test('installing twice patches once', () => {
  const { win } = fakeWindow();
  assert.equal(install(win), true);
  const patched = win.history.pushState;
  assert.equal(install(win), false);
  assert.equal(win.history.pushState, patched);
});

test('the first run\'s query string goes into the entry of the load, for its own page only', () => {
  const { win, entries } = fakeWindow('https://demo.example/rope');
  assert.equal(showQuery(win, 'rope', 'd_model=128&max_len=256&base=10000'), true);
  assert.deepEqual(entries, ['https://demo.example/rope?d_model=128&max_len=256&base=10000']);
  assert.equal(showQuery(win, 'rope', 'd_model=128&max_len=256&base=10000'), false);  // already shown
  assert.equal(showQuery(win, 'sinusoidal', 'd_model=2'), false);  // the visitor has gone on to another page meanwhile
  assert.equal(showQuery(win, 'rope', null), false);  // a later run: nothing held, nothing to write
  const root = fakeWindow('https://demo.example/');
  assert.equal(showQuery(root.win, '', 'd_model=64'), true);
  assert.deepEqual(root.entries, ['https://demo.example/?d_model=64']);
});

test('a path\'s last segment names its page', () => {
  assert.equal(lastSegment('/rope'), 'rope');
  assert.equal(lastSegment('/app/rope/'), 'rope');
  assert.equal(lastSegment('/'), '');
});

test('the page being left keeps the URL it had when the visitor clicked the link', () => {
  const { win, entries } = fakeWindow('https://demo.example/rope?d_model=128&head_dim=128');
  install(win);
  win.fire('click');  // the link to the next page
  win.history.pushState({}, '', '/rope');  // the next page's first writes, while the bar still shows /rope
  win.history.pushState({}, '', '/rope?d_model=128');
  win.history.pushState({}, '', '/sinusoidal?d_model=128');  // Streamlit pushes the new path
  assert.deepEqual(entries, ['https://demo.example/rope?d_model=128&head_dim=128', 'https://demo.example/sinusoidal?d_model=128']);
});

function watchedWindow(start = 'https://demo.example/rope?d_model=128&max_len=256') {
  // a window whose clock and timers the test moves, whose app is in the document until `blank` says otherwise
  const { win, entries } = fakeWindow(start);
  let clock = 0;
  const timers = [];
  const listeners = {};
  const reloads = [];
  win.addEventListener = (type, listener) => { listeners[type] = listener; };
  win.document = { blank: false, querySelector(selector) { return selector === "[data-testid='stApp']" && !this.blank ? {} : null; } };
  const stored = {};
  win.sessionStorage = { getItem: (k) => stored[k] ?? null, setItem: (k, v) => { stored[k] = v; } };
  win.location.reload = () => reloads.push(win.location.href);
  const options = { now: () => clock, later: (f, ms) => timers.push([clock + ms, f]) };
  const pop = (url) => { entries[0] = url; listeners.popstate(); };  // Back: the entry reached, as the browser has it
  const run = (ms) => {  // move the clock by `ms`, running what falls due
    const end = clock + ms;
    for (;;) {
      timers.sort((a, b) => a[0] - b[0]);
      if (!timers.length || timers[0][0] > end) break;
      const [at, f] = timers.shift();
      clock = at;
      f();
    }
    clock = end;
  };
  return { win, entries, reloads, options, pop, run, write: (url) => { entries[0] = url; } };
}

test('an app that disappears after Back is loaded again once, at the URL its entry had when reached', () => {
  const w = watchedWindow();
  assert.equal(watchBack(w.win, w.options), true);
  assert.equal(watchBack(w.win, w.options), false);  // installed once
  w.pop('https://demo.example/rope?d_model=128&max_len=256&base=20000');
  w.run(1000);
  assert.deepEqual(w.reloads, []);  // the app is there: nothing to do
  w.win.document.blank = true;  // Streamlit's frontend gave up ("Bad delta path index") ...
  w.write('https://demo.example/rope?d_model=128&max_len=1&base=20000');  // ... and the session wrote its own settings
  w.run(300);
  assert.deepEqual(w.reloads, ['https://demo.example/rope?d_model=128&max_len=256&base=20000']);
  assert.deepEqual(w.entries, ['https://demo.example/rope?d_model=128&max_len=256&base=20000']);
});

test('the watch ends after its time, a later Back starts its own, and a second reload waits a minute', () => {
  const w = watchedWindow();
  watchBack(w.win, { ...w.options, within: 2000 });
  w.pop('https://demo.example/rope?base=2');
  w.run(5000);
  w.win.document.blank = true;  // blank long after that Back: not this watch's doing
  w.run(5000);
  assert.deepEqual(w.reloads, []);
  w.win.document.blank = false;
  w.pop('https://demo.example/rope?base=3');
  w.pop('https://demo.example/sinusoidal?base=4');  // two Backs in a row: the first watch ends
  w.win.document.blank = true;
  w.run(300);
  assert.deepEqual(w.reloads, ['https://demo.example/sinusoidal?base=4']);
  w.pop('https://demo.example/rope?base=5');
  w.run(30000);
  assert.equal(w.reloads.length, 1);  // blank again within a minute of the reload: left as it is
  w.run(31000);  // a minute after the reload
  w.pop('https://demo.example/rope?base=6');
  w.run(300);
  assert.deepEqual(w.reloads.slice(1), ['https://demo.example/rope?base=6']);
});
