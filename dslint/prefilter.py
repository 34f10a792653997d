"""The byte-level pre-filter: which files the analysis summarises up front.

Most files of a repository never touch data loading. Files are sorted into three tiers
by the words their bytes contain:

- **seed**: words only data-loading code has (``DataLoader``, ``Dataset``,
  ``num_workers``, ``cv2``, ``multiprocessing``, a handle constructor...): summarised;
- **candidate**: words code that *handles* loaders or batches has (``loader``,
  ``.cuda(``, ``non_blocking``, ``dataset``), or a call statement at module level (a
  ``run.py`` doing ``from train import main`` then ``main()``): summarised only when an
  import connects it to a seed (a train loop in ``engine.py`` called with a loader built
  in ``main.py``);
- the rest: summarised on demand, when the resolver needs a definition from it.

The imports of every file are read here without a parse (a regular expression over its
import lines), to connect the tiers.
"""

from __future__ import annotations

import re
from typing import List, Tuple

SEED_WORDS = (
    b"DataLoader", b"Dataset", b"num_workers", b"collate_fn", b"worker_init_fn", b"pin_memory",
    b"persistent_workers", b"prefetch_factor", b"cv2", b"multiprocessing", b"ProcessPoolExecutor",
    b"set_start_method", b"VideoCapture", b"h5py", b"lmdb", b"sqlite3", b"tarfile", b"zipfile", b"truetype",
    b"__getitem__", b"__iter__", b"DataPipe", b"Sampler", b"create_loader", b"WebLoader", b"TrainingArguments",
    b"set_epoch", b"setNumThreads", b"set_num_threads",
    # training-library entry points and frameworks that build or manage loaders
    b"Trainer", b"YOLO", b"RTDETR", b"Runner", b"Accelerator", b"LightningModule", b"LightningDataModule",
)
CANDIDATE_WORDS = (b"oader", b".cuda(", b"non_blocking", b"ataset", b"worker")

SEED, CANDIDATE, SKIP = "seed", "candidate", "skip"


# a call statement at module level (``main()``, ``fire.Fire(main)``, ``sys.exit(main())``)
_CALL_AT_IMPORT = re.compile(rb"\n(?!(?:if|print|assert|del|raise|return)\b)[A-Za-z_][\w.]*\(")


def tier(raw: bytes, extra_words=()) -> str:
    if any(word in raw for word in SEED_WORDS) or any(word in raw for word in extra_words):
        return SEED
    if any(word in raw for word in CANDIDATE_WORDS) or calls_at_import(raw):
        return CANDIDATE
    return SKIP


def calls_at_import(raw: bytes) -> bool:
    """Whether a line starts with a call (what runs when the module is imported or run)."""
    return _CALL_AT_IMPORT.search(raw) is not None or _CALL_AT_IMPORT.match(b"\n" + raw[:200]) is not None


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n#;]+)"
    r"|import[ \t]+(?P<modules>[^\n#;]+))",
    re.MULTILINE,
)


def imported_modules(text: str) -> Tuple[str, ...]:
    """Dotted names a file imports, read from its import lines without a parse.

    Relative imports keep their leading dots (``..data.x``); ``from a import b`` gives both
    ``a`` and ``a.b`` (b may be a module). Only connects the tiers: name resolution never
    uses it.
    """
    found: List[str] = []
    for match in _IMPORT.finditer(text):
        if match.group("modules"):
            for part in match.group("modules").split(","):
                name = part.strip().split(" as ")[0].strip()
                if name:
                    found.append(name)
            continue
        base = match.group("base")
        found.append(base)
        for part in match.group("names").strip("()").split(","):
            name = part.strip().split(" as ")[0].strip()
            if name and name != "*" and name.isidentifier():
                found.append(f"{base}.{name}" if not base.endswith(".") else f"{base}{name}")
    return tuple(dict.fromkeys(found))
