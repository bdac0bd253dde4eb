"""AppTest of the `code` page: every scheme renders its two code blocks with the sidebar's numbers,
the code taken from the page runs and gives core's numbers, the downloads hold core's matrix
(bounded at the extremes, with a notice saying what is offered instead), the settings link
reopens the same view, and bad link values give notices."""

from __future__ import annotations

import io
import time
from unittest.mock import patch
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
import torch
from streamlit.runtime.media_file_manager import MediaFileManager

from core.files import codegen
from core.files import downloads as matrix_files
from core.schemes import rope
from core.schemes.registry import BIAS, ROTARY, SCHEMES, Setting
from tests.app.conftest import EXTREMES, assert_clean, decode, figures, grids, open_page, panel_levels
from tests.helpers import assert_close
from ui import rope_controls

SMALL = {"d_model": "24", "max_len": "40", "base": "500"}


def code_blocks(at) -> tuple[str, str]:
    """The NumPy and the PyTorch source shown on the page."""
    blocks = python_blocks(at)
    assert len(blocks) in (2, 3), [c.language for c in at.code]
    return blocks[0], blocks[1]


def python_blocks(at) -> list[str]:
    """Every source shown: NumPy, PyTorch, and for the added codes and RoPE a Keras 3 layer."""
    return [c.value for c in at.code if c.language == "python"]


def link(at) -> str:
    (block,) = [c.value for c in at.code if c.language != "python"]
    return block


def run(source: str) -> dict:
    namespace: dict = {"__name__": "copied_from_the_page"}
    exec(compile(source, "<page>", "exec"), namespace)  # noqa: S102 - what a user does with the copied code
    return namespace


def downloads(at) -> dict[str, object]:
    return {b.proto.id.rsplit("-download_", 1)[-1]: b for b in at.get("download_button")}


@pytest.mark.parametrize("name", list(SCHEMES))
def test_every_scheme_shows_its_code_with_the_sidebars_numbers(name):
    at = open_page("code", scheme=name, **SMALL)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    numpy_source, torch_source = code_blocks(at)
    applied = SCHEMES[name].applied
    expected = {ROTARY: ["HEAD_DIM = 24", "BASE = 500.0"], BIAS: ["N_HEADS = 8"]}.get(applied, ["D_MODEL = 24"])
    expected += {
        "sinusoidal": ["BASE = 500.0"],
        "t2t": ["MAX_TIMESCALE = 500.0"],
        "fraction": ["MAX_LEN = 40"],
        "learned": ["MAX_LEN = 40"],
        "shaw": ["HEAD_DIM = 3"],
    }.get(name, [])
    for text in expected:
        assert text in numpy_source and text in torch_source, text
    generated = codegen.generate(name, Setting(width=24, base=500.0, train_len=40, n_heads=8))
    assert (numpy_source.strip(), torch_source.strip()) == (generated.numpy_source.strip(), generated.torch_source.strip())
    keras = python_blocks(at)[2:]  # the Keras tab, where there is a layer to show (run on Keras: tests/core/files/test_codegen_keras.py)
    assert [k.strip() for k in keras] == ([] if applied == BIAS else [generated.keras_source.strip()])
    assert set(downloads(at)) == {"npy", "csv"}
    assert len(grids(at)) == (0 if name == "none" else 1) and figures(at) == []
    assert {"scheme": name, **SMALL}.items() <= dict(parse_qsl(urlsplit(link(at)).query)).items()


def test_code_copied_from_the_page_gives_cores_numbers():
    at = open_page("code", scheme="t2t", d_model="7", max_len="30", base="321")
    assert_clean(at)
    numpy_source, torch_source = code_blocks(at)
    s = Setting(width=7, base=321.0, train_len=30)
    pos = np.arange(30.0)
    expected = SCHEMES["t2t"].input_code(pos, s)
    assert_close(run(numpy_source)["positional_encoding"](pos), expected, atol=0, rtol=0)
    assert_close(run(torch_source)["TimingSignal"]()(torch.from_numpy(pos)).numpy(), expected)


