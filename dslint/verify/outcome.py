"""One run's raw events -> per-loader outcomes, metrics and run-level errors.

Also where a target that failed for its own reasons is recognised (no probe ran, no
construction error explains it): that is reported with its traceback summary, never
as a verifier crash.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from . import judges, stacks
from .model import CONFIRMED, ERROR, HANG, NOT_REPRODUCED, NOT_TESTED, LoaderOutcome, Probe, RunOutcome
from .supervisor import RunResult


def traceback_summary(stderr: str) -> str:
    """The last traceback's innermost frame and exception line."""
    idx = stderr.rfind("Traceback (most recent call last):")
    if idx < 0:
        lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
        return lines[-1][:400] if lines else "(nothing on stderr)"
    block = stderr[idx:].splitlines()
    frames = [ln.strip() for ln in block if ln.strip().startswith("File ")]
    exc = ""
    for ln in block[1:]:
        if ln and not ln.startswith(" ") and not ln.startswith("Traceback"):
            exc = ln.strip()
    where = frames[-1] if frames else ""
    return (f"{exc} ({where})" if where else exc) or "(no traceback on stderr)"


def _metrics(info: Dict[str, Any], facts: Dict[str, Any], workers: List[Dict[str, Any]],
             drive: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    main = facts.get("as_written") or {}
    out: Dict[str, Any] = {
        key: info.get(key)
        for key in ("num_workers", "batch_size", "pin_memory", "persistent_workers", "prefetch_factor", "start_method")
    }
    for key in ("batches", "time_to_first_batch_s", "batches_per_s"):
        if key in main:
            out[key] = main[key]
    if drive:
        out["data_wait_share"] = drive.get("data_wait_share")
        out["driven_steps"] = drive.get("steps")
    torch_threads = {w.get("pid"): w.get("torch_threads") for w in workers}
    per_worker = []
    for pid, facts_w in sorted((main.get("workers") or {}).items()):
        per_worker.append({
            "pid": int(pid),
            "threads": facts_w.get("threads"),
            "involuntary_ctxt_switches": facts_w.get("involuntary_ctxt_switches"),
            "torch_threads": torch_threads.get(int(pid)),
        })
    if per_worker:
        out["workers"] = per_worker
    if main.get("samples"):
        out["samples"] = main["samples"]
    if main.get("warnings"):
        out["warnings"] = main["warnings"]
    if main.get("error"):
        out["error"] = judges.error_summary(main["error"], main.get("worker_exitcodes"))
        if main.get("worker_exitcodes"):
            out["worker_exitcodes"] = main["worker_exitcodes"]
    if "no_pin" in facts:
        out["unpinned"] = {k: facts["no_pin"].get(k) for k in ("batches_per_s", "time_to_first_batch_s")}
    if facts.get("transfer") and not facts["transfer"].get("needs_cuda"):
        out["transfer"] = facts["transfer"]
    return out


_WORKER_SIDE = ("worker_batch", "worker_cuda", "worker_info_used", "worker_process")


def _ctx(result: RunResult, lid: int, ev: Dict[str, Any], res: Optional[Dict[str, Any]],
         hang: Optional[Dict[str, Any]], method: str) -> judges.Ctx:
    evts = result.events
    info = (res or ev).get("info") or {}
    facts = (res or {}).get("facts") or {}
    mine = [e for e in evts if e.get("loader") == lid and e.get("phase") == "as_written"]
    prefork = (facts.get("as_written") or {}).get("prefork")
    if prefork is None:
        snaps = [e["snapshot"] for e in mine if e.get("ev") == "prefork"]
        prefork = snaps[-1] if snaps else {}
    child = [e for e in evts if e.get("ev") in ("child_iter", "child_iter_error", "child_loader")]
    spans = [d for d in (info.get(k) or {} for k in ("dataset", "collate_fn", "worker_init_fn")) if d.get("file")]
    drive = next((e for e in evts if e.get("ev") == "drive" and e.get("loader") == lid), {})
    site = ev.get("site") or {}
    script = [e for e in evts if e.get("loader") == lid and e.get("ev") in _SCRIPT_SIDE]
    ranks = [e for e in evts if e.get("ev") == "rank_facts" and _same_site(e.get("site") or {}, site)]
    return judges.Ctx(info, facts, method,
                      workers=[e for e in mine if e.get("ev") == "worker"],
                      child_events=child, hang=hang, stderr=result.stderr_tail,
                      worker_events=[e for e in mine if e.get("ev") in _WORKER_SIDE],
                      prefork=prefork, code_spans=spans, site=site, drive=drive, script=script, ranks=ranks)


_SCRIPT_SIDE = ("script_iter", "main_state", "worker_state", "drive")


def _same_site(a: Dict[str, Any], b: Dict[str, Any]) -> bool:
    return a.get("path") == b.get("path") and a.get("line") == b.get("line")


def _unfinished(probe: Probe, why: str) -> Probe:
    """A probe cut short proves no absence: its NOT REPRODUCED becomes NOT TESTED."""
    if probe.verdict != NOT_REPRODUCED:
        return probe
    return Probe(probe.code, NOT_TESTED, f"the probe did not finish ({why}); so far: {probe.evidence}")


def _judge(lo: LoaderOutcome, ctx: judges.Ctx, this_hang: Optional[Dict[str, Any]], finished: bool) -> None:
    for judge in judges.JUDGES:
        probe = judge(ctx)
        if probe is not None:
            lo.probes[probe.code] = probe
    if not finished:
        why = "the loader hung" if this_hang else "the target died first"
        lo.probes = {c: _unfinished(p, why) for c, p in lo.probes.items()}
    if not any(p.verdict == CONFIRMED for p in lo.probes.values()):
        unexplained = judges.loader_error(ctx)
        if unexplained is not None:
            lo.probes[unexplained.code] = unexplained
    if this_hang:
        lo.hung = True
        lo.metrics["hang"] = this_hang
        if not any(p.verdict == CONFIRMED for c, p in lo.probes.items() if c in judges.HANG_RULES):
            lo.probes[HANG] = judges.hang(ctx)
    elif not finished:
        lo.probes["probe"] = Probe("probe", ERROR, "probes did not finish (the process died)")


def build(result: RunResult) -> RunOutcome:
    evts = result.events
    run = RunOutcome(start_method=result.start_method, wall_s=result.wall_s)
    run.hygiene = {k: v for k, v in result.cleanup.items() if v}
    run.hygiene["root_pid"] = result.root_pid
    prober = _prober(evts)
    order = [e for e in evts if e.get("pid") == prober and e.get("ev") in ("loader", "construct_error")]
    probed = {e["loader"]: e for e in evts if e.get("ev") == "probe_result"}
    started = {e.get("loader") for e in evts if e.get("ev") == "probe_start"}
    drives = {e["loader"]: e for e in evts if e.get("ev") == "drive"}
    hang = result.hang
    for index, ev in enumerate(order):
        if ev.get("ev") == "construct_error":
            run.loaders.append(_construct_error(ev, result.start_method, index))
            continue
        lid = ev["loader"]
        res = probed.get(lid)
        this_hang = hang if hang and hang.get("loader") == lid else None
        run.constructed.append({"site": ev["site"], "probed": lid in started})
        if res is None and this_hang is None and lid not in started:
            continue  # constructed, never reached by the probes (the target ended first)
        info = (res or ev).get("info") or {}
        method = info.get("start_method") or result.start_method
        lo = LoaderOutcome(site=ev["site"], start_method=method, info=info, index=index)
        ctx = _ctx(result, lid, ev, res, this_hang, method)
        lo.metrics = _metrics(info, ctx.facts, ctx.workers, drives.get(lid))
        _judge(lo, ctx, this_hang, res is not None)
        run.loaders.append(lo)
    for e in evts:
        if e.get("ev") == "probe_error":
            run.errors.append(f"verifier probe failed at {e['site'].get('path')}:{e['site'].get('line')}: "
                              f"{e.get('type')}: {e.get('message')}")
        if e.get("ev") == "drive_error":
            run.notes.append(f"the script's own loop failed after the probes: {e.get('type')}: "
                             f"{_short(e.get('message', ''))}")
    _run_level(result, run)
    return run


def _construct_error(e: Dict[str, Any], method: str, index: int) -> LoaderOutcome:
    code = judges.construction_code(e.get("message", "")) or "construct"
    lo = LoaderOutcome(site=e["site"], start_method=method, index=index)
    lo.metrics = {"error": f"{e.get('exc_type')}: {e.get('message')}"}
    verdict = CONFIRMED if code != "construct" else ERROR
    lo.probes[code] = Probe(code, verdict, f"DataLoader(...) raised {e.get('exc_type')}: {e.get('message')}")
    return lo


def _prober(evts: List[Dict[str, Any]]) -> Optional[int]:
    for e in evts:
        if e.get("ev") == "probe_start":
            return e.get("pid")
    for e in evts:
        if e.get("ev") in ("loader", "construct_error"):
            return e.get("pid")
    return None


def _short(text: str) -> str:
    return re.sub(r"\s+", " ", text)[:300]


def _run_level(result: RunResult, run: RunOutcome) -> None:
    kinds = {e.get("ev") for e in result.events}
    if result.hang and result.hang.get("loader") is None:
        hang = result.hang
        stack = (hang.get("stacks") or {}).get(str(hang.get("root")), "")
        where = f"; main stuck at {stacks.innermost(stack, 3)}" if stack else ""
        run.errors.append(f"the target stalled for {hang.get('stalled_s')} s (no progress: no event, no CPU "
                          f"time, no I/O) before any loader was probed{where}")
        return
    if "boot" not in kinds:
        run.errors.append("the verifier's bootstrap did not run in the target (python -I/-S?): "
                          + traceback_summary(result.stderr_tail))
        return
    explained = kinds & {"probe_result", "construct_error", "stopped"} or result.hang
    if explained:
        if "stopped" not in kinds and not result.hang and result.returncode not in (0, None):
            run.notes.append(f"the target exited with {result.returncode} after the probes: "
                             + traceback_summary(result.stderr_tail))
        return
    if result.returncode == 0:
        run.errors.append("the target finished without constructing a DataLoader")
    else:
        run.errors.append(f"the target failed on its own (exit {result.returncode}): "
                          + traceback_summary(result.stderr_tail))
