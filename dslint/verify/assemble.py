"""Runs (one per start method) + static findings -> the report's rows.

A static finding takes the best verdict its rule's probe reached at *its own* loaders,
under any start method (confirmed > needs-cuda > error > not-reproduced > not-tested).
A finding whose loader never ran, or whose rule has no probe, is NOT TESTED with the
reason. A hang whose worker stacks run through a finding's code (its loader's dataset,
collate or worker-init function, or the finding's own lines) is that finding CONFIRMED.
Probes that confirm something no static finding claims are reported under the probe's
rule at the loader's site: a rule without a static check yet still gets its evidence.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import advice, judges, static
from .model import (
    CONFIRMED,
    ERROR,
    FIXED,
    HANG,
    NEEDS_CUDA,
    NOT_REPRODUCED,
    NOT_TESTED,
    LoaderOutcome,
    Probe,
    Report,
    Row,
    RunOutcome,
    Throughput,
)

_RANK = {CONFIRMED: 4, NEEDS_CUDA: 3, ERROR: 2, NOT_REPRODUCED: 1, NOT_TESTED: 0}  # best first

Found = List[Tuple[str, LoaderOutcome, Probe]]


def _pick(found: Found) -> Tuple[str, List[str], str, List[str]]:
    best = max(found, key=lambda mlp: _RANK.get(mlp[2].verdict, 0))
    verdict = best[2].verdict
    methods = sorted({m for m, _, p in found if p.verdict == verdict})
    multi = len({m for m, _, _ in found}) > 1
    evidence = f"[{best[0]}] {best[2].evidence}" if multi else best[2].evidence
    if verdict == NOT_TESTED and multi:  # each start method's own reason
        reasons = {f"[{m}] {p.evidence}": None for m, _, p in found if p.verdict == verdict}
        evidence = "; ".join(reasons)
    sites = sorted({lo.site_key for _, lo, p in found if p.verdict == verdict})
    return verdict, methods, evidence, sites


_CONSTRUCTION = {code for _, code in judges.CONSTRUCTION}
_WORKER_RULES = ("DSL101", "DSL102", "DSL103", "DSL104", "DSL105", "DSL107", "DSL401", "DSL402", "DSL108", "DSL109",
                 "DSL405", "DSL502", "DSL304", "DSL404")


def _why_not_applied(code: str, lo: LoaderOutcome) -> str:
    """Why a rule's probe said nothing about a loader it concerns."""
    info = lo.info
    if lo.hung:
        return f"the loader hung before the {code} probe could finish"
    if "probe" in lo.probes:
        return f"the target died before the {code} probe could finish"
    workers = int(info.get("num_workers") or 0)
    if code in _WORKER_RULES and workers == 0:
        return f"the {code} probe needs workers; this loader was built with num_workers=0"
    if code == "DSL402" and workers < 2:
        return "the DSL402 probe compares workers; this loader was built with one"
    if code == "DSL301" and not info.get("pin_memory"):
        return "the loader was built without pin_memory=True"
    if code == "DSL404" and not info.get("persistent_workers"):
        return "the loader was built without persistent_workers=True: its workers copy the dataset each epoch"
    if code == "DSL304":
        return "the script's loop made no second iterator of this loader before the verifier stopped it"
    if code == "DSL406":
        return ("the target did not run distributed here (torch.distributed not initialised, or a world size of 1): "
                "only its ranks side by side show what each one draws; verify the launcher that starts the ranks "
                "(`torch.multiprocessing.spawn` with the gloo backend runs on one CPU machine)")
    if code == "DSL401" and not info.get("iterable"):
        return "the loader's dataset is not an IterableDataset"
    if code == "DSL103":
        return "OpenCV was not imported when the workers started, so there was no thread pool to count"
    if code == "DSL502":
        return ("the DSL502 probe counts descriptors over the script's own loop, which was not driven for 4 "
                "batches (--no-drive, another loader first, or the loop ended)")
    return f"the {code} probe found nothing to measure on this loader"


def _hang_probe(finding: Any, lo: LoaderOutcome) -> Optional[Probe]:
    """The finding's rule CONFIRMED by a hang of its loader that no other rule explains,
    when the hung workers' stacks run through the finding's code."""
    if finding.code not in judges.HANG_RULES or not lo.hung or HANG not in lo.probes:
        return None
    spans = lo.code_spans() + [{"file": p, "line": a, "end_line": b} for p, a, b in static.places(finding)]
    hang = lo.metrics.get("hang") or {}
    site = judges.hang_site(hang, spans)
    if site is None:
        return None
    return Probe(finding.code, CONFIRMED, f"{judges.hang_summary(hang, spans)}: the hung workers are in "
                 "this finding's code")


def _static_row(finding: Any, runs: Sequence[RunOutcome], claimed: set) -> Row:
    mine = [(run.start_method, lo) for run in runs for lo in static.loaders_for(finding, run.loaders)]
    found: Found = []
    for method, lo in mine:
        probe = _hang_probe(finding, lo)
        if probe is not None:
            claimed.add((id(lo), HANG))
        elif finding.code in lo.probes:
            probe = lo.probes[finding.code]
        if probe is not None:
            found.append((method, lo, probe))
            claimed.add((id(lo), finding.code))
    row = Row(finding.code, finding.path, finding.row, NOT_TESTED, "", finding.message, [], static=True,
              fix_hint=advice.fix_hint(finding))
    if found:
        row.verdict, row.start_methods, row.evidence, row.loaders = _pick(found)
    elif not mine:
        row.evidence = static.why_untested(finding, runs)
    elif finding.code not in judges.PROBED:
        row.evidence = f"dslint verify has no runtime probe for {finding.code}: nothing here proves or refutes it"
    else:
        row.loaders = sorted({lo.site_key for _, lo in mine})
        row.evidence = _why_not_applied(finding.code, mine[0][1])
    return row


