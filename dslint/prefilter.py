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
- **script**: a module-level statement that uses a call's result (``model = fit(cfg)``,
  ``print(fit(cfg))``): summarised only when it imports a summarised file itself and no
  file imports it (an entry script; library modules assign calls' results everywhere:
  ``T = TypeVar("T")``);
- the rest: summarised on demand, when the resolver needs a definition from it.

Words count in the code, not in its prose: a file whose loader words are all in comments
and triple-quoted strings (docstrings) is tiered as if they were not there. One-line
strings count (``add_argument("--dataset")`` names an option the code reads).

The imports of every file are read here without a parse (a regular expression over its
import lines), to connect the tiers.
"""

from __future__ import annotations

import bisect
import re
from typing import List, Optional, Sequence, Set, Tuple

SEED_WORDS = (
    b"DataLoader", b"Dataset", b"num_workers", b"collate_fn", b"worker_init_fn", b"pin_memory",
    b"persistent_workers", b"prefetch_factor", b"cv2", b"multiprocessing", b"ProcessPoolExecutor",
    b"set_start_method", b"VideoCapture", b"h5py", b"lmdb", b"sqlite3", b"tarfile", b"zipfile", b"truetype",
    b"__getitem__", b"__iter__", b"DataPipe", b"Sampler", b"create_loader", b"WebLoader", b"TrainingArguments",
    b"set_epoch", b"setNumThreads", b"set_num_threads", b"num_proc",
    # training-library entry points and frameworks that build or manage loaders
    b"Trainer", b"YOLO", b"RTDETR", b"Runner", b"Accelerator", b"LightningModule", b"LightningDataModule",
    b"LightningCLI",
)
CANDIDATE_WORDS = (b"oader", b".cuda(", b"non_blocking", b"ataset", b"worker")

SEED, CANDIDATE, SCRIPT, SKIP = "seed", "candidate", "script", "skip"

# Searching bytes for a word costs about the same whatever the word, and most files hold
# none of them, so every word is searched in most files. A word is looked for only when a
# part it shares with others (its gate) is there: the same answer for fewer searches.
_GATES = (b"oader", b"ataset", b"worker", b"rocess", b"Train", b"Lightning", b"set_")


def _gated(words) -> Tuple[Tuple[bytes, Tuple[bytes, ...]], ...]:
    """(gate, the words it holds) for each gate, then (word, (word,)) for the words no gate holds."""
    groups = [(gate, tuple(w for w in words if gate in w)) for gate in _GATES]
    groups = [(gate, members) for gate, members in groups if members]
    gated = {w for _, members in groups for w in members}
    return tuple(groups) + tuple((w, (w,)) for w in words if w not in gated)


_SEED_GROUPS = _gated(SEED_WORDS)


# a call statement at module level (``main()``, ``fire.Fire(main)``, ``sys.exit(main())``)
_CALL_AT_IMPORT = re.compile(rb"\n(?!(?:if|print|assert|del|raise|return)\b)[A-Za-z_][\w.]*\(")
# a module-level statement that uses a call's result: an assignment (``model = fit(cfg)``,
# ``a, b = trainer.fit(cfg)``, ``n += f()``) or a ``print`` (``print(fit(cfg))``); not a
# block's head (a guard, a loop, a ``with``), a definition, an import, an assert, nor the
# logger nearly every library module makes (``logger = get_logger(__name__)``)
_RESULT_AT_IMPORT = re.compile(
    rb"\n(?!(?:if|elif|else|while|for|with|try|except|finally|def|class|async|import|from|print|assert|del|raise"
    rb"|return|lambda)\b|(?:_?logger|LOGGER|_?log)[ \t]*[:=])[A-Za-z_][^\n(#'\"]*\w\("
    rb"|\nprint\([^\n#]*?[A-Za-z_][\w.]*\(")


# the candidate words that are also gates: their search for the seed words already answered
_GATED_CANDIDATES = tuple(word for word in CANDIDATE_WORDS if word in {gate for gate, _ in _SEED_GROUPS})
_OTHER_CANDIDATES = tuple(word for word in CANDIDATE_WORDS if word not in _GATED_CANDIDATES)


def tier(raw: bytes, extra_words=()) -> str:
    seed, gates = _seed_search(raw)
    if seed is not None or any(word in raw for word in extra_words):
        first = (seed,) if seed is not None else ()  # the word found: judged first, not searched again
        if _in_code(raw, first + tuple(word for word in SEED_WORDS + tuple(extra_words) if word != seed)):
            return SEED
        gates = {word for word in _GATED_CANDIDATES if word in raw}  # the search stopped at the seed word
    if calls_at_import(raw) or (_holds_candidate_word(raw, gates) and _in_code(raw, CANDIDATE_WORDS)):
        return CANDIDATE
    if _starts_line(_RESULT_AT_IMPORT, raw):
        return SCRIPT
    return SKIP


def _holds_candidate_word(raw: bytes, gates: Set[bytes]) -> bool:
    return any(word in gates for word in _GATED_CANDIDATES) or any(word in raw for word in _OTHER_CANDIDATES)


def _in_code(raw: bytes, words: Sequence[bytes]) -> bool:
    """Whether one of ``words`` is in the code, not only in its prose (comments and
    triple-quoted strings): a model file whose docstring says "pretrained on the COCO
    dataset" handles no loader, and summarising the hundreds of such files a model library
    holds cost more than the rest of its analysis. A one-line string is code here:
    ``add_argument("--dataset", ...)`` names an option the code reads. Occurrences are
    judged one by one, so a word in the code near the top (an import) answers at once."""
    if len(raw) > MAX_PROSE_BYTES:
        return any(word in raw for word in words)
    bounds: Optional[List[int]] = None
    judged = 0
    for word in words:
        at = raw.find(word)
        while at >= 0:
            judged += 1
            if judged > MAX_PROSE_OCCURRENCES:
                return True  # too many to judge one by one: taken for code, as every word was before
            if bounds is None:
                bounds = _long_strings(raw)
            if bisect.bisect_right(bounds, at) % 2 == 0 and not _commented(raw, at):
                return True
            at = raw.find(word, at + len(word))
    return False


MAX_PROSE_BYTES = 2 << 20  # a bigger file (generated data) has its words taken for code
MAX_PROSE_OCCURRENCES = 400  # each costs a look back to its line's start


_TRIPLE_QUOTES = re.compile(rb"\"\"\"|'''")


def _long_strings(raw: bytes) -> List[int]:
    """Where the triple-quoted strings start and end, in order: a position is inside one when
    an odd number of these are at or before it. (A triple quote inside a one-line string
    or a comment is rare enough to be taken at its word.)"""
    bounds: List[int] = []
    inside = b""
    for match in _TRIPLE_QUOTES.finditer(raw):
        quote = match.group()
        if not inside:
            inside = quote
            bounds.append(match.start())
        elif quote == inside:
            inside = b""
            bounds.append(match.end())
    return bounds


def _commented(raw: bytes, at: int) -> bool:
    """Whether ``at`` follows a ``#`` on its line that no open quote holds (an even number of
    each quote before it; a ``#`` after an odd count of either is taken for a string's, and
    the word for code)."""
    start = raw.rfind(b"\n", 0, at) + 1
    mark = raw.find(b"#", start, at)
    while mark >= 0:
        before = raw[start:mark].replace(b"\\\\", b"").replace(b"\\'", b"").replace(b'\\"', b"")  # escapes quote nothing
        if before.count(b'"') % 2 == 0 and before.count(b"'") % 2 == 0:
            return True
        mark = raw.find(b"#", mark + 1, at)
    return False


def _seed_search(raw: bytes) -> Tuple[Optional[bytes], Set[bytes]]:
    """The first seed word ``raw`` holds (None: none), and (when it holds none) the gates it
    holds: each search reads the whole file, and most files hold no seed word, so a gate's
    answer is kept for the candidate words that are gates too (``oader``, ``ataset``,
    ``worker``)."""
    found: Set[bytes] = set()
    for gate, members in _SEED_GROUPS:
        if gate in raw:
            found.add(gate)
            for word in members:
                if word in raw:
                    return word, found
    return None, found


def calls_at_import(raw: bytes) -> bool:
    """Whether a line starts with a call (what runs when the module is imported or run)."""
    return _starts_line(_CALL_AT_IMPORT, raw)


def _starts_line(pattern: "re.Pattern[bytes]", raw: bytes) -> bool:
    """Whether ``pattern`` (which begins with a newline) matches at the start of a line."""
    return pattern.search(raw) is not None or pattern.match(b"\n" + raw[:200]) is not None


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
    for match in _import_lines(text):
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


def _import_lines(text: str):
    """``_IMPORT.finditer(text)``, tried only at the start of the lines that hold "import"
    (every import statement's first line does): the same matches, without trying the
    pattern at every position of the file (measured: 6x faster)."""
    end = 0  # where the last match ended: a line starting before it is part of that statement
    at = text.find("import")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if start >= end:
            match = _IMPORT.match(text, start)
            if match is not None:
                yield match
            end = match.end() if match is not None else start + 1
        at = text.find("import", at + 6)
