"""Writing into a linted tree without ever leaving it: no symlink is followed, writes are atomic.

Every file dslint writes (a fixed source, a notebook, the cache) is written here: opened
relative to its folder with ``O_NOFOLLOW``, as a new temporary file that is renamed over
the old one, keeping the old file's mode, owner and group. A symbolic link, a read-only
file or a folder that cannot be written is refused with a reason, never an exception.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Any, Dict, Optional, Tuple, Union

from . import sourcefile

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
DIRECTORY = getattr(os, "O_DIRECTORY", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Where the system can, a folder is held open and its entries named relative to it (so a
# folder swapped for a link meanwhile is not followed); elsewhere (Windows) by its path.
AT = NOFOLLOW != 0 and all(f in os.supports_dir_fd for f in (os.open, os.stat, os.mkdir, os.rename, os.unlink))
Folder = Union[int, str]  # an open descriptor, or a path where descriptors are not supported


def _at(folder: Folder, name: str) -> Tuple[str, Dict[str, Any]]:
    """``name`` in ``folder`` as (path, keyword arguments) for the ``os`` functions."""
    if isinstance(folder, int):
        return name, {"dir_fd": folder}
    return os.path.join(folder, name), {}


def close_folder(folder: Folder) -> None:
    if isinstance(folder, int):
        os.close(folder)


class Refused(OSError):
    """A write (or a read of dslint's own files) that would go through a link, or cannot be done."""


def is_link_error(exc: OSError) -> bool:
    """``O_NOFOLLOW`` on a link fails with ELOOP (EMLINK on some BSDs)."""
    return exc.errno in (errno.ELOOP, errno.EMLINK)


def open_folder(path: str, parent: Optional[Folder] = None) -> Folder:
    """The folder ``path`` (in ``parent``), to name files in; Refused when it is a link."""
    if not AT:
        full = path if parent is None else os.path.join(str(parent), path)
        if not os.path.lexists(full):
            raise FileNotFoundError(errno.ENOENT, "no such folder", full)
        if os.path.islink(full) or not os.path.isdir(full):
            raise Refused(errno.ELOOP, "is a symbolic link or not a folder", full)
        return full
    try:
        return os.open(path, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC, dir_fd=parent)
    except OSError as exc:
        if is_link_error(exc) or exc.errno == errno.ENOTDIR:
            raise Refused(exc.errno, "is a symbolic link or not a folder", path) from None
        raise


def make_folder(folder: Folder, name: str) -> None:
    path, at = _at(folder, name)
    try:
        os.mkdir(path, **at)
    except FileExistsError:
        pass


def is_link_in(folder: Folder, name: str) -> bool:
    path, at = _at(folder, name)
    try:
        return stat.S_ISLNK(os.stat(path, follow_symlinks=False, **at).st_mode)
    except FileNotFoundError:
        return False


def stat_in(folder: Folder, name: str) -> os.stat_result:
    path, at = _at(folder, name)
    return os.stat(path, follow_symlinks=False, **at)


def read_in(folder: Folder, name: str) -> bytes:
    """The bytes of ``name`` in ``folder``, never through a link."""
    path, at = _at(folder, name)
    if not NOFOLLOW and is_link_in(folder, name):
        raise OSError(errno.ELOOP, "is a symbolic link", path)
    fd = os.open(path, os.O_RDONLY | NOFOLLOW | CLOEXEC | getattr(os, "O_BINARY", 0), **at)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def create_in(folder: Folder, name: str, data: bytes, mode: int = 0o644) -> None:
    """Create ``name`` with ``data`` unless something (a file, a link) is already there."""
    path, at = _at(folder, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, mode, **at)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def replace_in(folder: Folder, name: str, data: bytes, mode: int = 0o644,
               owner: Optional[tuple] = None, durable: bool = True) -> None:
    """Atomically make ``name`` hold ``data``: a new file beside it, then a rename.

    The rename replaces a link at ``name`` by the new file, never writing through it.
    ``owner``: (uid, gid) the new file must keep; PermissionError when that is not possible.
    ``durable``: the data reaches the disk before the rename (a fixed source file); the cache
    skips it, as a cache that a crash leaves torn fails its check and is written again.
    """
    temp, at = _at(folder, f".dslint-{os.urandom(6).hex()}.tmp")
    target, _ = _at(folder, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o600, **at)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            if owner is not None and hasattr(os, "fchown"):
                info = os.fstat(handle.fileno())
                if (info.st_uid, info.st_gid) != owner:
                    os.fchown(handle.fileno(), *owner)  # before chmod: chown clears set-id bits
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)
        if not hasattr(os, "fchmod"):
            os.chmod(temp, mode)
        if isinstance(folder, int):
            os.replace(temp, target, src_dir_fd=folder, dst_dir_fd=folder)
        else:
            os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp, **at)
        except OSError:
            pass
        raise


def _writable(info: os.stat_result) -> bool:
    """Whether the file's mode lets its owner class write it. Root can write anything, but
    a file its owner made read-only is left alone, as ruff does."""
    if not info.st_mode & 0o222:
        return False
    if not hasattr(os, "geteuid") or os.geteuid() == 0:
        return True
    if info.st_uid == os.geteuid():
        return bool(info.st_mode & stat.S_IWUSR)
    return bool(info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def replace_file(path: str, data: bytes, expected: bytes) -> Optional[str]:
    """Replace the bytes of the regular file ``path`` with ``data`` unless it changed from
    ``expected`` since it was read. None when written, else why not (for a warning)."""
    if sourcefile.is_virtual(path):
        return sourcefile.replace_virtual(path, data, expected)
    parent, name = os.path.split(path)
    try:
        folder: Folder = os.open(parent or ".", os.O_RDONLY | DIRECTORY | CLOEXEC) if AT else (parent or ".")
    except OSError as exc:
        return f"cannot open its folder: {exc.strerror or exc}"
    try:
        info = stat_in(folder, name)
        if stat.S_ISLNK(info.st_mode):
            return "it is a symbolic link; dslint never writes through links"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if not _writable(info):
            return "the file is read-only"
        try:
            if read_in(folder, name) != expected:
                return "it changed while dslint was fixing it"
        except OSError as exc:
            if is_link_error(exc):
                return "it is a symbolic link; dslint never writes through links"
            raise
        replace_in(folder, name, data, stat.S_IMODE(info.st_mode), owner=(info.st_uid, info.st_gid))
    except PermissionError as exc:
        return f"cannot write it or its folder ({exc.strerror or exc}), or keep its owner"
    except OSError as exc:
        return f"cannot write it: {exc.strerror or exc}"
    finally:
        close_folder(folder)
    return None
