r"""Reading position tables out of checkpoint files safely: safetensors, .npy and .npz only.

Nothing here ever unpickles. A pickle (PyTorch's `.pt`/`.pth`/`.bin`/`.ckpt`, `.pkl`) can run
arbitrary code while it loads, so such files are refused by name and, when renamed, by
content; `.npy`/`.npz` are read with numpy's own loader and `allow_pickle=False`, and object
arrays are refused before that.

The formats are parsed by the libraries that define them, which are kept up for exactly this
(files from strangers): safetensors by the `safetensors` package (`safe_open`; bfloat16 through
torch, `framework="pt"`, as numpy has no bfloat16), .npy/.npz by numpy (`np.lib.format` for the
headers, `np.load(..., allow_pickle=False)` for the data). What this module adds is budgets
checked before anything big is read (bytes of a header, numbers in a table, members of an
archive, bytes a member unpacks to) and sentences: when a library refuses a file, the file is
examined once more only to say in words what is wrong with it. The safetensors format
(https://github.com/huggingface/safetensors, "Format"), for those sentences:

    [8 bytes: N, unsigned little-endian]  [N bytes: JSON header]  [data buffer]

the header mapping each tensor name to `{"dtype": "F32", "shape": [512, 384],
"data_offsets": [begin, end]}` (offsets into the buffer; end - begin = prod(shape) * itemsize),
plus an optional `"__metadata__"`.

Whatever goes wrong, including inside a library (a JSON nesting bomb, an encrypted or oddly
compressed zip member, a member whose size lies), becomes a ValueError with a sentence a user
understands; names from the file are echoed inert (core.schemes.checks.quoted).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypeVar

import numpy as np

from core.schemes.checks import inert, quoted

SAFE_SUFFIXES = (".safetensors", ".npy", ".npz")
PICKLE_SUFFIXES = (".pt", ".pth", ".bin", ".pkl", ".pickle", ".ckpt")
HEADER_LIMIT = 16 * 2**20  # bytes of safetensors JSON header; a 512 x 384 model's is ~11 kB
MAX_ELEMENTS = 4_194_304  # numbers in one table we agree to load (32 MB as float64): 4096 x 1024
MAX_MEMBER_BYTES = 8 * MAX_ELEMENTS + 65_536  # declared unpacked size of one .npz member: float64 data + header (a zip-bomb guard)
MAX_TENSORS = 4096  # tensors (safetensors) or members (.npz) listed from one file: a whole BERT has ~200, an LLM shard ~300
NPZ_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}  # what np.savez and np.savez_compressed write

# safetensors dtype name -> numpy dtype (bytes per element), for the sizes in messages; BF16 is read through torch
SAFETENSORS_DTYPES: dict[str, str] = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "BF16": "<u2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U64": "<u8",
    "U32": "<u4",
    "U16": "<u2",
    "U8": "u1",
}

WHY_NO_PICKLE = (
    "Unpickling can run arbitrary code hidden in the file, so this app never opens pickles. "
    "Export the table instead, for example "
    '`safetensors.torch.save_file({"pos": model.embeddings.position_embeddings.weight.contiguous()}, "pos.safetensors")` '
    'or `np.save("pos.npy", weight.detach().cpu().numpy())`, and upload that.'
)


class Refusal(ValueError):
    """A file this module refuses, with the sentence that says why. Anything else raised while a
    file is read (by a library, on a file no one foresaw) is turned into one (`_in_words`)."""


def dims_text(shape: Sequence[int], most: int = 6) -> str:
    """A shape in words, the app's own: '512 × 384', 'scalar'; past `most` dimensions, the first ones and how many
    more (a header may list thousands)."""
    dims = " × ".join(f"{n:,}" for n in shape[:most]) or "scalar"
    return dims + (f" × … ({len(shape):,} dimensions)" if len(shape) > most else "")


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of a file as its header describes it (nothing read yet)."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # as the file spells it: "F32", "BF16" (safetensors) or "float32", "int64" (numpy)

    @property
    def is_table(self) -> bool:
        """A 2-D tensor with at least one row and one column: a candidate position table."""
        return len(self.shape) == 2 and min(self.shape) > 0

    @property
    def label(self) -> str:
        """'embeddings.position_embeddings.weight (512 × 384, F32)', the name cut at 120 characters."""
        dims = " × ".join(str(n) for n in self.shape) or "scalar"
        name = self.name if len(self.name) <= 120 else self.name[:120] + "…"
        return f"{name} ({dims}, {self.dtype})"

    def described(self, limit: int = 60) -> str:
        """The label for a sentence rendered as Markdown: the name from the file quoted (`quoted`,
        at most `limit` characters), the app's own words about it as they are, the dtype (also the
        file's) made inert: '`pos` (512 × 384, F32)'."""
        return f"{quoted(self.name, limit)} ({dims_text(self.shape)}, {inert(self.dtype[:20])})"


