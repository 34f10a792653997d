"""One verification: run the target under each start method, judge, lint, assemble.

In the default mode the platform's start method runs, and spawn too when a finding that
only spawn can show (DSL101, DSL102) is flagged, so that finding is tested rather than
waved through. Several start methods run side by side when the machine has the cores
and memory for it.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence

from . import assemble, guard, outcome, static, supervisor
from .model import Report, RunOutcome
from .target import Target

NEEDS_SPAWN = ("DSL101", "DSL102")
_MEMORY_PER_RUN = 1 << 30  # a torch main and two workers, with room to spare


@dataclass
class Options:
    start_methods: List[str]
    timeout: float = 20.0
    batches: int = 8
    drive: bool = True
    auto_spawn: bool = False  # default mode: add spawn when DSL101/DSL102 is flagged
    cancel: Optional[threading.Event] = None
    watch: Optional[guard.Guard] = None
    parallel: Optional[int] = None  # runs side by side; None: what the machine allows
    extra_methods: Sequence[str] = ()  # methods run only for DSL101/DSL102 (no driving)


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def machine_parallelism() -> int:
    """How many runs fit side by side: one per core, as memory allows (a run spends much
    of its time importing torch in fresh processes, so even two cores gain: measured on
    2 cores, the three start methods took 7.1 s one after the other, 5.8 s side by side)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    by_memory = max(1, _available_memory() // _MEMORY_PER_RUN)
    return max(1, min(cores, by_memory))


def _check(opts: Options) -> None:
    if opts.cancel is not None and opts.cancel.is_set():
        raise supervisor.Cancelled()


def _one(target: Target, method: str, opts: Options, drive: bool) -> RunOutcome:
    _check(opts)
    result = supervisor.run(target, method, opts.timeout, opts.batches, drive,
                            cancel=opts.cancel, watch=opts.watch)
    return outcome.build(result)


def run_methods(target: Target, methods: Sequence[str], opts: Options, extra: Sequence[str] = ()) -> List[RunOutcome]:
    """One run per start method; the ``extra`` ones (added only to test DSL101/DSL102)
    stop after the probes instead of timing the script's own loop again."""
    drives = [opts.drive and m not in extra for m in methods]
    width = min(len(methods), opts.parallel or machine_parallelism())
    if width <= 1:
        return [_one(target, m, opts, d) for m, d in zip(methods, drives)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=width, thread_name_prefix="dslint-verify") as pool:
        futures = [pool.submit(_one, target, m, opts, d) for m, d in zip(methods, drives)]
        pending = set(futures)
        while pending:  # wake up now and then: the signal handlers run in this thread
            _, pending = concurrent.futures.wait(pending, timeout=0.2)
        return [f.result() for f in futures]


def _needs_spawn(findings: Sequence, methods: Sequence[str]) -> List[str]:
    if "spawn" in methods or "forkserver" in methods:
        return []
    return sorted({f.code for f in findings if f.code in NEEDS_SPAWN})


def verify(target: Target, opts: Options) -> Report:
    t0 = time.monotonic()
    methods = list(opts.start_methods)
    lint_ran = static.linter() is not None
    notes = []
    extra: List[str] = list(opts.extra_methods)
    if opts.auto_spawn and lint_ran:
        early, _ = static.lint(static.project_files([], target.files()))
        codes = _needs_spawn(early, methods)
        if codes:
            methods.append("spawn")
            extra.append("spawn")
            notes.append(f"{', '.join(codes)} can only show under spawn or forkserver: ran spawn as well")
    runs = run_methods(target, methods, opts, extra)
    loaders = [lo for run in runs for lo in run.loaders]
    files = static.project_files(loaders, target.files())
    findings, lint_error = static.lint(files) if lint_ran else ([], None)
    codes = _needs_spawn(findings, methods) if opts.auto_spawn else []
    if codes:
        methods.append("spawn")
        extra.append("spawn")
        runs += run_methods(target, ["spawn"], opts, extra)
        notes.append(f"{', '.join(codes)} can only show under spawn or forkserver: ran spawn as well")
    report = assemble.build(target.display, runs, findings, lint_ran and lint_error is None)
    report.start_methods = methods
    report.extra_methods = extra
    report.notes[:0] = notes
    if lint_error:
        report.notes.append(f"static findings unavailable (the linter failed: {lint_error}); "
                            "showing what the probes confirmed, at each loader's site")
    if not lint_ran:
        report.notes.append("static findings unavailable (dslint.api.lint_paths not importable): "
                            "showing what the probes confirmed, at each loader's site")
    report.wall_s = round(time.monotonic() - t0, 2)
    return report
