"""Jupyter notebooks: the Python of the code cells as one text, and the way back.

A notebook is linted as the concatenation of its code cells, in order, so that a lambda
defined in one cell and handed to a DataLoader in the next is seen. IPython syntax that
is not Python (``%line`` and ``%%cell`` magics, ``!shell`` lines, ``x = !cmd``,
``obj?`` help) is blanked line for line, so every row of the joined text maps back to a
(cell, row in cell) pair. Cell numbers are 1-based positions in the notebook, markdown
cells included: ``cell 3`` is ``nb["cells"][2]``.

The fixer edits the joined text; ``Notebook.rebuild`` splits an edited text back into
cells (restoring the blanked magics) and ``write_cells`` writes new cell sources into the
notebook file, keeping its JSON layout (indent, key order, escaping, trailing newline)
and every cell it does not change.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from .sourcefile import SourceText, Unreadable, read_bytes, split_rows

# Rules whose premise does not hold in a notebook: a kernel's ``__main__`` is never
# re-imported by spawn/forkserver workers, so a main guard neither helps nor is needed.
NOTEBOOK_EXEMPT = frozenset({"DSL101"})

_LINE_MAGIC = re.compile(r"^[ \t]*[%!]")
_ASSIGN_MAGIC = re.compile(r"^[ \t]*[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!]")
_HELP = re.compile(r"^[ \t]*(?:\?{1,2}[\w.]*|[\w.]+\?{1,2})[ \t]*$")
# Cell magics whose body is Python run as usual: only their first line is blanked.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "profile"})


def _is_magic(line: str) -> bool:
    return bool(_LINE_MAGIC.match(line) or _ASSIGN_MAGIC.match(line) or _HELP.match(line))


def _blank(line: str) -> str:
    """What stands in for a magic line: nothing, or ``pass`` where a block needs a body."""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return f"{indent}pass" if indent else ""


def python_of_cell(source: str) -> Tuple[List[str], Dict[int, str]]:
    """The cell's lines with IPython syntax blanked, and {0-based row: original line}."""
    lines = split_rows(source)
    blanked: Dict[int, str] = {}
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(None, 1)
        if not magic or magic[0] not in _PYTHON_CELL_MAGICS:
            return ["" for _ in lines], {i: line for i, line in enumerate(lines)}
        blanked[first] = lines[first]
        lines[first] = ""
    continued = False
    scanner = _Scanner()
    for i, line in enumerate(lines):
        if i in blanked:
            continue
        if continued or (scanner.at_statement_start() and _is_magic(line)):
            blanked[i] = line
            continued = line.rstrip().endswith("\\")
            lines[i] = _blank(line)
            continue
        scanner.feed(line)
    return lines, blanked


def _cell_magic_rows(lines: List[str], blanked: Dict[int, str]) -> Optional[int]:
    """The last row (0-based) of a cell that code may not precede: its ``%%`` magic line, or
    its last row when the whole cell is blanked (a magic whose body is not Python). None
    for a cell without a cell magic."""
    first = next((i for i, line in enumerate(lines) if line.strip() or i in blanked), None)
    if first is None or not blanked.get(first, "").lstrip().startswith("%%"):
        return None
    return len(lines) - 1 if all(i in blanked for i in range(len(lines))) else first


class _Scanner:
    """Just enough of Python's tokenizer to know whether a line starts a statement
    (not inside brackets, a string, or after a backslash), so ``% x`` continuing an
    expression is never mistaken for a magic."""

    def __init__(self):
        self.depth = 0
        self.quote: Optional[str] = None
        self.backslash = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def feed(self, line: str) -> None:
        self.backslash = False
        i, n = 0, len(line)
        while i < n:
            char = line[i]
            if self.quote is not None:
                if char == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                    continue
                i += 1
                continue
            if char == "#":
                break
            if char in "\"'":
                triple = line[i : i + 3]
                self.quote = triple if triple in ('"""', "'''") else char
                i += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and i == n - 1:
                self.backslash = True
            i += 1
        if self.quote in ('"', "'"):
            self.quote = None  # an unterminated one-line string ends with its line


