"""The probes, run in the probing process at the first iteration of a loader.

For every loader built so far: spawn-safety pickling, one measured run as written, the
controls that make a structural comparison possible (cv2 threads off, no workers for an
IterableDataset, no pinning), the transfer probe; then either drive a few batches of the
script's own loop (data-wait share, and the shared-memory descriptors it keeps open) or
stop the program. Facts go to the events file; the verdicts are the supervisor's
business, so a hang halfway still leaves evidence.
"""

from __future__ import annotations

import atexit
import io
import os
import signal
import sys
import time
from typing import Any, Dict, List, Optional

from .. import events, procfs
from . import between, env, handles, inherited, pull, transfer
from .patch import call_site


class Record:
    def __init__(self, rid: int, loader: Any, site: Dict[str, Any]) -> None:
        self.id = rid
        self.loader = loader
        self.site = site
        self.probed = False


_records: List[Record] = []
_claimed: Optional[bool] = None
_live_iters: List[Any] = []
_atexit_set = False
_failed: List[int] = []


def _claim() -> bool:
    """Only one process probes (the main, or the first eligible one, e.g. a DDP rank)."""
    global _claimed
    if _claimed is None:
        if env.is_root():
            _claimed = True
        else:
            lock = os.path.join(os.environ.get(env.TMPDIR, "/tmp"), "probe.lock")
            try:
                os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
                _claimed = True
            except OSError:
                _claimed = False
    return _claimed


def register(loader: Any, site: Dict[str, Any]) -> Record:
    global _atexit_set
    rec = Record(len(_records), loader, site)
    _records.append(rec)
    events.emit("loader", loader=rec.id, site=site, info=describe(loader))
    if not _atexit_set:
        atexit.register(_at_exit)
        _atexit_set = True
    return rec


def _record_for(loader: Any) -> Record:
    for rec in _records:
        if rec.loader is loader:
            return rec
    return register(loader, call_site(loader, depth=3))


def start_method_of(loader: Any) -> str:
    ctx = loader.multiprocessing_context
    if ctx is not None:
        return ctx.get_start_method()
    import multiprocessing
    import multiprocessing.context as mpc

    method = multiprocessing.get_start_method(allow_none=True)
    return method or mpc._default_context._default_context._name


def describe(loader: Any) -> Dict[str, Any]:
    from torch.utils.data import IterableDataset

    ds = loader.dataset
    workers = loader.num_workers
    return {
        "num_workers": workers,
        "batch_size": loader.batch_size,
        "pin_memory": bool(loader.pin_memory),
        "persistent_workers": bool(getattr(loader, "persistent_workers", False)),
        "prefetch_factor": loader.prefetch_factor if workers > 0 else None,
        "start_method": start_method_of(loader) if workers > 0 else None,
        "context_set_by_target": loader.multiprocessing_context is not None,
        "dataset": handles.describe_callable(type(ds)),
        "iterable": isinstance(ds, IterableDataset),
        "collate_fn": handles.describe_callable(loader.collate_fn),
        "worker_init_fn": handles.describe_callable(loader.worker_init_fn),
        "sampler": type(loader.sampler).__name__ if loader.sampler is not None else None,
    }


class _Sink(io.RawIOBase):
    """Counts pickled bytes without keeping them (datasets can be large)."""

    def __init__(self) -> None:
        self.n = 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.n += len(b)
        return len(b)


class _StartingProcess:
    """Stands for the process being started while its arguments are pickled: objects that may
    only travel to a child at its start (``multiprocessing.Value``, locks, queues) check that one
    is set (``assert_spawning``), exactly as when spawn pickles the worker's arguments."""

    @staticmethod
    def duplicate_for_child(fd: int) -> int:
        return fd

    @staticmethod
    def DupFd(fd: int) -> "_PassedFd":  # noqa: N802 - multiprocessing's name
        return _PassedFd(fd)


