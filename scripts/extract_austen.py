"""Extract Jane Austen's six novels from Debian's r-cran-janeaustenr 1.0.0-1 into plain text.

The text the lab's language-modelling task reads (data/austen.txt.gz, see data/README.md).
Reproducible, standard library only (no R, no network beyond Debian's archive via apt):

    apt-get update && apt-get download r-cran-janeaustenr=1.0.0-1
    python scripts/extract_austen.py r-cran-janeaustenr_1.0.0-1_all.deb data/

or, with the package already unpacked / installed:

    python scripts/extract_austen.py /usr/lib/R/site-library/janeaustenr data/

Writes out_dir/austen.txt.gz (the normalised text, see `normalise`, gzip level 9 with a zero
time stamp, so the same input gives the same bytes) and prints sizes and sha256s; with --raw also
out_dir/austen_raw.txt (the six novels, one line per R string, novels in a fixed order, separated
by a blank line). The .deb's sha256 is checked against Debian's (bookworm) Packages entry, and the
normalised text's against TEXT_SHA256, the text the shipped results were measured on.

The novels are stored in R's lazy-load database (data/Rdata.rdx = gzip'd serialized index,
data/Rdata.rdb = 4-byte length + zlib stream per object). Each novel is one R character vector
(one element per line of the Project Gutenberg text). A minimal reader of R's XDR serialization
(format version 2/3) below decodes exactly the types these files use.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
import subprocess
import sys
import tempfile
import unicodedata
import zlib
from pathlib import Path

DEB_SHA256 = "df6bddf211906d1ff404f8ff662c21b34e6660e7f54a311084e749050c019c95"  # Debian bookworm Packages, r-cran-janeaustenr 1.0.0-1
DATA_DIR = "usr/lib/R/site-library/janeaustenr/data"
TEXT_SHA256 = "2b73f19547cf50a52d10f9d153288467e7447849ff29999673abf6dd27f4ac7d"  # austen.txt, 4,004,169 bytes
NOVELS = ("sensesensibility", "prideprejudice", "mansfieldpark", "emma", "northangerabbey", "persuasion")  # publication order, as austen_books()


# --- a minimal reader of R's serialization format (XDR, "X\n") -----------------------------

NILVALUE, REF, GLOBALENV, EMPTYENV, BASEENV, MISSINGARG, UNBOUND, BASENAMESPACE = 254, 255, 253, 242, 241, 251, 252, 247
SYMSXP, LISTSXP, CHARSXP, LGLSXP, INTSXP, REALSXP, STRSXP, VECSXP = 1, 2, 9, 10, 13, 14, 16, 19


class RVector(list):
    """An R vector as a list, its attributes (a dict: names, class, ...) in `.attrs`."""

    attrs: dict = {}


class RReader:
    def __init__(self, data: bytes) -> None:
        self.b, self.i, self.refs = data, 0, []

    def int(self) -> int:
        (v,) = struct.unpack_from(">i", self.b, self.i)
        self.i += 4
        return v

    def bytes(self, n: int) -> bytes:
        out = self.b[self.i : self.i + n]
        self.i += n
        return out

    def read(self):
        if self.bytes(2) != b"X\n":
            raise ValueError("not an XDR R serialization")
        version = self.int()
        self.int(), self.int()  # writer's R version, minimal reader version
        if version == 3:
            self.bytes(self.int())  # native encoding
        return self.item()

    def _length(self) -> int:
        n = self.int()
        if n == -1:  # long vector
            hi, lo = self.int(), self.int()
            n = (hi << 32) + lo
        return n

    def item(self):
        flags = self.int()
        kind, has_attr, has_tag = flags & 0xFF, bool(flags & (1 << 9)), bool(flags & (1 << 10))
        if kind in (NILVALUE, GLOBALENV, EMPTYENV, BASEENV, MISSINGARG, UNBOUND, BASENAMESPACE):
            return None
        if kind == REF:
            index = flags >> 8 or self.int()
            return self.refs[index - 1]
        if kind == SYMSXP:
            name = self.item()  # a CHARSXP
            self.refs.append(name)
            return name
        if kind == LISTSXP:  # a pairlist (attributes): attr?, tag?, car, cdr
            out = {}
            while True:
                if has_attr:
                    self.item()  # the attributes of a pairlist node: not needed
                tag = self.item() if has_tag else None
                out[tag] = self.item()
                nxt = self.int()
                kind, has_attr, has_tag = nxt & 0xFF, bool(nxt & (1 << 9)), bool(nxt & (1 << 10))
                if kind == NILVALUE:
                    return out
                if kind != LISTSXP:
                    raise ValueError(f"unsupported pairlist tail type {kind}")
        if kind == CHARSXP:
            n = self.int()
            if n == -1:
                return None  # NA_character_
            return self.bytes(n).decode("utf-8" if flags & (1 << 15) or not flags & (1 << 14) else "latin-1")
        if kind in (LGLSXP, INTSXP):
            n = self._length()
            value = list(struct.unpack_from(f">{n}i", self.b, self.i))
            self.i += 4 * n
        elif kind == REALSXP:
            n = self._length()
            value = list(struct.unpack_from(f">{n}d", self.b, self.i))
            self.i += 8 * n
        elif kind in (STRSXP, VECSXP):
            value = [self.item() for _ in range(self._length())]
        else:
            raise ValueError(f"unsupported R type {kind}")
        value = RVector(value)
        if has_attr:
            value.attrs = self.item()  # names, class, ...
        return value


def read_lazyload(data_dir: Path) -> dict[str, list]:
    """{object name: value} for the objects of an R lazy-load database (Rdata.rdx / Rdata.rdb)."""
    rdx = RReader(gzip.decompress((data_dir / "Rdata.rdx").read_bytes())).read()  # list(variables=, references=, compressed=)
    variables = rdx[0]  # named list: name -> c(offset, length) in Rdata.rdb
    rdb = (data_dir / "Rdata.rdb").read_bytes()
    out = {}
    for name, (offset, length) in zip(variables.attrs["names"], variables):
        chunk = rdb[int(offset) : int(offset) + int(length)]
        (raw_len,) = struct.unpack(">I", chunk[:4])  # then a zlib stream (compress = TRUE)
        body = zlib.decompress(chunk[4:])
        if len(body) != raw_len:
            raise ValueError(f"{name}: {len(body)} bytes decompressed, the header says {raw_len}")
        out[name] = RReader(body).read()
    return out


# --- normalisation ------------------------------------------------------------------------

KEEP = set("abcdefghijklmnopqrstuvwxyz" "ABCDEFGHIJKLMNOPQRSTUVWXYZ" "0123456789" " \n.,;:!?'\"-()&")
FOLD = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2014": "-", "\u2013": "-", "_": "", "\r": ""}


def normalise(lines: list[str]) -> str:
    """Paragraphs as single lines (Gutenberg's hard wraps joined), blank lines collapsed, curly
    quotes and dashes folded to ASCII, accents stripped (é -> e), italics underscores dropped,
    anything else outside KEEP dropped. Returns text ending in a newline."""
    paragraphs, current = [], []
    for line in lines:
        line = (line or "").strip()
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    text = "\n".join(paragraphs) + "\n"
    text = "".join(FOLD.get(c, c) for c in text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if c in KEEP)
    while "  " in text:
        text = text.replace("  ", " ")
    return text


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def data_dir_from(source: Path, tmp: Path) -> Path:
    if source.is_dir():
        return source / "data" if (source / "data" / "Rdata.rdb").exists() else source / DATA_DIR
    digest = sha256(source.read_bytes())
    if digest != DEB_SHA256:
        raise SystemExit(f"{source}: sha256 {digest} is not Debian's {DEB_SHA256} for r-cran-janeaustenr 1.0.0-1")
    subprocess.run(["dpkg-deb", "-x", str(source), str(tmp)], check=True)
    return tmp / DATA_DIR


def main(argv: list[str]) -> None:
    args = [a for a in argv[1:] if a != "--raw"]
    if len(args) != 2:
        raise SystemExit(__doc__)
    source, out = Path(args[0]), Path(args[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        objects = read_lazyload(data_dir_from(source, Path(tmp)))
    raw_parts, norm_parts = [], []
    for name in NOVELS:
        lines = objects[name]
        raw_parts.append("\n".join(line or "" for line in lines))
        norm_parts.append(normalise(lines))
        print(f"{name:18s} {len(lines):6d} lines")
    raw = ("\n\n".join(raw_parts) + "\n").encode("utf-8")
    norm = "".join(norm_parts).encode("ascii")
    if "--raw" in argv:
        (out / "austen_raw.txt").write_bytes(raw)
    packed = gzip.compress(norm, compresslevel=9, mtime=0)
    (out / "austen.txt.gz").write_bytes(packed)
    chars = sorted(set(norm.decode()))
    print(f"raw text       {len(raw):,} bytes sha256 {sha256(raw)}")
    print(f"austen.txt     {len(norm):,} bytes sha256 {sha256(norm)}  vocabulary {len(chars)}: {''.join(chars)!r}")
    print(f"austen.txt.gz  {len(packed):,} bytes sha256 {sha256(packed)}")
    if sha256(norm) != TEXT_SHA256:
        raise SystemExit(f"The normalised text's sha256 is not {TEXT_SHA256}: the shipped results were measured on another text.")


if __name__ == "__main__":
    main(sys.argv)
