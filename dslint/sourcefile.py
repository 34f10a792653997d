"""Reading a file into text without ever raising: bad input becomes a reason."""

from __future__ import annotations

import io
import os
import re
import tokenize
from dataclasses import dataclass
from typing import Dict, List, Optional

# Python ends a row at \r\n, \r or \n only; str.splitlines() also breaks at form feed,
# \x1c-\x1e, \x85 and U+2028/2029, which may sit inside strings and comments.
_ROW_END = re.compile(r"\r\n|\r|\n")
_ROW = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_rows(text: str, keepends: bool = False) -> List[str]:
    """The rows of ``text`` as Python counts them (like ``splitlines`` for those three ends)."""
    if keepends:
        return _ROW.findall(text)
    rows = _ROW_END.split(text)
    if rows and rows[-1] == "":
        rows.pop()
    return rows


@dataclass
class SourceText:
    path: str
    raw: bytes
    text: str
    encoding: str

    _lines: Optional[List[str]] = None

    @property
    def lines(self) -> List[str]:
        if self._lines is None:
            self._lines = split_rows(self.text)
        return self._lines

    def line(self, row: int) -> str:
        lines = self.lines
        return lines[row - 1] if 0 < row <= len(lines) else ""


@dataclass
class Unreadable:
    """Why a file could not be turned into text; ``row``/``column`` are 1-based."""

    path: str
    reason: str
    row: int = 1
    column: int = 1


def decode(path: str, raw: bytes):
    """Decode ``raw`` per PEP 263 (BOM, coding cookie, default UTF-8)."""
    if b"\x00" in raw:
        row = raw[: raw.index(b"\x00")].count(b"\n") + 1
        return Unreadable(path, "file contains a NUL byte (binary file?)", row)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        if b"coding" in b"\n".join(raw.split(b"\n", 2)[:2]):
            return Unreadable(path, f"bad encoding declaration: {exc}")
        encoding = "utf-8"  # no declaration: the bytes themselves are not UTF-8
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        row = 1
        if isinstance(exc, UnicodeDecodeError):
            row = raw[: exc.start].count(b"\n") + 1
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
        return Unreadable(path, f"cannot decode as {encoding}: {reason}", row)
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceText(path, raw, text, encoding)


# Files that are not on disk: the text of ``dslint -`` (stdin) under its --stdin-filename.
_VIRTUAL: Dict[str, bytes] = {}


def provide_virtual(path: str, raw: bytes) -> None:
    """Make ``path`` read as ``raw`` (and fixes to it land here, not on disk)."""
    _VIRTUAL[os.path.abspath(path)] = raw


def is_virtual(path: str) -> bool:
    return bool(_VIRTUAL) and os.path.abspath(path) in _VIRTUAL


def virtual_bytes(path: str) -> bytes:
    return _VIRTUAL[os.path.abspath(path)]


def replace_virtual(path: str, data: bytes, expected: bytes) -> Optional[str]:
    key = os.path.abspath(path)
    if _VIRTUAL.get(key) != expected:
        return "it changed while dslint was fixing it"
    _VIRTUAL[key] = data
    return None


def read_bytes(path: str) -> bytes:
    """The bytes of ``path``: a virtual file's, else the file's on disk (OSError if not)."""
    if is_virtual(path):
        return virtual_bytes(path)
    with open(path, "rb") as handle:
        return handle.read()


def read(path: str):
    try:
        raw = read_bytes(path)
    except IsADirectoryError:
        return Unreadable(path, "is a directory")
    except FileNotFoundError:
        return Unreadable(path, "no such file (deleted or a dangling link)")
    except OSError as exc:
        return Unreadable(path, f"cannot read: {exc.strerror or exc}")
    return decode(path, raw)
