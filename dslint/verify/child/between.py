"""What the script does with a loader between steps and epochs, while its own loop runs.

After the probes, the script's first iterator of a loader is the driven one; every later
``iter(loader)`` comes here. Each is counted with the worker processes it started and the
batches the previous iterator gave before it was dropped (DSL304: a new iterator, and new
workers, for one batch). For a loader with persistent workers a shared epoch counter goes
to the workers inside a wrapped ``collate_fn``: at each epoch the main process records its
dataset's plain attributes, and each worker reports its own copy's at its first batch of
that epoch (DSL404: the copies the workers kept). In a distributed run every rank reports,
at its first iterator of a loader, what its sampler draws and what its dataset holds
(DSL406: ranks going through the same whole dataset).
"""

from __future__ import annotations

import hashlib
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Set

from .. import events
from . import pull

FRESH_TO_CONFIRM = 3  # new iterators, each after an unfinished one, before the script is stopped
FIRST_EPOCH_CAP = 8  # times the probe's batch count a persistent loader's first epoch may run
MAX_ATTRIBUTES = 64


def plain_state(obj: Any, depth: int = 1) -> Dict[str, str]:
    """``repr`` of the plain attributes (numbers, strings, booleans, None) of ``obj`` and of
    the objects it holds, one level down (a transform's ``strength``): what a worker's copy
    and the main process's object can be compared by. Shared values (``mp.Value``) are
    not plain and never compared."""
    out: Dict[str, str] = {}
    try:
        items = sorted(vars(obj).items())
    except TypeError:
        return out
    for name, value in items:
        if len(out) >= MAX_ATTRIBUTES:
            break
        if isinstance(value, (bool, int, float, str, type(None))):
            out[name] = repr(value)[:80]
        elif depth > 0 and hasattr(value, "__dict__") and not isinstance(value, (type, ModuleType)):
            for inner, text in plain_state(value, depth - 1).items():
                out[f"{name}.{inner}"] = text
    return out


class StateProbe:
    """The user's collate function, then (once per epoch, as the main process counts them)
    the worker's copy of the dataset's plain attributes. Module level: it pickles under
    spawn exactly when the user's collate function does."""

    def __init__(self, user_fn: Callable[[Any], Any], loader_id: int, epoch: Any) -> None:
        self.user_fn = user_fn
        self.loader_id = loader_id
        self.epoch = epoch  # a shared multiprocessing value the main process increments
        self.reported = -1

    def __call__(self, batch: Any) -> Any:
        out = self.user_fn(batch)
        try:
            epoch = int(self.epoch.value)
            if epoch != self.reported:
                self.reported = epoch
                from torch.utils.data import get_worker_info

                info = get_worker_info()
                if info is not None:
                    events.emit("worker_state", loader=self.loader_id, epoch=epoch, worker_id=info.id,
                                state=plain_state(info.dataset))
        except Exception:  # noqa: BLE001 - evidence is best effort
            pass
        return out


class Track:
    """One loader's iterators in the script's own loop."""

    def __init__(self, loader_id: int) -> None:
        self.loader_id = loader_id
        self.iterators = 0
        self.last: Any = None  # the latest iterator handed to the script (counts its batches)
        self.pids: Set[int] = set()
        self.fresh = 0
        self.epoch: Any = None  # shared epoch counter, for persistent workers


_tracks: Dict[int, Track] = {}


def _track(rec: Any) -> Track:
    found = _tracks.get(rec.id)
    if found is None:
        found = _tracks[rec.id] = Track(rec.id)
    return found


def persistent(loader: Any) -> bool:
    return loader.num_workers > 0 and bool(getattr(loader, "persistent_workers", False))


def _worker_pids(it: Any) -> List[int]:
    return [w.pid for w in getattr(it, "_workers", []) if getattr(w, "pid", None)]


def _new_epoch(track: Track, loader: Any) -> None:
    """Count the epoch for the workers and record the main process's copy at its start."""
    if track.epoch is None:
        return
    track.epoch.value = track.iterators + 1
    events.emit("main_state", loader=track.loader_id, epoch=track.iterators + 1, state=plain_state(loader.dataset))


def first(rec: Any, loader: Any, orig_iter: Callable[[Any], Any], drive: Callable[[Any, int], Any], n: int) -> Any:
    """The script's first iterator of a probed loader: the driven one. For persistent
    workers it runs to the end of the first epoch (up to a cap) so that a second can begin."""
    track = _track(rec)
    if persistent(loader):
        try:
            import multiprocessing

            track.epoch = multiprocessing.Value("i", 0, lock=False)
        except Exception:  # noqa: BLE001 - no shared memory: no comparison, nothing else changes
            track.epoch = None
    _new_epoch(track, loader)
    saved = loader.collate_fn
    if track.epoch is not None:
        loader.collate_fn = StateProbe(saved, rec.id, track.epoch)
    try:
        inner = orig_iter(loader)
    finally:
        loader.collate_fn = saved
    _started(track, inner, None)
    track.last = drive(inner, n * FIRST_EPOCH_CAP if track.epoch is not None else n)
    return track.last


