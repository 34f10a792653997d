"""The verifier's results, from one probe's verdict up to the whole report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

CONFIRMED = "confirmed"
NOT_REPRODUCED = "not-reproduced"
NEEDS_CUDA = "needs-cuda"
FIXED = "fixed"
ERROR = "error"

HANG = "hang"  # code of a hang that no rule's evidence explains


@dataclass
class Probe:
    """One rule's outcome at one loader under one start method."""

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

    @property
    def site_key(self) -> str:
        return f"{self.site.get('path', '?')}:{self.site.get('line', 0)}"

    def files(self) -> List[str]:
        """Files whose findings may concern this loader: its call site, the dataset's
        class, the collate and worker-init functions."""
        out = [self.site.get("path")]
        for key in ("dataset", "collate_fn", "worker_init_fn"):
            out.append((self.info.get(key) or {}).get("file"))
        return [p for p in out if p]


@dataclass
class RunOutcome:
    start_method: str
    loaders: List[LoaderOutcome] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    hygiene: Dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0


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


@dataclass
class Report:
    target: str
    rows: List[Row] = field(default_factory=list)
    runs: List[RunOutcome] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    after: Optional["Report"] = None  # the run on the fixed copy, with --fix

    def exit_code(self) -> int:
        if any(r.verdict in (CONFIRMED, FIXED) for r in self.rows):
            return 1
        if self.errors or any(r.verdict == ERROR for r in self.rows):
            return 2
        return 0

    def to_json(self) -> Dict[str, Any]:
        loaders = []
        for run in self.runs:
            for lo in run.loaders:
                loaders.append(
                    {
                        "site": lo.site_key,
                        "start_method": lo.start_method,
                        "metrics": lo.metrics,
                        "probes": {c: {"verdict": p.verdict, "evidence": p.evidence} for c, p in lo.probes.items()},
                    }
                )
        out: Dict[str, Any] = {
            "target": self.target,
            "loaders": loaders,
            "findings": [
                {
                    "code": r.code,
                    "filename": r.filename,
                    "row": r.row,
                    "verdict": r.verdict,
                    "evidence": r.evidence,
                    "message": r.message,
                    "start_methods": r.start_methods,
                    "static": r.static,
                }
                for r in self.rows
            ],
            "errors": self.errors,
            "notes": self.notes,
            "hygiene": [dict(start_method=r.start_method, **r.hygiene) for r in self.runs],
        }
        if self.after is not None:
            out["after_fix"] = {"loaders": self.after.to_json()["loaders"]}
        return out


def asdict_probe(p: Probe) -> Dict[str, Any]:
    return asdict(p)
