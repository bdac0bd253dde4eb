"""core.files.checkpoint: real safetensors files written by the `safetensors` library (numpy and
torch), .npy/.npz written by numpy, and every kind of bad file a user may upload: pickles
(named as such or renamed), truncated, empty, mislabelled, damaged headers, wrong shapes,
NaNs, object arrays. Good files must read back exactly; bad ones must raise ValueError with a
sentence that says what is wrong, never anything else."""

from __future__ import annotations

import io
import json
import pickle
import struct
import zipfile

import numpy as np
import pytest
import safetensors.numpy
import torch
from PIL import Image

from core.files import checkpoint as ck

RNG = np.random.default_rng(0)
POS = RNG.standard_normal((64, 16)).astype(np.float32)


def st_bytes(tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> bytes:
    """A real .safetensors file, written by the reference library."""
    return safetensors.numpy.save(tensors, metadata=metadata)


def npy_bytes(array: np.ndarray, **kwargs) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


def npz_bytes(compressed: bool = False, **arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def torch_save_bytes(obj, *, zip_format: bool = True) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer, _use_new_zipfile_serialization=zip_format)
    return buffer.getvalue()


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def raw_safetensors(header: dict, data: bytes = b"", *, length: int | None = None) -> bytes:
    """A safetensors file from a hand-written header (to build damaged ones)."""
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def refused(data: bytes, filename: str, *needles: str) -> str:
    """Both readers refuse the file with a ValueError whose text contains every needle."""
    with pytest.raises(ValueError) as listing:
        ck.list_tensors(data, filename)
    for needle in needles:
        assert needle.lower() in str(listing.value).lower(), str(listing.value)
    return str(listing.value)


# --- good files ------------------------------------------------------------------------


def test_safetensors_written_by_the_library_lists_and_reads_back_exactly():
    tensors = {
        "embeddings.word_embeddings.weight": RNG.standard_normal((30, 16)).astype(np.float32),
        "embeddings.position_ids": np.arange(64, dtype=np.int64)[None, :],
        "embeddings.position_embeddings.weight": POS,
        "embeddings.LayerNorm.bias": np.zeros(16, np.float32),
        "encoder.layer.0.attention.self.query.weight": RNG.standard_normal((16, 16)).astype(np.float16),
    }
    data = st_bytes(tensors, metadata={"format": "pt"})
    infos = {t.name: t for t in ck.list_tensors(data, "model.safetensors")}
    assert set(infos) == set(tensors)
    assert infos["embeddings.position_embeddings.weight"].shape == (64, 16)
    assert infos["embeddings.position_embeddings.weight"].dtype == "F32"
    assert infos["encoder.layer.0.attention.self.query.weight"].dtype == "F16"
    assert not infos["embeddings.LayerNorm.bias"].is_table
    for name, array in tensors.items():
        if array.ndim == 2:
            got = ck.load_tensor(data, "model.safetensors", name)
            assert got.dtype == np.float64 and got.shape == array.shape
            np.testing.assert_array_equal(got, array.astype(np.float64))


def test_candidates_are_the_2d_tensors_with_position_names_first():
    data = st_bytes(
        {
            "a.weight": np.ones((3, 4), np.float32),
            "bias": np.ones(4, np.float32),
            "cube": np.ones((2, 2, 2), np.float32),
            "pos_emb.position": np.ones((5, 4), np.float32),
            "z": np.ones((4, 4), np.float32),
        }
    )
    names = [t.name for t in ck.table_candidates(ck.list_tensors(data, "x.safetensors"))]
    assert names[0] == "pos_emb.position"
    assert set(names) == {"pos_emb.position", "a.weight", "z"}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64])
def test_every_numeric_safetensors_dtype_matches_the_reference_loader(dtype):
    values = (RNG.standard_normal((7, 5)) * 50).astype(dtype)
    data = st_bytes({"t": values})
    reference = safetensors.numpy.load(data)["t"]
    np.testing.assert_array_equal(ck.load_tensor(data, "t.safetensors", "t"), reference.astype(np.float64))


def test_bfloat16_is_converted_by_hand_exactly_as_torch_does():
    import safetensors.torch

    values = torch.randn(9, 6).to(torch.bfloat16)
    data = safetensors.torch.save({"pos": values})
    assert ck.list_tensors(data, "bf.safetensors")[0].dtype == "BF16"
    np.testing.assert_array_equal(ck.load_tensor(data, "bf.safetensors", "pos"), values.to(torch.float64).numpy())


