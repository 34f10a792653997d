"""Patch ``DataLoader.__init__`` and ``__iter__`` inside the target.

In the probing process (the target's main, or the first non-worker process that iterates
a loader, e.g. a DDP rank): record each loader's construction site and turn construction
errors into evidence (DSL201/DSL202/DSL203); at the first iteration hand over to the
probes. In a spawned process that is still importing the main module (no
``__main__`` guard): record that the loader code ran again there (DSL101) and let it fail
the way it naturally does.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict

from .. import events
from . import env

_patched_attr = "_dslint_verify_patched"


class _State:
    internal = 0  # > 0 while the probes build or iterate loaders themselves


state = _State()

_SKIP_DIRS: tuple = ()


def _skip_dirs() -> tuple:
    global _SKIP_DIRS
    if not _SKIP_DIRS:
        import torch

        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        _SKIP_DIRS = (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, here + os.sep)
    return _SKIP_DIRS


def call_site(loader: Any, depth: int = 2) -> Dict[str, Any]:
    """The user's frame that constructed ``loader`` (skipping torch, dslint and the
    ``__init__`` of DataLoader subclasses), with the call's line span."""
    override = os.environ.get(env.SITE)
    frame = sys._getframe(depth)
    skip = _skip_dirs()
    while frame is not None:
        raw = frame.f_code.co_filename
        filename = os.path.abspath(raw)
        internal = raw.startswith("<") or filename.startswith(skip)
        if not internal and frame.f_locals.get("self") is not loader:
            break
        frame = frame.f_back
    if frame is None:
        if override:
            path, _, num = override.rpartition(":")
            return {"path": path, "line": int(num), "end_line": int(num)}
        return {"path": "?", "line": 0, "end_line": 0}
    line = end_line = frame.f_lineno
    try:
        pos = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        if pos[0] is not None:
            line, end_line = pos[0], pos[1] or pos[0]
    except (AttributeError, IndexError, TypeError):
        pass
    return {"path": os.path.abspath(frame.f_code.co_filename), "line": line, "end_line": end_line}


def inheriting() -> bool:
    """True while a spawned process is still unpickling its start-up data, i.e. running
    the main module again (what multiprocessing's bootstrapping check looks at)."""
    mp_process = sys.modules.get("multiprocessing.process")
    return bool(mp_process and getattr(mp_process.current_process(), "_inheriting", False))


def in_worker() -> bool:
    data = sys.modules.get("torch.utils.data")
    try:
        return data is not None and data.get_worker_info() is not None
    except Exception:  # noqa: BLE001
        return False


def eligible() -> bool:
    """May this process probe? The main, or a non-worker process not re-importing main."""
    return env.is_root() or not (inheriting() or in_worker())


def _construct_kwargs(args: tuple, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    out = {k: repr(v)[:80] for k, v in kwargs.items() if k != "dataset"}
    out["positional"] = len(args)
    return out


def install(module: Any) -> None:
    loader_cls = module.DataLoader
    if getattr(loader_cls, _patched_attr, False):
        return
    orig_init = loader_cls.__init__
    orig_iter = loader_cls.__iter__

    def __init__(self, *args, **kwargs):  # noqa: N807 - replaces DataLoader.__init__
        if state.internal:
            return orig_init(self, *args, **kwargs)
        site = call_site(self)
        if not eligible():
            events.emit("child_loader", site=site, inheriting=inheriting())
            return orig_init(self, *args, **kwargs)
        try:
            orig_init(self, *args, **kwargs)
        except Exception as exc:
            from . import probes

            probes.on_construct_error(site, exc, _construct_kwargs(args, kwargs))
            raise
        from . import probes

        probes.register(self, site)

    def __iter__(self):  # noqa: N807 - replaces DataLoader.__iter__
        if state.internal:
            return orig_iter(self)
        if not eligible():
            return _child_iter(self, orig_iter)
        from . import probes

        return probes.on_iter(self, orig_iter)

    __init__.__wrapped__ = orig_init  # type: ignore[attr-defined]
    __iter__.__wrapped__ = orig_iter  # type: ignore[attr-defined]
    loader_cls.__init__ = __init__
    loader_cls.__iter__ = __iter__
    setattr(loader_cls, _patched_attr, True)


def _child_iter(loader: Any, orig_iter: Any) -> Any:
    """A loader iterated in a non-probing process. During a spawned process's
    re-import of an unguarded main this is DSL101 happening: say so, then let it fail."""
    if not inheriting():
        return orig_iter(loader)
    site = call_site(loader, depth=3)
    events.emit("child_iter", site=site, num_workers=loader.num_workers)
    if loader.num_workers == 0:
        # Without workers nothing would stop the re-imported main from training in the
        # worker: stop it the way multiprocessing would have.
        raise RuntimeError(
            "dslint verify: the main module ran a DataLoader loop while a spawned process "
            "was importing it (no `if __name__ == '__main__':` guard)"
        )
    try:
        return orig_iter(loader)
    except RuntimeError as exc:
        events.emit("child_iter_error", site=site, exc_type=type(exc).__name__, message=str(exc)[:600])
        raise

