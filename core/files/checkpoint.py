r"""Reading position tables out of checkpoint files safely: safetensors, .npy and .npz only.

Nothing here ever unpickles. A pickle (PyTorch's `.pt`/`.pth`/`.bin`/`.ckpt`, `.pkl`) can run
arbitrary code while it loads, so such files are refused by name and, when renamed, by
content; `.npy`/`.npz` are read with `allow_pickle=False` and object arrays are refused.

The safetensors format (https://github.com/huggingface/safetensors, "Format") is parsed here
with numpy, so every byte range can be checked before it is read:

    [8 bytes: N, unsigned little-endian]  [N bytes: JSON header]  [data buffer]

The header maps each tensor name to `{"dtype": "F32", "shape": [512, 384],
"data_offsets": [begin, end]}`, offsets relative to the start of the buffer, plus an optional
`"__metadata__"` of strings. A tensor's bytes are buffer[begin:end], row-major, little-endian,
and end - begin must equal prod(shape) * itemsize. bfloat16 ("BF16") has no numpy dtype: it
is the top half of a float32, so x_f32 = uint32(x_bf16) << 16.

Every reader takes the file as bytes plus its name (an upload is both), raises ValueError
with a sentence a user understands, and returns numpy: `list_tensors` -> TensorInfo per
tensor (no data read), `load_tensor` -> one validated 2-D table as float64 (L, d).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np

SAFE_SUFFIXES = (".safetensors", ".npy", ".npz")
PICKLE_SUFFIXES = (".pt", ".pth", ".bin", ".pkl", ".pickle", ".ckpt")
HEADER_LIMIT = 16 * 2**20  # bytes of safetensors JSON header; a 512 x 384 model's is ~11 kB
MAX_ELEMENTS = 4_194_304  # numbers in one table we agree to load (32 MB as float64): 4096 x 1024
MAX_MEMBER_BYTES = 8 * MAX_ELEMENTS + 65_536  # declared unpacked size of one .npz member: float64 data + header (a zip-bomb guard)

# safetensors dtype name -> (numpy dtype to read the raw bytes as, bytes per element)
SAFETENSORS_DTYPES: dict[str, str] = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "BF16": "<u2",  # converted by hand, see _bf16_to_f32
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U64": "<u8",
    "U32": "<u4",
    "U16": "<u2",
    "U8": "u1",
}
UNSUPPORTED_DTYPES = ("BOOL", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4", "E8M0", "C64", "C128")

WHY_NO_PICKLE = (
    "Unpickling can run arbitrary code hidden in the file, so this app never opens pickles. "
    "Export the table instead, for example "
    '`safetensors.torch.save_file({"pos": model.embeddings.position_embeddings.weight.contiguous()}, "pos.safetensors")` '
    'or `np.save("pos.npy", weight.detach().cpu().numpy())`, and upload that.'
)


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
        """'embeddings.position_embeddings.weight (512 × 384, F32)'."""
        dims = " × ".join(str(n) for n in self.shape) or "scalar"
        return f"{self.name} ({dims}, {self.dtype})"


# --- format detection ------------------------------------------------------------------


def _suffix(filename: str) -> str:
    return PurePath(filename).suffix.lower()


def sniff(data: bytes) -> str:
    """What the bytes look like, from their first bytes: "npy", "zip", "pickle", "png",
    "jpeg", "gzip", "pdf", "safetensors", "empty" or "unknown"."""
    if not data:
        return "empty"
    if data.startswith(b"\x93NUMPY"):
        return "npy"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5:
        return "pickle"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(b"\x1f\x8b"):
        return "gzip"
    if data.startswith(b"%PDF"):
        return "pdf"
    if len(data) >= 9 and int.from_bytes(data[:8], "little") <= min(len(data) - 8, HEADER_LIMIT) and data[8:9] == b"{":
        return "safetensors"
    return "unknown"


_LOOKS_LIKE = {
    "npy": "a NumPy .npy array",
    "zip": "a zip archive",
    "pickle": "a Python pickle (what torch.save writes)",
    "png": "a PNG image",
    "jpeg": "a JPEG image",
    "gzip": "a gzip archive",
    "pdf": "a PDF document",
    "safetensors": "a safetensors file",
}
_SUFFIX_OF = {"npy": ".npy", "zip": ".npz", "safetensors": ".safetensors"}


def _torch_zip(data: bytes) -> bool:
    """torch.save (PyTorch 1.6+) writes a zip whose members include .../data.pkl."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name.endswith("data.pkl") for name in archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def detect_format(data: bytes, filename: str) -> str:
    """ "safetensors", "npy" or "npz" when the name and the content agree; otherwise a
    ValueError that says what the file is and what to upload instead."""
    suffix = _suffix(filename)
    if suffix in PICKLE_SUFFIXES:
        raise ValueError(f"`{filename}` is a {suffix} file: PyTorch and pickle checkpoints are pickles. {WHY_NO_PICKLE}")
    if suffix not in SAFE_SUFFIXES:
        shown = suffix or "no extension"
        raise ValueError(f"`{filename}` has {shown}; upload a .safetensors, .npy or .npz file. {WHY_NO_PICKLE}")
    if not data:
        raise ValueError(f"`{filename}` is empty (0 bytes): there is no table in it.")
    kind = sniff(data)
    if kind == "pickle" or (kind == "zip" and _torch_zip(data)):
        raise ValueError(f"`{filename}` is named {suffix} but its content is a pickle (a PyTorch checkpoint, renamed). {WHY_NO_PICKLE}")
    expected = {".safetensors": "safetensors", ".npy": "npy", ".npz": "zip"}[suffix]
    if kind == expected:
        return suffix[1:]
    if kind in _SUFFIX_OF:
        raise ValueError(f"`{filename}` is named {suffix} but its content is {_LOOKS_LIKE[kind]}: rename it to {_SUFFIX_OF[kind]} and upload it again.")
    if kind in _LOOKS_LIKE:
        raise ValueError(f"`{filename}` is named {suffix} but its content is {_LOOKS_LIKE[kind]}, not a table of numbers.")
    if suffix == ".safetensors":
        return "safetensors"  # let the parser say precisely what is wrong with the header
    start = "the bytes \\x93NUMPY" if suffix == ".npy" else "a zip signature, PK"
    raise ValueError(f"`{filename}` is named {suffix} but does not start like one (a {suffix} file starts with {start}): it is damaged or not a {suffix} file.")


