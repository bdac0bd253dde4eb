"""`python -m bench.load`: the browser load test (bench/load/browser.py)."""

import sys

from bench.load.browser import main

sys.exit(main())
