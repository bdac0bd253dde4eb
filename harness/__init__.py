"""What the tests, the benchmarks, the deploy proofs and the scripts share to drive the app from outside:
the pages as the navigation lists them (pages.py), the sidebar settings a run is opened with (settings.py),
a Streamlit server started and measured (server.py), a session over the websocket without a browser and the
warm-up (ws.py), Chromium and what to wait for in it (browser.py), axe-core's judgement (a11y.py), nginx in
front of several processes (nginx.py), and what an AppTest run is read with (app_run.py).

It imports the app's layers (ui, core) and nothing of bench/, deploy/, scripts/ or tests/, which all
import it (tests/test_layers.py)."""
