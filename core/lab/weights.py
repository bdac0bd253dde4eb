"""The six shipped Austen models (core.lab.lm), torch-free: safetensors files in `data/lab_models/` with a manifest of
hashes and shapes, written by `python -m bench.lab_lm`. Reading checks the manifest, the file, its SHA-256, that
safetensors parses it and its tensors' names and shapes; each failure is a ValueError saying how to get a good file back."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.lab import lm
from core.schemes.checks import quoted

MODELS_DIR = lm.DATA / "lab_models"
MANIFEST_NAME = "manifest.json"
MAX_FILE_BYTES = 8 * 2**20  # a shipped model is ~440 kB; anything far bigger is not one of them
REMEDY = "restore it from the repository, or run python -m bench.lab_lm to train and write the models again"
SEEDS = (0, 1, 2)  # the training seeds shipped: the experiments on trained models are measured on each, so seed noise shows


def directory(seed: int) -> Path:
    """Where the models of training seed `seed` are: data/lab_models for seed 0, data/lab_models/seed<k> for the others."""
    return MODELS_DIR if seed == 0 else MODELS_DIR / f"seed{seed}"


def file_name(scheme: str) -> str:
    return f"austen_{scheme}.safetensors"


@dataclass(frozen=True)
class ModelFile:
    """One shipped model as the manifest records it: its file, SHA-256, size in bytes and
    tensors {name: shape}."""

    scheme: str
    file: str
    sha256: str
    bytes: int
    tensors: dict[str, tuple[int, ...]]

    @property
    def parameters(self) -> int:
        return int(sum(np.prod(shape, dtype=np.int64) for shape in self.tensors.values()))


@dataclass(frozen=True)
class Manifest:
    """What `python -m bench.lab_lm` wrote: the command, the shared configuration (LMConfig
    fields but the scheme) and one ModelFile per scheme."""

    command: str
    config: dict[str, object]
    models: dict[str, ModelFile]

    def config_for(self, scheme: str) -> lm.LMConfig:
        return lm.config_from(self.config, scheme)


def write(states: dict[str, dict[str, np.ndarray]], config: lm.LMConfig, command: str, directory: Path | None = None) -> Manifest:
    """Write one file per scheme and the manifest into `directory` (default data/lab_models)."""
    from safetensors.numpy import save

    out = Path(directory) if directory else MODELS_DIR
    out.mkdir(parents=True, exist_ok=True)
    models = {}
    for scheme, state in states.items():
        meta = {"scheme": scheme, "config": json.dumps(config.fields(), sort_keys=True), "seed": str(config.seed), "command": command}
        data = save({name: np.ascontiguousarray(state[name], dtype=np.float32) for name in sorted(state)}, metadata=meta)  # float32, sorted by name
        (out / file_name(scheme)).write_bytes(data)
        models[scheme] = ModelFile(
            scheme, file_name(scheme), hashlib.sha256(data).hexdigest(), len(data), {k: tuple(int(n) for n in v.shape) for k, v in sorted(state.items())}
        )
    manifest = {
        "command": command,
        "config": config.fields(),
        "models": {
            s: {"file": m.file, "sha256": m.sha256, "bytes": m.bytes, "parameters": m.parameters, "tensors": {k: list(v) for k, v in m.tensors.items()}}
            for s, m in models.items()
        },
    }
    (out / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n")
    return Manifest(command, config.fields(), models)


def load_manifest(directory: Path | None = None) -> Manifest:
    """The manifest of the shipped models, or ValueError with a sentence."""
    path = (Path(directory) if directory else MODELS_DIR) / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        models = {
            s: ModelFile(s, str(m["file"]), str(m["sha256"]), int(m["bytes"]), {k: tuple(int(n) for n in v) for k, v in m["tensors"].items()})
            for s, m in data["models"].items()
        }
        manifest = Manifest(str(data["command"]), dict(data["config"]), models)
        for scheme in models:
            manifest.config_for(scheme)  # a valid configuration for every scheme
    except FileNotFoundError:
        raise ValueError(f"The list of shipped models ({MANIFEST_NAME} in data/lab_models) is missing: {REMEDY}.") from None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as err:
        raise ValueError(f"The list of shipped models ({MANIFEST_NAME}) cannot be read ({type(err).__name__}): {REMEDY}.") from None
    return manifest


def read_state(scheme: str, directory: Path | None = None) -> tuple[lm.LMConfig, dict[str, np.ndarray]]:
    """The shipped model of `scheme`: its configuration and its weights by name (float32 arrays),
    checked against the manifest; a missing, damaged or altered file raises ValueError with a
    sentence saying which file and what to do."""
    folder = Path(directory) if directory else MODELS_DIR
    manifest = load_manifest(folder)
    if scheme not in manifest.models:
        raise ValueError(f"There is no shipped model for {quoted(scheme)}: the shipped ones are {', '.join(manifest.models)}.")
    entry = manifest.models[scheme]
    path = folder / Path(entry.file).name  # a name only: the manifest cannot point outside the folder
    try:
        stat = path.stat()
    except OSError:
        raise ValueError(f"The shipped model file {path.name} is missing: {REMEDY}.") from None
    return manifest.config_for(scheme), _read(str(path), stat.st_mtime_ns, stat.st_size, entry.sha256, entry.bytes, tuple(entry.tensors.items()))


@functools.lru_cache(maxsize=8)
def _read(path: str, mtime_ns: int, size: int, sha256: str, nbytes: int, tensors: tuple[tuple[str, tuple[int, ...]], ...]) -> dict[str, np.ndarray]:
    """The checked weights of one file version (cached: 8 models of ~440 kB at most)."""
    name = Path(path).name
    if size > MAX_FILE_BYTES:
        raise ValueError(f"The shipped model file {name} holds {size:,} bytes, far more than a lab model: it is not the shipped file; {REMEDY}.")
    data = Path(path).read_bytes()
    if len(data) != nbytes or hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(
            f"The shipped model file {name} is damaged or was changed: its bytes ({len(data):,}) do not match the SHA-256 the manifest records; {REMEDY}."
        )
    from safetensors.numpy import load

    try:
        state = load(data)
    except Exception as err:  # the library's own error types vary by version; any refusal is a damaged file  # noqa: BLE001
        raise ValueError(f"The shipped model file {name} is not a readable safetensors file ({type(err).__name__}); {REMEDY}.") from None
    shapes = {k: tuple(v.shape) for k, v in state.items()}
    if shapes != dict(tensors) or any(v.dtype != np.float32 for v in state.values()):
        raise ValueError(f"The shipped model file {name} does not hold the tensors the manifest lists (names, shapes, float32); {REMEDY}.")
    for value in state.values():
        value.setflags(write=False)  # shared by every experiment of the process
    return state
