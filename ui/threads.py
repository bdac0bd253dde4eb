"""How numpy's BLAS threads wait between matrix products: set before numpy is first imported
(app.py imports this module first; nothing in streamlit imports numpy before app.py runs).

numpy's OpenBLAS starts worker threads (one fewer than the cores: the calling thread does a share
too), and after each product its idle workers spin
before they sleep, for 2^28 clock cycles by default (OpenBLAS's THREAD_TIMEOUT; about a tenth of
a second here), in case another product follows at once.
In a server a product is followed by a websocket message, not another product, so that spinning
was most of the server's CPU on the pages built on products: /similarity 127 CPU-ms per action,
19 with a timeout of 2^4 cycles, the same products on the same two threads (`python -m
bench.load.ws --pages similarity --per-page 10`, docs/deploy.md). A value set in the environment
before the server starts is kept.
"""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")  # OpenBLAS reads it when it loads: 2^4 cycles of spinning, its minimum
