"""One verification: run the target under each start method, judge, lint, assemble."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from . import assemble, outcome, static, supervisor
from .model import Report
from .target import Target


@dataclass
class Options:
    start_methods: List[str]
    timeout: float = 20.0
    batches: int = 8
    drive: bool = True


def verify(target: Target, opts: Options) -> Report:
    runs = []
    for method in opts.start_methods:
        result = supervisor.run(target, method, opts.timeout, opts.batches, opts.drive)
        runs.append(outcome.build(result))
    loaders = [lo for run in runs for lo in run.loaders]
    lint_ran = static.linter() is not None
    findings, lint_error = static.lint(static.project_files(loaders, target.files())) if lint_ran else ([], None)
    report = assemble.build(target.display, runs, findings, lint_ran and lint_error is None)
    if lint_error:
        report.notes.append(f"static findings unavailable (the linter failed: {lint_error}); "
                            "showing what the probes confirmed, at each loader's site")
    if not lint_ran:
        report.notes.append("static findings unavailable (dslint.api.lint_paths not importable): "
                            "showing what the probes confirmed, at each loader's site")
    return report