T = TypeVar("T")


def _in_words(filename: str, read: Callable[[], T]) -> T:
    """read(), with every failure as a sentence: a Refusal passes as it is; anything else (a
    library's ValueError, RuntimeError, NotImplementedError, zipfile.BadZipFile, a
    RecursionError from a nesting bomb, MemoryError) becomes one naming what happened."""
    try:
        return read()
    except Refusal:
        raise
    except Exception as err:  # noqa: BLE001  the boundary: a file from a stranger must never raise anything else
        what = inert(f"{type(err).__name__}: {err}"[:120])
        raise Refusal(f"{quoted(filename)} could not be read ({what}): it is damaged, or uses a feature of its format this app does not read.") from None


# --- format detection ------------------------------------------------------------------


# What a file's first bytes make it, and that in words (a pickle and safetensors are told apart in `sniff`)
_SIGNATURES = (
    ("npy", (b"\x93NUMPY",), "a NumPy .npy array"),
    ("zip", (b"PK\x03\x04", b"PK\x05\x06"), "a zip archive"),
    ("png", (b"\x89PNG\r\n\x1a\n",), "a PNG image"),
    ("jpeg", (b"\xff\xd8\xff",), "a JPEG image"),
    ("gzip", (b"\x1f\x8b",), "a gzip archive"),
    ("pdf", (b"%PDF",), "a PDF document"),
)
_LOOKS_LIKE = {kind: words for kind, _, words in _SIGNATURES} | {"safetensors": "a safetensors file"}


def sniff(data: bytes) -> str:
    """What the bytes look like, from their first bytes: a kind of `_SIGNATURES`, "pickle",
    "safetensors", "empty" or "unknown"."""
    if not data:
        return "empty"
    for kind, starts, _ in _SIGNATURES:
        if data.startswith(starts):
            return kind
    if len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5:
        return "pickle"
    if len(data) >= 9 and int.from_bytes(data[:8], "little") <= min(len(data) - 8, HEADER_LIMIT) and data[8:9] == b"{":
        return "safetensors"
    return "unknown"


_SUFFIX_OF = {"npy": ".npy", "zip": ".npz", "safetensors": ".safetensors"}


