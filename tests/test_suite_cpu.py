"""scripts/suite_cpu.py's grouping of processes by their command lines (as /proc/PID/cmdline holds them: NUL-separated),
and its reading of /proc/PID/stat."""

from __future__ import annotations

import os

import pytest

from scripts.suite_cpu import cpu_seconds, kind

CMDLINES = {
    b"/usr/lib/chromium/chromium\0--type=renderer\0--lang=en-US": "chromium renderer",
    b"/usr/lib/chromium/chromium\0--type=gpu-process\0--no-sandbox": "chromium gpu-process",
    b"/usr/lib/chromium/chromium\0--type=utility\0--utility-sub-type=network.mojom.NetworkService": "chromium utility",
    b"/usr/lib/chromium/chromium\0--no-sandbox\0--headless\0--remote-debugging-pipe": "chromium browser",
    b"/usr/bin/python\0-m\0streamlit\0run\0app.py\0--server.port\08511": "app server",
    b"/usr/bin/python\0-u\0-c\0import sys;exec(eval(sys.stdin.readline()))": "pytest",
    b"/usr/lib/chromium/chromium --type=renderer --lang=en-US --num-raster-threads=1": "chromium renderer",
    b"/usr/lib/chromium/chromium --type=renderer --lang=en-US\0\0\0--no-sandbox": "chromium renderer",  # retitled over longer arguments
    b"/usr/bin/python\0-m\0pytest\0-n\0auto": "pytest",
    b"/usr/bin/node\0/site-packages/playwright/driver/package/cli.js\0run-driver": "playwright driver",
    b"/usr/sbin/nginx\0-c\0/tmp/nginx.conf": "other",
    # the words alone do not make the group: an argument naming streamlit, a script that mentions chrome
    b"/usr/bin/python\0-c\0import sys; print({'torch', 'streamlit'} & set(sys.modules))": "other",
    b"/usr/bin/python\0-m\0pytest\0tests/e2e\0-k\0streamlit or chrome": "pytest",
    b"/usr/bin/python\0scripts/chrome_streamlit_run.py": "other",
}


@pytest.mark.parametrize("cmdline", list(CMDLINES))
def test_a_process_is_grouped_by_its_command_line(cmdline):
    assert kind(cmdline) == CMDLINES[cmdline]


def test_cpu_time_is_user_plus_system_over_the_clock_tick():
    # fields 14 and 15 of /proc/PID/stat (utime, stime) in clock ticks; the command name may hold spaces and parentheses
    ticks = os.sysconf("SC_CLK_TCK")
    stat = f"123 (a (b) c) S 1 123 123 0 -1 4194560 100 0 0 0 {3 * ticks} {ticks} 0 0 20 0 1 0 55 1000 10"
    assert cpu_seconds(stat) == 4.0
