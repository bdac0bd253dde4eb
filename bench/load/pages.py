"""The app's pages as app.py's navigation declares them, read from its source.

The load test (bench/load.py), the bad-input battery (tests/app/test_bad_input.py) and the
deploy proof all take their page list from here, so a page added to app.py is covered by
all of them without another edit. app.py is parsed, not imported: importing it would run
Streamlit's navigation outside a server.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"


@dataclass(frozen=True)
class AppPage:
    """One `st.Page(...)` of app.py's navigation."""

    script: str  # path relative to the repo root, as AppTest.switch_page takes it
    url_path: str  # "" for the default page, served at "/"
    title: str
    default: bool

    @property
    def name(self) -> str:
        """A short name: the url_path, or the script's stem for the default page."""
        return self.url_path or Path(self.script).stem

    def url(self, base: str, query: str = "") -> str:
        """The page's address under `base` (e.g. http://127.0.0.1:8501), with an optional query string."""
        return f"{base.rstrip('/')}/{self.url_path}" + (f"?{query}" if query else "")


def _is_st_page(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "Page") or (isinstance(func, ast.Name) and func.id == "Page")


def _literal(node: ast.AST | None, default=None):
    if node is None:
        return default
    try:
        return ast.literal_eval(node)
    except ValueError:
        return default


def app_pages(app: Path = APP) -> list[AppPage]:
    """Every st.Page(...) call in app.py with a literal script path, in source order.

    url_path defaults as Streamlit's does: the script's file name without extension,
    and "" for the page marked default=True."""
    tree = ast.parse(app.read_text(), filename=str(app))
    pages = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_st_page(node)) or not node.args:
            continue
        script = _literal(node.args[0])
        if not isinstance(script, str):
            continue
        kwargs = {kw.arg: kw.value for kw in node.keywords if kw.arg}
        default = bool(_literal(kwargs.get("default"), False))
        url_path = "" if default else str(_literal(kwargs.get("url_path"), Path(script).stem))
        title = str(_literal(kwargs.get("title"), Path(script).stem))
        pages.append(AppPage(script, url_path, title, default))
    if not pages:
        raise RuntimeError(f"no st.Page(...) with a literal script path found in {app}")
    return pages



def pages_named(spec: str | None, app: Path = APP) -> list[AppPage]:
    """The pages a comma-separated list of names picks (`--pages problem,lab`), in app.py's
    order; every page when it is empty. An unknown name stops the script with the known ones."""
    pages = app_pages(app)
    wanted = [n.strip() for n in (spec or "").split(",") if n.strip()]
    if not wanted:
        return pages
    unknown = [n for n in wanted if n not in {p.name for p in pages}]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}; app.py has {[p.name for p in pages]}")
    return [p for p in pages if p.name in wanted]

if __name__ == "__main__":
    for page in app_pages():
        print(f"/{page.url_path:<12} {page.script:<28} {page.title}{'  (default)' if page.default else ''}")
