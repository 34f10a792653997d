"""Reading a file into text without ever raising: bad input becomes a reason."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import List, Optional


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
            self._lines = self.text.splitlines()
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


def read(path: str):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except IsADirectoryError:
        return Unreadable(path, "is a directory")
    except FileNotFoundError:
        return Unreadable(path, "no such file (deleted or a dangling link)")
    except OSError as exc:
        return Unreadable(path, f"cannot read: {exc.strerror or exc}")
    return decode(path, raw)
