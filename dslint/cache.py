"""Per-file results cached across runs, like ruff's ``.ruff_cache``.

One pickle per (dslint version, analysis configuration) under ``.dslint_cache/`` at the
project root. An entry is reused when the file's stat (mtime, size) is unchanged, or when
its content hash still matches; cross-file facts are never cached, they are recomputed
from the per-file summaries on every run, so a change in one file reaches every finding
that depends on it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from typing import Dict, Optional, Tuple

from . import __version__

CACHE_DIR = ".dslint_cache"
Entry = Tuple[int, int, str, object]  # (mtime_ns, size, content hash, FileResult)


@functools.lru_cache(maxsize=None)
def code_fingerprint() -> str:
    """Stat of dslint's own modules: an edited analysis never reads summaries of the old one."""
    package = os.path.dirname(os.path.abspath(__file__))
    parts = []
    for folder, _, files in os.walk(package):
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                parts.append(f"{os.path.relpath(os.path.join(folder, name), package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.blake2b("\n".join(sorted(parts)).encode(), digest_size=8).hexdigest()


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class Cache:
    def __init__(self, root: str, key: str):
        self.folder = os.path.join(root, CACHE_DIR)
        self.path = os.path.join(self.folder, __version__, f"{key}.pickle")
        self.entries: Dict[str, Entry] = {}
        self.dirty = False

    @classmethod
    def open(cls, root: str, settings_key: str) -> "Cache":
        material = f"{__version__}|{code_fingerprint()}|{settings_key}"
        key = hashlib.blake2b(material.encode(), digest_size=8).hexdigest()
        cache = cls(root, key)
        try:
            with open(cache.path, "rb") as handle:
                cache.entries = pickle.load(handle)
        except Exception:  # missing, truncated or from another Python: start afresh
            cache.entries = {}
        return cache

    def lookup_stat(self, path: str) -> Optional[object]:
        entry = self.entries.get(os.path.abspath(path))
        if entry is None:
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        if entry[0] == stat.st_mtime_ns and entry[1] == stat.st_size:
            return entry[3]
        return None

    def lookup_hash(self, path: str, digest: str) -> Optional[object]:
        entry = self.entries.get(os.path.abspath(path))
        if entry is not None and entry[2] == digest:
            return entry[3]
        return None

    def store(self, path: str, digest: str, result: object) -> None:
        try:
            stat = os.stat(path)
        except OSError:
            return
        self.entries[os.path.abspath(path)] = (stat.st_mtime_ns, stat.st_size, digest, result)
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            ignore = os.path.join(self.folder, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w") as handle:
                    handle.write("# Automatically created by dslint.\n*\n")
                with open(os.path.join(self.folder, "CACHEDIR.TAG"), "w") as handle:
                    handle.write("Signature: 8a477f597d28d172789f06886806bc55\n")
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(self.path), suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(self.entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only tree still lints, it just is not cached