def _torch_zip(data: bytes) -> bool:
    """torch.save (PyTorch 1.6+) writes a zip whose members include .../data.pkl."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name.endswith("data.pkl") for name in archive.namelist())
    except Exception:  # noqa: BLE001  not a readable zip: not a torch checkpoint either
        return False


def detect_format(data: bytes, filename: str) -> str:
    """ "safetensors", "npy" or "npz" when the name and the content agree; otherwise a
    ValueError that says what the file is and what to upload instead."""
    suffix, name = PurePath(filename).suffix.lower(), quoted(filename)
    if suffix in PICKLE_SUFFIXES:
        raise Refusal(f"{name} is a {suffix} file: PyTorch and pickle checkpoints are pickles. {WHY_NO_PICKLE}")
    if suffix not in SAFE_SUFFIXES:
        shown = quoted(suffix, 12) if suffix else "no extension"
        raise Refusal(f"{name} has {shown}; upload a .safetensors, .npy or .npz file. {WHY_NO_PICKLE}")
    if not data:
        raise Refusal(f"{name} is empty (0 bytes): there is no table in it.")
    kind = sniff(data)
    if kind == "pickle" or (kind == "zip" and _torch_zip(data)):
        raise Refusal(f"{name} is named {suffix} but its content is a pickle (a PyTorch checkpoint, renamed). {WHY_NO_PICKLE}")
    expected = {".safetensors": "safetensors", ".npy": "npy", ".npz": "zip"}[suffix]
    if kind == expected:
        return suffix[1:]
    if kind in _SUFFIX_OF:
        raise Refusal(f"{name} is named {suffix} but its content is {_LOOKS_LIKE[kind]}: rename it to {_SUFFIX_OF[kind]} and upload it again.")
    if kind in _LOOKS_LIKE:
        raise Refusal(f"{name} is named {suffix} but its content is {_LOOKS_LIKE[kind]}, not a table of numbers.")
    if suffix == ".safetensors":
        return "safetensors"  # let the parser (and then the explanation) say precisely what is wrong with the header
    start = "the bytes \\x93NUMPY" if suffix == ".npy" else "a zip signature, PK"
    raise Refusal(f"{name} is named {suffix} but does not start like one (a {suffix} file starts with {start}): it is damaged or not a {suffix} file.")


# --- safetensors: the safetensors package reads, this module budgets and explains ---------


def _header_length(data: bytes, filename: str) -> int:
    """The declared header length, checked against the budget and the file (before any parse)."""
    name = quoted(filename)
    if len(data) < 8:
        raise Refusal(f"{name} is {len(data)} bytes long: too short for a safetensors file (it starts with an 8-byte header length). It is truncated.")
    n = int.from_bytes(data[:8], "little")
    if n == 0:
        raise Refusal(f"{name} declares an empty safetensors header: it is damaged.")
    if n > HEADER_LIMIT:
        raise Refusal(
            f"{name} declares a safetensors header of {n:,} bytes, more than the {HEADER_LIMIT:,} this app reads: it is damaged or not a safetensors file."
        )
    if 8 + n > len(data):
        raise Refusal(f"{name} is truncated: its header should be {n:,} bytes but only {len(data) - 8:,} bytes follow the length.")
    return n


def _explain_safetensors(data: bytes, filename: str, n: int, err: Exception) -> Refusal:
    """Why the safetensors library refused the file, in a sentence: the header examined once
    more, entry by entry, for the first thing that is wrong; the library's own words otherwise."""
    name = quoted(filename)
    try:
        header = json.loads(data[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as bad:
        why = "nested too deeply" if isinstance(bad, RecursionError) else type(bad).__name__
        return Refusal(f"{name} has a safetensors header that is not valid JSON ({why}): it is damaged or not a safetensors file.")
    if not isinstance(header, dict):
        return Refusal(f"{name} has a safetensors header that is not a JSON object: it is damaged.")
    size, spans = len(data) - 8 - n, []
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        tensor = quoted(key)
        if not isinstance(entry, dict) or not {"dtype", "shape", "data_offsets"} <= entry.keys():
            return Refusal(f"{name}: the header entry for {tensor} lacks dtype, shape or data_offsets: it is damaged.")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if not isinstance(dtype, str) or not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
            return Refusal(f"{name}: tensor {tensor} has a malformed dtype or shape in the header.")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets) or not 0 <= offsets[0] <= offsets[1]:
            return Refusal(f"{name}: tensor {tensor} has malformed data_offsets {inert(str(offsets)[:60])}.")
        if offsets[1] > size:
            return Refusal(
                f"{name} is truncated: tensor {tensor} needs bytes {offsets[0]:,} to {offsets[1]:,} of the data, but the file holds only {size:,}."
            )
        if dtype in SAFETENSORS_DTYPES:
            expected = int(np.prod(shape, dtype=object)) * np.dtype(SAFETENSORS_DTYPES[dtype]).itemsize
            if offsets[1] - offsets[0] != expected:
                return Refusal(
                    f"{name}: tensor {tensor} ({dtype}, shape {dims_text(shape)}) should take {expected:,} bytes but its offsets span "
                    f"{offsets[1] - offsets[0]:,}: the file is damaged."
                )
        if offsets[1] > offsets[0]:
            spans.append((offsets[0], offsets[1]))
    spans.sort()
    if any(begin < end for (_, end), (begin, _) in zip(spans, spans[1:])):
        return Refusal(f"{name}: two tensors' data overlap in the file: it is damaged.")
    if spans and spans[-1][1] < size or not spans and size:
        return Refusal(f"{name} has {size - (spans[-1][1] if spans else 0):,} bytes after its last tensor: it is damaged or not a safetensors file.")
    said = inert(str(err).removeprefix("Error while deserializing header: ")[:120])
    return Refusal(f"{name} is not a valid safetensors file (the safetensors library says: {said}).")


@contextmanager
def _safe_open(data: bytes, filename: str, framework: str = "numpy") -> Iterator:
    """The file opened by `safetensors.safe_open` (which reads from a path: the bytes go to a
    temporary file first, removed on exit). A refusal by the library becomes a sentence."""
    from safetensors import SafetensorError, safe_open

    n = _header_length(data, filename)
    fd, path = tempfile.mkstemp(suffix=".safetensors")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        try:
            handle = safe_open(path, framework=framework)
        except SafetensorError as err:
            raise _explain_safetensors(data, filename, n, err) from None
        with handle as opened:
            yield opened
    finally:
        os.unlink(path)


def _safetensors_infos(data: bytes, filename: str) -> list[TensorInfo]:
    with _safe_open(data, filename) as f:
        names = list(f.keys())
        _check_count(len(names), filename)
        return [TensorInfo(name, tuple(int(s) for s in f.get_slice(name).get_shape()), str(f.get_slice(name).get_dtype())) for name in names]


def _safetensors_read(data: bytes, filename: str, name: str) -> np.ndarray:
    infos = {t.name: t for t in _safetensors_infos(data, filename)}
    if name not in infos:
        raise Refusal(f"{quoted(filename)} has no tensor named {quoted(name)}.")
    info = infos[name]
    _check_dtype(info.dtype, name, filename)
    _check_size(info.shape, name)
    if info.dtype == "BF16":  # numpy has no bfloat16: torch reads it, and widens it exactly to float64
        with _safe_open(data, filename, framework="pt") as f:
            import torch

            return f.get_tensor(name).to(torch.float64).numpy()
    with _safe_open(data, filename) as f:
        return f.get_tensor(name)


# --- npy / npz: numpy reads, this module budgets ----------------------------------------


def _npy_header(stream: io.IOBase, filename: str, member: str = "") -> tuple[tuple[int, ...], np.dtype, bool]:
    """Shape, dtype and Fortran order from an .npy header (numpy's own header reader), without reading the data."""
    where = quoted(filename) + (f" (member {quoted(member)})" if member else "")
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f".npy format version {version[0]}.{version[1]} is not supported, only 1.0 and 2.0")
    except (ValueError, EOFError, OSError, SyntaxError, TypeError, RecursionError, MemoryError) as err:
        raise Refusal(f"{where} has a damaged .npy header ({inert(str(err)[:120])}).") from None
    return tuple(int(s) for s in shape), dtype, bool(fortran)


