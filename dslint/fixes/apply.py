"""``--fix`` / ``--unsafe-fixes`` / ``--diff`` / ``--show-fixes``, and the fixes in reports.

Per file: the findings that have a fix are planned against one LibCST tree (see
``base``), all plans are applied in one transformer pass, and the result is written only
if it compiles. The fixed texts are linted again, in memory, until nothing more changes
(at most ``MAX_ROUNDS`` rounds); only then is anything written, so ``--diff`` prints
exactly what ``--fix`` writes. Writes are atomic (a temporary file in the same folder,
then ``os.replace``) and keep the encoding (LibCST prints the bytes in the file's own
encoding, BOM included), the newline style and the permissions. The findings that remain
are returned.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Optional, Sequence, TextIO, Tuple

from .. import catalogue, engine
from ..config import Settings
from ..diagnostics import Edit, Finding, Fix, Location
from ..sourcefile import SourceText, Unreadable, decode, split_rows
from .. import writing
from . import combine, dsl101, dsl102, dsl103, dsl104, dsl201, dsl202, dsl301, dsl403
from .base import Decline, FileContext, FixPlan

PLANNERS: Dict[str, Callable[[FileContext, Finding], FixPlan]] = {
    "DSL101": dsl101.plan,
    "DSL102": dsl102.plan,
    "DSL103": dsl103.plan,
    "DSL104": dsl104.plan,
    "DSL201": dsl201.plan,
    "DSL202": dsl202.plan,
    "DSL301": dsl301.plan,
    "DSL403": dsl403.plan,
}
MAX_ROUNDS = 4
# Fixes are planned on a LibCST tree, which costs far more than the ``ast`` parse a check
# needs (measured: 10 MB of string constants 33 s and 1 GB; 1.2 MB of integer literals
# 21 s and 1 GB). A bigger file gets no fix (one warning under --fix/--diff), so no file
# can make a check exhaust its machine; the largest file of the 8,220-file corpus is 350 KB.
FIX_BUDGET_BYTES = 512 * 1024


@dataclass
class FilePlan:
    """The fixes of one file: per finding its plan, and the text after each plan alone."""

    path: str
    source: SourceText
    context: Optional[FileContext]
    plans: Dict[int, FixPlan] = field(default_factory=dict)  # index in findings -> plan
    findings: List[Finding] = field(default_factory=list)


def _debug() -> bool:
    return bool(os.environ.get("DSLINT_DEBUG"))


def over_budget(source: SourceText) -> bool:
    return len(source.raw) > FIX_BUDGET_BYTES


def plan_file(path: str, source: SourceText, findings: Sequence[Finding]) -> FilePlan:
    result = FilePlan(path, source, None, findings=list(findings))
    wanted = [i for i, f in enumerate(findings) if f.code in PLANNERS]
    if not wanted or over_budget(source):
        return result
    try:
        context = FileContext(path, source.raw, source.text, None)
    except Exception:  # a file LibCST cannot parse gets no fixes, never a crash
        if _debug():
            raise
        return result
    context.findings = list(findings)
    result.context = context
    for index in wanted:
        item = findings[index]
        try:
            result.plans[index] = PLANNERS[item.code](context, item)
        except Decline:
            continue
        except Exception:
            if _debug():
                raise
            continue
    return result


def compiles(text: str, path: str) -> bool:
    try:
        compile(text, path, "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def render(context: FileContext, plans: Sequence[FixPlan]):
    """(new module) with ``plans`` applied, or None when that fails or does not compile."""
    try:
        module = combine.apply(context.module, plans)
    except Exception:
        if _debug():
            raise
        return None
    if not compiles(module.code, context.path):
        return None
    return module


def unique(plans: Sequence[FixPlan]) -> List[FixPlan]:
    seen, out = set(), []
    for plan in plans:
        if id(plan) not in seen:
            seen.add(id(plan))
            out.append(plan)
    return out


def combined(context: FileContext, plans: Sequence[FixPlan]):
    """All ``plans`` in one pass; if that fails, the largest prefix-greedy subset that works."""
    plans = unique(plans)
    module = render(context, plans)
    if module is not None:
        return module, plans
    kept: List[FixPlan] = []
    module = None
    for plan in plans:
        trial = render(context, [*kept, plan])
        if trial is not None:
            kept.append(plan)
            module = trial
    return module, kept


# edits for the reports -------------------------------------------------------------------
def _offsets(text: str) -> List[int]:
    starts, total = [0], 0
    for line in split_rows(text, keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def _location(starts: List[int], offset: int) -> Location:
    import bisect

    row = bisect.bisect_right(starts, offset) - 1
    row = min(row, len(starts) - 1)
    return Location(row + 1, offset - starts[row] + 1)


def text_edits(old: str, new: str) -> Tuple[Edit, ...]:
    """The changes from ``old`` to ``new`` as minimal edits (1-based rows and columns)."""
    a = split_rows(old, keepends=True)
    b = split_rows(new, keepends=True)
    starts = _offsets(old)
    edits: List[Edit] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before = "".join(a[i1:i2])
        after = "".join(b[j1:j2])
        prefix = 0
        limit = min(len(before), len(after))
        while prefix < limit and before[prefix] == after[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]:
            suffix += 1
        start = starts[i1] + prefix
        end = starts[i1] + len(before) - suffix
        edits.append(Edit(_location(starts, start), _location(starts, end), after[prefix : len(after) - suffix]))
    return tuple(edits)


def with_fixes(file_plan: FilePlan) -> List[Finding]:
    """The file's findings, each carrying its fix (applicability, message, edits)."""
    findings = list(file_plan.findings)
    context = file_plan.context
    if context is None:
        return findings
    original = context.module.code
    cache: Dict[int, Optional[Fix]] = {}
    for index, plan in file_plan.plans.items():
        if id(plan) not in cache:
            module = render(context, [plan])
            fix = None
            if module is not None and module.code != original:
                fix = Fix(plan.message, plan.applicability, text_edits(original, module.code))
            cache[id(plan)] = fix
        if cache[id(plan)] is not None:
            findings[index] = replace(findings[index], fix=cache[id(plan)])
    return findings


