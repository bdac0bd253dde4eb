"""bench.load.session.Wire: the server's part of a redraw, read off websocket frames."""

import base64

import pytest

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load.browser import percentile
from bench.load.session import Wire


def frame(msg, t: float, opcode: int = 2) -> dict:
    return {"timestamp": t, "response": {"opcode": opcode, "payloadData": base64.b64encode(msg.SerializeToString()).decode()}}


def rerun(t: float) -> dict:
    msg = BackMsg()
    msg.rerun_script.query_string = "d_model=128"
    return frame(msg, t)


def finished(t: float, how: int = ForwardMsg.FINISHED_SUCCESSFULLY) -> dict:
    msg = ForwardMsg()
    msg.script_finished = how
    return frame(msg, t)


def heartbeat(t: float) -> dict:
    msg = BackMsg()
    msg.app_heartbeat = True
    return frame(msg, t)


def feed(wire: Wire, sent: list[dict], received: list[dict]) -> None:
    for ev in sent:
        wire._frame(ev, wire._back, "rerun_script", wire.reruns)
    for ev in received:
        wire._frame(ev, wire._forward, "script_finished", wire.finished)


def test_one_rerun_is_timed_from_request_to_end_of_run():
    wire = Wire()
    feed(wire, [rerun(10.0)], [finished(9.0), finished(10.25)])  # an end before the request is an older run
    assert wire.server_seconds(0) == pytest.approx(0.25)


def test_a_run_cut_short_by_a_newer_request_ends_with_the_newer_run():
    wire = Wire()
    feed(wire, [rerun(1.0), rerun(1.1)], [finished(1.15, ForwardMsg.FINISHED_EARLY_FOR_RERUN), finished(1.5)])
    assert wire.server_seconds(0) == pytest.approx(0.5)
    assert wire.server_seconds(1) == pytest.approx(0.4)  # timed from the second request, if the mark was taken after the first
    assert wire.server_seconds(2) is None  # no request after the mark yet


def test_other_frames_are_ignored():
    wire = Wire()
    text = {"timestamp": 2.0, "response": {"opcode": 1, "payloadData": "hello"}}
    garbage = {"timestamp": 2.0, "response": {"opcode": 2, "payloadData": base64.b64encode(b"\xff\xff\xff").decode()}}
    feed(wire, [heartbeat(1.0), text, garbage], [text, garbage])
    assert wire.reruns == [] and wire.finished == []
    assert wire.server_seconds(0) is None
    feed(wire, [rerun(3.0)], [])
    assert wire.server_seconds(0) is None  # sent, no end of run received yet


def test_percentile_interpolates():
    assert percentile([], 95) is None
    assert percentile([3.0], 95) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert abs(percentile([0.0, 10.0], 95) - 9.5) < 1e-12
