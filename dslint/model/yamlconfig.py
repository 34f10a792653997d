"""Configuration files in YAML, read as plain data: what a training script loads with
``OmegaConf.load(path)``, ``yaml.safe_load(open(path))`` or hydra's ``@hydra.main``.

Only the subset training configs use is read: nested block mappings, block and flow
sequences of scalars, block sequences of mappings (``- name: a`` with its other keys below),
flow mappings of scalars, plain and quoted scalars, comments. Anything
else (anchors, tags, multi-line scalars, several documents) makes the whole file unknown,
and an interpolation (``${data.workers}``) is an unknown value: unknown never becomes a
finding. Nothing is executed; the file is read as text, size-capped, and only inside the
project (never through a symbolic link out of it).
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, NamedTuple, Optional, Tuple

MAX_BYTES = 1 << 20  # a training config is a few KiB; a bigger file is not read
UNKNOWN = object()  # a value the subset cannot say (an interpolation, a tag)


class Entry(NamedTuple):
    """A value of the file and the row it is written on (1-based)."""

    value: object  # dict (str → Entry), list of Entry, a scalar, or UNKNOWN
    row: int


_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)$")
_FLOAT = re.compile(r"[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?$|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$")
_TRUE = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}
_FALSE = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"}
_NULL = {"null", "Null", "NULL", "~", ""}


class Unsupported(Exception):
    """The file uses YAML the subset does not read."""


def scalar(text: str):
    """A plain or quoted scalar as PyYAML (YAML 1.1, as OmegaConf reads it) would give it."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        return UNKNOWN if "${" in inner else inner
    if text.startswith(("&", "*", "!", "|", ">", "%", "@", "`")):
        raise Unsupported(text)
    if "${" in text:
        return UNKNOWN
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.match(text):
        return int(text.replace("_", ""))
    if _FLOAT.match(text):
        return float(text.replace("_", ""))
    return text


def _flow(text: str, row: int):
    """``[a, b]`` or ``{k: v}`` of scalars."""
    inner = text[1:-1].strip()
    parts = [p.strip() for p in inner.split(",")] if inner else []
    if any(ch in inner for ch in "[]{}"):
        raise Unsupported(text)
    if text[0] == "[":
        return [Entry(scalar(p), row) for p in parts]
    out = {}
    for part in parts:
        key, sep, value = part.partition(":")
        if not sep:
            raise Unsupported(text)
        out[key.strip().strip("'\"")] = Entry(scalar(value), row)
    return out


def _value(text: str, row: int):
    text = text.strip()
    if text[:1] in "[{" and text[-1:] in "]}":
        return _flow(text, row)
    return scalar(text)


def _strip_comment(line: str) -> str:
    """The line without a ``# comment`` (not inside quotes)."""
    quote = None
    for index, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index]
    return line


def parse(text: str) -> Optional[Entry]:
    """The document as entries, or None when it uses YAML the subset does not read."""
    lines: List[Tuple[int, int, str]] = []  # (row, indent, content)
    for row, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw).rstrip()
        if not line.strip() or line.strip() == "---" and not lines:
            continue
        if "\t" in line[: len(line) - len(line.lstrip())] or line.strip() in ("---", "..."):
            return None
        lines.append((row, len(line) - len(line.lstrip()), line.strip()))
    try:
        value, used = _block(lines, 0, lines[0][1] if lines else 0)
    except (Unsupported, IndexError, ValueError):
        return None
    if used != len(lines):
        return None
    return Entry(value, lines[0][0] if lines else 1)


def _block(lines, start: int, indent: int):
    """The mapping or sequence starting at ``lines[start]`` (all at ``indent``): (value, next index)."""
    if start >= len(lines):
        return {}, start
    if lines[start][2].startswith("- ") or lines[start][2] == "-":
        return _sequence(lines, start, indent)
    return _mapping(lines, start, indent)


def _mapping(lines, start: int, indent: int):
    out: Dict[str, Entry] = {}
    index = start
    while index < len(lines):
        row, level, content = lines[index]
        if level < indent:
            break
        if level > indent or content.startswith("- "):
            raise Unsupported(content)
        key, sep, rest = content.partition(":")
        if not sep or (rest and not rest.startswith((" ", "\t"))):
            raise Unsupported(content)
        key = key.strip().strip("'\"")
        rest = rest.strip()
        index += 1
        if rest:
            out[key] = Entry(_value(rest, row), row)
        elif index < len(lines) and (lines[index][1] > indent or
                                     (lines[index][1] == indent and lines[index][2].startswith("- "))):
            value, index = _block(lines, index, lines[index][1])
            out[key] = Entry(value, row)
        else:
            out[key] = Entry(None, row)
    return out, index


def _sequence(lines, start: int, indent: int):
    out: List[Entry] = []
    index = start
    while index < len(lines):
        row, level, content = lines[index]
        if level != indent or not (content.startswith("- ") or content == "-"):
            break
        item = content[1:].strip()
        index += 1
        following = index
        while following < len(lines) and lines[following][1] > indent:
            following += 1  # the item's own lines: a mapping that goes on below ``- name: x``
        if ":" in item and not item.startswith(("[", "{", "'", '"')):  # ``- model: resnet`` (hydra defaults)
            column = level + len(content) - len(item)  # where the item's first key starts
            mapping, used = _mapping([(row, column, item)] + list(lines[index:following]), 0, column)
            if used != following - index + 1:
                raise Unsupported(item)
            out.append(Entry(mapping, row))
        elif following > index:
            raise Unsupported(item)  # a scalar item with more below it
        else:
            out.append(Entry(_value(item, row) if item else None, row))
        index = following
    return out, index


def is_yaml(path: str) -> bool:
    """A path this module reads (by its name): a ``.yaml`` or ``.yml`` file."""
    return path.endswith((".yaml", ".yml"))


def fingerprint(path: str) -> str:
    """What a cached analysis that read (or looked for) ``path`` depends on: the content of a
    regular file, where a symbolic link points, or "" for no file."""
    from ..digests import blake2b

    try:
        if os.path.islink(path):
            return "link:" + os.readlink(path)
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return "" if not os.path.exists(path) else "other"
        with open(path, "rb") as handle:
            return blake2b(handle.read(), digest_size=16).hexdigest()
    except OSError:
        return ""


def load(path: str, root: str) -> Optional[Entry]:
    """The parsed file at ``path`` if it is a regular file inside ``root`` (no symbolic link
    leading out of it) and small enough; else None."""
    try:
        real = os.path.realpath(path)
        inside = os.path.realpath(root)
        if os.path.commonpath([real, inside]) != inside or not os.path.isfile(real):
            return None
        if os.path.getsize(real) > MAX_BYTES:
            return None
        with open(real, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
        return parse(raw.decode("utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