def _npy_budget(stream: io.IOBase, nbytes: int, filename: str, name: str, member: str = "") -> None:
    """The header of one .npy in `stream` (which holds `nbytes` bytes) within budget: numbers,
    not objects, at most MAX_ELEMENTS of them, and all their bytes present."""
    shape, dtype, _ = _npy_header(stream, filename, member)
    if dtype.hasobject:
        raise Refusal(f"{quoted(filename)}: array {quoted(name)} has object dtype, which can only be loaded by unpickling. {WHY_NO_PICKLE}")
    if dtype.names is not None or dtype.kind not in "fiu":
        raise Refusal(f"{quoted(filename)}: array {quoted(name)} has dtype {inert(str(dtype)[:40])}, not numbers; a position table is float (or integer).")
    _check_size(shape, name)
    needed = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes - stream.tell() < needed:
        raise Refusal(
            f"{quoted(filename)} is truncated: array {quoted(name)} needs {needed:,} bytes of data but only {nbytes - stream.tell():,} follow its header."
        )


def _npy_name(filename: str) -> str:
    return PurePath(filename).stem or "array"


def _npz_members(data: bytes, filename: str) -> zipfile.ZipFile:
    """The archive, its members checked against the budgets before any is unpacked: at most
    MAX_TENSORS, each an .npy, not encrypted, stored or deflated, declaring at most
    MAX_MEMBER_BYTES unpacked (a member that lies about its size fails its CRC while read)."""
    name = quoted(filename)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except Exception as err:  # noqa: BLE001  BadZipFile, OSError, ValueError, EOFError, NotImplementedError ...
        raise Refusal(f"{name} is not a readable .npz (zip) archive ({inert(str(err)[:120])}): it is truncated or damaged.") from None
    _check_count(len(infos), filename)
    for info in infos:
        if info.is_dir():
            continue
        member = quoted(info.filename)
        if not info.filename.endswith(".npy"):
            raise Refusal(f"{name} contains {member}, which is not an .npy array: an .npz holds only arrays (np.savez).")
        if info.flag_bits & 0x1:
            raise Refusal(f"{name}: member {member} is encrypted; np.savez never encrypts, so it cannot be read here.")
        if info.compress_type not in NPZ_METHODS:
            raise Refusal(
                f"{name}: member {member} uses zip compression method {info.compress_type}; an .npz is stored or deflated "
                "(np.savez, np.savez_compressed)."
            )
        if info.file_size > MAX_MEMBER_BYTES:
            raise Refusal(f"{name}: member {member} unpacks to {info.file_size:,} bytes, more than the {MAX_MEMBER_BYTES:,} this app reads.")
    return archive


