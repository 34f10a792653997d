"""Work shared with forked workers: sized to the job and the idle cores, same answer as serial."""

from __future__ import annotations

import os

import pytest

from dslint import parallel


def test_workers_sized_to_the_job_and_to_the_idle_cores():
    assert parallel.workers_for(200 << 10, 8) == 0  # a handful of files: no worker
    if not parallel.FORK:
        return
    assert parallel.workers_for(64 << 20, 8) == 7
    assert parallel.workers_for(5 << 20, 8) == 2  # one worker per 2 MiB of source
    assert parallel.workers_for(64 << 20, 1) == 0  # --jobs 1
    assert parallel.workers_for(64 << 20, 8, idle=0.3) == 0  # a busy machine: a worker only slows this one
    assert parallel.workers_for(64 << 20, 8, idle=2.6) == 3


def test_chunks_keep_the_order_and_cut_by_bytes():
    items = list(range(100))
    chunks = parallel.chunked(items, [100 << 10] * 100, 2)
    assert [x for chunk in chunks for x in chunk] == items
    assert len(chunks) > 2


def square_all(chunk):
    return [x * x for x in chunk]


PARENT = os.getpid()


def dies_in_a_worker(chunk):
    if os.getpid() != PARENT and chunk[0] >= 20:
        os._exit(3)  # the worker dies mid-job
    return square_all(chunk)


@pytest.mark.skipif(not parallel.FORK, reason="workers are forked")
@pytest.mark.parametrize("function", [square_all, dies_in_a_worker])
def test_shared_map_gives_the_serial_answer(function):
    chunks = [[i, i + 1] for i in range(0, 60, 2)]
    finished = []
    assert parallel.map_shared(function, chunks, 2, finished.append) == [x * x for x in range(60)]
    assert sum(finished) == 60  # every chunk reported done once
