"""The browser components' JavaScript (ui/components/): every script passes node's syntax check, the
pure functions pass their tests in tests/js (node's own test runner: Debian's node, no npm package),
and the colour-level rule the browser applies is the one core.viz.heatmap decides (the server sends
the edges; the same values get the same levels on both sides)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from core.viz.heatmap import level_edges, levels

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*(ROOT / "ui" / "components").rglob("*.js"), *(ROOT / "ui" / "assets").glob("*.js")])
NODE = shutil.which("node")


def _node(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    assert NODE, "node is missing: scripts/test.sh installs Debian's nodejs"
    return subprocess.run([NODE, *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=120)


def test_there_are_scripts_to_check():
    assert {p.relative_to(ROOT).as_posix() for p in SCRIPTS} >= {
        "ui/components/shared.js",
        "ui/components/heatmap/index.js",
        "ui/components/sinusoid_preview/index.js",
        "ui/assets/history.js",
        "ui/components/motion/index.js",
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_script_passes_the_syntax_check(script):
    done = _node("--check", str(script))
    assert done.returncode == 0, done.stderr


def test_the_pure_functions_pass_their_node_tests():
    done = _node("--test", *sorted(str(p) for p in (ROOT / "tests" / "js").glob("*.test.mjs")))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout


def test_the_browser_levels_a_value_as_the_server_does():
    rng = np.random.default_rng(7)
    zmin, zmax = -0.37, 2.5
    edges = level_edges(zmin, zmax)
    values = np.concatenate([rng.uniform(-1, 3, 500), edges, np.nextafter(edges, -np.inf), [zmin, zmax, -np.inf, np.inf]])
    script = (
        "import { level } from './ui/components/shared.js';"
        "let s = ''; process.stdin.on('data', (c) => { s += c; }).on('end', () => {"
        "const { values, edges } = JSON.parse(s); process.stdout.write(JSON.stringify(values.map((v) => level(v, edges)))); });"
    )
    sent = json.dumps({"values": [v if np.isfinite(v) else (1e308 if v > 0 else -1e308) for v in values.tolist()], "edges": edges.tolist()})
    done = _node("--input-type=module", "-e", script, stdin=sent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == levels(np.clip(values, -1e308, 1e308), zmin, zmax).tolist()