def test_rope_code_from_a_link_with_layout_and_scaling():
    at = open_page("code", scheme="rope", rope_layout="interleaved", scaling="yarn", factor="8", original_len="64", d_model="32", max_len="512", base="10000")
    assert_clean(at)
    assert not at.warning
    numpy_source, torch_source = code_blocks(at)
    for text in ('LAYOUT = "interleaved"', "FACTOR = 8.0", "ORIGINAL_MAX_LEN = 64", "BETA_FAST = 32.0", "HEAD_DIM = 32"):
        assert text in numpy_source and text in torch_source, text
    scaling = rope.RopeScaling("yarn", 8.0, 64)
    inv_freq, factor = rope.rope_frequencies(32, 10_000.0, scaling)
    x = np.random.default_rng(0).standard_normal((4, 512, 32))
    pos = np.arange(512.0)
    expected = rope.apply_rope(x, pos, inv_freq, layout="interleaved", attention_factor=factor)
    assert_close(run(numpy_source)["rotate"](x, pos), expected, atol=0, rtol=0)
    assert_close(run(torch_source)["RotaryEmbedding"]()(torch.from_numpy(x)).numpy(), expected)
    query = dict(parse_qsl(urlsplit(link(at)).query))
    assert {"rope_layout": "interleaved", "scaling": "yarn", "factor": "8", "original_len": "64"}.items() <= query.items()


@pytest.mark.parametrize("kind", rope_controls.KINDS[1:])  # every kind on the controls, from the records
def test_rope_scaling_chosen_on_the_page(kind):
    at = open_page("code", scheme="rope", **SMALL)
    at.selectbox(key="scaling").set_value(kind).run()
    assert_clean(at)
    numpy_source, _ = code_blocks(at)
    assert "FACTOR = 4.0" in numpy_source
    assert ("NTK_BASE = " in numpy_source) == (kind == "ntk")
    # the original context is asked for and written exactly when the record reads it; default max_len // factor
    assert ("ORIGINAL_MAX_LEN = 10" in numpy_source) == rope_controls.reads_original(kind) == ("original_len" in [n.key for n in at.number_input])
    assert at.query_params["scaling"] == kind


def test_heads_for_bias_schemes():
    at = open_page("code", scheme="alibi", heads="4", **SMALL)
    assert_clean(at)
    assert "N_HEADS = 4" in code_blocks(at)[0]
    at.selectbox(key="heads").set_value(16).run()
    numpy_source, _ = code_blocks(at)
    assert "N_HEADS = 16" in numpy_source
    slopes = run(numpy_source)["attention_bias"](np.arange(5), np.arange(5))
    assert_close(slopes, SCHEMES["alibi"].score_bias(np.arange(5), np.arange(5), Setting(width=24, n_heads=16)), atol=0, rtol=0)
    assert "heads=16" in link(at)


def test_the_link_reopens_the_same_view():
    at = open_page("code", scheme="rope", scaling="llama3", factor="2.5", original_len="20", **SMALL)
    shown = code_blocks(at)
    again = open_page("code", **dict(parse_qsl(urlsplit(link(at)).query)))
    assert_clean(again)
    assert code_blocks(again) == shown


class RecordingMediaFileManager(MediaFileManager):
    """AppTest's media file manager, kept so a test can press a deferred download button."""

    last: RecordingMediaFileManager | None = None

    def __init__(self, storage) -> None:
        super().__init__(storage)
        self.storage = storage
        RecordingMediaFileManager.last = self

    def download(self, button) -> bytes:
        url = self.execute_deferred(button.proto.deferred_file_id)  # what a click runs
        return self.storage.get_file(url.rsplit("/", 1)[-1]).content


def open_recording(**params):
    with patch("streamlit.testing.v1.app_test.MediaFileManager", RecordingMediaFileManager):
        at = open_page("code", **params)
    return at, RecordingMediaFileManager.last


@pytest.mark.parametrize("name", ["sinusoidal", "rope", "t5"])
def test_downloads_hold_cores_matrix(name):
    at, files = open_recording(scheme=name, **SMALL)
    assert_clean(at)
    buttons = downloads(at)
    s = Setting(width=24, base=500.0, train_len=40, n_heads=8)
    expected = matrix_files.current_matrix(name, s, np.arange(40))
    npy = np.load(io.BytesIO(files.download(buttons["npy"])))
    assert_close(npy, expected, atol=0, rtol=0)
    csv = np.loadtxt(io.StringIO(files.download(buttons["csv"]).decode()), delimiter=",", skiprows=1)
    values = csv[:, 2:].reshape(expected.shape) if expected.ndim == 3 else csv[:, 1:]
    assert_close(values, expected, atol=0, rtol=0)
    assert not at.info  # everything fits: no notice about a shortened file