# --- safetensors -----------------------------------------------------------------------


def _safetensors_header(data: bytes, filename: str) -> tuple[dict[str, dict], int]:
    """The parsed header (tensor entries only) and where the data buffer starts; every
    entry is checked against the buffer's bounds before anything is read."""
    if len(data) < 8:
        raise ValueError(f"`{filename}` is {len(data)} bytes long: too short for a safetensors file (it starts with an 8-byte header length). It is truncated.")
    n = int.from_bytes(data[:8], "little")
    if n == 0:
        raise ValueError(f"`{filename}` declares an empty safetensors header: it is damaged.")
    if n > HEADER_LIMIT:
        raise ValueError(
            f"`{filename}` declares a safetensors header of {n:,} bytes, more than the {HEADER_LIMIT:,} this app reads: it is damaged or not a "
            "safetensors file."
        )
    if 8 + n > len(data):
        raise ValueError(f"`{filename}` is truncated: its header should be {n:,} bytes but only {len(data) - 8:,} bytes follow the length.")
    try:
        header = json.loads(data[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(
            f"`{filename}` has a safetensors header that is not valid JSON ({err.__class__.__name__}): it is damaged or not a safetensors file."
        ) from None
    if not isinstance(header, dict):
        raise ValueError(f"`{filename}` has a safetensors header that is not a JSON object: it is damaged.")
    start, size = 8 + n, len(data) - 8 - n
    tensors: dict[str, dict] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(entry, dict) or not {"dtype", "shape", "data_offsets"} <= entry.keys():
            raise ValueError(f"`{filename}`: the header entry for `{name}` lacks dtype, shape or data_offsets: it is damaged.")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if not isinstance(dtype, str) or not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
            raise ValueError(f"`{filename}`: tensor `{name}` has a malformed dtype or shape in the header.")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets) or not 0 <= offsets[0] <= offsets[1]:
            raise ValueError(f"`{filename}`: tensor `{name}` has malformed data_offsets {offsets!r}.")
        if offsets[1] > size:
            raise ValueError(
                f"`{filename}` is truncated: tensor `{name}` needs bytes {offsets[0]:,} to {offsets[1]:,} of the data, but the file holds only {size:,}."
            )
        if dtype in SAFETENSORS_DTYPES:
            expected = int(np.prod(shape, dtype=object)) * np.dtype(SAFETENSORS_DTYPES[dtype]).itemsize
            if offsets[1] - offsets[0] != expected:
                raise ValueError(
                    f"`{filename}`: tensor `{name}` ({dtype}, shape {shape}) should take {expected:,} bytes but its offsets span "
                    f"{offsets[1] - offsets[0]:,}: the file is damaged."
                )
        tensors[name] = {"dtype": dtype, "shape": tuple(shape), "offsets": (offsets[0], offsets[1])}
    spans = sorted(t["offsets"] for t in tensors.values() if t["offsets"][1] > t["offsets"][0])
    for (_, end), (begin, _) in zip(spans, spans[1:]):
        if begin < end:
            raise ValueError(f"`{filename}`: two tensors' data overlap in the file: it is damaged.")
    return tensors, start


def _bf16_to_f32(raw: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) -> float32: a bfloat16 is the upper 16 bits of a float32."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _safetensors_read(data: bytes, filename: str, name: str) -> np.ndarray:
    tensors, start = _safetensors_header(data, filename)
    entry = tensors[name]
    _check_dtype(entry["dtype"], name, filename)
    _check_size(entry["shape"], name)
    begin, end = entry["offsets"]
    raw = np.frombuffer(data, dtype=SAFETENSORS_DTYPES[entry["dtype"]], count=int(np.prod(entry["shape"], dtype=np.int64)), offset=start + begin)
    if entry["dtype"] == "BF16":
        raw = _bf16_to_f32(raw)
    return raw.reshape(entry["shape"])


# --- npy / npz -------------------------------------------------------------------------


def _npy_header(stream: io.IOBase, filename: str, member: str = "") -> tuple[tuple[int, ...], np.dtype, bool]:
    """Shape, dtype and Fortran order from an .npy header, without reading the data."""
    where = f"`{filename}`" + (f" (member `{member}`)" if member else "")
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f".npy format version {version[0]}.{version[1]} is not supported, only 1.0 and 2.0")
    except (ValueError, EOFError, OSError, SyntaxError, TypeError) as err:
        raise ValueError(f"{where} has a damaged .npy header ({str(err)[:120]}).") from None
    return tuple(int(s) for s in shape), dtype, bool(fortran)


