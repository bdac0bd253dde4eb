// A box of the page that scrolls sideways on a narrow screen (a wide table, a long formula, a line of code) can be
// scrolled from the keyboard only once it takes focus: Tab reaches each such box, the arrow keys scroll it, and a
// screen reader names it (WCAG 2.1.1; axe-core's scrollable-region-focusable). A box that fits, or that holds a
// control of its own to focus, is left alone. The page's DOM changes on every run and the width on every turn of a
// phone, so the boxes are looked for again after each change, at most once a frame.

const SCROLLING = new Set(['auto', 'scroll']);
const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";

function label(box) {
  if (box.matches('.katex-display')) return 'formula, scrolls sideways';
  if (box.closest('pre, .stCode')) return 'code, scrolls sideways';
  if (box.querySelector('table')) return 'table, scrolls sideways';
  return 'scrolls sideways';
}

export function mark(main, style = (box) => getComputedStyle(box)) {
  // Every element of the page is visited after each change: its widths first (read from the layout the frame needs
  // anyway), and only a box wider than it shows, or one marked before, has its style and contents read (a computed
  // style and a search of its subtree for every element took a tenth of a second of each slider step's main thread).
  for (const box of main.querySelectorAll('*')) {
    const ours = box.dataset.peeScroll === '1';
    const over = box.scrollWidth > box.clientWidth + 1;
    if (!over && !ours) continue;
    const wide = over && SCROLLING.has(style(box).overflowX);
    const free = wide && !box.querySelector(FOCUSABLE);  // a box with a control in it is scrolled by focusing the control
    if (wide && free && !ours && !box.hasAttribute('tabindex') && !box.hasAttribute('role')) {
      box.tabIndex = 0;
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', label(box));
      box.dataset.peeScroll = '1';
    } else if (ours && !(wide && free)) {
      box.removeAttribute('tabindex');
      box.removeAttribute('role');
      box.removeAttribute('aria-label');
      delete box.dataset.peeScroll;
    }
  }
}

export default function () {
  if (window.peeScrollRegions) return;  // one watcher per page, however often the app mounts this
  const main = () => document.querySelector("[data-testid='stMain']");
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; if (main()) mark(main()); });
  };
  new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  window.addEventListener('resize', later);
  window.peeScrollRegions = true;
  later();
}