def _npz_infos(data: bytes, filename: str) -> list[TensorInfo]:
    with _npz_members(data, filename) as archive:
        infos = []
        for member in archive.namelist():
            if member.endswith("/"):
                continue
            with archive.open(member) as stream:
                shape, dtype, _ = _npy_header(stream, filename, member)
            infos.append(TensorInfo(member[: -len(".npy")], shape, str(dtype) if not dtype.hasobject else "object"))
    if not infos:
        raise Refusal(f"{quoted(filename)} is an empty .npz archive: there is no table in it.")
    return infos


def _npz_read(data: bytes, filename: str, name: str) -> np.ndarray:
    with _npz_members(data, filename) as archive:
        member = f"{name}.npy"
        if member not in archive.namelist():
            raise Refusal(f"{quoted(filename)} has no array named {quoted(name)}.")
        with archive.open(member) as stream:
            _npy_budget(stream, archive.getinfo(member).file_size, filename, name, member)
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:  # numpy's loader, never a pickle
        return npz[name]


def _npy_read(data: bytes, filename: str, name: str) -> np.ndarray:
    if name != _npy_name(filename):
        raise Refusal(f"{quoted(filename)} holds one array, {quoted(_npy_name(filename))}, not {quoted(name)}.")
    _npy_budget(io.BytesIO(data), len(data), filename, name)
    return np.load(io.BytesIO(data), allow_pickle=False)  # numpy's loader, never a pickle


# --- shared checks ---------------------------------------------------------------------


def _check_count(count: int, filename: str) -> None:
    if count > MAX_TENSORS:
        raise Refusal(f"{quoted(filename)} holds {count:,} tensors, more than the {MAX_TENSORS:,} this app lists; export just the position table.")


