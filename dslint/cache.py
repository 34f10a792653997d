"""What a run learnt, kept for the next one, like ruff's ``.ruff_cache``: plain data, never code.

A cloned repository is untrusted, and so is any cache folder in it. So the cache is one
file of plain JSON (``plaindata``), authenticated with a key that lives outside every
linted tree (in the user's cache folder, ``~/.cache/dslint/secret``): a file dslint did
not write itself on this machine, a corrupt one or one written under another schema is
ignored and rewritten. Nothing in it can execute, and nothing is read or written through
a symbolic link: a linked cache folder or file makes the run go uncached.

Layout: ``<cache dir>/<dslint version>/<key>`` (the key covers dslint's own code and the
analysis settings) beside ``.gitignore`` and ``CACHEDIR.TAG``. The file is a first line
``dslint-cache 2 <mac>`` and one JSON document: version, key, schema, one row per file
(stat, content hash, the small per-file result: pre-filter tier, imports, DSL001) and the
records of the last runs (what they read and what they found: see ``engine``). Summaries
are not kept: decoding one from JSON costs about twice what parsing its source does
(measured on the corpus), so a run that must analyse a file again parses it. A row is
reused when the file's stat (mtime, size) is unchanged, or when its content hash still
matches. Keys are paths relative to the project root, so a result does not depend on the
directory dslint runs from.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, Optional

from . import __version__, writing
from .digests import blake2b, compare_digest
from .paths import absolute
from .plaindata import Codec, Invalid

CACHE_DIR = ".dslint_cache"
MAGIC = b"dslint-cache 2 "
GITIGNORE = b"# Automatically created by dslint.\n*\n"
CACHEDIR_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# This folder is a cache of dslint.\n"
MAX_RUNS = 8  # run records kept (one per set of paths and options)
MAX_BYTES = 2 << 30  # a bigger file is not read (it could only be planted): rewritten instead


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
    return blake2b("\n".join(sorted(parts)).encode(), digest_size=8).hexdigest()


def content_hash(raw: bytes) -> str:
    return blake2b(raw, digest_size=16).hexdigest()


def warn(message: str) -> None:
    print(f"dslint: warning: {message}", file=sys.stderr)


# the key --------------------------------------------------------------------------------------
def secret_folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dslint")


@functools.lru_cache(maxsize=None)
def secret() -> Optional[bytes]:
    """This user's cache key, created on first use; None when it cannot be kept."""
    folder = secret_folder()
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        held = writing.open_folder(folder)
        try:
            writing.create_in(held, "secret", os.urandom(32).hex().encode(), mode=0o600)
            key = writing.read_in(held, "secret").strip()
        finally:
            writing.close_folder(held)
    except OSError:
        return None
    return key if len(key) >= 32 else None


def mac(key: bytes, data: bytes) -> str:
    return blake2b(data, key=key[:64], digest_size=16).hexdigest()


# the cache ------------------------------------------------------------------------------------
@dataclass
class Hit:
    """A cached row: the file's small result and its content hash."""

    head: Any
    digest: str


