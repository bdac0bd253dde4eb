"""numpy's BLAS threads are told how to wait before numpy loads in a server (ui/threads.py)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_app_imports_the_setting_before_anything_else():
    modules = []
    for node in ast.parse((ROOT / "app.py").read_text()).body:
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules.append(node.module)
    first = modules.index("ui.threads")
    assert all(name.split(".")[0] in sys.stdlib_module_names for name in modules[:first]), modules[:first]


def _run(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean | env, capture_output=True, text=True, check=True).stdout.strip()


def test_the_setting_is_made_before_numpy_loads_under_streamlit():
    code = (
        "import sys, streamlit, streamlit.web.bootstrap, streamlit.runtime.scriptrunner\n"
        "before = 'numpy' in sys.modules\n"
        "import ui.threads, os\n"
        "print(before, 'numpy' in sys.modules, os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    )
    assert _run(code) == "False False 4"  # streamlit has not loaded numpy when app.py starts, nor does the setting


def test_a_value_from_the_environment_is_kept():
    assert _run("import ui.threads, os; print(os.environ['OPENBLAS_THREAD_TIMEOUT'])", OPENBLAS_THREAD_TIMEOUT="12") == "12"