def _npy_check_dtype(dtype: np.dtype, filename: str, name: str) -> None:
    if dtype.hasobject:
        raise ValueError(f"`{filename}`: array `{name}` has object dtype, which can only be loaded by unpickling. {WHY_NO_PICKLE}")
    if dtype.names is not None or dtype.kind not in "fiu":
        raise ValueError(f"`{filename}`: array `{name}` has dtype {dtype}, not numbers; a position table is float (or integer).")


def _npy_read(stream: io.IOBase, nbytes: int, filename: str, name: str, member: str = "") -> np.ndarray:
    """Read one .npy (header then data) from `stream`, which holds `nbytes` bytes."""
    shape, dtype, _ = _npy_header(stream, filename, member)
    _npy_check_dtype(dtype, filename, name)
    _check_size(shape, name)
    needed = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes - stream.tell() < needed:
        raise ValueError(f"`{filename}` is truncated: array `{name}` needs {needed:,} bytes of data but only {nbytes - stream.tell():,} follow its header.")
    stream.seek(0)
    try:
        return np.lib.format.read_array(stream, allow_pickle=False)
    except (ValueError, EOFError, OSError) as err:
        raise ValueError(f"`{filename}`: array `{name}` could not be read ({str(err)[:120]}).") from None


def _npy_name(filename: str) -> str:
    return PurePath(filename).stem or "array"


def _npz_members(data: bytes, filename: str) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise ValueError(f"`{filename}` is not a readable .npz (zip) archive ({str(err)[:120]}): it is truncated or damaged.") from None
    for info in infos:
        if info.is_dir():
            continue
        if not info.filename.endswith(".npy"):
            raise ValueError(f"`{filename}` contains `{info.filename}`, which is not an .npy array: an .npz holds only arrays (np.savez).")
        if info.file_size > MAX_MEMBER_BYTES:
            raise ValueError(f"`{filename}`: member `{info.filename}` unpacks to {info.file_size:,} bytes, more than the {MAX_MEMBER_BYTES:,} this app reads.")
    return archive


def _npz_open(archive: zipfile.ZipFile, member: str, filename: str) -> io.BytesIO:
    try:
        return io.BytesIO(archive.read(member))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zipfile.LargeZipFile) as err:
        raise ValueError(f"`{filename}`: member `{member}` could not be unpacked ({str(err)[:120]}): the file is truncated or damaged.") from None


