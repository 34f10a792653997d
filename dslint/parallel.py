"""Per-file work shared between this process and forked workers, sized to the job.

A worker's answer travels back pickled, and pickling a summary costs about as much as
computing it; so this process works too, taking chunks from the same counter as the
workers: whoever is free takes the next chunk, and a worker (which pays for pickling)
simply ends up doing fewer. The pickles are this run's own, written to and read from a
private temporary folder (never the linted tree). Workers are forked (they inherit everything, nothing is sent
to them) and only for a job big enough to pay for starting them; without ``fork``
(Windows, macOS' default), or when the machine has no idle core (a worker would only
take time from this process), the work runs here.
"""

from __future__ import annotations

import copyreg
import io
import os
import pickle
import tempfile
from typing import Callable, List, Optional, Sequence, Tuple, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

BYTES_PER_WORKER = 2 << 20  # a worker is started for each this much source to read (fork and exit: ~20 ms)
PARSE_BYTES_PER_WORKER = 256 << 10  # ... or to parse and summarise (about 0.1 s of work)
CHUNKS_PER_PARTICIPANT = 8  # small enough chunks that everyone finishes at about the same time
MIN_CHUNK_BYTES = 64 << 10
MAX_CHUNK_BYTES = 1 << 20
FORK = hasattr(os, "fork")  # what multiprocessing offers "fork" on (imported only when a worker starts)