@dataclass
class Notebook:
    path: str
    data: Dict[str, Any]
    raw: bytes
    code_cells: List[int] = field(default_factory=list)  # 1-based cell numbers, in order
    sources: Dict[int, str] = field(default_factory=dict)  # cell number -> original source
    text: str = ""
    rows: List[Tuple[int, int]] = field(default_factory=list)  # joined row-1 -> (cell, row in cell)
    blanked: Dict[int, str] = field(default_factory=dict)  # joined row (1-based) -> original line
    # cell -> last joined row (0-based) nothing may be inserted before: its ``%%`` magic line
    # (the whole cell when its magic's body is not Python)
    cell_magic_ends: Dict[int, int] = field(default_factory=dict)
    foreign_cells: Set[int] = field(default_factory=set)  # cells whose magic's body is not Python

    # reading ---------------------------------------------------------------
    @classmethod
    def parse(cls, path: str, raw: bytes) -> "Notebook":
        """Raises ValueError with a user-facing reason when ``raw`` is not a notebook."""
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"notebook is not UTF-8: {exc.reason}") from exc
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid notebook JSON at line {exc.lineno}: {exc.msg}") from exc
        except (RecursionError, MemoryError) as exc:
            raise ValueError("notebook JSON too deeply nested (or too big) to read") from exc
        if not isinstance(data, dict) or not isinstance(data.get("cells", []), list):
            raise ValueError("not a Jupyter notebook (no list of cells)")
        notebook = cls(path, data, raw)
        if not notebook.is_python():
            return notebook
        pieces: List[str] = []
        for number, cell in enumerate(data.get("cells", []), start=1):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            if isinstance(source, list):
                source = "".join(str(part) for part in source)
            if not isinstance(source, str):
                continue
            notebook.code_cells.append(number)
            notebook.sources[number] = source
            lines, blanked = python_of_cell(source)
            keep = _cell_magic_rows(lines, blanked)
            if keep is not None:
                notebook.cell_magic_ends[number] = len(notebook.rows) + keep
                if keep == len(lines) - 1 and len(blanked) == len(lines):
                    notebook.foreign_cells.add(number)
            for row, original in blanked.items():
                notebook.blanked[len(notebook.rows) + row + 1] = original
            for row in range(len(lines)):
                notebook.rows.append((number, row + 1))
            pieces.extend(line + "\n" for line in lines)
        notebook.text = "".join(pieces)
        return notebook

    def is_python(self) -> bool:
        metadata = self.data.get("metadata") or {}
        language = None
        if isinstance(metadata, dict):
            info = metadata.get("language_info") or {}
            kernel = metadata.get("kernelspec") or {}
            language = (info.get("name") if isinstance(info, dict) else None) or (
                kernel.get("language") if isinstance(kernel, dict) else None
            )
        return language is None or str(language).lower() in ("python", "python3", "ipython")

    # mapping ---------------------------------------------------------------
    def to_cell(self, row: int) -> Tuple[Optional[int], int]:
        """(cell number, row in cell) of a 1-based row of the joined text."""
        if 0 < row <= len(self.rows):
            return self.rows[row - 1]
        if self.rows:  # past the end (an end location after the last newline)
            cell, last = self.rows[-1]
            return cell, last + (row - len(self.rows))
        return None, row

    def cell_lines(self, cell: int) -> List[str]:
        return split_rows(self.sources.get(cell, ""))

    # writing back ----------------------------------------------------------
    def rebuild(self, new_text: str) -> Dict[int, str]:
        """Split an edited joined text into {cell number: new source} for the changed cells.

        Unchanged lines keep their cell; new lines go to the cell of the lines they
        replace, and pure insertions to the cell of the line that follows them (a
        statement inserted before another belongs with it), except before a cell magic
        (``%%time`` must stay a cell's first line): they end the previous code cell, or
        follow the magic in the first one. Blanked magics come back.
        """
        old = split_rows(self.text, keepends=True)
        new = split_rows(new_text, keepends=True)
        out: Dict[int, List[str]] = {cell: [] for cell in self.code_cells}
        after_magic: Dict[int, List[str]] = {}
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for k in range(i2 - i1):
                    row = i1 + k + 1
                    cell = self.rows[row - 1][0]
                    original = self.blanked.get(row)
                    out[cell].append(new[j1 + k] if original is None else original + "\n")
                    if self.cell_magic_ends.get(cell) == row - 1:
                        out[cell].extend(after_magic.pop(cell, []))
                continue
            if not new[j1:j2]:
                continue
            if i1 < len(old) and tag == "insert" and i1 <= self.cell_magic_ends.get(self.rows[i1][0], -1):
                cell = self.rows[i1][0]
                before = [c for c in self.code_cells[: self.code_cells.index(cell)] if c not in self.foreign_cells]
                if before:
                    out[before[-1]].extend(new[j1:j2])
                else:
                    after_magic.setdefault(cell, []).extend(new[j1:j2])
                continue
            if i1 < len(old):
                cell = self.rows[i1][0]
            elif self.rows:
                cell = self.rows[-1][0]
            elif self.code_cells:
                cell = self.code_cells[0]
            else:
                raise ValueError("the notebook has no code cell to put the new code in")
            out[cell].extend(new[j1:j2])
        for cell, lines in after_magic.items():  # the magic line itself was edited
            out[cell].extend(lines)
        changed: Dict[int, str] = {}
        for cell, lines in out.items():
            source = "".join(lines)
            original = self.sources[cell]
            if not original.endswith("\n") and source.endswith("\n"):
                source = source[:-1]
            if source != original:
                changed[cell] = source
        return changed


