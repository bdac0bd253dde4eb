"""The app's own JavaScript files (ui/assets/*.js) parse as the ES modules Streamlit's components load them as:
`node --check` on each (node from Debian, as scripts/test.sh installs it), under an .mjs name, since node reads a
.js file outside a package with "type": "module" as CommonJS. What the scroll-region script does in a page is
checked by tests/e2e/test_access.py (axe-core's scrollable-region-focusable rule at a phone's width)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[2] / "ui" / "assets").glob("*.js"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_script_parses(script, tmp_path):
    node = shutil.which("node")
    assert node, "node is missing: scripts/test.sh installs Debian's nodejs"
    module = tmp_path / (script.stem + ".mjs")
    module.write_text(script.read_text())
    done = subprocess.run([node, "--check", str(module)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_broken_script_is_caught(tmp_path):
    module = tmp_path / "broken.mjs"
    module.write_text("export const = ;\n")
    assert subprocess.run([shutil.which("node") or "node", "--check", str(module)], capture_output=True, timeout=60).returncode != 0