def _check_dtype(dtype: str, name: str, filename: str) -> None:
    if dtype not in SAFETENSORS_DTYPES:
        kind = (
            "booleans"
            if dtype == "BOOL"
            else "an 8-bit or smaller float"
            if dtype.startswith(("F8", "F6", "F4", "E8"))
            else "complex numbers"
            if dtype.startswith("C")
            else "a type this app does not know"
        )
        raise Refusal(
            f"{quoted(filename)}: tensor {quoted(name)} has dtype {inert(dtype[:20])} ({kind}); convert it to float32, float16 or bfloat16 before exporting."
        )


def _check_size(shape: tuple[int, ...], name: str) -> None:
    count = int(np.prod(shape, dtype=object)) if shape else 1
    if count > MAX_ELEMENTS:
        raise Refusal(
            f"Tensor {quoted(name)} has {count:,} numbers, more than the {MAX_ELEMENTS:,} (e.g. 4096 × 1024) this app analyses; export just the position table."
        )


def validate_table(values: np.ndarray, name: str = "the table") -> np.ndarray:
    """A 2-D, non-empty, finite numeric table as float64 (L, d), or a ValueError saying why not."""
    values = np.asarray(values)
    shown = quoted(name)
    if values.ndim != 2:
        shape = " × ".join(str(n) for n in values.shape) or "a single number"
        raise Refusal(f"{shown} has {values.ndim} dimension(s) ({shape}); a position table has 2: positions × width.")
    if values.size == 0:
        raise Refusal(f"{shown} is empty ({values.shape[0]} × {values.shape[1]}).")
    if values.dtype.kind not in "fiu":
        raise Refusal(f"{shown} has dtype {inert(str(values.dtype))}, not numbers.")
    with np.errstate(invalid="ignore", over="ignore"):  # out-of-range values become inf, counted below
        table = values.astype(np.float64)
    bad = ~np.isfinite(table)
    if bad.any():
        n_nan, n_inf = int(np.isnan(table).sum()), int(np.isinf(table).sum())
        raise Refusal(
            f"{shown} holds {n_nan:,} NaN and {n_inf:,} infinite value(s) out of {table.size:,}; a trained position table has none. Fix or drop "
            "them before uploading."
        )
    return table


# --- the public readers ----------------------------------------------------------------


def list_tensors(data: bytes, filename: str) -> list[TensorInfo]:
    """Every tensor in the file with its shape and dtype, read from the headers only.
    Raises ValueError (a Refusal) for pickles, wrong or mislabelled formats, truncation, damage,
    and anything over budget."""

    def read() -> list[TensorInfo]:
        fmt = detect_format(data, filename)
        if fmt == "safetensors":
            return _safetensors_infos(data, filename)
        if fmt == "npy":
            shape, dtype, _ = _npy_header(io.BytesIO(data), filename)
            return [TensorInfo(_npy_name(filename), shape, str(dtype) if not dtype.hasobject else "object")]
        return _npz_infos(data, filename)

    return _in_words(filename, read)


def table_candidates(infos: list[TensorInfo]) -> list[TensorInfo]:
    """The 2-D tensors, those whose name contains "position" first (then by name order
    in the file); these are what a user can pick as a position table."""
    tables = [t for t in infos if t.is_table]
    return sorted(tables, key=lambda t: "position" not in t.name.lower())


def load_tensor(data: bytes, filename: str, name: str) -> np.ndarray:
    """One tensor of the file, validated as a position table: 2-D, numeric, finite.
    Returns (L, d) float64 (rows as stored: one row per position for an nn.Embedding weight)."""

    def read() -> np.ndarray:
        fmt = detect_format(data, filename)
        reader = {"safetensors": _safetensors_read, "npy": _npy_read, "npz": _npz_read}[fmt]
        return validate_table(reader(data, filename, name), name)

    return _in_words(filename, read)

