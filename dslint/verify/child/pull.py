"""Pull N batches from a loader under measurement: one "run" of a probe.

A run records time to first batch (worker start-up included), batches/s, per-worker
live threads and context switches from /proc, whether workers still share the parent's
open file descriptions for the dataset's files (DSL104), sample identities (DSL401), the
parent's live threads at the fork (DSL109) and the numbers its dataset holds before and
after (DSL405), warnings, and any exception with the workers' exit codes (the message is racy, the
exit codes are not). Every batch emits a heartbeat event for the watchdog.
"""

from __future__ import annotations

import os
import time
import traceback
import warnings
from typing import Any, Dict, List, Optional

from .. import events, procfs
from . import env, handles, inherited, samples
from .patch import state
from .worker import CollateProbe, WorkerProbe

_KEEP_BYTES = 256 << 20


def prefork_snapshot(dataset: Any) -> Dict[str, Any]:
    """Everything the parent has open before its workers start (all of it is inherited
    by forked workers, whether or not it can be traced to the dataset), with offsets and
    open flags, and which entries are the dataset's own (its handles' fds, its files)."""
    held = handles.dataset_handles(dataset)
    tmp = os.environ.get(env.TMPDIR) or "\0"
    own = set(events.own_fds())
    me = os.getpid()
    fds = []
    for fd, target in procfs.open_files(me, sockets=True).items():
        if fd in own or target.startswith(tmp) or fd < 3:
            continue
        real = os.path.realpath(target) if target.startswith("/") else target
        info = procfs.fd_info(me, fd)
        fds.append({"fd": fd, "path": target, "pos": info.get("pos"), "flags": info.get("flags", 0),
                    "traced": fd in held["fds"] or real in held["paths"]})
    return {"fds": fds, "handles": held["handles"], "paths": held["paths"]}


def _worker_pids(it: Any) -> List[int]:
    return [w.pid for w in getattr(it, "_workers", []) if getattr(w, "pid", None)]


def _sample_workers(it: Any, snapshot: Dict[str, Any], out: Dict[int, Dict[str, Any]]) -> None:
    """Refresh per-worker /proc facts (kept from the last time each worker was alive)."""
    me = os.getpid()
    for pid in _worker_pids(it):
        facts = procfs.thread_facts(pid)
        if not facts:
            continue
        shared = []
        for entry in snapshot["fds"]:
            same = procfs.same_open_file(me, entry["fd"], pid, entry["fd"])
            if same:
                shared.append({"fd": entry["fd"], "path": entry["path"]})
        facts["shared_fds"] = shared
        out[pid] = facts


def _exit_codes(it: Any) -> Dict[str, Optional[int]]:
    codes = {}
    for w in getattr(it, "_workers", []):
        try:
            w.join(timeout=0.2)  # a dead worker is joined at once; a live one says None
            codes[str(w.pid)] = w.exitcode
        except Exception:  # noqa: BLE001
            codes[str(getattr(w, "pid", "?"))] = None
    return codes


def describe_exception(exc: BaseException) -> Dict[str, Any]:
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    for fr in reversed(frames):
        if "/torch/" not in fr.filename and "/dslint/verify/" not in fr.filename:
            where = f"{fr.filename}:{fr.lineno}"
            break
    return {"type": type(exc).__name__, "message": str(exc)[:3000], "where": where}


def shutdown(it: Any) -> None:
    stop = getattr(it, "_shutdown_workers", None)
    if stop is not None:
        try:
            stop()
        except Exception:  # noqa: BLE001
            pass


def run(
    loader: Any,
    loader_id: int,
    phase: str,
    n: int,
    start_method: str,
    cv2_off: bool = False,
    num_workers: Optional[int] = None,
    pin_memory: Optional[bool] = None,
    keep_batches: bool = False,
    exhaust_s: float = 0.0,
) -> Dict[str, Any]:
    """Pull ``n`` batches (and, with ``exhaust_s``, go on to the end of the data while that
    many seconds last: an exhausted stream's total is what DSL401 compares)."""
    saved = (loader.worker_init_fn, loader.num_workers, loader.pin_memory, loader.collate_fn)
    loader.worker_init_fn = WorkerProbe(saved[0], loader_id, phase, start_method, cv2_off)
    if num_workers is not None:
        loader.num_workers = num_workers
    if pin_memory is not None:
        loader.pin_memory = pin_memory
    workers = loader.num_workers
    if workers > 0:
        loader.collate_fn = CollateProbe(saved[3], loader_id, phase)
    result: Dict[str, Any] = {"phase": phase, "num_workers": workers, "batches": 0}
    snapshot = prefork_snapshot(loader.dataset) if workers > 0 else {"fds": [], "handles": [], "paths": []}
    if workers > 0:  # the parent as the workers will copy it: its live threads, its numbers
        snapshot["threads"] = inherited.live_threads()
        snapshot["state"] = inherited.numbers(dataset=loader.dataset, collate_fn=saved[3])
    events.emit("prefork", loader=loader_id, phase=phase, snapshot=snapshot)
    hashes: List[str] = []
    kept: List[Any] = []
    kept_bytes = 0
    per_worker: Dict[int, Dict[str, Any]] = {}
    times: List[float] = []
    it = None
    state.internal += 1
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            it = loader._get_iterator()
            result["worker_pids"] = _worker_pids(it)
            i = 0
            while i < n or (exhaust_s and time.perf_counter() - t0 < exhaust_s):
                try:
                    batch = next(it)
                except StopIteration:
                    result["exhausted"] = True
                    break
                times.append(time.perf_counter() - t0)
                hashes.extend(samples.sample_hashes(batch))
                if keep_batches and kept_bytes < _KEEP_BYTES:
                    kept.append(batch)
                    kept_bytes += samples.batch_nbytes(batch)
                if i < n or i % 16 == 0:
                    _sample_workers(it, snapshot, per_worker)
                    events.emit("batch", loader=loader_id, phase=phase, i=i)
                i += 1
        except BaseException as exc:  # noqa: BLE001 - includes torch's SIGCHLD-raised errors
            result["error"] = describe_exception(exc)
            if it is not None:
                result["worker_exitcodes"] = _exit_codes(it)
        finally:
            shutdown(it)
            state.internal -= 1
            loader.worker_init_fn, loader.num_workers, loader.pin_memory = saved[:3]
            if loader.collate_fn is not saved[3]:
                loader.collate_fn = saved[3]
    result["batches"] = len(times)
    if times:
        result["time_to_first_batch_s"] = round(times[0], 4)
        if len(times) > 1:
            span = times[-1] - times[0]
            result["batches_per_s"] = round((len(times) - 1) / span, 2) if span > 0 else None
    result["samples"] = {"received": len(hashes), "unique": len(set(hashes))}
    result["workers"] = {str(pid): facts for pid, facts in per_worker.items()}
    for entry in snapshot["fds"]:
        entry["pos_after"] = procfs.fd_pos(os.getpid(), entry["fd"])
    result["prefork"] = snapshot
    if workers > 0:
        result["state_after"] = inherited.numbers(dataset=loader.dataset, collate_fn=saved[3])
    result["warnings"] = sorted({f"{w.category.__name__}: {w.message}"[:300] for w in caught})
    if keep_batches:
        result["_kept"] = kept
    return result
