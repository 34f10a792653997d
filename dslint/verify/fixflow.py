"""``--fix``: prove that the fixes remove what the probes confirmed.

The project is copied to a temporary directory (large data files are linked, not
copied), the fixes are applied there (safe and unsafe), and the same probes run on the
copy. The user's files are never touched. ``--against`` compares with a hand-fixed
version instead (a fixed twin), through the same FIXED logic.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import List

from . import assemble, static
from .model import Report
from .target import Target, parse
from .verifier import Options, verify

_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache",
              ".pytest_cache", ".tox", ".ruff_cache"}
_LINK_ABOVE = 1 << 20


def _copy_project(root: str, dest: str) -> None:
    def copy(src: str, dst: str) -> None:
        if os.path.getsize(src) > _LINK_ABOVE and not src.endswith((".py", ".ipynb")):
            os.symlink(os.path.abspath(src), dst)  # data: read-only for the fixes, not copied
        else:
            shutil.copy2(src, dst)

    shutil.copytree(root, dest, symlinks=True, copy_function=copy,
                    ignore=lambda d, names: [n for n in names if n in _SKIP_DIRS])


def _files_to_fix(before: Report, target: Target, root: str, copy_root: str) -> List[str]:
    loaders = [lo for run in before.runs for lo in run.loaders]
    out = []
    for path in static.project_files(loaders, target.files()):
        rel = os.path.relpath(path, os.path.realpath(root))
        if not rel.startswith(".."):
            out.append(os.path.join(copy_root, rel))
    return out


def with_fixes(target: Target, opts: Options, before: Report) -> Report:
    fix_paths = static.fixer()
    if fix_paths is None:
        before.errors.append("--fix: fixes are unavailable in this dslint (dslint.api.fix_paths is not "
                             "importable); nothing was fixed, the findings above are as verified")
        return before
    root = target.project_root()
    tmp = tempfile.mkdtemp(prefix="dslint-verify-fix-")
    try:
        copy_root = os.path.join(tmp, os.path.basename(os.path.abspath(root)) or "project")
        _copy_project(root, copy_root)
        files = _files_to_fix(before, target, root, copy_root)
        count = fix_paths(files, unsafe=True)
        after = verify(target.relocated(root, copy_root), opts)
        merged = assemble.compare(before, after)
        merged.notes.append(f"--fix: applied {count} fix(es) to a copy of {root} and ran the probes again; "
                            "your files are untouched")
        return merged
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def against(target: Target, opts: Options, before: Report, fixed_spec: str) -> Report:
    fixed = parse(fixed_spec, target.args, target.cwd)
    after = verify(fixed, opts)
    merged = assemble.compare(before, after)
    merged.notes.append(f"compared with the fixed version {fixed.display}")
    return merged
