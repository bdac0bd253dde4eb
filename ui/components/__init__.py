"""The app's browser components, each a folder of real files: `index.html`, `style.css` and
`index.js` (an ES module whose default export Streamlit runs; its other exports are the pure
functions that tests/js tests with node's own test runner). `shared.js` holds what the
components share; `package.json` only tells node that these .js files are ES modules (no
package is installed).

Streamlit's components v2 take inline code or files from an installed package's asset folder;
the app is not a package, so the files are read here at import and passed inline. A script
reaches the browser as one module, so a line importing `../shared.js` is replaced by that
file's text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
_SHARED = re.compile(r"^import \{[^}]*\} from '\.\./shared\.js';$", re.MULTILINE)


@dataclass(frozen=True)
class Assets:
    html: str
    css: str
    js: str


def script(folder: str) -> str:
    """A component's index.js with shared.js put in place of its import, once."""
    text = (HERE / folder / "index.js").read_text(encoding="utf-8")
    shared = (HERE / "shared.js").read_text(encoding="utf-8")
    return _SHARED.sub(lambda _: shared, text, count=1)


def assets(folder: str) -> Assets:
    """The HTML, CSS and JavaScript of the component in `folder`, as Streamlit takes them inline."""
    return Assets((HERE / folder / "index.html").read_text(encoding="utf-8"), (HERE / folder / "style.css").read_text(encoding="utf-8"), script(folder))