def _by_path(findings: Sequence[Finding]) -> Dict[str, List[Finding]]:
    grouped: Dict[str, List[Finding]] = {}
    for item in findings:
        if item.code in PLANNERS:
            grouped.setdefault(item.path, []).append(item)
    return grouped


def attach(result: engine.RunResult) -> engine.RunResult:
    """Give every fixable finding of ``result`` its fix (for JSON and the summary line)."""
    grouped = _by_path(result.findings)
    if not grouped:
        return result
    fixed: Dict[Tuple[str, Location, str], Finding] = {}
    for path, findings in grouped.items():
        source = result.sources.get(path) or engine.read_source(path)
        if isinstance(source, Unreadable):
            continue
        for item in with_fixes(plan_file(path, source, findings)):
            fixed[(item.path, item.location, item.code)] = item
    result.findings = [fixed.get((f.path, f.location, f.code), f) for f in result.findings]
    return result


# writing ---------------------------------------------------------------------------------
def write_atomic(path: str, data: bytes, expected: bytes) -> Optional[str]:
    """Replace ``path``'s bytes with ``data`` unless it changed since it was read, is a link,
    or cannot be written (see ``dslint.writing``): None when written, else why not."""
    return writing.replace_file(path, data, expected)


def file_bytes(source: SourceText) -> bytes:
    """The bytes of the file ``source`` stands for (a notebook's JSON, not its joined code)."""
    notebook = getattr(source, "notebook", None)
    return notebook.raw if notebook is not None else source.raw


def _write(path: str, original: SourceText, final: SourceText) -> Optional[str]:
    """Write the fixed file: None when written, else why not (a link, read-only, changed)."""
    return write_atomic(path, file_bytes(final), file_bytes(original))


def keep_last_newline(old: bytes, new: bytes) -> bytes:
    """LibCST does not see a lone ``\\r`` as the last newline of a CR-only file and drops it;
    line endings are kept byte for byte, so it comes back."""
    if old.endswith(b"\r") and not new.endswith((b"\r", b"\n")):
        return new + b"\r"
    return new


def in_cells(result: engine.RunResult) -> engine.RunResult:
    """Notebook findings (read with ``cells=False``) in the rows of their cells."""
    result.findings = engine.notebook_findings(result.findings, result.sources)
    return result


def _allowed(plan: FixPlan, settings: Settings) -> bool:
    return plan.applicability == "safe" or (plan.applicability == "unsafe" and settings.unsafe_fixes)


def _fixed_source(source: SourceText, module) -> SourceText:
    """What ``source`` reads as once ``module`` is written in its place."""
    if getattr(source, "notebook", None) is not None:  # the joined cells of a .ipynb
        from ..notebook import fixed

        return fixed(source, module.code)
    return decode(source.path, keep_last_newline(source.raw, module.bytes))


