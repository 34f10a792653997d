"""Render a verification report: a rich table for people, JSON for tools."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, TextIO

from .model import CONFIRMED, ERROR, FIXED, NEEDS_CUDA, NOT_REPRODUCED, Report

_STYLE = {CONFIRMED: "bold red", FIXED: "bold green", NOT_REPRODUCED: "green", NEEDS_CUDA: "yellow",
          ERROR: "bold magenta"}
_LABEL = {CONFIRMED: "CONFIRMED", FIXED: "FIXED", NOT_REPRODUCED: "NOT REPRODUCED",
          NEEDS_CUDA: "NEEDS CUDA", ERROR: "ERROR"}


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("../..") else rel


def write_json(report: Report, out: TextIO) -> None:
    json.dump(report.to_json(), out, indent=2, default=repr)
    out.write("\n")


def _fmt_workers(workers: List[Dict[str, Any]]) -> str:
    parts = []
    for w in workers:
        text = f"pid {w['pid']}: {w.get('threads')} threads, {w.get('involuntary_ctxt_switches')} invol. cs"
        if w.get("torch_threads"):
            text += f", torch {w['torch_threads']}"
        parts.append(text)
    return "\n".join(parts)


def _metric_lines(m: Dict[str, Any]) -> str:
    keys = [
        ("num_workers", "workers"), ("batch_size", "batch"), ("time_to_first_batch_s", "first batch s"),
        ("batches_per_s", "batches/s"), ("data_wait_share", "data-wait share"), ("samples", "samples"),
    ]
    lines = [f"{label}: {m[key]}" for key, label in keys if m.get(key) is not None]
    if m.get("pin_memory"):
        lines.append(f"pin_memory: True, unpinned: {m.get('unpinned')}")
    if m.get("workers"):
        lines.append(_fmt_workers(m["workers"]))
    if m.get("error"):
        lines.append(f"error: {m['error'][:200]}")
    if m.get("hang"):
        lines.append(f"HANG after {m['hang'].get('stalled_s')} s (stacks in JSON output)")
    return "\n".join(lines)


def write_text(report: Report, out: TextIO) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    width = Console().width if out.isatty() else 140
    console = Console(file=out, width=max(100, min(180, width)), soft_wrap=False)
    console.print(f"[bold]dslint verify[/bold] {escape(report.target)}")
    table = Table(show_lines=True, title="Findings")
    table.add_column("finding", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("evidence", overflow="fold")
    for row in report.rows:
        where = f"{row.code}\n{_rel(row.filename)}:{row.row}"
        if not row.static:
            where += "\n(runtime only)"
        verdict = f"[{_STYLE[row.verdict]}]{_LABEL[row.verdict]}[/]"
        if row.start_methods:
            verdict += "\n" + ", ".join(row.start_methods)
        table.add_row(escape(where), verdict, escape(row.evidence))
    if report.rows:
        console.print(table)
    else:
        console.print("No finding confirmed.")
    loaders = Table(show_lines=True, title="Loaders")
    loaders.add_column("loader", no_wrap=True)
    loaders.add_column("start method", no_wrap=True)
    loaders.add_column("metrics", overflow="fold")
    loaders.add_column("probes not reproducing", overflow="fold")
    for run in report.runs:
        for lo in run.loaders:
            quiet = ", ".join(sorted(c for c, p in lo.probes.items() if p.verdict == NOT_REPRODUCED))
            loaders.add_row(escape(f"{_rel(lo.site.get('path', '?'))}:{lo.site.get('line')}"), lo.start_method,
                            escape(_metric_lines(lo.metrics)), quiet)
    if report.after is not None:
        for run in report.after.runs:
            for lo in run.loaders:
                loaders.add_row(escape(f"after fix: {_rel(lo.site.get('path', '?'))}:{lo.site.get('line')}"),
                                lo.start_method, escape(_metric_lines(lo.metrics)), "")
    if loaders.row_count:
        console.print(loaders)
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {escape(note)}", soft_wrap=True)
    for err in report.errors:
        console.print(f"[bold magenta]error:[/bold magenta] {escape(err)}", soft_wrap=True)
    code = report.exit_code()
    summary = {0: "nothing confirmed", 1: "confirmed", 2: "verifier or target error"}[code]
    console.print(f"exit {code}: {summary}")
