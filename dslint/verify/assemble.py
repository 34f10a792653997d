"""Runs (one per start method) + static findings -> the report's rows.

A static finding takes the best verdict its rule's probe reached at any loader it
concerns, under any start method (confirmed > needs-cuda > error > not-reproduced).
Probes that confirm something no static finding claims are reported under the probe's
rule at the loader's site: a rule without a static check yet still gets its evidence.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from . import static
from .model import (
    CONFIRMED,
    ERROR,
    FIXED,
    NEEDS_CUDA,
    NOT_REPRODUCED,
    LoaderOutcome,
    Probe,
    Report,
    Row,
    RunOutcome,
)

_RANK = {CONFIRMED: 3, NEEDS_CUDA: 2, ERROR: 1, NOT_REPRODUCED: 0}


def _pick(found: List[Tuple[str, Probe]]) -> Tuple[str, List[str], str]:
    best = max(found, key=lambda mp: _RANK.get(mp[1].verdict, 0))
    verdict = best[1].verdict
    methods = sorted({m for m, p in found if p.verdict == verdict})
    multi = len({m for m, _ in found}) > 1
    evidence = f"[{best[0]}] {best[1].evidence}" if multi else best[1].evidence
    return verdict, methods, evidence


def build(target: str, runs: List[RunOutcome], findings: Sequence[Any], lint_ran: bool) -> Report:
    report = Report(target=target, runs=runs)
    for run in runs:
        report.errors.extend(f"[{run.start_method}] {e}" for e in run.errors)
        report.notes.extend(f"[{run.start_method}] {n}" for n in run.notes)
        if run.hygiene.get("survivors") or run.hygiene.get("left"):
            report.errors.append(f"[{run.start_method}] could not clean up: {run.hygiene}")
    all_loaders: List[Tuple[str, LoaderOutcome]] = [(r.start_method, lo) for r in runs for lo in r.loaders]
    claimed = set()
    for f in sorted(findings, key=lambda f: (f.path, f.row, f.code)):
        found = []
        for method, lo in all_loaders:
            if lo in static.loaders_for(f, [lo]) and f.code in lo.probes:
                found.append((method, lo.probes[f.code]))
                claimed.add((id(lo), f.code))
        if found:
            verdict, methods, evidence = _pick(found)
        else:
            ran = any(lo in static.loaders_for(f, [lo]) for _, lo in all_loaders)
            verdict, methods = NOT_REPRODUCED, []
            evidence = (f"no runtime probe for {f.code} applies to this loader" if ran
                        else "no loader from this file ran under the verifier")
        report.rows.append(Row(f.code, f.path, f.row, verdict, evidence, f.message, methods, static=True))
    extra: Dict[Tuple[str, str, int], List[Tuple[str, Probe]]] = {}
    for method, lo in all_loaders:
        for code, probe in lo.probes.items():
            if (id(lo), code) in claimed:
                continue
            shown = probe.verdict in (CONFIRMED, ERROR) or (probe.verdict == NEEDS_CUDA and not lint_ran)
            if shown:
                key = (code, lo.site.get("path", "?"), lo.site.get("line", 0))
                extra.setdefault(key, []).append((method, probe))
    for (code, path, line), found in sorted(extra.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        verdict, methods, evidence = _pick(found)
        report.rows.append(Row(code, path, line, verdict, evidence, "", methods, static=False))
    return report


def compare(before: Report, after: Report) -> Report:
    """--fix: a finding CONFIRMED before and not confirmed by the same rule's probe on
    the fixed version is FIXED (matched by rule: the fixed version may be another file,
    as with a hand-written twin)."""
    merged = Report(target=before.target, runs=before.runs, errors=list(before.errors),
                    notes=list(before.notes), after=after)
    merged.errors.extend(f"after fixes: {e}" for e in after.errors)
    for row in before.rows:
        if row.verdict != CONFIRMED:
            merged.rows.append(row)
            continue
        same = [r for r in after.rows if r.code == row.code and r.verdict == CONFIRMED]
        if same:
            merged.rows.append(Row(row.code, row.filename, row.row, CONFIRMED,
                                   f"still confirmed after the fixes: {same[0].evidence}",
                                   row.message, row.start_methods, row.static))
        else:
            probe = _after_probe(after, row.code)
            evidence = f"before: {row.evidence} | after: {probe.evidence if probe else 'not reproduced'}"
            merged.rows.append(Row(row.code, row.filename, row.row, FIXED, evidence, row.message,
                                   row.start_methods, row.static))
    return merged


def _after_probe(report: Report, code: str) -> Probe:
    for run in report.runs:
        for lo in run.loaders:
            if code in lo.probes:
                return lo.probes[code]
    return None  # type: ignore[return-value]
