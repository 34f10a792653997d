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

# Issue 6 (the catalogue beyond the core six): code workers run, set_start_method, trainers.
WORKER_METHOD_WORDS = (b"__getitem__", b"__iter__")
CUDA_THREAD_WORDS = (b"cuda", b"set_num_threads", b"threadpool_limits")
RNG_WORDS = (b"default_rng", b"RandomState", b"Generator(", b"Random(")
ITERABLE_WORDS = (b"IterableDataset", b"IterDataPipe")
WORKER_FN_WORDS = (b"cuda", b"set_num_threads", b"seed", b"threadpool_limits", b"worker_info")

ALL: FrozenSet[str] = frozenset(
    {"loaders", "processes", "cv2", "handles", "classes", "throttle", "workercode", "startmethod", "trainer"}
)
_trainer_triggers: dict = {}


def _trainer_words():
    """((class bytes, ((package bytes, ".method(" bytes), ...)), ...) for the entry-point table."""
    from .analysis.names import split_entry_point, trainer_entry_points

    entries = trainer_entry_points()
    if entries not in _trainer_triggers:
        by_class: dict = {}
        for entry in entries:
            package, cls, method = split_entry_point(entry)
            by_class.setdefault(cls.encode(), []).append((package.encode(), f".{method}(".encode()))
        # scan a class name once: "YOLOWorld" is only looked for where "YOLO" was found
        classes = sorted(by_class, key=len)
        triggers = []
        for cls in classes:
            shorter = next((c for c in classes if len(c) < len(cls) and c in cls), None)
            triggers.append((cls, shorter, tuple(by_class[cls])))
        _trainer_triggers.clear()
        _trainer_triggers[entries] = tuple(triggers)
    return _trainer_triggers[entries]


def _extra_aspects(raw: bytes, found: set, has_dataset: bool) -> None:
    """Issue 6 aspects. Most files pay only the trainer scans: the rest is gated on words
    already found (``Dataset``, the loader words, ``multiprocessing``)."""
    if has_dataset or "loaders" in found:
        has_getitem = b"__getitem__" in raw
        has_iter = b"__iter__" in raw
        in_worker_methods = has_getitem or has_iter
        if (
            (in_worker_methods and any(w in raw for w in CUDA_THREAD_WORDS))
            or (in_worker_methods and any(w in raw for w in RNG_WORDS))
            or (has_iter and any(w in raw for w in ITERABLE_WORDS))
            or ("loaders" in found and (has_getitem or any(w in raw for w in WORKER_FN_WORDS)))
        ):
            found.add("workercode")
    if "processes" in found and b"set_start_method" in raw:
        found.add("startmethod")
    absent = set()
    for cls, shorter, pairs in _trainer_words():
        if shorter in absent or cls not in raw:
            absent.add(cls)
            continue
        if any(package in raw and method in raw for package, method in pairs):
            found.update(("trainer", "processes"))
            break


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
    has_dataset = b"Dataset" in raw
    if has_dataset and (b"lambda" in raw or b"open(" in raw):
        found.add("classes")
        if b"open(" in raw:
            found.add("handles")
    _extra_aspects(raw, found, has_dataset)
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
