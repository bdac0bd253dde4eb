"""The app's browser components, each a folder of real files: `index.html`, `style.css` and
`index.js` (an ES module whose default export Streamlit runs; its other exports are the pure
functions that tests/js tests with node's own test runner). `shared.js` holds what the
components share; `package.json` only tells node that these .js files are ES modules (no
package is installed).

Streamlit's components v2 take inline code or files from an installed package's asset folder;
the app is not a package, so the files are read here, once per process, and passed inline. A script
reaches the browser as one module, so a line importing `../shared.js` is replaced by that
file's text."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent
_SHARED = re.compile(r"^import \{[^}]*\} from '\.\./shared\.js';$", re.MULTILINE)


def script(folder: str) -> str:
    """A component's index.js with shared.js put in place of its import, once."""
    text = (HERE / folder / "index.js").read_text(encoding="utf-8")
    shared = (HERE / "shared.js").read_text(encoding="utf-8")
    return _SHARED.sub(lambda _: shared, text, count=1)


@functools.cache
def component(name: str, folder: str):
    """The component `name` from the HTML, CSS and JavaScript in `folder`, registered once per process."""
    html, css = ((HERE / folder / file).read_text(encoding="utf-8") for file in ("index.html", "style.css"))
    return st.components.v2.component(name, html=html, css=css, js=script(folder), isolate_styles=False)


@functools.cache
def script_component(name: str, js: Path):
    """A component that is a script only (no HTML of its own), registered once per process."""
    return st.components.v2.component(name, js=js.read_text(), isolate_styles=False)