class Cache:
    def __init__(self, folder: str, base: str, key: str, codec: Codec, secret_key: bytes):
        self.folder = folder
        self.base = os.path.abspath(base)
        self.key = key
        self.codec = codec
        self.secret = secret_key
        self.name = __version__
        self.rows: Dict[str, list] = {}  # relative path -> [mtime_ns, size, digest, encoded head]
        self.heads: Dict[str, Any] = {}  # relative path -> decoded head (decoded on first lookup)
        self.runs: Dict[str, dict] = {}  # run key -> record (plain JSON, see ``engine``)
        self.dirty = False

    @property
    def path(self) -> str:
        return os.path.join(self.folder, self.name, self.key)

    @classmethod
    def open(cls, folder: str, base: str, settings_key: str, codec: Codec) -> Optional["Cache"]:
        """The cache in ``folder`` for files under ``base``; None (run uncached) when the
        folder or a file in it is a symbolic link, or there is no key to check it with."""
        material = f"{__version__}|{code_fingerprint()}|{settings_key}"
        key = blake2b(material.encode(), digest_size=8).hexdigest()
        secret_key = secret()
        if secret_key is None:
            warn(f"no key to check a cache with in {secret_folder()}; running without the cache")
            return None
        cache = cls(folder, base, key, codec, secret_key)
        try:
            raw = cache._read()
        except writing.Refused as exc:
            warn(f"{exc.filename}: {exc.strerror}; running without the cache")
            return None
        except OSError:
            raw = None
        if raw is not None and not cache._load(raw):
            cache.dirty = True  # corrupt, hostile or from another schema: rewrite it
        return cache

    # reading --------------------------------------------------------------------------------
    def _read(self) -> Optional[bytes]:
        """The data file's bytes (None when there is none yet); Refused on any link."""
        if os.path.islink(self.folder):
            raise writing.Refused(0, "the cache folder is a symbolic link", self.folder)
        if not os.path.isdir(self.folder):
            return None
        top = writing.open_folder(self.folder)
        try:
            for name in (".gitignore", "CACHEDIR.TAG", self.name):
                if writing.is_link_in(top, name):
                    raise writing.Refused(0, "is a symbolic link", os.path.join(self.folder, name))
            try:
                inner = writing.open_folder(self.name, top)
            except FileNotFoundError:
                return None
            try:
                if writing.is_link_in(inner, self.key):
                    raise writing.Refused(0, "is a symbolic link", self.path)
                if writing.stat_in(inner, self.key).st_size > MAX_BYTES:
                    return b""
                return writing.read_in(inner, self.key)
            except FileNotFoundError:
                return None
            finally:
                writing.close_folder(inner)
        finally:
            writing.close_folder(top)

    def _load(self, raw: bytes) -> bool:
        """Take the rows of ``raw``; False when it is not a file this machine's dslint wrote."""
        first, _, rest = raw.partition(b"\n")
        if not first.startswith(MAGIC) or not compare_digest(
            first[len(MAGIC):].decode("ascii", "replace"), mac(self.secret, rest)
        ):
            return False
        try:
            meta = json.loads(rest)
            if (
                not isinstance(meta, dict)
                or meta.get("version") != __version__
                or meta.get("key") != self.key
                or meta.get("schema") != self.codec.schema()
                or not isinstance(meta.get("rows"), dict)
                or not isinstance(meta.get("runs"), dict)
            ):
                return False
            for row in meta["rows"].values():
                if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], int)
                        and isinstance(row[1], int) and isinstance(row[2], str)):
                    return False
            if not all(isinstance(record, dict) for record in meta["runs"].values()):
                return False
        except (ValueError, TypeError, RecursionError):
            return False
        self.rows = meta["rows"]
        self.runs = meta["runs"]
        return True

    def head(self, relative: str) -> Optional[Any]:
        """The decoded small result of a row (None, and the file rewritten, when it is not valid)."""
        head = self.heads.get(relative)
        if head is None:
            try:
                head = self.heads[relative] = self.codec.decode(self.rows[relative][3])
            except (Invalid, RecursionError):
                self.dirty = True
                return None
        return head

    def relative(self, path: str) -> str:
        full = absolute(path)
        if full.startswith(self.base + os.sep):
            return full[len(self.base) + 1:].replace(os.sep, "/")  # relpath of a normalised path
        return full

    def unchanged(self, path: str) -> Optional[str]:
        """The content hash of ``path`` when its stat matches its row (no read), else None."""
        row = self.rows.get(self.relative(path))
        return row[2] if row is not None and self._same_stat(path, row) else None

    @staticmethod
    def _same_stat(path: str, row: list) -> bool:
        try:
            info = os.stat(path)
        except OSError:
            return False
        return (row[0], row[1]) == (info.st_mtime_ns, info.st_size)

    def lookup(self, path: str, digest: Optional[str] = None) -> Optional[Hit]:
        """The entry of ``path`` if its stat (or, given ``digest``, its content) is unchanged."""
        relative = self.relative(path)
        row = self.rows.get(relative)
        if row is None or (row[2] != digest if digest is not None else not self._same_stat(path, row)):
            return None
        head = self.head(relative)
        return Hit(head, row[2]) if head is not None else None

    # writing --------------------------------------------------------------------------------
    def touch(self, path: str) -> None:
        """Record the current stat of ``path``, whose content matched its entry."""
        relative = self.relative(path)
        try:
            info = os.stat(path)
        except OSError:
            return
        row = self.rows.get(relative)
        if row is not None and (row[0], row[1]) != (info.st_mtime_ns, info.st_size):
            self.rows[relative] = [info.st_mtime_ns, info.st_size, *row[2:]]
            self.dirty = True

    def store(self, path: str, digest: str, head: Any) -> None:
        """Remember the small result of a file whose content hashes to ``digest``."""
        try:
            info = os.stat(path)
            encoded = self.codec.encode(head)
        except (OSError, TypeError, ValueError, RecursionError):
            return  # not cacheable: computed again next time
        relative = self.relative(path)
        self.rows[relative] = [info.st_mtime_ns, info.st_size, digest, encoded]
        self.heads[relative] = head
        self.dirty = True

    # run records ----------------------------------------------------------------------------
    def run(self, key: str) -> Optional[dict]:
        return self.runs.get(key)

    def store_run(self, key: str, record: dict) -> None:
        """Keep ``record`` (plain JSON) as the last run under ``key``; the oldest go."""
        self.runs.pop(key, None)
        self.runs[key] = record
        while len(self.runs) > MAX_RUNS:
            del self.runs[next(iter(self.runs))]
        self.dirty = True

    def _serialise(self) -> bytes:
        document = {"version": __version__, "key": self.key, "schema": self.codec.schema(), "rows": self.rows,
                    "runs": self.runs}
        rest = json.dumps(document, separators=(",", ":")).encode()
        return MAGIC + mac(self.secret, rest).encode() + b"\n" + rest

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            data = self._serialise()
            os.makedirs(os.path.dirname(os.path.abspath(self.folder)), exist_ok=True)
            try:
                os.mkdir(self.folder)
            except FileExistsError:
                pass
            top = writing.open_folder(self.folder)
            try:
                writing.create_in(top, ".gitignore", GITIGNORE)
                writing.create_in(top, "CACHEDIR.TAG", CACHEDIR_TAG)
                writing.make_folder(top, self.name)
                inner = writing.open_folder(self.name, top)
                try:
                    writing.replace_in(inner, self.key, data, mode=0o600, durable=False)
                finally:
                    writing.close_folder(inner)
            finally:
                writing.close_folder(top)
        except (OSError, TypeError, ValueError, RecursionError):
            pass  # a read-only tree still lints, it just is not cached
