"""AppTest across pages: page controls bound to the shared settings and to the URL (plain names
for choices both ways, a notice for an unknown one)."""

from __future__ import annotations

import pytest

from tests.app.conftest import assert_clean, open_page


def test_untouched_page_controls_follow_the_shared_settings_moved_ones_stay():
    at = open_page("sinusoidal", max_len="256", d_model="128", sin_view="Picture")  # the tab whose window of positions it is
    assert at.slider(key="sin_window").value == (0, 255)
    at.number_input(key="max_len").set_value(512).run()
    assert at.slider(key="sin_window").value == (0, 511)  # untouched: follows, as a fresh link would show
    at.slider(key="sin_window").set_value((10, 99)).run()
    at.number_input(key="max_len").set_value(1000).run()
    assert at.slider(key="sin_window").value == (10, 99)  # moved by the user: kept
    assert_clean(at)
    at = open_page("sinusoidal", max_len="256", d_model="128", sin_view="Waves")  # the tab with the waves' dimensions
    assert at.multiselect(key="sin_dims").value == [0, 1, 16, 64]
    at.number_input(key="d_model").set_value(256).run()  # live on this page: the open tab reruns, not the page (tests/app/test_live.py)
    assert at.multiselect(key="sin_dims").value == [0, 1, 32, 128]
    assert_clean(at)


@pytest.mark.parametrize(
    ("page", "key", "value"),
    [("sinusoidal", "layout", "concat"), ("rope", "rope_layout", "interleaved"), ("rope", "scaling", "llama3"), ("compare", "schemes", "rope,alibi")],
)
def test_choice_links_carry_plain_names(page, key, value):
    """Choice widgets with display labels keep plain option names in the URL, both ways (a
    widget bound by Streamlit would put its label there and drop a plain name)."""
    tab = {"rope_view": "Scaling"} if key == "scaling" else {}  # /rope's scaling lives in its Scaling tab
    at = open_page(page, **{key: value}, **tab)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    widget = at.multiselect(key=key) if key == "schemes" else at.get("button_group") if key.endswith("layout") else at.selectbox(key=key)
    if key == "schemes":
        assert widget.value == value.split(",")
    elif key == "scaling":
        assert widget.value == value
    assert at.query_params[key] == value
    assert at.session_state[key] == (value.split(",") if key == "schemes" else value)


@pytest.mark.parametrize(("page", "key", "raw"), [("sinusoidal", "layout", "diagonal"), ("rope", "scaling", "magic"), ("compare", "schemes", "rope,nonsense")])
def test_unknown_choice_in_link_gives_notice(page, key, raw):
    at = open_page(page, **{key: raw})
    assert_clean(at)
    assert any(key in w.value for w in at.warning), [w.value for w in at.warning]


def test_the_first_runs_url_goes_to_the_history_script_once():
    # a session's first run holds its writes of the URL (the browser would push an entry per write) and hands the
    # query string it ends with to ui/assets/history.js; a later run writes as usual and hands nothing over
    import json
    from urllib.parse import parse_qs

    from harness.app_run import component_data

    def handed(at):
        (script,) = [el for el in at.get("bidi_component") if el.proto.component_name == "pee_history"]
        return json.loads(component_data(script.proto))

    at = open_page("rope", d_model="64")
    first = handed(at)
    assert first["path"] == "rope" and parse_qs(first["query"]) == {k: [v] for k, v in at.query_params.items()}
    assert parse_qs(first["query"])["d_model"] == ["64"] and {"max_len", "base", "rope_layout"} <= set(parse_qs(first["query"]))
    full = dict(at.query_params)
    at.query_params.clear()
    at.query_params["d_model"] = "64"
    at.run()  # the browser's URL is still the link's: the script has not run yet, so this run holds its writes too
    assert parse_qs(handed(at)["query"]) == {k: [v] for k, v in full.items()}
    at.run()  # the URL the script was handed is in the browser's address bar: it is in place
    assert handed(at) == {"path": "rope", "query": None}