def fix_round(result: engine.RunResult, settings: Settings) -> Dict[str, Tuple[SourceText, SourceText, Counter]]:
    """Fix every file of ``result`` once, in memory: {path: (source, fixed source, Counter of codes)}."""
    changes: Dict[str, Tuple[SourceText, SourceText, Counter]] = {}
    for path, findings in _by_path(result.findings).items():
        source = result.sources.get(path) or engine.read_source(path)
        if isinstance(source, Unreadable):
            continue
        file_plan = plan_file(path, source, findings)
        context = file_plan.context
        if context is None:
            continue
        chosen = [(i, p) for i, p in file_plan.plans.items() if _allowed(p, settings)]
        if not chosen:
            continue
        module, applied = combined(context, [p for _, p in chosen])
        if module is None or module.code == context.module.code:
            continue
        fixed = _fixed_source(source, module)
        if isinstance(fixed, Unreadable):
            continue
        applied_ids = {id(p) for p in applied}
        codes = Counter(findings[i].code for i, p in chosen if id(p) in applied_ids)
        changes[path] = (source, fixed, codes)
    return changes


@dataclass
class Rounds:
    """A run's fixes, planned in memory round after round exactly as ``--fix`` writes them."""

    first: engine.RunResult  # the lint before any fix
    last: engine.RunResult  # the lint of the fixed texts
    originals: Dict[str, SourceText] = field(default_factory=dict)  # as first read
    fixed: Dict[str, SourceText] = field(default_factory=dict)  # after the last round
    applied: Dict[str, Counter] = field(default_factory=dict)
    count: int = 0  # rounds that changed something

    def changed(self) -> List[str]:
        return sorted(p for p, s in self.fixed.items() if file_bytes(s) != file_bytes(self.originals[p]))


def plan_rounds(paths: Sequence[str], settings: Settings) -> Rounds:
    """Lint, fix in memory, lint the fixed texts again, until nothing changes (``MAX_ROUNDS``):
    fixes that could not share one pass, and findings a fix uncovers, get their turn."""
    result = engine.run(paths, settings, cells=False)
    rounds = Rounds(result, result)
    for _ in range(MAX_ROUNDS):
        with engine.overlay(rounds.fixed):
            changes = fix_round(rounds.last, settings)
        if not changes:
            break
        rounds.count += 1
        for path, (before, after, codes) in changes.items():
            rounds.originals.setdefault(path, before)
            rounds.fixed[path] = after
            rounds.applied.setdefault(path, Counter()).update(codes)
        with engine.overlay(rounds.fixed):
            rounds.last = engine.run(paths, settings, cells=False)
    return rounds


def print_diff(rounds: Rounds, out: TextIO) -> None:
    for path in rounds.changed():
        old, new = rounds.originals[path].text, rounds.fixed[path].text
        lines = difflib.unified_diff(
            split_rows(old, keepends=True), split_rows(new, keepends=True), fromfile=path, tofile=path
        )
        for line in lines:
            out.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")


def print_fixes(applied: Dict[str, Counter], out: TextIO, verb: str = "Fixed") -> None:
    total = sum(sum(c.values()) for c in applied.values())
    if not total:
        return
    noun = "error" if total == 1 else "errors"
    out.write(f"{verb} {total} {noun}:\n")
    for path in sorted(applied):
        out.write(f"- {path}:\n")
        for code, count in sorted(applied[path].items()):
            rule = catalogue.RULES.get(code)
            out.write(f"    {count} × {code} ({rule.name if rule else code})\n")


def run(paths: Sequence[str], settings: Settings, diff: bool = False, show_fixes: bool = False,
        out: Optional[TextIO] = None) -> Tuple[engine.RunResult, int]:
    """Fix (or, with ``diff``, show the fixes of) ``paths``: (remaining findings, number fixed).

    Both plan every round in memory first, so the diff is exactly what ``--fix`` writes."""
    out = out or sys.stdout
    rounds = plan_rounds(paths, settings)
    for path in sorted(_by_path(rounds.first.findings)):
        source = rounds.first.sources.get(path)
        if source is not None and over_budget(source):
            print(f"dslint: warning: {path}: not fixed: {len(source.raw) // 1024} KiB is more than dslint "
                  f"rewrites ({FIX_BUDGET_BYTES // 1024} KiB)", file=sys.stderr)
    applied = {path: rounds.applied[path] for path in rounds.changed()}
    if diff:
        print_diff(rounds, sys.stdout)
        if show_fixes:
            print_fixes(applied, sys.stderr, "Would fix")
        return in_cells(attach(rounds.first)), sum(sum(c.values()) for c in applied.values())
    written: Dict[str, Counter] = {}
    for path in sorted(applied):
        refusal = _write(path, rounds.originals[path], rounds.fixed[path])
        if refusal is None:
            written[path] = applied[path]
        else:
            print(f"dslint: warning: {path}: not fixed: {refusal}", file=sys.stderr)
    result = rounds.last if len(written) == len(applied) else engine.run(paths, settings, cells=False)
    if show_fixes:
        print_fixes(written, out)
    return in_cells(attach(result)), sum(sum(c.values()) for c in written.values())