# --- shared checks ---------------------------------------------------------------------


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
        raise ValueError(f"`{filename}`: tensor `{name}` has dtype {dtype} ({kind}); convert it to float32, float16 or bfloat16 before exporting.")


def _check_size(shape: tuple[int, ...], name: str) -> None:
    count = int(np.prod(shape, dtype=object)) if shape else 1
    if count > MAX_ELEMENTS:
        raise ValueError(
            f"Tensor `{name}` has {count:,} numbers, more than the {MAX_ELEMENTS:,} (e.g. 4096 × 1024) this app analyses; export just the position table."
        )


def validate_table(values: np.ndarray, name: str = "the table") -> np.ndarray:
    """A 2-D, non-empty, finite numeric table as float64 (L, d), or a ValueError saying why not."""
    values = np.asarray(values)
    if values.ndim != 2:
        shape = " × ".join(str(n) for n in values.shape) or "a single number"
        raise ValueError(f"`{name}` has {values.ndim} dimension(s) ({shape}); a position table has 2: positions × width.")
    if values.size == 0:
        raise ValueError(f"`{name}` is empty ({values.shape[0]} × {values.shape[1]}).")
    if values.dtype.kind not in "fiu":
        raise ValueError(f"`{name}` has dtype {values.dtype}, not numbers.")
    with np.errstate(invalid="ignore", over="ignore"):  # out-of-range values become inf, counted below
        table = values.astype(np.float64)
    bad = ~np.isfinite(table)
    if bad.any():
        n_nan, n_inf = int(np.isnan(table).sum()), int(np.isinf(table).sum())
        raise ValueError(
            f"`{name}` holds {n_nan:,} NaN and {n_inf:,} infinite value(s) out of {table.size:,}; a trained position table has none. Fix or drop "
            "them before uploading."
        )
    return table


# --- the public readers ----------------------------------------------------------------


def list_tensors(data: bytes, filename: str) -> list[TensorInfo]:
    """Every tensor in the file with its shape and dtype, read from the headers only.
    Raises ValueError for pickles, wrong or mislabelled formats, truncation and damage."""
    fmt = detect_format(data, filename)
    if fmt == "safetensors":
        tensors, _ = _safetensors_header(data, filename)
        return [TensorInfo(name, t["shape"], t["dtype"]) for name, t in tensors.items()]
    if fmt == "npy":
        shape, dtype, _ = _npy_header(io.BytesIO(data), filename)
        return [TensorInfo(_npy_name(filename), shape, str(dtype) if not dtype.hasobject else "object")]
    with _npz_members(data, filename) as archive:
        infos = []
        for member in archive.namelist():
            if member.endswith("/"):
                continue
            with archive.open(member) as stream:
                shape, dtype, _ = _npy_header(stream, filename, member)
            infos.append(TensorInfo(member[: -len(".npy")], shape, str(dtype) if not dtype.hasobject else "object"))
        if not infos:
            raise ValueError(f"`{filename}` is an empty .npz archive: there is no table in it.")
        return infos


def table_candidates(infos: list[TensorInfo]) -> list[TensorInfo]:
    """The 2-D tensors, those whose name contains "position" first (then by name order
    in the file); these are what a user can pick as a position table."""
    tables = [t for t in infos if t.is_table]
    return sorted(tables, key=lambda t: "position" not in t.name.lower())


def load_tensor(data: bytes, filename: str, name: str) -> np.ndarray:
    """One tensor of the file, validated as a position table: 2-D, numeric, finite.
    Returns (L, d) float64 (rows as stored: one row per position for an nn.Embedding weight)."""
    fmt = detect_format(data, filename)
    if fmt == "safetensors":
        tensors, _ = _safetensors_header(data, filename)
        if name not in tensors:
            raise ValueError(f"`{filename}` has no tensor named `{name}`.")
        values = _safetensors_read(data, filename, name)
    elif fmt == "npy":
        if name != _npy_name(filename):
            raise ValueError(f"`{filename}` holds one array, `{_npy_name(filename)}`, not `{name}`.")
        values = _npy_read(io.BytesIO(data), len(data), filename, name)
    else:
        with _npz_members(data, filename) as archive:
            member = f"{name}.npy"
            if member not in archive.namelist():
                raise ValueError(f"`{filename}` has no array named `{name}`.")
            stream = _npz_open(archive, member, filename)
            values = _npy_read(stream, len(stream.getbuffer()), filename, name, member)
    return validate_table(values, name)
