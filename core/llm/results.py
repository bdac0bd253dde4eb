"""Where the language model's shipped results are (`data/llm_<name>_results.json`, and the attention maps in
`data/llm_attention_results.npz` under "<preset>|<mode>"), each written and checked by `python -m bench.llm <name>`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "data"


def path(name: str) -> Path:
    """The shipped results of the record `name` (core.llm.registry names the four)."""
    return DATA / f"llm_{name}_results.json"


MAPS_PATH = DATA / "llm_attention_results.npz"


def map_key(preset: str, mode: str) -> str:
    return f"{preset}|{mode}"


@lru_cache(maxsize=2)
def _maps(file: str, mtime_ns: int) -> dict[str, np.ndarray]:
    try:
        with np.load(file, allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}
    except (OSError, ValueError):
        raise ValueError("The shipped attention maps are missing or damaged: regenerate them with python -m bench.llm attention.") from None


def attention_maps(preset: str, mode: str) -> np.ndarray:
    """The shipped attention weights (30, 9, T, T) float32 of a preset text in a mode."""
    try:
        mtime = MAPS_PATH.stat().st_mtime_ns
    except OSError:
        raise ValueError("The shipped attention maps are missing: regenerate them with python -m bench.llm attention.") from None
    maps = _maps(str(MAPS_PATH), mtime)
    key = map_key(preset, mode)
    if key not in maps:
        raise ValueError(f"No shipped attention maps for {preset!s:.40} ({mode!s:.20}).")
    return maps[key]