def build(target: str, runs: List[RunOutcome], findings: Sequence[Any], lint_ran: bool) -> Report:
    report = Report(target=target, runs=runs, start_methods=[r.start_method for r in runs])
    for run in runs:
        report.errors.extend(f"[{run.start_method}] {e}" for e in run.errors)
        report.notes.extend(f"[{run.start_method}] {n}" for n in run.notes)
        if run.hygiene.get("survivors") or run.hygiene.get("left"):
            report.errors.append(f"[{run.start_method}] could not clean up: {run.hygiene}")
    claimed: set = set()
    for f in sorted(findings, key=lambda f: (f.path, f.row, f.code)):
        report.rows.append(_static_row(f, runs, claimed))
    extra: Dict[Tuple[str, str, int], Found] = {}
    for run in runs:
        for lo in run.loaders:
            for code, probe in lo.probes.items():
                if (id(lo), code) in claimed:
                    continue
                shown = probe.verdict in (CONFIRMED, ERROR) or (probe.verdict == NEEDS_CUDA and not lint_ran)
                if shown:
                    key = (code, lo.site.get("path", "?"), lo.site.get("line", 0))
                    extra.setdefault(key, []).append((run.start_method, lo, probe))
    for (code, path, line), found in sorted(extra.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        verdict, methods, evidence, sites = _pick(found)
        report.rows.append(Row(code, path, line, verdict, evidence, "", methods, static=False, loaders=sites))
    return report


# --fix / --against ---------------------------------------------------------------------
def throughput(lo: Optional[LoaderOutcome]) -> Optional[Throughput]:
    if lo is None:
        return None
    m = lo.metrics
    failed = None
    if lo.hung:
        failed = f"hung for {(m.get('hang') or {}).get('stalled_s')} s"
    elif m.get("error"):
        failed = str(m["error"])[:120]
    return Throughput(lo.site_key, m.get("batches_per_s"), m.get("time_to_first_batch_s"), failed)


def _loader(report: Report, site: str, method: str) -> Optional[LoaderOutcome]:
    for run in report.runs:
        for lo in run.loaders:
            if lo.site_key == site and (run.start_method == method or not method):
                return lo
    return None


def _counterpart(before: Report, after: Report, row: Row) -> Tuple[Optional[LoaderOutcome], Optional[LoaderOutcome]]:
    """The row's loader before, and the loader built at the same position after (a fix
    moves lines, not the order in which a program builds its loaders)."""
    method = row.start_methods[0] if row.start_methods else ""
    first = _loader(before, row.loaders[0], method) if row.loaders else None
    if first is None:
        return None, None
    for run in after.runs:
        if run.start_method != method:
            continue
        for lo in run.loaders:
            if lo.index == first.index:
                return first, lo
    return first, None


def compare(before: Report, after: Report, fixed_codes: Optional[Dict[str, Counter]] = None) -> Report:
    """A finding CONFIRMED before and not confirmed by the same rule after the fixes (or in
    the hand-fixed twin) is FIXED; still confirmed, it stays CONFIRMED. Each carries the
    loader's throughput before and after. ``fixed_codes`` (real path of the user's file ->
    rules whose findings a fix removed) says which findings got a fix."""
    merged = Report(target=before.target, runs=before.runs, errors=list(before.errors),
                    notes=list(before.notes), start_methods=before.start_methods,
                    extra_methods=before.extra_methods, after=after)
    merged.errors.extend(f"after fixes: {e}" for e in after.errors)
    fixed_codes = fixed_codes or {}
    for row in before.rows:
        lo_before, lo_after = _counterpart(before, after, row)
        new = Row(**{**row.__dict__})
        new.fix_applied = fixed_codes.get(os.path.realpath(row.filename), Counter())[row.code] > 0
        new.before, new.after = throughput(lo_before), throughput(lo_after)
        if row.verdict == CONFIRMED:
            new.verdict, new.evidence = _after_verdict(row, after, lo_after, new.fix_applied or not fixed_codes)
        merged.rows.append(new)
    codes = {r.code for r in before.rows}
    for row in after.rows:
        if row.verdict == CONFIRMED and row.code not in codes:
            new = Row(**{**row.__dict__})
            new.evidence = f"appeared after the fixes: {row.evidence}"
            merged.rows.append(new)
    return merged


def _after_verdict(row: Row, after: Report, lo_after: Optional[LoaderOutcome], fix_for_it: bool) -> Tuple[str, str]:
    """FIXED only when the rule was tested again and not seen (NEEDS CUDA counts: nothing
    touched CUDA any more, and only a GPU could show more); a fixed program that could not
    be tested again leaves the finding CONFIRMED, with the reason."""
    same = [r for r in after.rows if r.code == row.code and r.verdict == CONFIRMED]
    if same:
        why = "" if fix_for_it else "no fix for it was applied; "
        return CONFIRMED, f"still confirmed after the fixes: {why}{same[0].evidence}"
    probes = [lo.probes[row.code] for lo in after.loaders() if row.code in lo.probes]
    clean = [p for p in probes if p.verdict in (NOT_REPRODUCED, NEEDS_CUDA)]
    if clean:
        return FIXED, f"before: {row.evidence} | after: {clean[0].evidence}"
    built = lo_after is not None and not lo_after.hung and not lo_after.metrics.get("error")
    if row.code in _CONSTRUCTION and built:
        return FIXED, f"before: {row.evidence} | after: the loader was built and iterated without that error"
    untested = probes[0].evidence if probes else "the fixed program built no such loader"
    return CONFIRMED, f"confirmed as written; the fix could not be proven, after it: {untested}"