class _PassedFd:
    """A descriptor that would be passed to the child (spawn's ``_DupFd``): nothing is opened."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def detach(self) -> int:
        return self.fd


def pickle_probe(loader: Any) -> Dict[str, Any]:
    """Pickle what a spawned worker receives, with the pickler multiprocessing uses, as it
    does while starting the worker."""
    from multiprocessing import context as mp_context
    from multiprocessing.reduction import ForkingPickler

    out: Dict[str, Any] = {}
    previous = mp_context.get_spawning_popen()
    mp_context.set_spawning_popen(_StartingProcess())
    try:
        for name in ("dataset", "collate_fn", "worker_init_fn"):
            obj = getattr(loader, name)
            sink = _Sink()
            try:
                ForkingPickler(sink, 4).dump(obj)
                out[name] = {"ok": True, "bytes": sink.n}
            except BaseException as exc:  # noqa: BLE001 - pickling may raise anything
                if "created in a fork context" in str(exc):
                    # a lock or ``mp.Value`` made by this fork-started run: under spawn it would be
                    # made in the spawn context and travel to the workers as they start
                    out[name] = {"ok": True, "bytes": sink.n, "note": "holds multiprocessing objects"}
                    continue
                out[name] = {"ok": False, "type": type(exc).__name__, "message": str(exc)[:600]}
    finally:
        mp_context.set_spawning_popen(previous)
    return out


def probe(rec: Record) -> None:
    rec.probed = True
    loader = rec.loader
    n = env.batches()
    info = describe(loader)
    events.emit("probe_start", loader=rec.id, site=rec.site)
    facts: Dict[str, Any] = {}
    workers = info["num_workers"]
    method = info["start_method"] or "none"
    if workers > 0:
        before = inherited.thread_ids()
        facts["pickle"] = pickle_probe(loader)
        inherited.verifier_started(before)
    iterable = info["iterable"] and workers > 0
    if iterable:
        n = max(n, 4 * workers)  # enough batches to see every worker's stream
    budget = env.budget() if iterable else 0.0
    main = pull.run(loader, rec.id, "as_written", n, method, keep_batches=info["pin_memory"], exhaust_s=budget)
    kept = main.pop("_kept", [])
    facts["as_written"] = main
    ok = "error" not in main
    if ok and workers > 0 and "cv2" in sys.modules:
        facts["cv2_off"] = pull.run(loader, rec.id, "cv2_off", n, method, cv2_off=True)
    if ok and iterable:
        facts["serial"] = pull.run(loader, rec.id, "serial", n, "none", num_workers=0, exhaust_s=budget)
    if ok and info["pin_memory"]:
        facts["no_pin"] = pull.run(loader, rec.id, "no_pin", n, method, pin_memory=False)
        facts["transfer"] = transfer.probe(kept)
    facts["cuda_available"] = _cuda_available()
    if not ok:
        _failed.append(rec.id)  # driving the script's loop would only fail again
    events.emit("probe_result", loader=rec.id, site=rec.site, info=info, facts=facts)


def _cuda_available() -> bool:
    """Asked in the probing process, after the runs (does not initialise CUDA)."""
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001
        return False


def run_pending() -> None:
    for rec in list(_records):
        if not rec.probed:
            try:
                probe(rec)
            except BaseException as exc:  # noqa: BLE001 - a probe bug must not become the target's crash
                events.emit("probe_error", loader=rec.id, site=rec.site, **pull.describe_exception(exc))


def on_iter(loader: Any, orig_iter: Any) -> Any:
    between.rank_facts(loader, _record_for(loader).site)
    if not _claim():
        return orig_iter(loader)
    rec = _record_for(loader)
    driving = os.environ.get(env.DRIVE) == "1" and not _failed
    if rec.probed:
        return between.again(rec, loader, orig_iter, env.batches(), stop) if driving else orig_iter(loader)
    run_pending()
    if driving:
        return between.first(rec, loader, orig_iter,
                             lambda inner, n: _Driven(inner, rec, n, keep_going=between.persistent(loader)),
                             env.batches())
    stop("probed")


def on_construct_error(site: Dict[str, Any], exc: BaseException, kwargs: Dict[str, Any]) -> None:
    events.emit(
        "construct_error", site=site, exc_type=type(exc).__name__, message=str(exc)[:600], kwargs=kwargs
    )
    if _claim():
        run_pending()
        stop("construct_error")


_active: List["_Driven"] = []


def _at_exit() -> None:
    for driven in _active:  # the script's loop ended (break, end of script) before N batches
        driven.report("loop ended")
    if any(not r.probed for r in _records) and _claim():
        run_pending()
        stop("exit")


class _Driven:
    """The script's own loop, for N batches: how much of each step waits for data."""

    def __init__(self, inner: Any, rec: Record, n: int, keep_going: bool = False) -> None:
        self.inner = inner
        self.rec = rec
        self.n = n
        self.keep_going = keep_going  # at the end of the data, let the script go on (to a next epoch)
        self.exhausted = False
        self.count = 0
        self.wait = 0.0
        self.t_first: Optional[float] = None
        self.t_last = 0.0
        self.reported = False
        self.shm_fds: List[int] = []  # after each batch: what the script's loop keeps (DSL502)
        self.received: List[List[Any]] = []  # weak references to each batch's shared storages
        _live_iters.append(inner)
        _active.append(self)
        events.emit("drive_start", loader=rec.id, site=rec.site)

    def __iter__(self) -> "_Driven":
        return self

    def __len__(self) -> int:
        return len(self.inner)

    def __next__(self) -> Any:
        if self.count >= self.n:
            self._finish("batches")
        t0 = time.perf_counter()
        try:
            batch = next(self.inner)
        except StopIteration:
            self.exhausted = True
            if not self.keep_going:
                self._finish("exhausted")
            self.report("exhausted")
            raise
        except BaseException as exc:  # noqa: BLE001
            events.emit("drive_error", loader=self.rec.id, **pull.describe_exception(exc))
            stop("drive_error")
        t1 = time.perf_counter()
        if self.t_first is None:  # the first wait is worker start-up, measured by the probes
            self.t_first = t1
        else:
            self.wait += t1 - t0
        self.count += 1
        self.t_last = t1
        self.shm_fds.append(procfs.shared_memory_fds(os.getpid()))
        self.received.append(inherited.shared_storages(batch))
        events.emit("batch", loader=self.rec.id, phase="drive", i=self.count)
        return batch

    def _finish(self, why: str) -> None:
        self.report(why)
        stop("driven")

    def report(self, why: str) -> None:
        if self.reported:
            return
        self.reported = True
        span = (time.perf_counter() - self.t_first) if self.t_first is not None else 0.0
        events.emit(
            "drive",
            loader=self.rec.id,
            steps=self.count,
            why=why,
            seconds=round(span, 4),
            data_wait_s=round(self.wait, 4),
            data_wait_share=round(self.wait / span, 3) if span > 0 else None,
            shm_fds=self.shm_fds,
            kept_batches=inherited.still_alive(self.received[:-1]),  # the last one is the loop's variable
            earlier_batches=max(len(self.received) - 1, 0),
            sharing_strategy=_sharing_strategy(),
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _sharing_strategy() -> str:
    try:
        import torch.multiprocessing as tmp

        return tmp.get_sharing_strategy()
    except Exception:  # noqa: BLE001
        return ""


def stop(reason: str) -> None:
    """End the target now: no full training run. Workers are shut down first so no
    shared memory is left; the supervisor kills the session afterwards regardless."""
    for it in _live_iters:
        pull.shutdown(it)
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # torch's handler would fire as workers go
    except (ValueError, OSError):
        pass
    events.emit("stopped", reason=reason)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(0)
