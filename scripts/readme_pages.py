"""`python -m scripts.readme_pages`: README's page table rewritten in the order of the navigation
(ui/path.py STEPS): each row keeps its words, a page without a row gets one from its title and
pitch (to be told at more length by hand), and a row of a page no longer in the navigation goes.
tests/test_docs.py fails when README differs from what this writes."""

from __future__ import annotations

import re
from pathlib import Path

from ui.path import STEPS

README = Path(__file__).resolve().parents[1] / "README.md"
ROW = re.compile(r"(?m)^\| `(/[\w-]*)` \| (.*) \|$")


def with_page_table(readme: str) -> str:
    """`readme` with its page table (the rows under "## Pages") in STEPS's order."""
    head, rest = readme.split("\n## Pages\n", 1)
    section, tail = rest.split("\n## ", 1)
    rows = {m.group(1): m.group(2) for m in ROW.finditer(section)}
    table = [f"| `/{s.url_path}` | {rows.get('/' + s.url_path) or f'{s.title}: {s.pitch}'} |" for s in STEPS]
    lines = [line for line in section.splitlines() if not ROW.match(line)]
    at = lines.index("|---|---|") + 1
    return head + "\n## Pages\n" + "\n".join(lines[:at] + table + lines[at:]) + "\n" * section.endswith("\n") + "\n## " + tail


if __name__ == "__main__":
    README.write_text(with_page_table(README.read_text()))
