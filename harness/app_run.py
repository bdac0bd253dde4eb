"""What the app's AppTest runs (the tests' and the benchmark's) read from a run the same way."""

from __future__ import annotations


def component_data(proto) -> bytes:
    """A component element's data as sent: bytes as they are (a heatmap's JSON, ui.heatmap.payload), or Streamlit's JSON of a dict."""
    return proto.bytes if proto.WhichOneof("data") == "bytes" else proto.json.encode()
