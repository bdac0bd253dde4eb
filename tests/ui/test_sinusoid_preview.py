"""ui.sinusoid_preview's line over the preview: where its sliders start for the sidebar's settings at the ends of the
sidebar's ranges (as index.js brings them within its own), and that the line names exactly the settings that moved."""

from __future__ import annotations

import pytest

from ui.sinusoid_preview import ranges_note, start_settings


@pytest.mark.parametrize(
    ("given", "start"),
    [
        ((128, 256, 10_000.0), (128, 256, 10_000.0)),  # the defaults: inside every range
        ((2, 8, 2.0), (2, 8, 2.0)),  # the preview's lower ends
        ((1024, 2048, 1e7), (1024, 2048, 1e7)),  # its upper ends
        ((127, 1, 2.5), (128, 8, 2.5)),  # an odd width goes to the next even one (its slider steps by 2); max_len 1 to 8
        ((8191, 131_072, 1e8), (1024, 2048, 1e7)),  # the sidebar's upper ends
        ((1025, 2049, 10_000_001.0), (1024, 2048, 1e7)),  # just past the preview's: the odd 1,025 would round up past 1,024
    ],
)
def test_the_preview_starts_within_its_ranges(given, start):
    assert start_settings(*given) == start


def test_the_line_names_the_moved_settings_and_only_those():
    assert "becomes" not in ranges_note(128, 256, 10_000.0)
    assert ranges_note(128, 256, 10_000.0) == (
        "The preview's own sliders: d_model to 1,024 (even), max_len to 2,048, base to 10,000,000; "
        "the sidebar's (every other figure) to 8,192, 131,072, 100,000,000."
    )
    moved = ranges_note(8191, 256, 1e8)
    assert moved.endswith("brought within its ranges: d_model 8,191 becomes 1,024, base 100,000,000 becomes 10,000,000.")
    assert ranges_note(4, 3, 500.5).endswith("brought within its ranges: max_len 3 becomes 8.")
