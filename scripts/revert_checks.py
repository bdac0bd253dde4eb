"""Bugs the suite must catch: each reintroduced alone in a scratch worktree of HEAD, then the tests that
must catch it run there (with -x: the first failure is enough). A bug the tests no longer catch prints
"exit 0". A line below that no longer matches the code fails its assertion: update the bug with the code.

    python scripts/revert_checks.py                  # every bug
    python scripts/revert_checks.py 2-link-value-echoed-as-markdown
"""
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRATCH = pathlib.Path(tempfile.gettempdir()) / "pee-revert-checks"
HEAD = subprocess.check_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"], text=True).strip()
BUGS = {
    "1-sample-drops-cos-partner": ("core/viz/grid.py",
        "    chosen = np.sort(np.concatenate([sin_columns[kept], cos_columns[kept[kept < cos_columns.size]]]))",
        "    chosen = np.sort(np.concatenate([sin_columns[kept], cos_columns[kept[1:][kept[1:] < cos_columns.size]]]))",
        ["tests/app/test_truth.py", "-k", "sinusoidal"]),
    "2-link-value-echoed-as-markdown": ("ui/params.py",
        "{inert(raw[:limit], in_code=True)}", "{raw[:limit]}",
        ["tests/ui/test_link_battery.py", "tests/ui/test_params.py", "tests/app/test_bad_input.py", "-k", "markup or hostile or any_link"]),
    "3-no-notice-for-a-bad-tab-name": ("ui/tabs.py",
        '    check_url_value(key, lambda raw: raw in labels, f"the tab is one of {\', \'.join(labels)}")  # Streamlit would drop it without a word\n', "",
        ["tests/ui/test_link_battery.py", "tests/app/test_bad_input.py", "-k", "word"]),
    "4-upload-parser-error-escapes": ("core/files/checkpoint.py",
        "    except Exception as err:  # noqa: BLE001  the boundary", "    except ValueError as err:  # noqa: BLE001  the boundary",
        ["tests/core/files/test_checkpoint.py", "tests/app/test_model.py", "tests/app/test_bad_input.py", "-k", "upload or hostile or malformed or bad"]),
    "5-number-check-wider-than-its-widget": ("ui/controls.py",
        "        accepted = plain_whole_in(self.lo, self.hi) if self.linked else number_in(self.lo, self.hi, whole=self.whole)",
        "        accepted = plain_whole_in(self.lo, self.hi) if self.linked "
        "else number_in(self.lo, self.hi + 1 if self.whole else self.hi * 2, whole=self.whole)",
        ["tests/ui/test_link_battery.py", "tests/app/test_bad_input.py", "-k", "above or edge or bad_value"]),
    "6-unknown-list-names-dropped-silently": ("ui/controls.py",
        "    if not unknown:\n        return None\n", "    if True:\n        return None\n",
        ["tests/ui/test_link_battery.py", "tests/app/test_bad_input.py", "-k", "word or many-unknown or duplicates"]),
    "7-shared-setting-not-clamped": ("ui/params.py",
        "        clamped = min(max(number, spec.lo), spec.hi)", "        clamped = number if math.isfinite(number) else spec.hi",
        ["tests/ui/test_params.py", "tests/ui/test_link_battery.py", "-k", "range or overflow or bad_value"]),
    "8-a-page-reads-a-link-around-the-checks": ("app_pages/compare.py",
        'check_url_value("heads", one_of(HEADS), f"the head count is one of {\', \'.join(map(str, HEADS))}")\n', "",
        ["tests/app/test_bad_input.py", "-k", "compare"]),
}
only = sys.argv[1:]
for name, (path, old, new, tests) in BUGS.items():
    if only and name not in only:
        continue
    tree = SCRATCH / name
    if tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), HEAD], check=True, capture_output=True)
    f = tree / path
    text = f.read_text()
    assert text.count(old) == 1, (name, text.count(old))
    f.write_text(text.replace(old, new))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-n", "2", *tests], cwd=tree, capture_output=True, text=True)
    last = [line for line in out.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))][:2]
    summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-300:]
    print(f"{name}: exit {out.returncode}: {summary}\n   {last}", flush=True)
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
