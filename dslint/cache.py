"""Per-file results cached across runs, like ruff's ``.ruff_cache``: plain data, never code.

A cloned repository is untrusted, and so is any cache folder in it. So the cache is one
file of plain JSON (``plaindata``), authenticated with a key that lives outside every
linted tree (in the user's cache folder, ``~/.cache/dslint/secret``): a file dslint did
not write itself on this machine, a corrupt one or one written under another schema is
ignored and rewritten. Nothing in it can execute, and nothing is read or written through
a symbolic link: a linked cache folder or file makes the run go uncached.

Layout: ``<cache dir>/<dslint version>/<key>`` (the key covers dslint's own code and the
analysis settings) beside ``.gitignore`` and ``CACHEDIR.TAG``. The file is a first line
``dslint-cache 1 <mac>``, a JSON header (version, key, schema, one row per file: stat,
content hash, the small part of the result, where its large part lies and its mac), then
the large parts, each a JSON document decoded only when a run needs it. An entry is
reused when the file's stat (mtime, size) is unchanged, or when its content hash still
matches. Keys are paths relative to the project root, so a result does not depend on the
directory dslint runs from.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from . import __version__, writing
from .plaindata import Codec, Invalid

CACHE_DIR = ".dslint_cache"
MAGIC = b"dslint-cache 1 "
GITIGNORE = b"# Automatically created by dslint.\n*\n"
CACHEDIR_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# This folder is a cache of dslint.\n"
NO_BODY = -1
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
    return hashlib.blake2b("\n".join(sorted(parts)).encode(), digest_size=8).hexdigest()


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


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
    return hashlib.blake2b(data, key=key[:64], digest_size=16).hexdigest()


# the cache ------------------------------------------------------------------------------------
@dataclass
class Hit:
    """A cached entry: its small part, and the large one decoded on demand."""

    head: Any
    _cache: "Cache"
    _path: str  # relative, the key of its row

    def body(self) -> Optional[Any]:
        """The large part (None when there is none, or it does not check out)."""
        return self._cache.body(self._path)


class Cache:
    def __init__(self, folder: str, base: str, key: str, codec: Codec, secret_key: bytes):
        self.folder = folder
        self.base = os.path.abspath(base)
        self.key = key
        self.codec = codec
        self.secret = secret_key
        self.name = __version__
        self.rows: Dict[str, tuple] = {}  # relative path -> (mtime_ns, size, digest, head, offset, length, mac)
        self.data = b""  # the large parts of the file read
        self.fresh: Dict[str, Tuple[Any, bytes, Any]] = {}  # relative path -> (encoded head, encoded body, body)
        self.dirty = False

    @property
    def path(self) -> str:
        return os.path.join(self.folder, self.name, self.key)

    @classmethod
    def open(cls, folder: str, base: str, settings_key: str, codec: Codec) -> Optional["Cache"]:
        """The cache in ``folder`` for files under ``base``; None (run uncached) when the
        folder or a file in it is a symbolic link, or there is no key to check it with."""
        material = f"{__version__}|{code_fingerprint()}|{settings_key}"
        key = hashlib.blake2b(material.encode(), digest_size=8).hexdigest()
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
        if not first.startswith(MAGIC) or not hmac.compare_digest(
            first[len(MAGIC):].decode("ascii", "replace"), mac(self.secret, rest)
        ):
            return False
        header, _, data = rest.partition(b"\n")
        try:
            meta = json.loads(header)
            if (
                not isinstance(meta, dict)
                or meta.get("version") != __version__
                or meta.get("key") != self.key
                or meta.get("schema") != self.codec.schema()
                or not isinstance(meta.get("rows"), dict)
            ):
                return False
            rows = {}
            for path, row in meta["rows"].items():
                mtime, size, digest, head, offset, length, body_mac = row
                if not (isinstance(mtime, int) and isinstance(size, int) and isinstance(digest, str)
                        and isinstance(offset, int) and isinstance(length, int) and isinstance(body_mac, str)
                        and (offset == NO_BODY or 0 <= offset <= offset + length <= len(data))):
                    return False
                rows[path] = (mtime, size, digest, self.codec.decode(head), offset, length, body_mac)
        except (ValueError, TypeError, Invalid, RecursionError):
            return False
        self.rows = rows
        self.data = data
        return True

    def body(self, relative: str) -> Optional[Any]:
        if relative in self.fresh:
            return self.fresh[relative][2]
        offset, length, body_mac = self.rows[relative][4:]
        if offset == NO_BODY:
            return None
        blob = self.data[offset : offset + length]
        if not hmac.compare_digest(mac(self.secret, blob), body_mac):
            self.dirty = True
            return None
        try:
            return self.codec.decode(json.loads(blob))
        except (ValueError, Invalid, RecursionError):
            self.dirty = True
            return None

    def relative(self, path: str) -> str:
        absolute = os.path.abspath(path)
        if absolute.startswith(self.base + os.sep):
            return os.path.relpath(absolute, self.base).replace(os.sep, "/")
        return absolute

    def lookup(self, path: str, digest: Optional[str] = None) -> Optional[Hit]:
        """The entry of ``path`` if its stat (or, given ``digest``, its content) is unchanged."""
        relative = self.relative(path)
        row = self.rows.get(relative)
        if row is None:
            return None
        if digest is None:
            try:
                info = os.stat(path)
            except OSError:
                return None
            if (row[0], row[1]) != (info.st_mtime_ns, info.st_size):
                return None
        elif row[2] != digest:
            return None
        return Hit(row[3], self, relative)

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
            self.rows[relative] = (info.st_mtime_ns, info.st_size, *row[2:])
            self.dirty = True

    def store(self, path: str, digest: str, head: Any, body: Any = None) -> None:
        """Remember a result: ``head`` is read on every lookup, ``body`` only on demand."""
        try:
            info = os.stat(path)
            encoded_head = self.codec.encode(head)
            blob = b"" if body is None else json.dumps(self.codec.encode(body), separators=(",", ":")).encode()
        except (OSError, TypeError, ValueError, RecursionError):
            return  # not cacheable: computed again next time
        relative = self.relative(path)
        self.rows[relative] = (info.st_mtime_ns, info.st_size, digest, head, NO_BODY, 0, "")
        self.fresh[relative] = (encoded_head, blob, body)
        self.dirty = True

    def _serialise(self) -> bytes:
        rows: Dict[str, list] = {}
        parts: List[bytes] = []
        offset = 0
        for path, row in self.rows.items():
            mtime, size, digest, head = row[:4]
            if path in self.fresh:
                encoded_head, blob, _ = self.fresh[path]
            else:
                encoded_head = self.codec.encode(head)
                blob = b"" if row[4] == NO_BODY else self.data[row[4] : row[4] + row[5]]
            if blob:
                rows[path] = [mtime, size, digest, encoded_head, offset, len(blob), mac(self.secret, blob)]
                parts.append(blob)
                offset += len(blob)
            else:
                rows[path] = [mtime, size, digest, encoded_head, NO_BODY, 0, ""]
        header = {"version": __version__, "key": self.key, "schema": self.codec.schema(), "rows": rows}
        rest = json.dumps(header, separators=(",", ":")).encode() + b"\n" + b"".join(parts)
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
                    writing.replace_in(inner, self.key, data, mode=0o600)
                finally:
                    writing.close_folder(inner)
            finally:
                writing.close_folder(top)
        except (OSError, TypeError, ValueError, RecursionError):
            pass  # a read-only tree still lints, it just is not cached
