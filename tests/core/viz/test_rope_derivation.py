"""RoPE derived (core.viz.rope_derivation): the turned pairs' dot product is |q||k|cos(arg q − arg k + (m − n)θ),
depends on m − n only, keeps both lengths, and the figures draw those numbers."""

from __future__ import annotations

import numpy as np
import pytest

from core.schemes import rope
from core.viz import rope_derivation as d


@pytest.mark.parametrize(("m", "n", "theta"), [(0, 0, 1.0), (5, 2, 1.0), (700, 3, 0.001), (3, 40, 0.3162)])
def test_the_score_is_the_closed_form_and_depends_on_the_offset_only(m, n, theta):
    s = d.score(d.Q, d.K, m, n, theta)
    assert s == pytest.approx(d.score_of_offset(d.Q, d.K, [m - n], theta)[0], abs=1e-12)
    assert s == pytest.approx(d.score(d.Q, d.K, m + 17, n + 17, theta), abs=1e-9)  # both moved: the same score
    assert abs(d.turned(d.Q, m, theta)) == pytest.approx(abs(d.Q)) and abs(d.turned(d.K, n, theta)) == pytest.approx(abs(d.K))
    a = np.array([[d.Q.real, d.Q.imag]])
    turned = rope.apply_rope(a, np.array([float(m)]), np.array([theta]), layout="interleaved")[0]  # the app's own rotation
    assert complex(*turned) == pytest.approx(d.turned(d.Q, m, theta))


def test_the_figures_draw_the_turned_pairs_and_the_current_offset():
    plane = d.complex_plane(5, 2, 1.0)
    q_at_m = next(t for t in plane.data if t.name == "q turned to m = 5")
    assert (q_at_m.x[1], q_at_m.y[1]) == pytest.approx((d.turned(d.Q, 5, 1.0).real, d.turned(d.Q, 5, 1.0).imag))
    assert f"score = Re[q e^(imθ) · conj(k e^(inθ))] = {d.score(d.Q, d.K, 5, 2, 1.0):.4f}" in plane.layout.title.text
    curve = d.offset_curve(5, 2, 1.0, span=32)
    line, dot = curve.data
    assert list(line.x) == list(range(-32, 33)) and dot.x[0] == 3 and dot.y[0] == pytest.approx(d.score(d.Q, d.K, 5, 2, 1.0))