def test_torch_export_recommended_in_the_message_is_readable():
    import safetensors.torch

    embedding = torch.nn.Embedding(32, 8)
    data = safetensors.torch.save({"pos": embedding.weight.detach().contiguous()})
    np.testing.assert_array_equal(ck.load_tensor(data, "pos.safetensors", "pos"), embedding.weight.detach().double().numpy())


@pytest.mark.parametrize("fortran", [False, True])
def test_npy_reads_back_exactly_in_either_memory_order(fortran):
    array = np.asfortranarray(POS) if fortran else POS
    data = npy_bytes(array)
    info = ck.list_tensors(data, "pos.npy")
    assert [(t.name, t.shape, t.dtype) for t in info] == [("pos", (64, 16), "float32")]
    np.testing.assert_array_equal(ck.load_tensor(data, "pos.npy", "pos"), POS)


@pytest.mark.parametrize("compressed", [False, True])
def test_npz_lists_every_array_and_reads_the_chosen_one(compressed):
    data = npz_bytes(compressed, word=np.ones((3, 4)), position_embeddings=POS, scale=np.float32(2.0))
    infos = ck.list_tensors(data, "model.npz")
    assert {t.name: t.shape for t in infos} == {"word": (3, 4), "position_embeddings": (64, 16), "scale": ()}
    assert ck.table_candidates(infos)[0].name == "position_embeddings"
    np.testing.assert_array_equal(ck.load_tensor(data, "model.npz", "position_embeddings"), POS)


def test_upper_case_suffix_is_accepted():
    np.testing.assert_array_equal(ck.load_tensor(npy_bytes(POS), "POS.NPY", "POS"), POS)


# --- pickles ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".pt", ".pth", ".bin", ".pkl", ".ckpt"])
def test_pickle_suffixes_are_refused_by_name_with_the_reason_and_an_alternative(suffix):
    data = torch_save_bytes({"pos": torch.zeros(4, 4)})
    message = refused(data, f"model{suffix}", "arbitrary code", "safetensors", "np.save")
    with pytest.raises(ValueError):
        ck.load_tensor(data, f"model{suffix}", "pos")
    assert "pickle" in message.lower()


@pytest.mark.parametrize("suffix", [".npy", ".npz", ".safetensors"])
@pytest.mark.parametrize("zip_format", [True, False])
def test_a_torch_checkpoint_renamed_is_recognised_as_a_pickle(suffix, zip_format):
    data = torch_save_bytes({"pos": torch.zeros(4, 4)}, zip_format=zip_format)
    refused(data, f"model{suffix}", "pickle", "arbitrary code")


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_a_plain_pickle_renamed_npy_is_refused(protocol):
    refused(pickle.dumps({"pos": [[1.0, 2.0]]}, protocol=protocol), "pos.npy", "pickle", "arbitrary code")


def test_object_arrays_are_refused_without_unpickling():
    objects = np.empty((2, 2), dtype=object)
    objects[:] = [[1, "a"], [None, 2.0]]
    data = npy_bytes(objects, allow_pickle=True)
    info = ck.list_tensors(data, "objects.npy")  # the header alone is safe to read
    assert info[0].dtype == "object"
    with pytest.raises(ValueError, match="object dtype.*unpickling"):
        ck.load_tensor(data, "objects.npy", "objects")
    npz = npz_bytes(table=objects)
    with pytest.raises(ValueError, match="object dtype"):
        ck.load_tensor(npz, "objects.npz", "table")


# --- damaged, truncated, empty, mislabelled --------------------------------------------


@pytest.mark.parametrize("suffix", [".safetensors", ".npy", ".npz"])
def test_empty_files_are_refused(suffix):
    refused(b"", f"empty{suffix}", "empty")


def test_truncated_safetensors_says_truncated_wherever_it_is_cut():
    data = st_bytes({"pos": POS})
    header_end = 8 + struct.unpack("<Q", data[:8])[0]
    for cut in (3, 8, 20, header_end - 1, header_end, header_end + 100, len(data) - 1):
        with pytest.raises(ValueError, match="truncated|too short"):
            ck.load_tensor(data[:cut], "cut.safetensors", "pos")