class NotebookSource(SourceText):
    """The joined Python of a notebook, as the engine reads any file; knows its cells."""

    def __init__(self, notebook: Notebook):
        text = notebook.text
        super().__init__(notebook.path, text.encode("utf-8"), text, "utf-8")
        self.notebook = notebook

    def cell_lines(self, cell: int) -> List[str]:
        return self.notebook.cell_lines(cell)


def read(path: str):
    """A NotebookSource for ``path``, or an Unreadable saying why not."""
    try:
        raw = read_bytes(path)
    except FileNotFoundError:
        return Unreadable(path, "no such file (deleted or a dangling link)")
    except IsADirectoryError:
        return Unreadable(path, "is a directory")
    except OSError as exc:
        return Unreadable(path, f"cannot read: {exc.strerror or exc}")
    try:
        return NotebookSource(Notebook.parse(path, raw))
    except ValueError as exc:
        return Unreadable(path, str(exc))


def load(path: str) -> Notebook:
    return Notebook.parse(path, read_bytes(path))


# ---------------------------------------------------------------------------
# JSON layout


def _layout_candidates(raw: str):
    """Dump options, most likely first, that may reproduce the file byte for byte."""
    indent: Any = 1
    lines = raw.splitlines()
    if len(lines) > 1:
        second = lines[1]
        stripped = second.lstrip(" \t")
        prefix = second[: len(second) - len(stripped)]
        if prefix and set(prefix) == {"\t"}:
            indent = "\t" * len(prefix)
        elif prefix:
            indent = len(prefix)
    elif len(lines) == 1:
        indent = None
    for ensure_ascii in (False, True):
        yield {"indent": indent, "ensure_ascii": ensure_ascii}
        if indent is None:
            yield {"indent": None, "ensure_ascii": ensure_ascii, "separators": (",", ":")}


def _dump(data: Any, options: Dict[str, Any], newline: bool) -> str:
    return json.dumps(data, **options) + ("\n" if newline else "")