def test_thirty_presses_of_a_download_make_its_file_once(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from ui import deferred

    monkeypatch.setattr(deferred, "FILES", deferred.Files())  # nothing kept by an earlier test
    made = []
    to_npy = matrix_files.to_npy
    monkeypatch.setattr(matrix_files, "to_npy", lambda array: made.append(array.shape) or to_npy(array))
    at, files = open_recording(scheme="sinusoidal", **SMALL)
    button = downloads(at)["npy"]
    with ThreadPoolExecutor(6) as pool:  # as many at once as Streamlit's pool runs on a 2-core machine
        got = set(pool.map(lambda _: files.download(button), range(30)))
    assert made == [(40, 24)] and len(got) == 1  # made once; every press got the same file
    with patch("streamlit.testing.v1.app_test.MediaFileManager", RecordingMediaFileManager):
        at.run()  # the next run offers the same file under a new id: still made once
        assert RecordingMediaFileManager.last.download(downloads(at)["npy"]) in got and made == [(40, 24)]
        at.number_input(key="d_model").set_value(26).run()  # other settings: another file
        assert np.load(io.BytesIO(RecordingMediaFileManager.last.download(downloads(at)["npy"]))).shape == (40, 26) and len(made) == 2


@pytest.mark.parametrize("name", ["learned", "alibi", "rope", "onehot"])
def test_extremes_render_fast_with_bounded_downloads(name):
    at = open_page("code", scheme=name, **EXTREMES)
    assert_clean(at)
    started = time.perf_counter()
    at.run()  # a rerun of the page at d_model 8192, max_len 131072
    elapsed = time.perf_counter() - started
    assert_clean(at)
    assert elapsed < 3.0, elapsed  # ~0.3 s on an idle core; the bound leaves room for a shared machine
    s = Setting(width=8192, base=1e8, train_len=131_072, n_heads=8)
    npy, csv = matrix_files.extent(name, s, matrix_files.MAX_NPY_VALUES), matrix_files.extent(name, s, matrix_files.MAX_CSV_VALUES)
    labels = {k: b.proto.label for k, b in downloads(at).items()}
    assert f"first {npy.positions:,} positions" in labels["npy"] and f"first {csv.positions:,} positions" in labels["csv"]
    assert npy.values <= matrix_files.MAX_NPY_VALUES and csv.values <= matrix_files.MAX_CSV_VALUES
    if name == "onehot":  # a table of 8192 rows: the whole of it is offered where it fits
        assert npy.total == 8192
    (notice,) = [i.value for i in at.info]
    assert "first" in notice and "run the code above" in notice


def test_odd_width_for_rope_is_an_error_not_an_exception():
    at = open_page("code", scheme="rope", d_model="7")
    assert not at.exception
    assert any("head_dim must be even" in e.value for e in at.error)


def test_a_factor_below_one_in_a_link_is_named_and_dropped():
    # the link check asks YaRN's record, which refuses a factor below 1: a notice with its sentence, the default, the code
    at = open_page("code", scheme="rope", scaling="yarn", factor="0.5", **SMALL)
    assert_clean(at)
    assert not at.error and [w.value for w in at.warning] == [
        "`factor='0.5'` in the link is not valid: factor must be at least 1, got 0.5: a scaling factor below 1 would shrink the context. Using the default."
    ]
    assert "FACTOR = 4.0" in code_blocks(at)[0]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"scheme": "xpos"}, "scheme"),
        ({"scheme": "alibi", "heads": "3"}, "heads"),
        ({"scheme": "shaw", "heads": "abc"}, "heads"),
        ({"scheme": "rope", "rope_layout": "diagonal"}, "rope_layout"),
        ({"scheme": "rope", "scaling": "quadratic"}, "scaling"),
        ({"scheme": "rope", "scaling": "yarn", "factor": "abc"}, "factor"),
        ({"scheme": "rope", "scaling": "yarn", "factor": "1e309"}, "factor"),
        ({"scheme": "rope", "scaling": "llama3", "original_len": "-inf"}, "original_len"),
        ({"scheme": "rope", "scaling": "dynamic", "original_len": "12.5"}, "original_len"),
        ({"scheme": "rope", "preset": "[gpt-5](https://evil.example)"}, "preset"),
    ],
)
def test_bad_link_values_give_a_notice(params, named):
    at = open_page("code", **params)
    assert not at.exception, [e.value for e in at.exception]
    assert any(named in w.value for w in at.warning), [w.value for w in at.warning]
    assert len(code_blocks(at)) == 2  # and the page carries on with the default


