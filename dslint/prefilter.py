"""The byte-level pre-filter: which aspects of analysis a file can possibly need.

Most files of a repository never touch data loading. A file whose bytes contain none of
an aspect's trigger words cannot produce a finding of the rules that aspect serves, so
that part of the analysis (or the whole parse) is skipped. Files skipped here are still
summarised on demand when the project index needs them (a base class, an import chain).
"""

from __future__ import annotations

import re
from typing import FrozenSet, List, Tuple

LOADER_WORDS = (
    b"DataLoader", b"num_workers", b"collate_fn", b"worker_init_fn", b"pin_memory",
    b"persistent_workers", b"prefetch_factor",
)
PROCESS_WORDS = (b"multiprocessing", b"ProcessPoolExecutor")
HANDLE_WORDS = (b"VideoCapture", b"h5py", b"lmdb", b"sqlite3", b"tarfile", b"zipfile", b"truetype")

ALL: FrozenSet[str] = frozenset({"loaders", "processes", "cv2", "handles", "classes", "throttle"})


def aspects(raw: bytes) -> FrozenSet[str]:
    found = set()
    if any(word in raw for word in LOADER_WORDS):
        found.add("loaders")
    if any(word in raw for word in PROCESS_WORDS):
        found.add("processes")
    if b"cv2" in raw:
        found.add("cv2")
        found.add("classes")
    if b"setNumThreads" in raw:
        found.add("throttle")
    if any(word in raw for word in HANDLE_WORDS):
        found.add("handles")
        found.add("classes")
    if b"Dataset" in raw and (b"lambda" in raw or b"open(" in raw):
        found.add("classes")
        if b"open(" in raw:
            found.add("handles")
    return frozenset(found)


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n#;]+)"
    r"|import[ \t]+(?P<modules>[^\n#;]+))",
    re.MULTILINE,
)


def imported_modules(text: str, module: str, is_package: bool) -> Tuple[str, ...]:
    """Import names of a file, read from its import lines without a parse.

    Only feeds the import graph (which project modules run when another is imported);
    name resolution never uses it.
    """
    from .analysis.scopes import resolve_relative

    found: List[str] = []
    for match in _IMPORT.finditer(text):
        if match.group("modules"):
            for part in match.group("modules").split(","):
                name = part.strip().split(" as ")[0].strip()
                if name:
                    found.append(name)
            continue
        base = match.group("base")
        level = len(base) - len(base.lstrip("."))
        base = base.lstrip(".")
        if level:
            base = resolve_relative(module, is_package, level, base or None)
        if base:
            found.append(base)
            for part in match.group("names").strip("()").split(","):
                name = part.strip().split(" as ")[0].strip()
                if name and name != "*" and name.isidentifier():
                    found.append(f"{base}.{name}")
    return tuple(dict.fromkeys(found))