def layout_of(raw: bytes, data: Any) -> Dict[str, Any]:
    """The json.dumps options under which ``data`` reproduces ``raw`` (nbformat's default
    of indent 1 and non-ASCII kept when none does)."""
    text = raw.decode("utf-8-sig")
    newline = text.endswith("\n")
    for options in _layout_candidates(text):
        if _dump(data, options, newline) == text:
            return {**options, "newline": newline}
    candidates = list(_layout_candidates(text))
    return {**candidates[0], "newline": newline}


def _as_source(old: Any, new: str) -> Any:
    """``new`` in the shape the notebook stored the old source in (a list of lines or a str)."""
    if isinstance(old, list):
        return new.splitlines(keepends=True)
    return new


def with_cells(path: str, raw: bytes, new_cell_sources: Mapping[int, str]) -> Optional[bytes]:
    """The notebook ``raw`` with the sources of the given cells (1-based numbers) replaced,
    or None when nothing changes.

    Only the ``source`` of those cells changes; outputs, metadata, key order, indentation,
    escaping and the trailing newline stay as they were.
    """
    data = json.loads(raw.decode("utf-8-sig"))
    layout = layout_of(raw, data)
    cells = data.get("cells", [])
    changed = False
    for number, source in new_cell_sources.items():
        if not 1 <= number <= len(cells):
            raise IndexError(f"{path}: no cell {number} (the notebook has {len(cells)})")
        cell = cells[number - 1]
        if cell.get("cell_type") != "code":
            raise ValueError(f"{path}: cell {number} is not a code cell")
        old = cell.get("source", "")
        old_text = "".join(old) if isinstance(old, list) else old
        if old_text == source:
            continue
        cell["source"] = _as_source(old, source)
        changed = True
    if not changed:
        return None
    newline = layout.pop("newline")
    text = _dump(data, layout, newline)
    bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
    return bom + text.encode("utf-8")


def write_cells(path: str, new_cell_sources: Mapping[int, str]) -> bool:
    """Replace the sources of the given cells and write the notebook back (see ``with_cells``).
    Returns whether the file changed."""
    raw = read_bytes(path)
    data = with_cells(path, raw, new_cell_sources)
    if data is None:
        return False
    _replace(path, data, raw)
    return True


def _replace(path: str, data: bytes, expected: bytes) -> None:
    """Write atomically, never through a link, keeping mode and owner (``dslint.writing``)."""
    from .writing import replace_file

    refusal = replace_file(path, data, expected)
    if refusal is not None:
        raise NotWritten(refusal)


class NotWritten(OSError):
    """The notebook was left as it is; the message says why."""


def write_text(path: str, new_text: str) -> bool:
    """Write an edited joined text (as ``NotebookSource.text`` was) back into its cells."""
    return write_cells(path, load(path).rebuild(new_text))


def fixed(source: "NotebookSource", new_text: str) -> "NotebookSource":
    """The notebook ``source`` would be once its joined text is ``new_text`` (nothing written)."""
    notebook = source.notebook
    data = with_cells(notebook.path, notebook.raw, notebook.rebuild(new_text))
    return source if data is None else NotebookSource(Notebook.parse(notebook.path, data))


def write_fixed(source: "NotebookSource", new_text: str) -> Optional[str]:
    """For the fixer: write the fixed joined text of ``source`` back into its notebook,
    unless the file changed since it was read. None when written, else why not."""
    notebook = source.notebook
    try:
        if read_bytes(notebook.path) != notebook.raw:
            return "it changed while dslint was fixing it"
    except OSError as exc:
        return f"cannot read it again: {exc.strerror or exc}"
    try:
        write_cells(notebook.path, notebook.rebuild(new_text))
    except NotWritten as exc:
        return str(exc)
    except (OSError, ValueError, IndexError, RecursionError) as exc:
        return f"cannot write it: {exc}"
    return None
