"""ui.params: every kind of bad URL value gives a notice and a value inside the range."""

import pytest

from tests.links import BATTERY, text_problems
from ui.params import BASE, D_MODEL, MAX_LEN, SHARED_PARAMS, Parsed, log_ticks, parse_param


@pytest.mark.parametrize("spec", SHARED_PARAMS)
def test_absent_gives_default_silently(spec):
    parsed = parse_param(None, spec)
    assert parsed.value == spec.default and parsed.notice is None


@pytest.mark.parametrize(
    ("spec", "raw", "value"),
    [
        (D_MODEL, "abc", 128),
        (D_MODEL, "-5", 2),
        (D_MODEL, "0", 2),
        (D_MODEL, "1e12", 8192),
        (D_MODEL, "nan", 128),
        (D_MODEL, "inf", 128),
        (D_MODEL, "-inf", 128),
        (D_MODEL, "", 128),
        (D_MODEL, "12.5", 128),
        (MAX_LEN, "0", 1),
        (MAX_LEN, "131073", 131072),
        (MAX_LEN, "1e400", 131072),
        (BASE, "1", 2.0),
        (BASE, "1e12", 1e8),
        (BASE, "nan", 10_000.0),
        (BASE, "ten", 10_000.0),
        (BASE, "0x10", 10_000.0),
    ],
)
def test_bad_values_fall_back_with_a_notice(spec, raw, value):
    parsed = parse_param(raw, spec)
    assert parsed.value == value
    assert spec.lo <= parsed.value <= spec.hi
    assert parsed.notice and spec.name in parsed.notice


def test_huge_value_is_echoed_shortened():
    parsed = parse_param("9" * 500, D_MODEL)
    assert parsed.value == 8192 and len(parsed.notice) < 200


@pytest.mark.parametrize(
    ("spec", "raw", "value"),
    [
        (D_MODEL, "7", 7),
        (D_MODEL, " 8192 ", 8192),
        (D_MODEL, "2", 2),
        (D_MODEL, "64.0", 64),
        (MAX_LEN, "1", 1),
        (MAX_LEN, "131072", 131072),
        (BASE, "2", 2.0),
        (BASE, "1e8", 1e8),
        (BASE, "500000.5", 500000.5),
    ],
)
def test_valid_values_including_both_ends_pass_silently(spec, raw, value):
    parsed = parse_param(raw, spec)
    assert parsed.value == value and parsed.notice is None
    assert isinstance(parsed.value, int) == spec.integer


def test_url_format_round_trips():
    for spec, value in ((D_MODEL, 7), (BASE, 1e8), (BASE, 2.5), (MAX_LEN, 131072)):
        assert parse_param(spec.format(value), spec).value == value
    assert BASE.format(10_000.0) == "10000"


@pytest.mark.parametrize("spec", SHARED_PARAMS)
def test_log_ticks_cover_both_ends_and_default(spec):
    ticks = log_ticks(spec)
    assert ticks[0] == spec.lo and ticks[-1] == spec.hi and spec.default in ticks
    assert ticks == sorted(set(ticks))
    assert len(ticks) <= 30


@pytest.mark.parametrize("raw", ["abc", "-5", "0", "1e12", "nan", "inf", "", "12.5", *BATTERY.values()])
@pytest.mark.parametrize("spec", SHARED_PARAMS)
def test_any_link_value_gives_a_value_in_range_which_the_url_then_holds(spec, raw):
    # the whole battery of bad and hostile values: a value in range, of the setting's kind, written back to the
    # URL in a form that reads as itself; anything not taken as written is named in a notice, its text made inert
    parsed = parse_param(raw, spec)
    assert spec.lo <= parsed.value <= spec.hi and isinstance(parsed.value, int) == spec.integer
    assert parse_param(spec.format(parsed.value), spec) == Parsed(parsed.value)
    taken = raw.strip() != "" and parsed.notice is None
    if not taken:
        assert parsed.notice and parsed.notice.startswith(f"`{spec.name}=")
        assert not text_problems(parsed.notice)
    else:
        assert float(raw) == parsed.value
