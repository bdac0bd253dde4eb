"""The architecture (docs/architecture.md): layers only point down, no import circles, core never
imports streamlit, and importing any core module but the torch ones (TORCH_MODULES) never imports torch.

Imports are read from the source with ast, those inside functions included (a lazy import is
still an arrow), so a module that imports another only when it runs counts too."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH_MODULES = {"core.schemes.torch", "core.lab.model", "core.lab.trained"}  # the only core modules that import torch at the top
# Inside core, a module imports its own package or packages of a lower rank: the schemes and the
# figure grid and wire format at the bottom, then what is measured, then the figures drawn of it
# and the files written, then the lab (which trains the schemes and draws what it found).
RANK = {"core.schemes": 0, "core.viz.grid": 0, "core.viz.wire": 0, "core.analysis": 1, "core.viz": 2, "core.files": 2, "core.lab": 3}
LAYER = {"core": 0, "ui": 1, "app_pages": 2}  # app.py and the pages -> ui -> core


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


MODULES = {module_name(p): p for folder in ("core", "ui", "app_pages") for p in sorted((ROOT / folder).rglob("*.py"))}


def imports(path: Path) -> set[str]:
    """Every module `path` imports, as dotted names (`from core.viz import charts` -> core.viz.charts)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in MODULES else node.module)
    return found


GRAPH = {name: {m for m in imports(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def rank(name: str) -> tuple[int, str]:
    """(rank, package) of a core module: its most specific entry in RANK."""
    for prefix in sorted(RANK, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            return RANK[prefix], prefix
    raise AssertionError(f"{name} is in no layer of core: add its package to RANK and to docs/architecture.md")


def package(name: str) -> str:
    return name.rsplit(".", 1)[0] if name.count(".") >= 2 else name


def test_the_graph_is_read():
    assert "core.schemes.registry" in GRAPH["core.files.codegen"]
    assert "core.lab.model" in GRAPH["core.lab.runner"]  # a lazy import counts


@pytest.mark.parametrize("name", sorted(MODULES))
def test_arrows_point_down(name):
    layer = LAYER[name.split(".")[0]]
    for dep in GRAPH[name]:
        assert LAYER[dep.split(".")[0]] <= layer, f"{name} imports {dep}, a layer above it"
    if name.startswith("core."):
        assert not {m for m in imports(MODULES[name]) if m.split(".")[0] == "streamlit"}, f"{name} imports streamlit"
        mine, own = rank(name)
        for dep in (d for d in GRAPH[name] if d.startswith("core.")):
            theirs, their_package = rank(dep)
            assert theirs < mine or their_package == own or package(dep) == package(name), (
                f"{name} ({own}) imports {dep} ({their_package}): an arrow up or sideways"
            )


def test_no_import_circles():
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(GRAPH[name]):
            if state.get(dep) == 1:
                raise AssertionError("import circle: " + " -> ".join(path[path.index(dep) :] + [name, dep]))
            if dep not in state:
                visit(dep, path + [name])
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [])


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("core") and n not in TORCH_MODULES))
def test_importing_does_not_import_torch_or_streamlit(name):
    code = f"import sys, {name}; print(sorted({{'torch', 'streamlit'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing {name} imports {out.stdout.strip()}"
