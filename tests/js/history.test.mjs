// ui/assets/history.js: a push to the page already shown replaces its entry; a push to another page stays a push.
// Run by `node --test` (tests/test_js.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { install, lastSegment, linkOpened, samePage, showQuery, watchBack } from '../../ui/assets/history.js';

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
  const win = { addEventListener(type, listener) { (listeners[type] ||= []).push(listener); }, fire(type, event = {}) { listeners[type].forEach((f) => f(event)); },
    back() { at -= 1; win.fire('popstate'); }, location: { get href() { return entries[at]; }, get pathname() { return url().pathname; },
    get search() { return url().search; }, get hash() { return url().hash; } } };
  win.history = {
    pushState(state, title, url) { entries.splice(at + 1, Infinity, new URL(url, entries[at]).href); at += 1; },
    replaceState(state, title, url) { entries[at] = new URL(url, entries[at]).href; },
    get length() { return entries.length; },
    state: null,
  };
  return { win, entries, at: () => at };
}

function clickOn(testid, href, { prevented = true, attributes = {} } = {}) {
  // a click on a link as the window's bubbling listener sees it: `prevented` when Streamlit's handler took it over
  const link = { testid, getAttribute: (name) => (name === 'href' ? href : attributes[name] ?? null), hasAttribute: (name) => name in attributes };
  const closest = (selector) => (selector.split(', ').includes(`a[data-testid='${testid}']`) ? link : null);
  return { defaultPrevented: prevented, target: { closest } };
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

test('a click Streamlit takes over on one of its page links opens that page; any other click opens none', () => {
  assert.equal(linkOpened(clickOn('stSidebarNavLink', 'https://demo.example/similarity'), HERE), 'https://demo.example/similarity');
  assert.equal(linkOpened(clickOn('stPageLink-NavLink', '/compare?compare_start=8'), HERE), 'https://demo.example/compare?compare_start=8');
  assert.equal(linkOpened(clickOn('stSidebarNavLink', '/rope'), HERE), null);  // the page shown: Streamlit reruns it
  assert.equal(linkOpened(clickOn('stSidebarNavLink', '/similarity', { prevented: false }), HERE), null);  // the browser follows it
  assert.equal(linkOpened(clickOn('stPageLink-NavLink', 'https://other.example/x'), HERE), null);
  assert.equal(linkOpened(clickOn('stTopNavDropdownLink', '/similarity', { attributes: { 'aria-disabled': 'true' } }), HERE), null);
  assert.equal(linkOpened(clickOn('stMarkdownLink', '/similarity'), HERE), null);  // not a page link of Streamlit's
});

test('a page link\'s entry exists from the click, and Streamlit\'s later push for it replaces it', () => {
  const { win, entries } = fakeWindow('https://demo.example/rope?d_model=128&head_dim=128');
  install(win);
  win.fire('click', clickOn('stSidebarNavLink', '/similarity'));
  assert.deepEqual(entries, ['https://demo.example/rope?d_model=128&head_dim=128', 'https://demo.example/similarity']);
  win.history.pushState({}, '', '/similarity?d_model=128');  // the new page's run arrives
  win.history.pushState({}, '', '/similarity?d_model=128&max_len=256');
  assert.deepEqual(entries, ['https://demo.example/rope?d_model=128&head_dim=128', 'https://demo.example/similarity?d_model=128&max_len=256']);
});

test('Back before the new page\'s run arrives stays on the page left; that run\'s late push is dropped', () => {
  const { win, entries, at } = fakeWindow('https://demo.example/rope?d_model=128&head_dim=128');
  install(win);
  win.fire('click', clickOn('stSidebarNavLink', '/similarity'));
  win.back();
  assert.equal(win.location.href, 'https://demo.example/rope?d_model=128&head_dim=128');
  win.history.pushState({}, '', '/similarity?d_model=128');  // the abandoned switch's first message
  assert.equal(win.location.href, 'https://demo.example/rope?d_model=128&head_dim=128');
  assert.equal(at(), 0);
  assert.equal(entries.length, 2);  // Forward still reaches the clicked page
  win.history.pushState({}, '', '/rope?d_model=128&head_dim=128&base=10000');  // the page reached writes its URL
  win.fire('click');  // a click elsewhere on the page ...
  win.history.pushState({}, '', '/similarity?d_model=128');  // ... and a switch to that page from Streamlit alone: a push
  assert.deepEqual(entries, ['https://demo.example/rope?d_model=128&head_dim=128&base=10000', 'https://demo.example/similarity?d_model=128']);
});
