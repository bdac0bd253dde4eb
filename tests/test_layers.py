"""The architecture (docs/architecture.md): layers only point down, no import circles, core never
imports streamlit, importing any core module but the torch ones (TORCH_MODULES) never imports torch, and
only the ui.internals package imports Streamlit's private modules.
Around the app, each top-level folder imports only the folders FOLDER_ARROWS allows, and no two folders
import each other, however indirectly.

Imports are read from the source with ast, those inside functions included (a lazy import is
still an arrow), so a module that imports another only when it runs counts too."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH_MODULES = {"core.schemes.torch", "core.lab.model", "core.lab.trained", "core.llm.forward"}  # the only core modules that import torch at the top
# Inside core, a module imports its own package or packages of a lower rank: the schemes and the
# figure grid and wire format at the bottom, then what is measured, then the figures drawn of it
# and the files written, then the lab (which trains the schemes and draws what it found), then the real
# language model (which reads the lab's corpus and runs the schemes' RoPE).
RANK = {
    "core.bibliography": 0, "core.schemes": 0, "core.viz.grid": 0, "core.viz.wire": 0, "core.analysis": 1, "core.viz": 2, "core.files": 2,
    "core.lab": 3, "core.llm": 4,
}  # fmt: skip
LAYER = {"core": 0, "ui": 1, "app_pages": 2}  # app.py and the pages -> ui -> core


APP = frozenset({"app", "core", "ui", "app_pages"})  # the app's own layers, checked module by module below
# What each folder around the app may import: the shared harness sits on the app alone; the benchmarks, the
# deploy proofs and the scripts use the harness and the app, never each other; the tests test all of them.
FOLDER_ARROWS = {
    "harness": APP,
    "bench": APP | {"harness"},
    "deploy": APP | {"harness"},
    "scripts": APP | {"harness"},
    "tests": APP | {"harness", "bench", "deploy", "scripts"},
}
TOP = APP | set(FOLDER_ARROWS)


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


def top_imports(path: Path) -> set[str]:
    """The repository's top-level folders (and app.py) that `path` imports, lazy imports included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & TOP


def folder_of(path: Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


AROUND = sorted(p for folder in FOLDER_ARROWS for p in (ROOT / folder).rglob("*.py"))
FOLDER_GRAPH: dict[str, set[str]] = {}
for _path in [ROOT / "app.py", *(p for folder in sorted(APP - {"app"}) for p in (ROOT / folder).rglob("*.py")), *AROUND]:
    FOLDER_GRAPH.setdefault(folder_of(_path), set()).update(top_imports(_path) - {folder_of(_path)})


@pytest.mark.parametrize("path", AROUND, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_folder_around_the_app_imports_only_what_it_may(path):
    folder = folder_of(path)
    wrong = top_imports(path) - FOLDER_ARROWS[folder] - {folder}
    assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}: {folder}/ may import only {sorted(FOLDER_ARROWS[folder])}"


def test_no_circles_between_folders():
    assert {"harness", "ui"} <= FOLDER_GRAPH["bench"] and FOLDER_GRAPH["tests"] >= {"bench", "scripts"}  # the graph is read
    for folder in APP:
        assert not FOLDER_GRAPH.get(folder, set()) & set(FOLDER_ARROWS), f"{folder} imports {sorted(FOLDER_GRAPH[folder] & set(FOLDER_ARROWS))}"

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in FOLDER_GRAPH.get(todo.pop(), set()) - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    circles = sorted(folder for folder in FOLDER_GRAPH if folder in reach(folder))
    assert not circles, f"folders in an import circle: {circles}"


def test_the_graph_is_read():
    assert "core.schemes.registry" in GRAPH["core.files.codegen"]
    assert "core.lab.model" in GRAPH["core.lab.entry"]  # a lazy import counts


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


# A page's own modules sit in one package beside each other (ui/lab/ for app_pages/lab.py), so a reader finds
# the whole page in one place; what another page shares from such a package is named here.
PAGE_PACKAGES = {"ui.lab": "app_pages.lab"}
SHARED_FROM_PAGE_PACKAGES = {"ui.lab.run": {"ui.llm"}}  # the one live-run widget, /llm's live perplexity included


@pytest.mark.parametrize("pkg", sorted(PAGE_PACKAGES))
def test_a_page_package_is_imported_by_its_page_only(pkg):
    inside = {n for n in MODULES if n == pkg or n.startswith(pkg + ".")}
    assert len(inside) > 1, f"{pkg} is not a package of modules"
    for name, deps in GRAPH.items():
        for dep in deps & inside:
            allowed = name in inside or name == PAGE_PACKAGES[pkg] or name in SHARED_FROM_PAGE_PACKAGES.get(dep, set())
            assert allowed, f"{name} imports {dep}, a module of the page {PAGE_PACKAGES[pkg]}: move what it shares out of {pkg}"


PUBLIC_STREAMLIT = {"streamlit", "streamlit.errors"}  # what the app imports of Streamlit outside ui/internals


def test_private_streamlit_structures_are_touched_in_ui_internals_only():
    """Streamlit's private modules (streamlit.runtime, its widgets' modules, ...) are imported by the ui.internals
    package alone, so that an upgrade is checked in one place; the app's own files import public Streamlit."""
    private = {m for m in imports(MODULES["ui.internals.session"]) if m.startswith("streamlit.")}
    assert "streamlit.runtime.scriptrunner" in private  # the check sees the lazy imports it is about
    for name, path in [("app", ROOT / "app.py"), *MODULES.items()]:
        if name != "ui.internals" and not name.startswith("ui.internals."):
            wrong = {m for m in imports(path) if m.split(".")[0] == "streamlit"} - PUBLIC_STREAMLIT
            assert not wrong, f"{name} imports {sorted(wrong)}: private Streamlit structures belong in ui/internals/"


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


CORE_WITHOUT_TORCH = sorted(n for n in MODULES if n.startswith("core") and n not in TORCH_MODULES)

# One interpreter imports numpy (which imports neither torch nor streamlit), then forks a child per module:
# each child imports its module into a fresh copy of that interpreter and says which of the two it brought in.
# A fresh interpreter per module gave the same answers at the cost of starting Python and numpy 55 times.
FORK_EACH = """
import json, os, sys
import numpy
assert not {'torch', 'streamlit'} & set(sys.modules), sorted(sys.modules)
found = {}
for name in sys.argv[1:]:
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        try:
            __import__(name)
            said = sorted({'torch', 'streamlit'} & set(sys.modules))
        except BaseException as err:
            said = [f'import failed: {type(err).__name__}: {err}']
        os.write(write, json.dumps(said).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found[name] = json.loads(pipe.read() or '["no answer"]')
    os.wait()
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def imported_with() -> dict[str, list[str]]:
    """Per core module but the torch ones: which of torch and streamlit importing it brings in."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # no BLAS threads in the parent: a fork copies only the thread that forks
    out = subprocess.run([sys.executable, "-c", FORK_EACH, *CORE_WITHOUT_TORCH], cwd=ROOT, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", CORE_WITHOUT_TORCH)
def test_importing_does_not_import_torch_or_streamlit(name, imported_with):
    assert imported_with[name] == [], f"importing {name} imports {imported_with[name]}"
