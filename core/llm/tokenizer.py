"""The language model's tokenizer, built from its GGUF file by the `tokenizers` package: GPT-2-style byte-level BPE from
the file's vocabulary and merges; "smollm" pre-tokenization splits every digit on its own before GPT-2's byte-level split
(as SmolLM2's tokenizer.json says); no BOS token is added. tests/core/llm checks the ids against the reference's."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_CHARS = 200_000  # longer text is refused with a sentence: far beyond any length the page runs

# the pre-tokenizers llama.cpp names, as the `tokenizers` package writes them; an unknown name is refused
_DIGIT_SPLIT = {"smollm": True, "gpt2": False, "default": False}


@dataclass(frozen=True, eq=False)
class Tokenizer:
    """Text to token ids and back. `pieces[i]` is token i as the text it stands for (a token
    that is part of a multi-byte character shows as the replacement character)."""

    backend: object  # a tokenizers.Tokenizer
    pieces: tuple[str, ...]

    @staticmethod
    def from_gguf(fields: dict) -> Tokenizer:
        from tokenizers import Tokenizer as Backend
        from tokenizers import decoders, models, pre_tokenizers

        def field(key: str):
            if key not in fields:
                raise ValueError(f"The model file lacks its {key} entry: its tokenizer cannot be built.")
            return fields[key].contents()

        kind, pre = field("tokenizer.ggml.model"), str(fields["tokenizer.ggml.pre"].contents()) if "tokenizer.ggml.pre" in fields else "default"
        if kind != "gpt2" or pre not in _DIGIT_SPLIT:
            raise ValueError(f"The model file's tokenizer ({kind!s:.20}, {pre:.20}) is not one this page can build: it reads GPT-2-style byte-level BPE only.")
        tokens, merges = list(field("tokenizer.ggml.tokens")), list(field("tokenizer.ggml.merges"))
        types = list(field("tokenizer.ggml.token_type")) if "tokenizer.ggml.token_type" in fields else [1] * len(tokens)
        vocab = {token: i for i, token in enumerate(tokens)}
        backend = Backend(models.BPE(vocab=vocab, merges=[tuple(m.split(" ", 1)) for m in merges], fuse_unk=False))
        byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        if _DIGIT_SPLIT[pre]:
            backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
        else:
            backend.pre_tokenizer = byte_level
        backend.decoder = decoders.ByteLevel()
        backend.add_special_tokens([token for token, kind in zip(tokens, types) if kind == 3])
        pieces = tuple(backend.decode([i], skip_special_tokens=False) for i in range(len(tokens)))
        return Tokenizer(backend, pieces)

    def encode(self, text: str) -> np.ndarray:
        """The ids of `text` (no BOS added), int64 (T,). ValueError with a sentence for text that is
        not a string or longer than MAX_CHARS characters."""
        if not isinstance(text, str):
            raise ValueError("The text must be a string.")
        if len(text) > MAX_CHARS:
            raise ValueError(f"The text has {len(text):,} characters; the model reads at most {MAX_CHARS:,} at a time.")
        return np.asarray(self.backend.encode(text, add_special_tokens=False).ids, dtype=np.int64)

    def decode(self, ids) -> str:
        """The text of `ids` (special tokens kept as written)."""
        return self.backend.decode([int(i) for i in ids], skip_special_tokens=False)
