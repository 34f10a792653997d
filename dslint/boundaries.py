"""Project boundaries: the unit the analysis runs on, and how several share the cores.

A boundary (``model.project``: the folder holding ``pyproject.toml``, ``setup.py``,
``setup.cfg`` or ``.git``, else the folder given on the command line) is a project of its
own: imports never cross it. So each is analysed on its own, and what one project's
analysis finds cannot depend on the others linted in the same run (the searches capped by
how many call sites share a name count only its own call sites). With several of them and
cores to spare, whole boundaries go to forked workers, which send back only their findings:
the summaries, which cost as much to pickle as to compute, never travel. A boundary holding
most of the work is analysed with workers of its own for its files instead.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence

from . import parallel
from .config import cap_jobs
from .diagnostics import Finding
from .paths import absolute

BALANCED = 0.8  # a boundary holding more of the work than this is analysed with its own workers


class GroupAnalysis(NamedTuple):
    """One boundary's analysis: its files (``indexes`` into the run's results, and those
    results summarised), its findings (without the per-file DSL001s the scan already made)
    and the files its analysis read."""

    indexes: List[int]
    results: list
    findings: List[Finding]
    consulted: List[str]


class Planned(NamedTuple):
    """A boundary to analyse: its files (indexes into the run's results), the candidates
    connected to its seeds, and its weight: the bytes it will parse."""

    weight: int
    indexes: List[int]
    connected: List[str]


Analyse = Callable[[Planned, Optional[int]], GroupAnalysis]  # a boundary, with this many jobs for its files


def boundary_groups(paths: Sequence[str], roots: Dict[str, str]) -> List[List[int]]:
    """Indexes of ``paths`` by project boundary, in the order boundaries first appear
    (``roots``: the command-line folder each path was found under)."""
    from .model.project import boundary_of, module_identity

    groups: Dict[str, List[int]] = {}
    for index, path in enumerate(paths):
        root = module_identity(path)[0]
        groups.setdefault(boundary_of(root, absolute(roots[path])), []).append(index)
    return list(groups.values())


def analyse_all(plan: List[Planned], analyse: Analyse, jobs: Optional[int], idle: Optional[float],
                keep_summaries: bool = False, progress: Optional[Callable[[int], None]] = None) -> List[GroupAnalysis]:
    """``analyse`` over every boundary of ``plan``, in the plan's order. ``idle``: the cores
    a worker could have (``parallel.idle_cores``); ``keep_summaries`` keeps the work in this
    process (the flake8 plugin checks an edited buffer against the summaries); ``progress(n)``
    is called as n more boundaries are finished."""
    if len(plan) == 1:
        return [analyse(plan[0], jobs)]
    heaviest = sorted(plan, key=lambda item: -item.weight)
    workers = 0 if keep_summaries else _workers(heaviest, jobs, idle)
    if workers == 0:
        out = []
        for group in heaviest:
            out.append(analyse(group, jobs))
            if progress is not None:
                progress(1)
    else:
        out = _shared(heaviest, analyse, workers, progress)
    by_first = {group.indexes[0]: group for group in out}
    return [by_first[group.indexes[0]] for group in plan]


def _workers(heaviest: List[Planned], jobs: Optional[int], idle: Optional[float]) -> int:
    """Workers to share the boundaries (heaviest first) with, or 0: run them one after
    another, each with workers of its own for its files (better when one boundary holds most
    of the work)."""
    total = sum(group.weight for group in heaviest)
    busy = [group.weight for group in heaviest if group.weight]
    if len(busy) < 2 or busy[0] > BALANCED * total:
        return 0
    return parallel.workers_for(total, cap_jobs(jobs, len(busy)), idle, parallel.PARSE_BYTES_PER_WORKER)


def _shared(heaviest: List[Planned], analyse: Analyse, workers: int, progress) -> List[GroupAnalysis]:
    """The boundaries (heaviest first) shared with ``workers`` forked processes; a worker's
    analysis comes back without its summaries."""

    def one(chunk: List[int]) -> List[GroupAnalysis]:
        done = analyse(heaviest[chunk[0]], 1)
        return [done._replace(results=[dataclasses.replace(r, summary=None) for r in done.results])]

    chunks = [[number] for number in range(len(heaviest))]  # a chunk: one boundary
    return parallel.map_shared(one, chunks, workers, progress)
