"""What workers inherit from the main process, and what they make of it.

- the threads alive in the parent at the moment its workers are forked (DSL109): a fork
  copies only the calling thread, so each of these is a lock holder that vanishes;
- the shared-memory storages of the batches the script's own loop received, and which of
  them it still holds once it has moved on (DSL502: each one is an open descriptor);
- the numbers a dataset (and a collate object) hold, in the main process before and after
  the workers ran and in each worker's copy after its batches (DSL405): a counter a worker
  advances that the main process never sees.

Only plain ``int``/``float`` attributes are compared (not ``bool``: a flag set lazily in a
worker is per-worker by design, and not objects: a handle opened lazily is too).
"""

from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Set

_MAX_ATTRIBUTES = 64
_verifier_threads: Set[int] = set()  # started by the verifier's own probes, not the target


def thread_ids() -> Set[int]:
    return {thread.ident for thread in threading.enumerate() if thread.ident is not None}


def verifier_started(before: Set[int]) -> None:
    """Threads alive now that were not in ``before`` were started by a probe (pickling a
    tensor for spawn starts multiprocessing's resource sharer): never the target's."""
    _verifier_threads.update(thread_ids() - before)


def live_threads() -> List[Dict[str, Any]]:
    """Python threads other than the caller's and the verifier's, with what they run."""
    me = threading.current_thread()
    out = []
    for thread in threading.enumerate():
        if thread is me or thread.ident in _verifier_threads:
            continue
        out.append({"name": thread.name, "daemon": thread.daemon, "runs": _runs(thread)})
    return out


def _runs(thread: threading.Thread) -> str:
    target = getattr(thread, "_target", None)
    if target is None and type(thread).run is not threading.Thread.run:
        target = type(thread).run
    if target is None:
        return ""
    func = getattr(target, "__func__", target)
    module = getattr(func, "__module__", "") or ""
    name = getattr(func, "__qualname__", "") or type(func).__name__
    code = getattr(func, "__code__", None)
    where = f" ({os.path.basename(code.co_filename)}:{code.co_firstlineno})" if code is not None else ""
    return f"{module}.{name}{where}" if module else f"{name}{where}"


def numbers(**objects: Any) -> Dict[str, float]:
    """``{"dataset.count": 3, "collate_fn.batch_count": 12}``: the plain numbers each object holds."""
    out: Dict[str, float] = {}
    for label, obj in objects.items():
        if obj is None:
            continue
        owner = getattr(obj, "__self__", obj)  # a bound method: its instance
        try:
            attrs = vars(owner)
        except TypeError:
            continue
        if not isinstance(attrs, dict):
            continue
        for name, value in list(attrs.items())[:_MAX_ATTRIBUTES]:
            if type(value) in (int, float):
                out[f"{label}.{name}"] = value
    return out


def shared_storages(batch: Any, limit: int = 64) -> List[Any]:
    """Weak references to the shared-memory storages of a batch's tensors (nested in
    lists, tuples and dicts): they never keep a storage alive."""
    try:
        import torch
        from torch.multiprocessing.reductions import StorageWeakRef
    except Exception:  # noqa: BLE001
        return []
    out: List[Any] = []
    todo = [batch]
    while todo and len(out) < limit:
        item = todo.pop()
        if isinstance(item, torch.Tensor):
            if item.is_shared():
                out.append(StorageWeakRef(item.untyped_storage()))
        elif isinstance(item, (list, tuple)):
            todo.extend(item[:limit])
        elif isinstance(item, dict):
            todo.extend(list(item.values())[:limit])
    return out


def still_alive(batches: List[List[Any]]) -> int:
    """How many of the batches still have a shared storage alive (someone keeps a tensor
    or a view of it)."""
    return sum(1 for refs in batches if any(not ref.expired() for ref in refs))