def test_a_preset_link_on_another_scheme_changes_nothing():
    at = open_page("code", scheme="alibi", preset="phi-2")  # the preset choice belongs to RoPE: not drawn, not read
    assert_clean(at)
    assert len(code_blocks(at)) == 2 and at.selectbox(key="scheme").value == "alibi"
    assert all("preset" not in (s.key or "") for s in at.selectbox)


def rope_source_runs(at, width: int, base: float = 500.0) -> None:
    """The page's RoPE code rotates a head of `width` exactly as core does."""
    numpy_source, _ = code_blocks(at)
    assert f"HEAD_DIM = {width}" in numpy_source
    pos = np.arange(40.0)
    x = np.random.default_rng(0).standard_normal((40, width))
    expected = rope.apply_rope(x, pos, rope.default_frequencies(width, base))
    assert_close(run(numpy_source)["rotate"](x, pos), expected, atol=1e-12, rtol=0)


def test_rope_head_width_follows_d_model_until_set():
    at = open_page("code", scheme="rope", **SMALL)
    assert_clean(at)
    assert at.number_input(key="head_dim").value == 24
    rope_source_runs(at, 24)
    at.number_input(key="d_model").set_value(32).run()  # not moved yet: it follows the sidebar
    assert at.number_input(key="head_dim").value == 32
    rope_source_runs(at, 32)
    at.number_input(key="head_dim").set_value(8).run()  # moved: it stays when d_model moves
    rope_source_runs(at, 8)
    at.number_input(key="d_model").set_value(48).run()
    assert_clean(at)
    assert at.number_input(key="head_dim").value == 8
    rope_source_runs(at, 8)
    assert dict(parse_qsl(urlsplit(link(at)).query))["head_dim"] == "8"


def test_rope_head_width_from_a_rope_page_link():
    at = open_page("code", scheme="rope", head_dim="16", **SMALL)  # /rope writes head_dim into its links
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    rope_source_runs(at, 16)
    (caption,) = [c.value for c in at.caption if "wide" in c.value]
    assert "16 wide" in caption and "d_model = 24" in caption
    (preview,) = grids(at)
    assert preview["panels"][0]["x"]["indices"] == list(range(16))  # the preview's columns are the head's 16 dimensions


@pytest.mark.parametrize("raw", ["abc", "1", "9000", "12.5", "-inf"])
def test_a_bad_head_width_in_a_link_gives_a_notice(raw):
    at = open_page("code", scheme="rope", head_dim=raw, **SMALL)
    assert not at.exception
    assert any("head_dim" in w.value for w in at.warning), [w.value for w in at.warning]
    rope_source_runs(at, 24)  # the default: the sidebar's width


def test_an_odd_head_width_typed_in_is_an_error_in_words():
    at = open_page("code", scheme="rope", **SMALL)
    at.number_input(key="head_dim").set_value(7).run()
    assert not at.exception
    assert any("head_dim must be even" in e.value for e in at.error)


@pytest.mark.parametrize(("params", "exact"), [({"d_model": "24", "max_len": "40", "base": "500"}, True), ({}, False)])
def test_the_preview_is_the_encoding_the_code_computes(params, exact):
    """/code's preview (a panel grid the browser paints): the sinusoid at the previewed positions and
    dimensions, on ±max|value|; small, every value is sent; large (256 x 256), a PNG of its levels and
    every 4th row and column's values for the hover."""
    from core.schemes.sinusoidal import sinusoidal_encoding
    from core.viz.heatmap import levels

    d, L, base = int(params.get("d_model", 128)), int(params.get("max_len", 256)), float(params.get("base", 10_000))
    at = open_page("code", scheme="sinusoidal", **params)
    assert_clean(at)
    ((panel,),) = [spec["panels"] for spec in grids(at)]
    rows, cols = np.asarray(panel["y"]["indices"]), np.asarray(panel["x"]["indices"])
    assert rows.tolist() == list(range(min(L, 256))) and cols.tolist() == list(range(min(d, 256)))
    want = sinusoidal_encoding(L, d, base)[np.ix_(rows, cols)]
    bound = float(np.abs(want).max())
    assert panel["zmax"] == pytest.approx(bound, rel=1e-6) and panel["zmin"] == -panel["zmax"]
    k = panel["probe"]
    assert (k == 1) == exact and bool(panel["probe_note"]) != exact
    np.testing.assert_allclose(decode(panel["z"]), want[::k, ::k], atol=1e-6)
    assert np.mean(panel_levels(panel) == levels(want, -panel["zmax"], panel["zmax"])) > 0.999
