"""The dials that turn with the position (ui/motion.py, ui/components/motion/): the frequencies sent are
core's own, at widths down to 2 and odd ones, and the browser's hand (index.js `point`, run by node on
what the server sends) points where core's encoding and rotation say, at whole and fractional positions."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from core.schemes import rope, sinusoidal
from ui.motion import MAX_DIALS, clock_data, look_for, rope_data, sampled_pairs

ROOT = Path(__file__).resolve().parents[2]
POSITIONS = [0, 1, 2, 17, 0.5, 99.25, 4095, 131071]


def browser_points(data: dict) -> np.ndarray:
    """index.js `point` for every dial at POSITIONS: (dials, positions, 2)."""
    script = (
        "import { point } from './ui/components/motion/index.js';"
        "let s = ''; process.stdin.on('data', (c) => { s += c; }).on('end', () => {"
        "const { dials, positions } = JSON.parse(s);"
        "process.stdout.write(JSON.stringify(dials.map((d) => positions.map((p) => point(d, p))))); });"
    )
    node = shutil.which("node")
    assert node, "node is missing: scripts/test.sh installs Debian's nodejs"
    done = subprocess.run([node, "--input-type=module", "-e", script], cwd=ROOT, input=json.dumps({"dials": data["dials"], "positions": POSITIONS}),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return np.asarray(json.loads(done.stdout))


def test_the_pairs_drawn_spread_from_the_fastest_to_the_slowest():
    assert sampled_pairs(0) == [] and sampled_pairs(1) == [0] and sampled_pairs(3) == [0, 1, 2]
    assert sampled_pairs(32) == [0, 6, 12, 19, 25, 31] and len(sampled_pairs(4096)) == MAX_DIALS


@pytest.mark.parametrize(("d", "base"), [(2, 10_000.0), (3, 100.0), (5, 2.0), (7, 500.0), (64, 10_000.0), (1001, 1e8)])
def test_the_clock_sends_cores_frequencies_and_the_browser_draws_cores_encoding(d, base):
    data = clock_data(d, 256, base)
    pairs = sampled_pairs(d // 2)
    assert [dial["omega"] for dial in data["dials"]] == sinusoidal.pair_frequencies(d, base)[pairs].tolist()  # exactly, not close
    assert [dial["label"] for dial in data["dials"]] == [f"pair {i}" for i in pairs]
    assert data["max_position"] == 255
    got = browser_points(data)
    columns = np.ravel([(2 * i, 2 * i + 1) for i in pairs])  # the paper's layout: (sin, cos) of pair i
    want = sinusoidal.sinusoidal_encoding(131072, d, base, positions=np.array(POSITIONS, dtype=np.float64), dims=columns)
    np.testing.assert_allclose(got, want.reshape(len(POSITIONS), len(pairs), 2).transpose(1, 0, 2), rtol=0, atol=1e-9)  # angles up to 1.3e5 rad
    small = want[:4].reshape(4, len(pairs), 2).transpose(1, 0, 2)
    np.testing.assert_allclose(got[:, :4], small, rtol=0, atol=1e-15)  # small whole positions: to the last bit or so
    assert ("lone sine" in data["description"]) == bool(d % 2)


def test_one_position_is_named_as_one():
    assert clock_data(2, 1, 10_000.0)["title"].endswith("base 10,000), position 0")


def browser_run(expression: str, data: dict) -> object:
    """An expression of index.js's exports (`m`) and the data sent (`data`), run by node."""
    script = (
        "import * as m from './ui/components/motion/index.js';"
        "let s = ''; process.stdin.on('data', (c) => { s += c; }).on('end', () => { const data = JSON.parse(s);"
        f"process.stdout.write(JSON.stringify({expression})); }});"
    )
    done = subprocess.run([shutil.which("node"), "--input-type=module", "-e", script], cwd=ROOT, input=json.dumps(data),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("head_dim", "layout", "offset"), [(2, "half", 0), (8, "interleaved", 3), (8, "half", 31), (128, "half", 4)])
