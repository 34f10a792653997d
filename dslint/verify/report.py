"""Render a verification report: text that fits the terminal (80 columns in a pipe) for
people, a versioned JSON document for tools.

Text: a summary table (rule, verdict, place), each row turning into a two-line list
entry when it does not fit; then per finding its message, evidence, what to do and the
rule page; the loaders with their measurements; with ``--fix`` the diff. Nothing is cut:
long text wraps.

JSON (``"schema": "dslint-verify-report"``, ``"version": 1``): every key below is always
present (``null`` or empty when it does not apply). Documented in docs/verify-report.md.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from typing import Any, Dict, List, Optional, TextIO

from .. import __version__
from . import advice
from .model import CONFIRMED, ERROR, FIXED, NEEDS_CUDA, NOT_REPRODUCED, NOT_TESTED, VERDICTS, LoaderOutcome, Report, Row

SCHEMA = "dslint-verify-report"
VERSION = 1
LABEL = {CONFIRMED: "CONFIRMED", FIXED: "FIXED", NOT_REPRODUCED: "NOT REPRODUCED", NEEDS_CUDA: "NEEDS CUDA",
         ERROR: "ERROR", NOT_TESTED: "NOT TESTED"}
_COLOUR = {CONFIRMED: "1;31", FIXED: "1;32", NOT_REPRODUCED: "32", NEEDS_CUDA: "33", ERROR: "1;35",
           NOT_TESTED: "33"}
_EXIT = {0: "nothing confirmed", 1: "confirmed", 2: "verifier or target error"}


def rel(path: str) -> str:
    try:
        out = os.path.relpath(path)
    except ValueError:
        return path
    return path if out.startswith("../..") else out


# JSON ------------------------------------------------------------------------------------
def _row_json(row: Row) -> Dict[str, Any]:
    return {
        "code": row.code,
        "path": row.filename,
        "line": row.row,
        "message": row.message,
        "static": row.static,
        "verdict": row.verdict,
        "start_methods": row.start_methods,
        "evidence": row.evidence,
        "loaders": row.loaders,
        "advice": advice.advice(row.code, row.fix_hint),
        "rule_url": advice.rule_url(row.code),
        "fix_applied": row.fix_applied,
        "throughput_before": row.before.to_json() if row.before else None,
        "throughput_after": row.after.to_json() if row.after else None,
    }


def _loader_json(lo: LoaderOutcome) -> Dict[str, Any]:
    return {
        "site": lo.site_key,
        "path": lo.site.get("path"),
        "line": lo.site.get("line"),
        "start_method": lo.start_method,
        "metrics": lo.metrics,
        "probes": {c: {"verdict": p.verdict, "evidence": p.evidence} for c, p in lo.probes.items()},
    }


def _hygiene(report: Report) -> List[Dict[str, Any]]:
    out = []
    for run in report.runs:
        h = run.hygiene
        out.append({"start_method": run.start_method, "root_pid": h.get("root_pid"),
                    "pids_seen": h.get("pids_seen", []), "killed": h.get("killed", []),
                    "survivors": h.get("survivors", []), "shm_removed": h.get("removed", []),
                    "registered_unlinked": h.get("unlinked", []), "wall_s": run.wall_s})
    return out


def to_json(report: Report) -> Dict[str, Any]:
    counts = {v: 0 for v in VERDICTS}
    for row in report.rows:
        counts[row.verdict] += 1
    after = report.after
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "dslint_version": __version__,
        "target": report.target,
        "start_methods": report.start_methods,
        "exit_code": report.exit_code(),
        "summary": {v.replace("-", "_"): n for v, n in counts.items()},
        "findings": [_row_json(r) for r in report.rows],
        "loaders": [_loader_json(lo) for lo in report.loaders()],
        "after_fix": None if after is None else {"loaders": [_loader_json(lo) for lo in after.loaders()],
                                                 "errors": after.errors},
        "fix": None if report.fix is None else {"applied": report.fix.applied, "files": report.fix.files,
                                                "unsafe_included": report.fix.unsafe, "diff": report.fix.diff},
        "errors": report.errors,
        "notes": report.notes,
        "hygiene": _hygiene(report) + (_hygiene(after) if after is not None else []),
        "wall_s": report.wall_s,
    }


def write_json(report: Report, out: TextIO) -> None:
    json.dump(to_json(report), out, indent=2, default=repr)
    out.write("\n")


# text ------------------------------------------------------------------------------------
class _Text:
    def __init__(self, out: TextIO, width: int, colour: bool) -> None:
        self.out = out
        self.width = width
        self.colour = colour

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def paint(self, text: str, verdict: str) -> str:
        label = LABEL[verdict]
        if not self.colour or label not in text:
            return text
        return text.replace(label, f"\x1b[{_COLOUR[verdict]}m{label}\x1b[0m", 1)

    def wrap(self, text: str, first: str = "", rest: Optional[str] = None, verdict: str = "") -> None:
        rest = " " * len(first) if rest is None else rest
        lines = textwrap.wrap(text, self.width, initial_indent=first, subsequent_indent=rest,
                              break_long_words=True, break_on_hyphens=False) or [first.rstrip()]
        for i, ln in enumerate(lines):
            self.line(self.paint(ln, verdict) if verdict and i == 0 else ln)


def _verdict_text(row: Row) -> str:
    methods = f" ({', '.join(row.start_methods)})" if row.start_methods else ""
    return LABEL[row.verdict] + methods


def _table(t: _Text, rows: List[Row]) -> None:
    verdicts = [_verdict_text(r) for r in rows]
    vw = max([len("verdict")] + [len(v) for v in verdicts])
    cw = max([len("rule")] + [len(r.code) for r in rows])
    t.line(f"  {'rule':<{cw}}  {'verdict':<{vw}}  where")
    for row, verdict in zip(rows, verdicts):
        where = f"{rel(row.filename)}:{row.row}"
        flat = f"  {row.code:<{cw}}  {verdict:<{vw}}  {where}"
        if len(flat) <= t.width:
            t.line(t.paint(flat, row.verdict))
        else:  # a row that does not fit becomes a list entry: nothing is cut
            t.line(t.paint(f"- {row.code}  {verdict}", row.verdict))
            t.wrap(where, "    ")


def _details(t: _Text, row: Row) -> None:
    t.line()
    t.wrap(f"{row.code} {_verdict_text(row)} at {rel(row.filename)}:{row.row}"
           + ("" if row.static else " (seen at run time only)"), "", verdict=row.verdict)
    if row.message:
        t.wrap(row.message, "  ")
    t.wrap(row.evidence, "  evidence: ")
    if row.before or row.after:
        before = row.before.text() if row.before else "not measured"
        after = row.after.text() if row.after else "no such loader after the fixes"
        t.wrap(f"{before} -> {after}", "  throughput: ")
    todo = advice.advice(row.code, row.fix_hint)
    if todo:
        t.wrap(todo, "  fix: ")
    url = advice.rule_url(row.code)
    if url:
        t.wrap(url, "  rule: ")


def _metrics_text(m: Dict[str, Any]) -> str:
    parts = []
    if m.get("num_workers") is not None:
        parts.append(f"{m['num_workers']} workers")
    if m.get("batch_size") is not None:
        parts.append(f"batch {m['batch_size']}")
    if m.get("time_to_first_batch_s") is not None:
        parts.append(f"first batch {m['time_to_first_batch_s']} s")
    if m.get("batches_per_s") is not None:
        parts.append(f"{m['batches_per_s']} batches/s")
    if m.get("data_wait_share") is not None:
        parts.append(f"data-wait share {m['data_wait_share']}")
    samples = m.get("samples")
    if samples:
        parts.append(f"{samples.get('received')} samples ({samples.get('unique')} unique)")
    for w in m.get("workers") or []:
        extra = f", torch {w['torch_threads']} threads" if w.get("torch_threads") else ""
        parts.append(f"worker pid {w['pid']}: {w.get('threads')} threads, "
                     f"{w.get('involuntary_ctxt_switches')} involuntary context switches{extra}")
    if m.get("error"):
        parts.append(f"error: {m['error']}")
    if m.get("hang"):
        parts.append(f"HUNG after {m['hang'].get('stalled_s')} s (stacks in --output-format json)")
    return "; ".join(parts)


def _loaders(t: _Text, title: str, loaders: List[LoaderOutcome]) -> None:
    if not loaders:
        return
    t.line()
    t.line(title)
    for lo in loaders:
        t.wrap(f"{rel(lo.site.get('path', '?'))}:{lo.site.get('line')} [{lo.start_method}]", "  ")
        t.wrap(_metrics_text(lo.metrics) or "not measured", "    ")


def _width(out: TextIO) -> int:
    if out.isatty():
        return max(60, min(120, shutil.get_terminal_size((80, 24)).columns))
    return 80


def write_text(report: Report, out: TextIO, width: Optional[int] = None) -> None:
    colour = out.isatty() and not os.environ.get("NO_COLOR")
    t = _Text(out, width or _width(out), colour)
    t.wrap(f"dslint verify {report.target}", "")
    t.wrap(f"start methods: {', '.join(report.start_methods) or '-'}; {report.wall_s} s", "")
    t.line()
    if report.rows:
        _table(t, report.rows)
        for row in report.rows:
            _details(t, row)
    else:
        t.line("No finding, and no probe confirmed anything.")
    _loaders(t, "Loaders", report.loaders())
    if report.after is not None:
        _loaders(t, "Loaders after the fixes" if report.fix else "Loaders of the fixed version",
                 report.after.loaders())
    if report.fix is not None and report.fix.diff:
        t.line()
        t.line("The fixes (`dslint check --fix --unsafe-fixes` would apply this diff):")
        out.write(report.fix.diff)
    if report.notes or report.errors:
        t.line()
    for note in report.notes:
        t.wrap(note, "note: ", "  ")
    for err in report.errors:
        t.wrap(err, "error: ", "  ")
    code = report.exit_code()
    t.line()
    t.line(f"exit {code}: {_EXIT[code]}")

