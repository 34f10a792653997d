"""``# noqa`` handling, compatible with flake8 and ruff."""

from __future__ import annotations

import re
from typing import Optional, Set

NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
FILE_NOQA = re.compile(r"#\s*(?:dslint|flake8|ruff)\s*:\s*noqa(?!:)", re.IGNORECASE)


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
    return {code.upper() for code in re.split(r"[,\s]+", codes) if code}


def suppressed(code: str, line: str) -> bool:
    codes = codes_on_line(line)
    if codes is None:
        return False
    return not codes or code in codes or any(code.startswith(c) for c in codes)


def file_suppressed(text: str) -> bool:
    return "noqa" in text and FILE_NOQA.search(text) is not None
