"""Load tests of a running server: `python -m bench.load` drives real browsers (Playwright in
Debian's Chromium), `python -m bench.load.ws` drives websocket clients that speak Streamlit's
protocol without a browser. Shared parts: pages.py (what each page's session moves), server.py
(starting a server and waiting until it is healthy, CPU and memory meters), session.py (one
browser visitor)."""
