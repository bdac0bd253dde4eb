"""The dials that turn with the position (ui/motion.py) in Chromium: Play and Step move the position in
the browser with nothing sent to the server, a frame drawn on every screen refresh while playing (how many
refreshes a second this machine gives is `python -m bench.browser --fps`'s to measure); the numbers under each dial, paused,
are core's at that position; the keyboard reaches Play and Step and presses them; with reduced motion
nothing glides; axe-core finds nothing of the app's own on the page."""

from __future__ import annotations

import re

import numpy as np

from core.schemes import rope, sinusoidal
from harness import a11y
from harness.browser import screenshot
from ui.motion import sampled_pairs
from tests.e2e.conftest import open_recording

# component frames and screen refreshes (requestAnimationFrame callbacks) over `ms` milliseconds
COUNT = """(ms) => new Promise((done) => {
    const root = document.querySelector('.pee-mo'), first = Number(root.dataset.frames);
    let ticks = 0; const t0 = performance.now();
    const tick = (now) => { ticks++; if (now - t0 < ms) requestAnimationFrame(tick);
        else done({ frames: Number(root.dataset.frames) - first, ticks, seconds: (now - t0) / 1000, at: Number(root.dataset.drawn) }); };
    requestAnimationFrame(tick);
})"""
NUMBER = re.compile(r"−?\d+\.\d{3}")


def opened(context, app_url, query: str):
    page, sent = open_recording(context, f"{app_url}/{query}")
    page.locator(".pee-mo").scroll_into_view_if_needed()
    return page, sent


def shown(page) -> tuple[int, list[list[float]]]:
    """The position the readout names, and the two numbers under each dial."""
    p = int(page.locator(".pee-mo-readout").inner_text().removeprefix("position p = ").replace(",", ""))
    texts = page.locator(".pee-mo-value").all_inner_texts()
    return p, [[float(v.replace("−", "-")) for v in NUMBER.findall(t)] for t in texts]


def test_play_turns_the_clock_in_the_browser_a_frame_per_refresh_and_pauses_on_cores_numbers(context, app_url):
    page, sent = opened(context, app_url, "sinusoidal?sin_view=Waves&d_model=64&max_len=300&base=100")
    assert shown(page)[0] == 0
    sent.clear()
    page.locator(".pee-mo-speed").select_option("3")  # the fastest: 30 positions a second
    page.focus(".pee-mo-play")
    page.keyboard.press("Space")
    assert page.locator(".pee-mo-play").inner_text() == "Pause"
    got = page.evaluate(COUNT, 1000)
    assert got["frames"] >= 0.9 * got["ticks"] - 1, got  # a frame drawn on every refresh while it plays
    assert got["at"] > 0, got
    page.keyboard.press("Space")  # pause: on a whole position
    assert page.locator(".pee-mo-play").inner_text() == "Play"
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # the paused frame drawn
    p, numbers = shown(page)
    assert p > 0
    pairs = sampled_pairs(32)
    want = sinusoidal.sinusoidal_encoding(300, 64, 100.0, positions=np.array([p]), dims=np.ravel([(2 * i, 2 * i + 1) for i in pairs]))[0]
    np.testing.assert_allclose(np.ravel(numbers), want, atol=5e-4)  # written to 3 decimals
    screenshot(page, "motion-sinusoid")
    page.wait_for_timeout(500)
    assert sent == []  # playing, pausing and the speed asked nothing of the server
    page.close()


def test_the_keyboard_steps_rope_and_reduced_motion_jumps(browser, app_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
    try:
        page, sent = opened(ctx, app_url, "rope?head_dim=8&max_len=64&rope_layout=interleaved")
        sent.clear()
        page.evaluate(a11y.FOCUSABLE)
        stops = a11y.walk(page, page.locator("[data-kb]").count() + 40)
        reached = {s["text"] for s in stops if s and s["kb"] is not None}
        assert {"Play", "Step", "Back"} <= reached, reached  # Tab reaches them
        page.focus(".pee-mo-step")
        for _ in range(5):
            page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('.pee-mo').dataset.drawn === '5'", timeout=10_000)
        page.wait_for_timeout(500)  # longer than a step's glide
        frames = int(page.locator(".pee-mo").get_attribute("data-frames"))
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('.pee-mo').dataset.drawn === '6'", timeout=10_000)
        page.wait_for_timeout(500)
        assert int(page.locator(".pee-mo").get_attribute("data-frames")) == frames + 1  # reduced motion: a step is one frame, no glide
        page.focus(".pee-mo-back")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('.pee-mo').dataset.drawn === '5'", timeout=10_000)
        q, k = np.random.default_rng(7).standard_normal((2, 8))  # the page's query and key
        theta = rope.default_frequencies(8, 10_000.0)
        turned_q, turned_k = (rope.apply_rope(v[None, :], np.array([at]), theta, layout="interleaved")[0] for v, at in ((q, 9.0), (k, 5.0)))
        score = f"{float(turned_q @ turned_k):.3f}".replace("-", "−")  # all 4 pairs drawn: the whole score
        # the page's offset m − n starts at 4
        assert page.locator(".pee-mo-readout").inner_text() == f"key at n = 5, query at m = 9; q·k = {score}, the same at every n"
        angle = np.angle((turned_q[0::2] + 1j * turned_q[1::2]) / (turned_k[0::2] + 1j * turned_k[1::2]), deg=True)  # pair i as x + iy
        texts = page.locator(".pee-mo-value").all_inner_texts()
        parts = [re.fullmatch(r"angle from k to q: (−?\d+\.\d)°\nbefore rotation\s(−?\d+\.\d)° \+ offset\s4·θ\s(−?\d+\.\d)°", t).groups() for t in texts]
        said, own, turned = (np.array([float(p[k].replace("−", "-")) for p in parts]) for k in range(3))
        np.testing.assert_allclose(said, angle, atol=0.05)  # all four pairs, (2i, 2i + 1) each, to a tenth of a degree
        np.testing.assert_allclose(own, np.angle((q[0::2] + 1j * q[1::2]) / (k[0::2] + 1j * k[1::2]), deg=True), atol=0.05)  # at position 0
        np.testing.assert_allclose(turned, np.degrees(4 * theta), atol=0.05)  # the offset's part: 4·θ, whole turns kept
        label = page.locator(".pee-mo-dials").get_attribute("aria-label")
        assert label.startswith("Dials for all 4 pairs") and "Now key at n = 5, query at m = 9" in label  # the figure's text alternative
        page.wait_for_timeout(300)
        assert sent == []
        screenshot(page, "motion-rope")
        page.close()
    finally:
        ctx.close()
