"""The app's pages as its navigation declares them: ui/path.py's STEPS, which app.py turns into
st.Page entries.

The load test (bench/load/browser.py), the bad-input battery (tests/app/test_bad_input.py) and
the deploy proof all take their page list from here, so a page added to the path is covered by
all of them without another edit. app.py itself is not imported: that would run Streamlit's
navigation outside a server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class AppPage:
    """One `st.Page(...)` of app.py's navigation."""

    script: str  # path relative to the repo root, as AppTest.switch_page takes it
    url_path: str  # "" for the default page, served at "/"
    title: str
    default: bool
    uses: frozenset[str] = frozenset({"d_model", "max_len", "base"})  # the shared settings its sidebar shows (ui/path.py Step.uses)

    @property
    def stepped(self) -> str | None:
        """The shared setting a timed slider step moves on this page: d_model where the page shows it, else the
        first it shows; None on a page that shows none."""
        shown = [name for name in ("d_model", "max_len", "base") if name in self.uses]
        return shown[0] if shown else None

    @property
    def name(self) -> str:
        """A short name: the url_path, or the script's stem for the default page."""
        return self.url_path or Path(self.script).stem

    def url(self, base: str, query: str = "") -> str:
        """The page's address under `base` (e.g. http://127.0.0.1:8501), with an optional query string."""
        return f"{base.rstrip('/')}/{self.url_path}" + (f"?{query}" if query else "")


def app_pages() -> list[AppPage]:
    """Every page of the navigation, in its order (the learning path); "" is the default page's url_path."""
    from ui.path import STEPS

    return [AppPage(step.script, step.url_path, step.title, step.url_path == "", step.uses) for step in STEPS]


def pages_named(spec: str | None) -> list[AppPage]:
    """The pages a comma-separated list of names picks (`--pages problem,lab`), in the
    navigation's order; every page when it is empty. An unknown name stops the script with the known ones."""
    pages = app_pages()
    wanted = [n.strip() for n in (spec or "").split(",") if n.strip()]
    if not wanted:
        return pages
    unknown = [n for n in wanted if n not in {p.name for p in pages}]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}; the app has {[p.name for p in pages]}")
    return [p for p in pages if p.name in wanted]

if __name__ == "__main__":
    for page in app_pages():
        print(f"/{page.url_path:<12} {page.script:<28} {page.title}{'  (default)' if page.default else ''}")
