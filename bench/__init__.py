"""Performance benchmark of the Positional Encoding Explorer: run `python -m bench` from the repo root.

Options: --runs N, --pages a,b, --settings a,b, --json PATH, --profile (see --help).

For each page and each setting of the shared sidebar it measures, with Streamlit's AppTest,
the page's script run time on the server and the size of every Plotly figure sent to the
browser, and compares them with a "naive" rendering of the same main view done directly in
Plotly (the full matrix in one heatmap). It checks the performance targets and exits with
status 1 when one of them fails.

Modules:
- config: the pages, the settings and the targets.
- app_run: the AppTest measurement of one page at one setting.
- naive: the naive renderings, built and timed, or estimated when they cannot be built.
- targets: the PASS/FAIL checks.
- script_thread: hooks around the script runs AppTest makes (timing, profiling).
- profiling: cProfile of one script run, reduced to the project's own functions and calls.
- report: the header, the tables and the JSON document.
"""
