"""Per-file work shared between this process and forked workers, sized to the job.

A worker's answer travels back pickled, and pickling a summary costs about as much as
computing it; so this process works too, taking chunks from the same counter as the
workers: whoever is free takes the next chunk, and a worker (which pays for pickling)
simply ends up doing fewer. Workers are forked (they inherit everything, nothing is sent
to them) and only for a job big enough to pay for starting them; without ``fork``
(Windows, macOS' default) the work runs here.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from typing import Callable, List, Optional, Sequence, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

BYTES_PER_WORKER = 2 << 20  # a worker is started for each this much source to read (fork and exit: ~20 ms)
CHUNKS_PER_PARTICIPANT = 8  # small enough chunks that everyone finishes at about the same time
MIN_CHUNK_BYTES = 64 << 10
MAX_CHUNK_BYTES = 1 << 20
DONE = "done"
FORK = "fork" in multiprocessing.get_all_start_methods()


def workers_for(total_bytes: int, jobs: int) -> int:
    """How many worker processes ``total_bytes`` of source is worth, besides this one."""
    if not FORK or jobs <= 1:
        return 0
    return max(0, min(jobs - 1, total_bytes // BYTES_PER_WORKER))


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
               done: Optional[Callable[[int], None]] = None) -> List[Result]:
    """``function`` over every chunk, results concatenated in chunk order; ``done(n)`` is
    called as each chunk of ``n`` items is finished. With ``workers`` > 0, that many forked
    processes share the chunks with this one; a chunk a worker could not deliver (it
    failed or died) is done here, so a failure surfaces exactly as it would without them."""
    if workers <= 0 or len(chunks) <= 1 or not FORK:
        out: List[Result] = []
        for chunk in chunks:
            out.extend(function(chunk))
            if done is not None:
                done(len(chunk))
        return out
    context = multiprocessing.get_context("fork")
    counter = context.Value("l", 0)
    answers = context.Queue()
    processes = [context.Process(target=_work, args=(function, chunks, counter, answers), daemon=True)
                 for _ in range(workers)]
    for process in processes:
        process.start()
    results: List[Optional[List[Result]]] = [None] * len(chunks)
    finished = 0

    def take(answer) -> None:
        nonlocal finished
        if answer == DONE:
            finished += 1
            return
        index, value = answer
        if value is not None:
            results[index] = value
            if done is not None:
                done(len(chunks[index]))

    try:
        while True:
            index = _claim(counter, len(chunks))
            if index is None:
                break
            results[index] = function(chunks[index])
            if done is not None:
                done(len(chunks[index]))
            while True:  # what the workers sent meanwhile, so their pipe never fills
                try:
                    take(answers.get_nowait())
                except queue.Empty:
                    break
        while finished < len(processes):
            try:
                take(answers.get(timeout=0.2))
            except queue.Empty:
                if all(not process.is_alive() for process in processes):
                    try:  # a last answer may still be in the pipe
                        while True:
                            take(answers.get(timeout=0.05))
                    except queue.Empty:
                        break
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
        answers.close()
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


def _work(function, chunks, counter, answers) -> None:
    """A worker: take chunks until none are left, answer each (None when it failed)."""
    try:
        while True:
            index = _claim(counter, len(chunks))
            if index is None:
                break
            try:
                answers.put((index, function(chunks[index])))
            except Exception:
                answers.put((index, None))
    finally:
        answers.put(DONE)
        answers.close()
        answers.join_thread()
        os._exit(0)  # nothing of the parent's to tear down