def workers_for(total_bytes: int, jobs: int, idle: Optional[float] = None, per_worker: Optional[int] = None) -> int:
    """How many worker processes ``total_bytes`` of source is worth, besides this one, with
    ``idle`` cores free (None: unknown), one per ``per_worker`` bytes (default: to read,
    ``BYTES_PER_WORKER``). A worker on a core that is not free only takes time from this
    process and adds its pickling (measured: a run 15 % slower)."""
    if not FORK or jobs <= 1:
        return 0
    wanted = min(jobs - 1, total_bytes // (per_worker or BYTES_PER_WORKER))
    if idle is not None:
        wanted = min(wanted, int(idle + 0.5))
    return max(0, wanted)


def cpu_times() -> Optional[Tuple[int, int, float]]:
    """(idle, total) CPU ticks of the machine so far and this process's own CPU seconds
    (its finished workers' included); None where ``/proc/stat`` is not there."""
    try:
        with open("/proc/stat", "rb") as handle:
            fields = handle.readline().split()
        ticks = [int(value) for value in fields[1:]]
    except (OSError, ValueError):
        return None
    if fields[:1] != [b"cpu"] or len(ticks) < 4:
        return None
    own = sum(os.times()[:4])
    return ticks[3] + (ticks[4] if len(ticks) > 4 else 0), sum(ticks[:8]), own


def idle_cores(since: Optional[Tuple[int, int, float]]) -> Optional[float]:
    """Cores a worker could have had since ``since`` (a ``cpu_times()``): the cores, less
    what other programs kept busy, less the one this process works on. None when unknown
    or too short a time has passed to tell."""
    now = cpu_times()
    if since is None or now is None or now[1] - since[1] < 10:
        return None
    cores = os.cpu_count() or 1
    ticks_per_core = (now[1] - since[1]) / cores
    busy = (now[1] - since[1]) - (now[0] - since[0])
    ours = (now[2] - since[2]) * os.sysconf("SC_CLK_TCK")
    return cores - max(0.0, busy - ours) / ticks_per_core - 1


def chunked(items: Sequence[Item], sizes: Sequence[int], participants: int) -> List[List[Item]]:
    """``items`` in order, cut into chunks of about the same number of bytes."""
    total = sum(sizes)
    target = min(MAX_CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // max(1, participants * CHUNKS_PER_PARTICIPANT)))
    chunks: List[List[Item]] = []
    current: List[Item] = []
    size = 0
    for item, item_size in zip(items, sizes):
        current.append(item)
        size += item_size
        if size >= target:
            chunks.append(current)
            current, size = [], 0
    if current:
        chunks.append(current)
    return chunks


def map_shared(function: Callable[[List[Item]], List[Result]], chunks: List[List[Item]], workers: int,
               done: Optional[Callable[[int], None]] = None, tuple_types: Sequence[type] = ()) -> List[Result]:
    """``function`` over every chunk, results concatenated in chunk order; ``done(n)`` is
    called as each chunk of ``n`` items is finished here. With ``workers`` > 0, that many
    forked processes share the chunks with this one. A worker pickles each answer before
    it takes another chunk (so a worker takes chunks only as fast as it really finishes
    them) into a file of its own in a private temporary folder (so it never waits for this
    process to read). A chunk a worker could not deliver (it failed or died) is done here,
    so a failure surfaces exactly as it would without workers. ``tuple_types``: NamedTuple
    classes of the answers, pickled as the plain tuples they are (see ``_tuple_pickler``)."""
    if workers <= 0 or len(chunks) <= 1 or not FORK:
        out: List[Result] = []
        for chunk in chunks:
            out.extend(function(chunk))
            if done is not None:
                done(len(chunk))
        return out
    import multiprocessing

    context = multiprocessing.get_context("fork")
    counter = context.Value("l", 0)
    results: List[Optional[List[Result]]] = [None] * len(chunks)
    with tempfile.TemporaryDirectory(prefix="dslint-") as folder:
        outputs = [os.path.join(folder, str(number)) for number in range(workers)]
        processes = [context.Process(target=_work, args=(function, chunks, counter, output, tuple(tuple_types)),
                                        daemon=True)
                     for output in outputs]
        for process in processes:
            process.start()
        try:
            while True:
                index = _claim(counter, len(chunks))
                if index is None:
                    break
                results[index] = function(chunks[index])
                if done is not None:
                    done(len(chunks[index]))
        finally:
            for process in processes:
                process.join()
        for output in outputs:
            for index, value in _answers(output):
                results[index] = value
                if done is not None:
                    done(len(chunks[index]))
    out = []
    for index, value in enumerate(results):
        if value is None:  # a worker's chunk that never arrived
            value = function(chunks[index])
            if done is not None:
                done(len(chunks[index]))
        out.extend(value)
    return out


def _claim(counter, count: int) -> Optional[int]:
    with counter.get_lock():
        index = counter.value
        if index >= count:
            return None
        counter.value = index + 1
    return index


def _as_tuple(value: tuple):
    return _NEW_TUPLE, (type(value), tuple(value))


_NEW_TUPLE = tuple.__new__


def _tuple_pickler(handle, tuple_types: Sequence[type]) -> pickle.Pickler:
    """A pickler that writes a NamedTuple of ``tuple_types`` as its class and plain tuple,
    rebuilt by ``tuple.__new__`` (its fields are already what ``__new__`` made them). The
    default path asks each object for ``__getnewargs__``, a Python call per object:
    summaries are mostly small NamedTuples (spans, names, call sites), and this takes
    about a fifth off pickling them and a quarter off loading them."""
    pickler = pickle.Pickler(handle, pickle.HIGHEST_PROTOCOL)
    if tuple_types:
        pickler.dispatch_table = {**copyreg.dispatch_table, **{kind: _as_tuple for kind in tuple_types}}
    return pickler


def _work(function, chunks, counter, output: str, tuple_types: Sequence[type] = ()) -> None:
    """A worker: take chunks until none are left, and write each answer to ``output``."""
    try:
        with open(output, "wb") as handle:
            while True:
                index = _claim(counter, len(chunks))
                if index is None:
                    break
                buffer = io.BytesIO()
                try:
                    _tuple_pickler(buffer, tuple_types).dump((index, function(chunks[index])))
                except Exception:
                    continue  # done again by the parent, where the failure shows
                handle.write(buffer.getvalue())
    finally:
        os._exit(0)  # nothing of the parent's to tear down


def _answers(output: str):
    """The (index, result) pairs a worker wrote (up to a torn last one, if it died writing)."""
    try:
        handle = open(output, "rb")
    except OSError:
        return
    with handle:
        while True:
            try:
                yield pickle.load(handle)
            except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, IndexError):
                return
