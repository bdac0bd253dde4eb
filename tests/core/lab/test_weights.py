"""The shipped Austen models (core.lab.weights, data/lab_models): every file is the one its
manifest records (SHA-256, size, tensors and shapes), fits the lab's model for its scheme, gives
back the shipped perplexity, and a missing, damaged or altered file is a sentence, not a crash."""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest

from core.lab import lm, weights

DOCUMENTED = {  # data/README.md
    "none": "5d2b1417d3ff8c4726a9a364f6435d06bf79f9a0e559bdfe9913dffb62cfc370",
}


@pytest.fixture()
def copy(tmp_path):
    """A copy of the shipped models' folder to damage."""
    folder = tmp_path / "models"
    shutil.copytree(weights.MODELS_DIR, folder)
    return folder


def test_every_shipped_file_is_the_one_its_manifest_records():
    manifest = weights.load_manifest()
    assert manifest.command == "python -m bench.lab_lm"
    assert set(manifest.models) == set(lm.DEFAULT_SCHEMES)
    results = lm.load_shipped()
    for scheme, entry in manifest.models.items():
        data = (weights.MODELS_DIR / entry.file).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.bytes
        assert 100_000 < entry.parameters < 120_000 and entry.bytes < 500_000  # ~110k float32 numbers, a few hundred kB
        assert manifest.config_for(scheme) == lm.LMConfig(scheme=scheme) == results.config_for(scheme)  # the shipped comparison's models
        config, state = weights.read_state(scheme)
        assert config == lm.LMConfig(scheme=scheme)
        assert {k: v.shape for k, v in state.items()} == entry.tensors and all(v.dtype == np.float32 for v in state.values())
    for scheme, sha in DOCUMENTED.items():
        assert manifest.models[scheme].sha256 == sha


def test_the_files_metadata_say_what_made_them():
    from safetensors import safe_open

    with safe_open(str(weights.MODELS_DIR / weights.file_name("rope")), framework="numpy") as f:
        meta = f.metadata()
    assert meta["scheme"] == "rope" and meta["seed"] == "0" and meta["command"] == "python -m bench.lab_lm"
    assert json.loads(meta["config"]) == lm.LMConfig().fields()


def test_the_shipped_rope_model_fits_the_lab_model_and_gives_the_shipped_perplexity():
    from core.lab import trained

    config, model = trained.shipped("rope")
    ppl, note = trained.perplexity(model, config, lm.load_corpus().held, 64)
    assert note == "" and ppl == pytest.approx(lm.load_shipped().perplexity["rope"][64], rel=1e-6)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: (f / "austen_rope.safetensors").unlink(), r"The shipped model file austen_rope.safetensors is missing: restore it"),
        (
            lambda f: (f / "austen_rope.safetensors").write_bytes((f / "austen_rope.safetensors").read_bytes()[:-10]),
            r"austen_rope.safetensors is damaged or was changed",
        ),
        (lambda f: _flip_a_byte(f / "austen_rope.safetensors"), r"austen_rope.safetensors is damaged or was changed"),
        (lambda f: (f / "manifest.json").write_text("{half a manifest"), r"The list of shipped models \(manifest.json\) cannot be read"),
        (lambda f: (f / "manifest.json").unlink(), r"The list of shipped models .* is missing"),
        (lambda f: _garbage_with_its_hash(f), r"austen_rope.safetensors is not a readable safetensors file"),
    ],
)
def test_a_damaged_model_file_is_a_sentence(copy, damage, message):
    damage(copy)
    with pytest.raises(ValueError, match=message) as err:
        weights.read_state("rope", copy)
    assert "bench.lab_lm" in str(err.value)  # and says how to get a good file back


def test_an_unknown_scheme_names_the_shipped_ones(copy):
    with pytest.raises(ValueError, match="There is no shipped model for .kerple.: the shipped ones are none, sinusoidal"):
        weights.read_state("kerple", copy)


def _flip_a_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _garbage_with_its_hash(folder):
    """Bytes that are no safetensors file, with the manifest rewritten to match them."""
    garbage = b"\x08\x00\x00\x00\x00\x00\x00\x00{broken}" + bytes(100)
    (folder / "austen_rope.safetensors").write_bytes(garbage)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["models"]["rope"].update(sha256=hashlib.sha256(garbage).hexdigest(), bytes=len(garbage))
    (folder / "manifest.json").write_text(json.dumps(manifest))
