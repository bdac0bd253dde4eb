"""The checkpoint uploader of the `model` page and the position table chosen from the file.

The uploader is always on the page (folded away while the bundled table is shown); choosing a
file switches the page's `source` control to it. The file is read by core.files.checkpoint,
which never unpickles; what is wrong with a file is said in a sentence and the page stops
there. The analysis is cached by the file's sha256, so Streamlit never hashes the bytes.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from core.analysis import position_analysis as pa
from core.files import checkpoint
from ui.controls import keep_valid
from ui.display import guarded, quoted

MIN_SIDE = 3  # positions and dimensions a table needs: the path figures draw three principal components
SOURCE_KEY = "source"  # the page's choice between the bundled table and the upload
Upload = tuple[tuple, str, tuple[int, int], pa.TableAnalysis]  # (cache key, the tensor's name as written, full shape, analysis)


def upload_limit_bytes() -> int:
    return int(st.get_option("server.maxUploadSize")) * 2**20


def use_upload() -> None:
    """A file was just chosen: show it (the uploader's on_change)."""
    if st.session_state.get("checkpoint") is not None:
        st.session_state[SOURCE_KEY] = "upload"


def checkpoint_widget():
    """The file uploader, in an expander open while the upload is shown. Returns the
    UploadedFile or None."""
    limit = upload_limit_bytes()
    with st.expander("Your own checkpoint", expanded=st.session_state.get(SOURCE_KEY) == "upload", icon=":material/upload_file:"):
        file = st.file_uploader(
            "A checkpoint: .safetensors, .npy or .npz",
            key="checkpoint",
            on_change=use_upload,
            help=f"Up to {limit // 2**20} MB. Pickle-based files (.pt, .pth, .bin, .ckpt, .pkl) are refused: unpickling can run arbitrary code.",
        )
        st.caption(
            "Nothing is unpickled: .pt/.bin checkpoints are refused, .npy/.npz are read without pickle. To bring a PyTorch model's table, export it: "
            '`safetensors.torch.save_file({"pos": model.embeddings.position_embeddings.weight.contiguous()}, "pos.safetensors")` '
            'or `np.save("pos.npy", weight.detach().cpu().numpy())`.'
        )
    return file


@st.cache_resource(max_entries=4, ttl=900, show_spinner=False)
def upload_tensors(digest: str, filename: str, _data: bytes) -> list[checkpoint.TensorInfo]:
    """What the file holds, read from its headers once per file (keyed by its sha256, never by
    the bytes): a header of thousands of tensors is parsed once, not on every rerun."""
    return checkpoint.list_tensors(_data, filename)


@st.cache_resource(max_entries=4, ttl=900, show_spinner=False)
def upload_analysis(digest: str, filename: str, tensor: str, transpose: bool, _data: bytes) -> tuple[tuple[int, int], pa.TableAnalysis]:
    """One tensor of an uploaded file, validated and measured; keyed by the file's sha256, so the
    bytes themselves are never hashed by Streamlit. Returns (full shape, analysis)."""
    table: np.ndarray = checkpoint.load_tensor(_data, filename, tensor)  # (L, d), or (d, L) when transposed
    table = table.T if transpose else table
    return table.shape, pa.analyse(table)



def _stop_with(message: str, icon: str = ":material/error:") -> None:
    st.error(message, icon=icon)
    st.stop()


def uploaded_table(file) -> Upload:
    """The table chosen from the uploaded file (a tensor picker and a transpose switch when it
    holds one); returns (cache key, the tensor's name as written, full shape, analysis), or stops the page
    with a message saying what is wrong with the file."""
    limit = upload_limit_bytes()
    if file is None:
        st.info("Upload a file above to see its position table here.", icon=":material/upload_file:")
        st.stop()
    data = file.getvalue()
    if len(data) > limit:
        size = f"{len(data) / 2**20:.1f} MB"
        _stop_with(f"{quoted(file.name)} is {size}, above this server's upload limit of {limit // 2**20} MB; export only the position table.")
    digest = hashlib.sha256(data).hexdigest()
    infos = guarded(upload_tensors, digest, file.name, data)
    tables = checkpoint.table_candidates(infos)
    if not tables:
        shown = ", ".join(t.described() for t in infos[:5]) + (" …" if len(infos) > 5 else "")
        _stop_with(f"{quoted(file.name)} has no 2-D tensor (positions × width) to analyse. It holds: {shown}.")
    labels = {t.name: t.label for t in tables}
    keep_valid("tensor", lambda v: v in labels)
    left, right = st.columns([3, 1])
    name = left.selectbox(f"Tensor ({len(tables)} of {len(infos)} are 2-D; names with 'position' first)", list(labels), format_func=labels.get, key="tensor")
    transpose = right.toggle("Rows are dimensions", key="transpose", help="Turn on if the table is stored width × positions.")
    if name is None or name not in labels:  # a value another file (or page) left under the key
        name = next(iter(labels))
    table = next(t for t in tables if t.name == name)
    if table.dtype == "object":  # refused whatever its size: reading it would mean unpickling
        _stop_with(f"{quoted(file.name)}: array {quoted(name)} has object dtype, which can only be loaded by unpickling. {checkpoint.WHY_NO_PICKLE}")
    rows, cols = table.shape
    if min(rows, cols) < MIN_SIDE:
        _stop_with(
            f"{quoted(name)} is {rows:,} × {cols:,}: this page needs at least {MIN_SIDE} positions and {MIN_SIDE} dimensions "
            "(it draws the path of the positions on three principal components). Pick another tensor, or upload a larger table."
        )
    shape, analysis = guarded(upload_analysis, digest, file.name, name, transpose, data)
    return ("upload", digest, name, transpose), name, shape, analysis