def test_ropes_dials_turn_the_query_at_m_and_the_key_at_n_as_core_rotates_them(head_dim, layout, offset):
    q, k = np.random.default_rng(7).standard_normal((2, head_dim))
    theta = rope.default_frequencies(head_dim, 10_000.0)
    data = rope_data(q, k, theta, layout, 512, offset)
    pairs = sampled_pairs(head_dim // 2)
    assert [dial["omega"] for dial in data["dials"]] == theta[pairs].tolist()
    assert data["offset"] == offset and data["max_position"] == 511 - offset  # the query, at n + offset, stays within max_len
    n = np.array(POSITIONS, dtype=np.float64)
    got = browser_run("data.dials.map((d) => data.n.map((n) => [m.point(d, n + data.offset), m.keyPoint(d, n), m.between(d, n, data.offset)]))",
                      data | {"n": POSITIONS})
    dims = [(i, i + head_dim // 2) if layout == "half" else (2 * i, 2 * i + 1) for i in pairs]
    for v, at, hand in ((q, n + offset, 0), (k, n, 1)):
        turned = rope.apply_rope(np.broadcast_to(v, (n.size, head_dim)), at, theta, layout=layout)
        want = np.stack([turned[:, list(ab)] for ab in dims])
        np.testing.assert_allclose([[point[hand] for point in dial] for dial in got], want, rtol=0, atol=1e-9)
    lengths = [np.hypot(v[a], v[b]) for a, b in dims for v in (q, k)]
    assert data["radius_scale"] == pytest.approx(1 / max(lengths))  # the longest hand drawn fills its dial
    for dial, (a, b), i in zip(got, dims, pairs):  # the angle from k to q: at 0 plus offset·θ, the same at every n (by hand, not from index.js)
        at_zero = np.arctan2(q[b], q[a]) - np.arctan2(k[b], k[a]) + offset * theta[i]
        want = np.degrees(np.angle(np.exp(1j * at_zero)))
        np.testing.assert_allclose([point[2] for point in dial], want, rtol=0, atol=1e-6)
    said = browser_run("data.n.map((n) => m.scoreText(data.dials, n, data.offset, data.pairs))", data | {"n": POSITIONS})
    turned_q, turned_k = (rope.apply_rope(np.broadcast_to(v, (n.size, head_dim)), at, theta, layout=layout) for v, at in ((q, n + offset), (k, n)))
    drawn = [d for ab in dims for d in ab]
    score = np.sum(turned_q[:, drawn] * turned_k[:, drawn], axis=1)  # the drawn pairs' share of the score, at each n
    which = "q·k" if len(pairs) == head_dim // 2 else f"q·k over these {len(pairs)} of its {head_dim // 2} pairs"
    for text, value in zip(said, score):
        number = re.fullmatch(rf"{re.escape(which)} = (−?\d+\.\d{{3}}), the same at every n", text).group(1)
        assert float(number.replace("−", "-")) == pytest.approx(value, abs=5e-4)
    assert np.ptp(score) < 1e-9  # the claim itself: the same at every n


def test_what_to_look_for_follows_the_numbers():
    one = look_for(clock_data(3, 64, 10_000.0), "hand")  # a pair and a lone sine: one dial
    assert one.endswith("The hand turns by the same angle, 57.30°, at every step.")  # 1 rad
    slow = look_for(clock_data(128, 64, 10_000.0), "hand")
    last = np.degrees(10_000.0 ** (-126 / 128))  # pair 63: 0.006616°
    assert f"pair 0 by 57.30°, pair 63 by {last:.4g}°, so it barely moves." in slow
    fast = look_for(clock_data(128, 64, 2.0), "hand")  # base 2: the slowest pair still turns 28.96° a position
    assert fast.endswith(f"pair 63 by {np.degrees(2.0 ** (-126 / 128)):.4g}°.") and "barely" not in fast
