"""Work shared with forked workers: sized to the job and the idle cores, same answer as serial."""

from __future__ import annotations

import os
import time

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


def spans_of(chunk):
    from dslint.analysis.summary import Span

    if os.getpid() == PARENT:
        time.sleep(0.02)  # leave chunks to the worker
    span = Span(1, 2, 3, 4)
    return [(os.getpid() != PARENT, Span(x, x, x + 1, 0), span, span) for x in chunk]


@pytest.mark.skipif(not parallel.FORK, reason="workers are forked")
def test_named_tuples_come_back_from_workers_as_themselves():
    """Pickled as plain tuples (``tuple_types``), they come back of their own class, equal,
    and an object shared inside an answer is still one object."""
    from dslint.analysis.summary import Span

    chunks = [[i] for i in range(40)]
    answers = parallel.map_shared(spans_of, chunks, 1, tuple_types=(Span,))
    assert [a[1] for a in answers] == [Span(x, x, x + 1, 0) for x in range(40)]
    assert all(type(a[1]) is Span and a[1].end_row == a[1].row + 1 for a in answers)
    assert all(a[2] is a[3] for a in answers)
    assert any(from_worker for from_worker, *_ in answers), "no chunk was done by the worker"