def test_truncated_npy_and_npz_are_refused():
    data = npy_bytes(POS)
    for cut in (10, 100, len(data) - 4):
        with pytest.raises(ValueError, match="truncated|damaged"):
            ck.load_tensor(data[:cut], "pos.npy", "pos")
    npz = npz_bytes(pos=POS)
    for cut in (10, len(npz) // 2, len(npz) - 10):
        with pytest.raises(ValueError, match="truncated|damaged|npz"):
            ck.load_tensor(npz[:cut], "pos.npz", "pos")


def test_png_renamed_npy_is_named_for_what_it_is():
    refused(png_bytes(), "pos.npy", "PNG image")
    refused(png_bytes(), "pos.safetensors", "PNG image")


def test_a_safe_format_with_the_wrong_suffix_says_how_to_rename_it():
    refused(st_bytes({"pos": POS}), "pos.npy", "safetensors file", "rename it to .safetensors")
    refused(npy_bytes(POS), "pos.npz", ".npy", "rename it to .npy")
    refused(npz_bytes(pos=POS), "pos.safetensors", "zip", "rename it to .npz")


@pytest.mark.parametrize("name", ["table.txt", "table.csv", "table", "weights.h5"])
def test_other_suffixes_are_refused(name):
    refused(npy_bytes(POS), name, ".safetensors, .npy or .npz")


def test_text_renamed_npy_is_refused():
    refused(b"1,2,3\n4,5,6\n", "pos.npy", "does not start like one")


def test_damaged_safetensors_headers_give_a_sentence_each():
    good = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    data = bytes(16)
    refused(raw_safetensors({"t": good}, data, length=2**40), "x.safetensors", "header", "more than")
    refused(b"\x05\x00\x00\x00\x00\x00\x00\x00{oops", "x.safetensors", "not valid json")
    refused(raw_safetensors([1, 2], data), "x.safetensors", "not a json object")
    refused(raw_safetensors({"t": {"dtype": "F32"}}, data), "x.safetensors", "lacks")
    refused(raw_safetensors({"t": dict(good, shape=[2, -2])}, data), "x.safetensors", "malformed")
    refused(raw_safetensors({"t": dict(good, data_offsets=[16, 0])}, data), "x.safetensors", "malformed data_offsets")
    refused(raw_safetensors({"t": dict(good, data_offsets=[0, 64])}, data), "x.safetensors", "truncated")
    refused(raw_safetensors({"t": dict(good, data_offsets=[0, 12])}, data), "x.safetensors", "should take 16")
    refused(raw_safetensors({"a": good, "b": dict(good, data_offsets=[8, 24])}, bytes(24)), "x.safetensors", "overlap")
    refused(raw_safetensors({"t": good}, data, length=0), "x.safetensors", "empty safetensors header")


def test_unsupported_dtypes_are_listed_but_not_loaded():
    data = raw_safetensors({"mask": {"dtype": "BOOL", "shape": [2, 2], "data_offsets": [0, 4]}}, bytes(4))
    assert ck.list_tensors(data, "m.safetensors")[0].dtype == "BOOL"
    with pytest.raises(ValueError, match="booleans"):
        ck.load_tensor(data, "m.safetensors", "mask")
    complex_npy = npy_bytes(np.ones((2, 2), np.complex64))
    with pytest.raises(ValueError, match="not numbers"):
        ck.load_tensor(complex_npy, "c.npy", "c")


def test_npz_with_a_member_that_is_not_an_array_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pos.npy", npy_bytes(POS))
        archive.writestr("notes.txt", "hello")
    refused(buffer.getvalue(), "mixed.npz", "notes.txt", "not an .npy")


def test_npz_member_that_unpacks_too_big_is_refused_before_reading():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.npy", bytes(ck.MAX_MEMBER_BYTES + 1))
    assert len(buffer.getvalue()) < 200_000
    refused(buffer.getvalue(), "bomb.npz", "unpacks to")


# --- validation of the chosen table ----------------------------------------------------


def test_one_dimensional_and_three_dimensional_tensors_are_not_tables():
    data = st_bytes({"bias": np.ones(8, np.float32), "cube": np.ones((2, 3, 4), np.float32)})
    assert ck.table_candidates(ck.list_tensors(data, "x.safetensors")) == []
    with pytest.raises(ValueError, match="1 dimension"):
        ck.load_tensor(data, "x.safetensors", "bias")
    with pytest.raises(ValueError, match="3 dimension"):
        ck.load_tensor(data, "x.safetensors", "cube")


def test_nan_and_inf_are_counted_in_the_message():
    values = POS.copy()
    values[0, :3] = np.nan
    values[5, 5] = np.inf
    for data, name in ((st_bytes({"pos": values}), "x.safetensors"), (npy_bytes(values), "pos.npy")):
        with pytest.raises(ValueError, match="3 NaN and 1 infinite"):
            ck.load_tensor(data, name, "pos")


def test_empty_tables_are_refused():
    data = st_bytes({"pos": np.zeros((0, 16), np.float32)})
    assert ck.table_candidates(ck.list_tensors(data, "x.safetensors")) == []
    with pytest.raises(ValueError, match="empty"):
        ck.load_tensor(data, "x.safetensors", "pos")


def test_tables_above_the_size_cap_are_refused_with_the_cap():
    big = np.zeros((4096, 1025), np.float16)
    with pytest.raises(ValueError, match="4,194,304"):
        ck.load_tensor(npy_bytes(big), "big.npy", "big")
    with pytest.raises(ValueError, match="4,194,304"):
        ck.load_tensor(st_bytes({"big": big}), "big.safetensors", "big")


def test_asking_for_a_tensor_that_is_not_there():
    with pytest.raises(ValueError, match="no tensor named"):
        ck.load_tensor(st_bytes({"pos": POS}), "x.safetensors", "nope")
    with pytest.raises(ValueError, match="holds one array"):
        ck.load_tensor(npy_bytes(POS), "pos.npy", "nope")
    with pytest.raises(ValueError, match="no array named"):
        ck.load_tensor(npz_bytes(pos=POS), "pos.npz", "nope")


def test_random_garbage_never_raises_anything_but_valueerror():
    rng = np.random.default_rng(7)
    base = st_bytes({"pos": POS})
    for trial in range(300):
        data = bytearray(base)
        for _ in range(rng.integers(1, 6)):
            data[rng.integers(0, len(data))] = rng.integers(0, 256)
        if trial % 3 == 0:
            data = data[: rng.integers(0, len(data))]
        for name in ("x.safetensors", "x.npy", "x.npz"):
            try:
                for info in ck.table_candidates(ck.list_tensors(bytes(data), name)):
                    ck.load_tensor(bytes(data), name, info.name)
            except ValueError:
                pass


# --- hostile files: every failure of a parser is a sentence ------------------


def _npz_member_patched(compressed: bool = False, **fields) -> bytes:
    """A real .npz of one member, pos.npy, with fields of its local and central headers
    overwritten: flags, method, crc, compressed / uncompressed size (zip's own offsets)."""
    data = bytearray(npz_bytes(compressed, pos=POS))
    local, central = data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")
    offsets = {"flags": (6, 8, "<H"), "method": (8, 10, "<H"), "crc": (14, 16, "<I"), "compressed": (18, 20, "<I"), "size": (22, 24, "<I")}
    for name, value in fields.items():
        at_local, at_central, fmt = offsets[name]
        struct.pack_into(fmt, data, local + at_local, value)
        struct.pack_into(fmt, data, central + at_central, value)
    return bytes(data)


def _nesting_bomb(depth: int = 100_000) -> bytes:
    header = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    return struct.pack("<Q", len(header)) + header


def _npy_with_header(header: str) -> bytes:
    body = header.encode("latin1")
    body += b" " * (-(10 + len(body) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body


HOSTILE_FILES = {
    "safetensors JSON nesting bomb": ("bomb.safetensors", _nesting_bomb()),
    "safetensors nesting inside an entry": (
        "nest.safetensors",
        raw_safetensors({"t": {"dtype": "F32", "shape": [[[[[[2]]]]]], "data_offsets": [0, 8]}}, bytes(8)),
    ),
    "npy header nesting bomb": ("bomb.npy", _npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': " + "(" * 5000 + ")" * 5000 + ", }")),
    "npz member with the encrypted flag": ("enc.npz", _npz_member_patched(flags=0x1)),
    "npz member with an unknown compression method": ("method.npz", _npz_member_patched(method=99)),
    "npz member compressed with bzip2": ("bzip.npz", _npz_member_patched(method=12)),
    "npz member whose size lies (smaller)": ("small.npz", _npz_member_patched(size=100)),
    "npz member whose size lies (larger)": ("large.npz", _npz_member_patched(compressed=True, size=len(npy_bytes(POS)) + 1000)),
    "npz member whose size lies (smaller, deflated)": ("small2.npz", _npz_member_patched(compressed=True, size=100)),
    "npz member with a wrong CRC": ("crc.npz", _npz_member_patched(crc=0x12345678)),
    "npz member whose compressed size lies": ("csize.npz", _npz_member_patched(compressed=7)),
    "safetensors with too many tensors": ("many.safetensors", st_bytes({f"t{i}": np.zeros(1, np.float32) for i in range(ck.MAX_TENSORS + 1)})),
    "npz with too many members": ("many.npz", npz_bytes(**{f"a{i}": np.zeros(1) for i in range(ck.MAX_TENSORS + 1)})),
}


READ_ANYWAY = {"npz member whose size lies (larger)", "npz member whose compressed size lies"}


@pytest.mark.parametrize("kind", list(HOSTILE_FILES))
def test_hostile_files_are_refused_with_a_sentence(kind):
    filename, data = HOSTILE_FILES[kind]
    try:  # listed (headers only) and then read, as the model page does
        tables = [ck.load_tensor(data, filename, info.name) for info in ck.list_tensors(data, filename)]
    except ValueError as err:
        message = str(err)
        assert isinstance(err, ck.Refusal) and message.endswith(".") and len(message) < 600, message
        assert f"`{filename}`" in message or "Tensor" in message, message
    else:  # numpy reads only the bytes the header's shape needs: a size that lies upwards changes nothing it reads
        assert kind in READ_ANYWAY, f"{kind} was read"
        np.testing.assert_array_equal(tables[0], POS)


def test_every_failure_inside_a_library_becomes_a_refusal(monkeypatch):
    # whatever a parser raises on a file no one foresaw (not only the kinds above), the reader says it in a sentence
    for error in (RecursionError("maximum recursion depth exceeded"), MemoryError(), RuntimeError("x"), NotImplementedError("y"), zipfile.BadZipFile("z")):

        def broken(*args, error=error, **kwargs):
            raise error

        monkeypatch.setattr(np.lib.format, "read_magic", broken)
        with pytest.raises(ck.Refusal, match="could not be read|damaged"):
            ck.list_tensors(npy_bytes(POS), "pos.npy")


def test_random_damage_to_npz_never_raises_anything_but_valueerror():
    rng = np.random.default_rng(11)
    base = npz_bytes(compressed=True, pos=POS, other=np.ones((3, 3)))
    for trial in range(300):
        data = bytearray(base)
        for _ in range(rng.integers(1, 8)):
            data[rng.integers(0, len(data))] = rng.integers(0, 256)
        try:
            for info in ck.table_candidates(ck.list_tensors(bytes(data), "x.npz")):
                ck.load_tensor(bytes(data), "x.npz", info.name)
        except ValueError:
            pass


def test_names_from_a_file_are_echoed_inert():
    hostile = "`[Login](https://evil.example)` $\\color{red}{x}$ :material/skull: <img src=x>"
    with pytest.raises(ValueError) as err:
        ck.load_tensor(st_bytes({hostile: np.zeros(3, np.float32)}), f"{hostile}.safetensors", hostile)
    message = str(err.value)
    for raw in ("](", "$\\", ":material", "<img"):
        assert raw not in message, message


def test_safetensors_are_read_by_the_safetensors_library(monkeypatch):
    import safetensors

    opened = []
    real = safetensors.safe_open

    def spy(path, framework, *args, **kwargs):
        opened.append(framework)
        return real(path, framework, *args, **kwargs)

    monkeypatch.setattr(safetensors, "safe_open", spy)
    ck.load_tensor(st_bytes({"pos": POS}), "x.safetensors", "pos")
    assert opened and set(opened) == {"numpy"}
    import safetensors.torch

    ck.load_tensor(safetensors.torch.save({"pos": torch.randn(4, 3).to(torch.bfloat16)}), "bf.safetensors", "pos")
    assert "pt" in opened  # bfloat16 through torch


def test_a_refusal_escapes_only_the_files_words_not_the_apps():
    huge = {"dtype": "F32", "shape": [1099511627776, 2], "data_offsets": [0, 16]}
    message = refused(raw_safetensors({"t[1]": huge}, bytes(16)), "x.safetensors", "should take")
    assert "tensor `t\\x5b1\\x5d` (F32, shape 1,099,511,627,776 × 2) should take 8,796,093,022,208 bytes" in message  # the name alone is quoted
    assert ck.TensorInfo("1d", (32,), "float32").described() == "`1d` (32, float32)"
    assert ck.TensorInfo("<b>", (), "F32").described() == "`\\x3cb\\x3e` (scalar, F32)"
    assert ck.TensorInfo("x", (1,) * 9, "F32").described() == "`x` (1 × 1 × 1 × 1 × 1 × 1 × … (9 dimensions), F32)"
