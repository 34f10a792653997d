"""``--fix``: prove that dslint's fixes remove what the probes confirmed.

The project is copied to a temporary folder (large data files are linked, not copied;
source files are always real copies, so no fix can write through a link into the user's
tree), dslint's own fixer (``dslint.api.fix_paths``, safe and unsafe fixes) is applied
to the copy, and the same probes run on it. Each finding comes out FIXED or still
CONFIRMED, with its loader's throughput before and after, and the report carries the
diff that ``dslint check --fix --unsafe-fixes`` would apply. The user's files are never
written. ``--against`` compares with a hand-fixed version instead (a fixed twin),
through the same FIXED logic.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from typing import Dict, List, Tuple

from . import assemble, guard, static
from .model import FixSummary, Report
from .target import Target, parse
from .verifier import Options, verify

_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache",
              ".pytest_cache", ".tox", ".ruff_cache", ".dslint_cache"}
_SOURCES = (".py", ".ipynb", ".toml", ".cfg", ".ini")
_LINK_ABOVE = 1 << 20
_MAX_FILES = 20000


def _copy_project(root: str, dest: str) -> None:
    def copy(src: str, dst: str) -> None:
        if os.path.getsize(src) > _LINK_ABOVE and not src.endswith(_SOURCES):
            os.symlink(os.path.abspath(src), dst)  # data: read-only for the fixes, not copied
        else:
            shutil.copy2(src, dst)  # follows links: a source file in the copy is a real file

    linked: List[str] = []

    def ignore(folder: str, names: List[str]) -> List[str]:
        """Skipped names; a linked folder is never walked (``up -> ..`` would copy the
        parent again and again), it is linked again once the copy is made."""
        out = []
        for name in names:
            path = os.path.join(folder, name)
            if name in _SKIP_DIRS or (os.path.islink(path) and os.path.isdir(path)):
                out.append(name)
                if name not in _SKIP_DIRS:
                    linked.append(path)
        return out

    shutil.copytree(root, dest, symlinks=False, copy_function=copy, ignore=ignore)
    _writable(dest)  # the fixer rightly refuses read-only files: a read-only checkout is fixed in the copy
    for path in linked:
        _link_again(path, root, dest)


def _writable(dest: str) -> None:
    for folder, _dirs, files in os.walk(dest):
        for path in [folder, *(os.path.join(folder, name) for name in files)]:
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o200)


def _link_again(path: str, root: str, dest: str) -> None:
    """The copy of the linked folder ``path``: a link to the copy's own folder when it
    points inside the project, else to where it points (data the fixes only read)."""
    target = os.path.realpath(path)
    copy = os.path.join(dest, os.path.relpath(path, root))
    if _inside(target, root):
        target = os.path.join(dest, os.path.relpath(target, os.path.realpath(root)))
    os.symlink(target, copy)


def _count_files(root: str, limit: int) -> int:
    count = 0
    for _folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        count += len(files)
        if count > limit:
            break
    return count


def project_root(target: Target, files: List[str]) -> str:
    """The smallest folder holding the script and the user's files behind its loaders
    (the script's folder when those lie elsewhere in a tree too large to copy)."""
    base = target.project_root()
    real = [os.path.realpath(base)] + [os.path.dirname(f) for f in files]
    common = os.path.commonpath(real)
    if common != real[0] and common not in ("/", os.path.expanduser("~")) \
            and _count_files(common, _MAX_FILES) <= _MAX_FILES:
        return common
    return os.path.realpath(base)


def _inside(path: str, root: str) -> bool:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return not rel.startswith("..")


def _fix_copy(fix_paths, files: List[str], root: str, copy_root: str) -> Tuple[FixSummary, Dict[str, Counter]]:
    """Fix the copies of ``files``; report the diff with the user's relative paths."""
    copies = [os.path.join(copy_root, os.path.relpath(f, root)) for f in files if _inside(f, root)]
    copies = [c for c in copies if os.path.isfile(c) and _inside(c, copy_root)]
    result = fix_paths(copies, unsafe=True) if copies else None
    summary = FixSummary()
    codes: Dict[str, Counter] = {}
    if result is not None:
        summary.applied = result.fixed
        summary.diff = result.diff(copy_root)
        for path, gone in result.codes.items():
            original = os.path.join(root, os.path.relpath(path, copy_root))
            summary.files.append(os.path.relpath(original, root))
            codes[os.path.realpath(original)] = gone
    return summary, codes


def _same_methods(opts: Options, before: Report) -> Options:
    """The run after the fixes uses the start methods the run before used."""
    return Options(**{**opts.__dict__, "start_methods": list(before.start_methods), "auto_spawn": False,
                      "extra_methods": list(before.extra_methods)})


def _paths_back(report: Report, copy_root: str, root: str) -> None:
    """Name the copy's files by the user's paths (the copy is gone when the report is read)."""
    def back(path: str) -> str:
        if not path or not _inside(path, copy_root):
            return path
        return os.path.join(root, os.path.relpath(os.path.realpath(path), os.path.realpath(copy_root)))

    for lo in report.loaders():
        lo.site = {**lo.site, "path": back(lo.site.get("path", ""))}
    for row in report.rows:
        row.filename = back(row.filename)


def with_fixes(target: Target, opts: Options, before: Report) -> Report:
    fix_paths = static.fixer()
    if fix_paths is None:
        before.errors.append("--fix: fixes are unavailable in this dslint (dslint.api.fix_paths is not "
                             "importable); nothing was fixed, the findings above are as verified")
        return before
    files = static.project_files(before.loaders(), target.files())
    root = project_root(target, files)
    tmp = guard.make_folder("fix-")
    if opts.watch is not None:
        opts.watch.started(tmp, 0)
    try:
        copy_root = os.path.join(tmp, os.path.basename(root) or "project")
        _copy_project(root, copy_root)
        summary, codes = _fix_copy(fix_paths, files, root, copy_root)
        after_opts = _same_methods(opts, before)
        after = verify(target.relocated(root, copy_root), after_opts)
        _paths_back(after, copy_root, root)
        merged = assemble.compare(before, after, codes)
        merged.fix = summary
        merged.wall_s = round(before.wall_s + after.wall_s, 2)
        if summary.applied:
            merged.notes.append(f"--fix: applied {summary.applied} fix(es) (safe and unsafe) to a copy of "
                                f"{_display(root)} and ran the probes again; your files are untouched")
        else:
            merged.notes.append("--fix: dslint has no fix for these findings; your files are untouched")
        return merged
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if opts.watch is not None:
            opts.watch.finished(tmp)


def against(target: Target, opts: Options, before: Report, fixed_spec: str) -> Report:
    fixed = parse(fixed_spec, target.args, target.cwd)
    after_opts = _same_methods(opts, before)
    after = verify(fixed, after_opts)
    merged = assemble.compare(before, after)
    merged.wall_s = round(before.wall_s + after.wall_s, 2)
    merged.notes.append(f"compared with the fixed version {fixed.display}")
    return merged


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
