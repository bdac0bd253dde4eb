"""Load tests of a running server: `python -m bench.load` drives real browsers (Playwright in
Debian's Chromium), `python -m bench.load.ws` drives websocket clients that speak Streamlit's
protocol without a browser. session.py is one browser visitor; the pages, the server and its
meters, and the websocket session are in harness/, which the tests and deploy/ share."""