def again(rec: Any, loader: Any, orig_iter: Callable[[Any], Any], n: int, stop: Callable[[str], None]) -> Any:
    """A later ``iter(loader)`` of the script's own loop."""
    track = _track(rec)
    previous = track.last
    _new_epoch(track, loader)
    inner = orig_iter(loader)
    started = _started(track, inner, previous)
    if previous is not None and not getattr(previous, "exhausted", True) and (started or loader.num_workers > 0):
        track.fresh += 1  # new workers, or persistent ones reset: either way their prefetch is thrown away
    if track.fresh >= FRESH_TO_CONFIRM:
        _close(previous)
        pull.shutdown(inner)
        stop("fresh iterators")
    budget = max(loader.num_workers, 1) + 1 if track.epoch is not None else n
    track.last = Counted(inner, track, budget, stop)
    return track.last


def _started(track: Track, inner: Any, previous: Any) -> int:
    pids = _worker_pids(inner)
    new = [p for p in pids if p not in track.pids]
    track.pids.update(pids)
    track.iterators += 1
    events.emit("script_iter", loader=track.loader_id, n=track.iterators,
                after=getattr(previous, "count", None), exhausted=getattr(previous, "exhausted", None),
                workers=len(pids), started=len(new))
    return len(new)


def _close(wrapper: Any) -> None:
    inner = getattr(wrapper, "inner", None)
    if inner is not None:
        pull.shutdown(inner)


class Counted:
    """A later iterator of the script: counts its batches, and stops the script once it
    has given ``budget`` of them (enough for every persistent worker to report)."""

    def __init__(self, inner: Any, track: Track, budget: int, stop: Callable[[str], None]) -> None:
        self.inner = inner
        self.track = track
        self.budget = budget
        self.stop = stop
        self.count = 0
        self.exhausted = False

    def __iter__(self) -> "Counted":
        return self

    def __len__(self) -> int:
        return len(self.inner)

    def __next__(self) -> Any:
        if self.count >= self.budget:
            pull.shutdown(self.inner)
            self.stop("epochs" if self.track.epoch is not None else "driven")
        try:
            batch = next(self.inner)
        except StopIteration:
            self.exhausted = True
            raise
        self.count += 1
        events.emit("batch", loader=self.track.loader_id, phase="script", i=self.count)
        return batch

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# distributed ranks -----------------------------------------------------------------------
_reported_ranks: Set[int] = set()
SAMPLES_COMPARED = 4


def rank_facts(loader: Any, site: Dict[str, Any]) -> None:
    """In a distributed run, at this process's first iterator of ``loader``: its rank, what
    its sampler draws per epoch and a fingerprint of the first samples of its dataset."""
    if id(loader) in _reported_ranks:
        return
    _reported_ranks.add(id(loader))
    try:
        import torch.distributed as dist

        if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() < 2:
            return
        from torch.utils.data import DistributedSampler, IterableDataset

        dataset = loader.dataset
        batch_sampler = loader.batch_sampler
        custom = batch_sampler is not None and type(batch_sampler).__name__ != "BatchSampler"
        drawn = None if custom else (getattr(batch_sampler, "sampler", None) or loader.sampler)
        facts: Dict[str, Any] = {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "site": site,
                                 "sampler": type(drawn if drawn is not None else batch_sampler).__name__,
                                 "distributed_sampler": isinstance(drawn, DistributedSampler)}
        if not isinstance(dataset, IterableDataset):
            facts["dataset_len"] = len(dataset)
            facts["draws"] = len(drawn) if drawn is not None else None
            facts["fingerprint"] = _fingerprint(dataset)
        events.emit("rank_facts", **facts)
    except Exception as exc:  # noqa: BLE001 - evidence is best effort
        events.emit("rank_facts_error", message=f"{type(exc).__name__}: {exc}"[:300])


def _fingerprint(dataset: Any) -> Optional[str]:
    """A digest of the dataset's first samples, read the way a worker reads them."""
    from . import samples

    digest = hashlib.blake2b(digest_size=8)
    for index in range(min(SAMPLES_COMPARED, len(dataset))):
        for leaf in samples.leaves(dataset[index]):
            if hasattr(leaf, "detach"):
                leaf = leaf.detach().cpu().contiguous().numpy()
            digest.update(leaf.tobytes() if hasattr(leaf, "tobytes") else repr(leaf).encode())
    return digest.hexdigest()

