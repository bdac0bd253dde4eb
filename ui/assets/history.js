// One entry in the browser's history per page the visitor goes to, not per write of the app's URL.
//
// Streamlit's frontend pushes a new history entry for every change of the query string the server sends (its
// page_info_changed message), and the app writes its settings and choices to the URL as a page runs: a page load
// made 4 to 6 entries, and Back stepped through one page's intermediate URLs (a half-written query string, whose
// missing settings a history navigation takes as their defaults) instead of going back a page. Here a push to the
// page already shown (the same path: only the query string or the state differs) replaces the current entry; a push
// to another page (a link, the navigation) stays a push. The address bar still follows every setting.
//
// Leaving a page, the server writes the next page's first settings while the address bar still shows the page being
// left (before Streamlit pushes the new path): those writes would replace the left page's entry with a half-written
// URL. So the URL as it was when the visitor last clicked or pressed a key (the link to the next page, say) is put
// back into the entry being left just before the new page's entry is pushed.
//
// A page link's entry is pushed by the click itself. Streamlit pushes it only when the new page's run sends its first
// message: Back pressed before then went to the entry before the page the visitor was on (out of the app, or to a page
// visited earlier), not to that page. Streamlit's own push for the path, when it comes, is then the same page's: a
// replacement. If the visitor has gone Back or Forward from the clicked page before it comes, it is the abandoned
// switch's push and is dropped: Streamlit reruns the page reached, whose run brings its own URL.
//
// This script loads after a session's first run has begun writing the URL, so that run holds its writes and hands
// the query string it ends with to `showQuery`, which writes it into the entry of the load (ui/history.py).

export function samePage(current, target) {
  // `current`: the location's href; `target`: the URL pushState was given (absolute, relative, or none at all)
  if (target === undefined || target === null) return true;  // no URL: the same document's state
  const here = new URL(current);
  const there = new URL(String(target), current);
  return here.origin === there.origin && here.pathname === there.pathname;
}

const NAV_LINKS = ['stSidebarNavLink', 'stTopNavLink', 'stTopNavDropdownLink', 'stPageLink-NavLink']
  .map((id) => `a[data-testid='${id}']`).join(', ');

export function linkOpened(event, current) {
  // The URL of another page of the app that a click on one of Streamlit's page links opens in this document, or null.
  // Read after Streamlit's handler: it prevents the browser's own following of the link when it switches the page itself.
  if (!event.defaultPrevented || !event.target || !event.target.closest) return null;
  const link = event.target.closest(NAV_LINKS);
  if (!link || link.hasAttribute('disabled') || link.getAttribute('aria-disabled') === 'true' || !link.getAttribute('href')) return null;
  const url = new URL(link.getAttribute('href'), current);
  return url.origin === new URL(current).origin && !samePage(current, url.href) ? url.href : null;
}

export function install(win) {
  // Patch win.history.pushState once, and follow the visitor's clicks and keys; true if patched now, false if it already was.
  const history = win.history;
  if (history.pushState.peeSamePage) return false;
  const push = history.pushState.bind(history);
  const replace = history.replaceState.bind(history);
  let acted = win.location.href;  // the URL when the visitor last clicked or pressed a key
  let opened = null;  // the path a link click pushed, until Streamlit's own push for it: { path, left: gone Back or Forward since }
  const remember = () => { acted = win.location.href; };
  if (win.addEventListener) {
    win.addEventListener('click', remember, true);  // capture: before Streamlit acts on the click
    win.addEventListener('keydown', remember, true);
    win.addEventListener('click', (event) => {  // bubbling: after Streamlit's handler has sent the switch
      const url = linkOpened(event, win.location.href);
      if (url === null) return;
      history.pushState({}, '', url);
      opened = { path: new URL(url).pathname, left: false };
    });
    win.addEventListener('popstate', () => { if (opened) opened.left = true; });
  }
  const pushState = (state, title, url) => {
    const path = url === undefined || url === null ? null : new URL(String(url), win.location.href).pathname;
    if (opened && path === opened.path) {
      const stale = opened.left && win.location.pathname !== path;
      opened = null;
      if (stale) return undefined;  // the switch the visitor went back from: the page reached reruns and writes its own URL
    }
    if (samePage(win.location.href, url)) return replace(state, title, url);
    if (samePage(win.location.href, acted) && acted !== win.location.href) replace(history.state, '', acted);  // the left page as it was left
    return push(state, title, url);
  };
  pushState.peeSamePage = true;
  history.pushState = pushState;
  return true;
}

export function lastSegment(pathname) {
  // '/rope' -> 'rope', '/app/rope/' -> 'rope', '/' -> '' (the default page)
  const parts = pathname.split('/').filter(Boolean);
  return parts.length ? decodeURIComponent(parts[parts.length - 1]) : '';
}

export function showQuery(win, path, query) {
  // Write `query` into the current entry, if the page shown is still the one at `path` and its URL differs; true if written.
  // A page whose path is '' (the default) is shown at the app's root, or at a path of its own once Streamlit names it.
  if (typeof query !== 'string' || (path !== '' && lastSegment(win.location.pathname) !== path)) return false;
  if (win.location.search.replace(/^\?/, '') === query) return false;
  win.history.replaceState(win.history.state, '', `${win.location.pathname}${query ? `?${query}` : ''}${win.location.hash}`);
  return true;
}

const APP = "[data-testid='stApp']";
const RELOADED = 'pee-back-reloaded';  // sessionStorage: when the app was last loaded again after Back blanked it

export function watchBack(win, { every = 250, within = 15000, again = 60000, now = () => Date.now(), later = (f, ms) => win.setTimeout(f, ms) } = {}) {
  // Back or Forward pressed while a page switch is still being drawn can make Streamlit's frontend apply the new run's
  // changes to a tree they do not fit ("Bad delta path index"): it unmounts the whole app, a white page, and its session
  // writes settings of its own into the URL. So for `within` ms after a history navigation, look every `every` ms: once
  // the app is gone from the document, the entry gets back the URL it had when it was reached (the settings as the
  // visitor left them) and the page is loaded again, a fresh session reading them. Only a history navigation starts a
  // watch (a reload is none), and at most one reload in `again` ms: a page that blanks for another reason is not
  // reloaded over and over. True if installed now.
  if (win.peeWatchBack) return false;
  win.peeWatchBack = true;
  let round = 0;
  win.addEventListener('popstate', () => {
    const mine = ++round;  // a later navigation starts its own watch and ends this one
    const popped = win.location.href;
    const until = now() + within;
    const look = () => {
      if (mine !== round) return;
      if (!win.document.querySelector(APP)) {
        let last = null;
        try { last = win.sessionStorage.getItem(RELOADED); } catch { /* no storage: no memory of a reload */ }
        if (last !== null && now() - Number(last) < again) return;
        try { win.sessionStorage.setItem(RELOADED, String(now())); } catch { /* the same */ }
        win.history.replaceState(win.history.state, '', popped);
        win.location.reload();
        return;
      }
      if (now() < until) later(look, every);
    };
    later(look, every);
  });
  return true;
}

export default function (component) {
  install(window);
  watchBack(window);
  const data = (component && component.data) || {};
  showQuery(window, data.path, data.query);
}
