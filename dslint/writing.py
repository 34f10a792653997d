"""Writing into a linted tree without ever leaving it: no symlink is followed, writes are atomic.

Every file dslint writes (a fixed source, a notebook, the cache) is written here: opened
relative to its folder with ``O_NOFOLLOW``, as a new temporary file that is renamed over
the old one, keeping the old file's mode, owner and group. A symbolic link, a read-only
file or a folder that cannot be written is refused with a reason, never an exception.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from typing import Optional

from . import sourcefile

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
DIRECTORY = getattr(os, "O_DIRECTORY", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Refused(OSError):
    """A write (or a read of dslint's own files) that would go through a link, or cannot be done."""


def is_link_error(exc: OSError) -> bool:
    """``O_NOFOLLOW`` on a link fails with ELOOP (EMLINK on some BSDs)."""
    return exc.errno in (errno.ELOOP, errno.EMLINK)


def open_folder(path: str, dir_fd: Optional[int] = None) -> int:
    """A descriptor of the folder ``path`` (relative to ``dir_fd``); Refused when it is a link."""
    try:
        return os.open(path, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        if is_link_error(exc) or exc.errno == errno.ENOTDIR:
            raise Refused(exc.errno, "is a symbolic link or not a folder", path) from None
        raise


def read_in(dir_fd: int, name: str) -> bytes:
    """The bytes of ``name`` in the folder ``dir_fd``, never through a link."""
    fd = os.open(name, os.O_RDONLY | NOFOLLOW | CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def is_link_in(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def create_in(dir_fd: int, name: str, data: bytes, mode: int = 0o644) -> None:
    """Create ``name`` with ``data`` unless something (a file, a link) is already there."""
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, mode, dir_fd=dir_fd)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def replace_in(dir_fd: int, name: str, data: bytes, mode: int = 0o644,
               owner: Optional[tuple] = None) -> None:
    """Atomically make ``name`` hold ``data``: a new file beside it, then a rename.

    The rename replaces a link at ``name`` by the new file, never writing through it.
    ``owner``: (uid, gid) the new file must keep; PermissionError when that is not possible.
    """
    temp = f".dslint-{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            if owner is not None:
                info = os.fstat(handle.fileno())
                if (info.st_uid, info.st_gid) != owner:
                    os.fchown(handle.fileno(), *owner)  # before chmod: chown clears set-id bits
            os.fchmod(handle.fileno(), mode)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def _writable(info: os.stat_result) -> bool:
    """Whether the file's mode lets its owner class write it. Root can write anything, but
    a file its owner made read-only is left alone, as ruff does."""
    if not info.st_mode & 0o222:
        return False
    if os.geteuid() == 0:
        return True
    if info.st_uid == os.geteuid():
        return bool(info.st_mode & stat.S_IWUSR)
    return bool(info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def replace_file(path: str, data: bytes, expected: bytes) -> Optional[str]:
    """Replace the bytes of the regular file ``path`` with ``data`` unless it changed from
    ``expected`` since it was read. None when written, else why not (for a warning)."""
    if sourcefile.is_virtual(path):
        return sourcefile.replace_virtual(path, data, expected)
    folder, name = os.path.split(path)
    try:
        dir_fd = os.open(folder or ".", os.O_RDONLY | DIRECTORY | CLOEXEC)
    except OSError as exc:
        return f"cannot open its folder: {exc.strerror or exc}"
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            return "it is a symbolic link; dslint never writes through links"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if not _writable(info):
            return "the file is read-only"
        try:
            if read_in(dir_fd, name) != expected:
                return "it changed while dslint was fixing it"
        except OSError as exc:
            if is_link_error(exc):
                return "it is a symbolic link; dslint never writes through links"
            raise
        replace_in(dir_fd, name, data, stat.S_IMODE(info.st_mode), owner=(info.st_uid, info.st_gid))
    except PermissionError as exc:
        return f"cannot write it or its folder ({exc.strerror or exc}), or keep its owner"
    except OSError as exc:
        return f"cannot write it: {exc.strerror or exc}"
    finally:
        os.close(dir_fd)
    return None
