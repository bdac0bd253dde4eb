"""The checklist a good encoding should meet (unique, bounded, smooth, relative, code past
max_len, cheap), scored for the schemes a page is about from their measured properties
(core.analysis.properties.checklist), so every scheme page answers the roadmap's questions."""

from __future__ import annotations

import streamlit as st

from core.analysis import properties
from core.schemes.registry import SCHEMES, Setting
from ui import glossary
from ui.display import static_table


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def _measured(names: tuple[str, ...], setting: Setting, length: int) -> dict:
    return properties.measure_all(list(names), SCHEMES, setting, length)


def scorecard(names: list[str], setting: Setting, length: int) -> None:
    """A table: one row per property, one column per scheme, each cell a mark (✓ holds, ✗ does
    not, – does not apply) and the number it rests on; a scheme that cannot run here says why."""
    rows = {label: [] for label, _ in properties.CHECKLIST}
    columns, notes = [], []
    for name, measured in _measured(tuple(names), setting, length).items():
        columns.append(SCHEMES[name].label)
        if not isinstance(measured, str) and measured.sample_note:
            notes.append(f"{SCHEMES[name].label}: {measured.sample_note}")
        scored = None if isinstance(measured, str) else properties.checklist(measured)
        for label, _ in properties.CHECKLIST:
            mark, evidence = scored[label] if scored else (None, measured)
            rows[label].append(f"{properties.MARKS[mark]} {evidence}")
    table = {"property": [f"{label}: {words}" for label, words in properties.CHECKLIST]}
    table |= {column: [rows[label][k] for label, _ in properties.CHECKLIST] for k, column in enumerate(columns)}
    static_table(table)  # every cell whole: the evidence is the point, and a dataframe cut it off
    st.caption(scorecard_caption(length, notes))
    glossary.terms_expander(glossary.SCORECARD, key="terms_scorecard")


def scorecard_caption(length: int, notes: list[str]) -> str:
    """What the scorecard measured: the context, and where a scheme measured less of it (a table
    that ends, a sample of a long context)."""
    span = "position 0 only" if length == 1 else f"positions 0 to {length - 1:,}"
    return (
        f"Measured at these settings over {span}, as the compare page measures every scheme"
        + (f" ({'; '.join(notes)})" if notes else "")
        + f". Bounded asks whether max |value| stops growing: it is followed out to position {int(properties.far_windows(length)[-1][-1]):,}."
        " ✓ holds, ✗ does not, – does not apply."
    )
