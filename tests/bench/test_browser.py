"""bench.browser --explain: what a step's websocket frames carried, read back from messages built here."""

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.browser import explained, messages


def _element(path: list[int], kind: str, element_id: str = "") -> bytes:
    msg = ForwardMsg()
    msg.metadata.delta_path.extend(path)
    element = msg.delta.new_element
    if kind == "plotly_chart":
        element.plotly_chart.spec = '{"data": []}'
        element.plotly_chart.id = element_id
    else:
        element.markdown.body = "words"
    return msg.SerializeToString()


def test_a_frame_says_the_element_it_adds_with_its_key_where_it_goes_and_its_bytes():
    keyed = _element([0, 3, 1], "plotly_chart", "$$ID-0123abcd-alibi_lines")
    unkeyed = _element([0, 4], "plotly_chart", "$$ID-0123abcd-None")
    text = _element([1, 0], "markdown")
    finished = ForwardMsg(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY).SerializeToString()
    assert messages([keyed, unkeyed, text, finished]) == [
        ("plotly_chart alibi_lines", "0.3.1", len(keyed)),
        ("plotly_chart", "0.4", len(unkeyed)),
        ("markdown", "1.0", len(text)),
        ("script_finished", "", len(finished)),
    ]


def test_a_key_with_hyphens_is_read_whole():
    assert messages([_element([0], "plotly_chart", "$$ID-ff-my-own-key")])[0][0] == "plotly_chart my-own-key"


def test_the_report_lists_the_largest_message_first_the_last_change_last_and_the_charts_drawn_anew():
    said = explained(
        [("markdown", "0.1", 300), ("plotly_chart lines", "0.2", 26_000)],
        {"st-key-lines": [1500, 330.0], "st-key-map": [50, 350.0], "stMarkdown": [4, 120.0]},
        [["st-key-lines", False], ["st-key-slopes", True]],
        0.36,
    ).splitlines()
    assert said[0] == "  wall 0.36 s; 2 messages, 26.3 kB"
    assert "plotly_chart lines" in said[2] and "markdown" in said[3]
    assert [line.split()[0] for line in said[5:8]] == ["stMarkdown", "st-key-lines", "st-key-map"]  # st-key-map changed last
    assert said[-1] == "  Plotly charts drawn anew: st-key-lines; kept: st-key-slopes"
