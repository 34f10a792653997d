"""The verifier's results, from one probe's verdict up to the whole report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

CONFIRMED = "confirmed"
NOT_REPRODUCED = "not-reproduced"
NOT_TESTED = "not-tested"
NEEDS_CUDA = "needs-cuda"
FIXED = "fixed"
ERROR = "error"

VERDICTS = (CONFIRMED, FIXED, NOT_REPRODUCED, NOT_TESTED, NEEDS_CUDA, ERROR)

HANG = "hang"  # code of a hang that no rule's evidence explains


@dataclass
class Probe:
    """One rule's outcome at one loader under one start method. ``evidence`` says what
    was seen; for NOT TESTED and NEEDS CUDA it says why nothing could be seen."""

    code: str
    verdict: str
    evidence: str


@dataclass
class LoaderOutcome:
    site: Dict[str, Any]
    start_method: str
    info: Dict[str, Any] = field(default_factory=dict)
    metrics: Dict[str, Any] = field(default_factory=dict)
    probes: Dict[str, Probe] = field(default_factory=dict)
    index: int = 0  # order of construction in its run: how a loader is matched after --fix
    hung: bool = False

    @property
    def site_key(self) -> str:
        return f"{self.site.get('path', '?')}:{self.site.get('line', 0)}"

    def code_spans(self) -> List[Dict[str, Any]]:
        """Where this loader's own code lives: the dataset class, collate and worker-init
        functions (file and line span, when known)."""
        out = []
        for key in ("dataset", "collate_fn", "worker_init_fn"):
            desc = self.info.get(key) or {}
            if desc.get("file"):
                out.append(desc)
        return out

    def files(self) -> List[str]:
        """Files whose findings may concern this loader: its call site and its code."""
        return [p for p in [self.site.get("path"), *(d["file"] for d in self.code_spans())] if p]


@dataclass
class RunOutcome:
    start_method: str
    loaders: List[LoaderOutcome] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    hygiene: Dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0
    constructed: List[Dict[str, Any]] = field(default_factory=list)  # every site built, probed or not


@dataclass
class Throughput:
    """One loader's speed as probed: what --fix compares before and after."""

    site: str
    batches_per_s: Optional[float] = None
    time_to_first_batch_s: Optional[float] = None
    failed: Optional[str] = None

    def to_json(self) -> Dict[str, Any]:
        return {"site": self.site, "batches_per_s": self.batches_per_s,
                "time_to_first_batch_s": self.time_to_first_batch_s, "failed": self.failed}

    def text(self) -> str:
        if self.failed:
            return f"failed ({self.failed})"
        if self.batches_per_s is None and self.time_to_first_batch_s is None:
            return "not measured"
        parts = []
        if self.batches_per_s is not None:
            parts.append(f"{self.batches_per_s} batches/s")
        if self.time_to_first_batch_s is not None:
            parts.append(f"first batch {self.time_to_first_batch_s} s")
        return ", ".join(parts)


@dataclass
class Row:
    code: str
    filename: str
    row: int
    verdict: str
    evidence: str
    message: str = ""
    start_methods: List[str] = field(default_factory=list)
    static: bool = False
    loaders: List[str] = field(default_factory=list)  # sites of the loaders the verdict is from
    before: Optional[Throughput] = None  # --fix: the loader's speed as written ...
    after: Optional[Throughput] = None  # ... and with the fixes applied
    fix_applied: bool = False  # --fix: a fix for this finding was applied to the copy
    fix_hint: str = ""  # the finding's own autofix, when dslint has one


@dataclass
class FixSummary:
    """What ``--fix`` did to the temporary copy."""

    applied: int = 0
    files: List[str] = field(default_factory=list)
    diff: str = ""
    unsafe: bool = True


@dataclass
class Report:
    target: str
    rows: List[Row] = field(default_factory=list)
    runs: List[RunOutcome] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    start_methods: List[str] = field(default_factory=list)
    extra_methods: List[str] = field(default_factory=list)  # added to test DSL101/DSL102 only
    after: Optional["Report"] = None  # the run on the fixed copy (--fix) or twin (--against)
    fix: Optional[FixSummary] = None
    wall_s: float = 0.0

    def exit_code(self) -> int:
        """1 when something is CONFIRMED (still, after --fix), 2 when the verifier or the
        target failed, else 0: every finding FIXED, NOT REPRODUCED, NOT TESTED or NEEDS
        CUDA (the report says which, and why)."""
        if any(r.verdict == CONFIRMED for r in self.rows):
            return 1
        if self.errors or any(r.verdict == ERROR for r in self.rows):
            return 2
        return 0

    def loaders(self) -> List[LoaderOutcome]:
        return [lo for run in self.runs for lo in run.loaders]
