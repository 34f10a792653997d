"""``# noqa`` handling, compatible with flake8 and ruff.

A line's ``# noqa`` is read from the row a finding is on (rows as Python counts them, see
``sourcefile.split_rows``). A file-level ``# dslint: noqa`` (or ``# flake8: noqa``,
``# ruff: noqa``) counts only as a comment on a line of its own, as ruff reads it: the
same text inside a string literal silences nothing. With codes
(``# ruff: noqa: DSL102``) it silences those rules in the whole file.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Optional, Set, Tuple

NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
FILE_NOQA = re.compile(
    r"(?:^|(?<=\r))[ \t\f]*(?P<hash>#)[ \t]*(?:dslint|flake8|ruff)[ \t]*:[ \t]*noqa"
    r"(?P<colon>[ \t]*:[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[, \t]+[A-Z]+[0-9]*)*))?",
    re.IGNORECASE | re.MULTILINE,
)
CODE_LIST = re.compile(r"[,\s]+")


def codes_on_line(line: str) -> Optional[Set[str]]:
    """None: no noqa. Empty set: a bare ``# noqa`` (everything). Else the listed codes."""
    if "noqa" not in line.lower():
        return None
    match = NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return set()
    return {code.upper() for code in CODE_LIST.split(codes) if code}


def suppressed(code: str, line: str) -> bool:
    codes = codes_on_line(line)
    if codes is None:
        return False
    return not codes or code in codes or any(code.startswith(c) for c in codes)


def _comment_starts(text: str) -> Set[Tuple[int, int]]:
    """(row, column) where each comment token starts; empty when the text does not tokenize."""
    starts: Set[Tuple[int, int]] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type == tokenize.COMMENT:
                starts.add(token.start)
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError):
        pass
    return starts


def file_exemption(text: str) -> Optional[Set[str]]:
    """What a file-level noqa silences: None (nothing), an empty set (everything) or codes."""
    if "noqa" not in text and "NOQA" not in text.upper():
        return None
    candidates = list(FILE_NOQA.finditer(text))
    if not candidates:
        return None
    comments = _comment_starts(text)
    exempt: Optional[Set[str]] = None
    for match in candidates:
        if _position(text, match.start("hash")) not in comments:
            continue  # inside a string literal
        if match.group("colon") and not match.group("codes"):
            continue  # ``# ruff: noqa:`` with nothing after it names nothing
        codes = match.group("codes")
        if not codes:
            return set()
        exempt = (exempt or set()) | {c.upper() for c in CODE_LIST.split(codes) if c}
    return exempt


def _position(text: str, offset: int) -> Tuple[int, int]:
    """(1-based row, 0-based column) of ``offset``, rows ending at \\r\\n, \\r or \\n."""
    before = text[:offset]
    row = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
    start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return row, offset - start


def exempts(exemption: Optional[Set[str]], code: str) -> bool:
    if exemption is None:
        return False
    return not exemption or any(code.startswith(c) for c in exemption)


def file_suppressed(text: str) -> bool:
    """Whether a file-level noqa silences every rule in ``text``."""
    return file_exemption(text) == set()
