"""One judge per rule: the facts a probe gathered -> CONFIRMED / NOT REPRODUCED / ...

Each judge looks only at structure that was deterministic in repeated runs (shared open
file descriptions, live thread counts, generator state fingerprints, duplicate sample
hashes, exception texts, worker exit codes), never at wall times alone. A judge returns
``None`` where its rule cannot apply to this loader (no workers, no pinning...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from . import stacks as stacklib
from .model import CONFIRMED, ERROR, NEEDS_CUDA, NOT_REPRODUCED, Probe


@dataclass
class Ctx:
    """Everything known about one loader in one run."""

    info: Dict[str, Any]
    facts: Dict[str, Any]
    start_method: str
    workers: List[Dict[str, Any]] = field(default_factory=list)  # "worker" events
    child_events: List[Dict[str, Any]] = field(default_factory=list)
    hang: Optional[Dict[str, Any]] = None
    stderr: str = ""

    @property
    def num_workers(self) -> int:
        return int(self.info.get("num_workers") or 0)

    @property
    def main(self) -> Dict[str, Any]:
        return self.facts.get("as_written") or {}

    def error_text(self) -> str:
        err = self.main.get("error") or {}
        return f"{err.get('type', '')}: {err.get('message', '')}" if err else ""


_LOCAL = ("Can't pickle local object", "Can't get local object", "lambda", "attribute lookup")
_CANNOT = re.compile(r"cannot pickle '([^']+)' object")
_HANDLE_TYPES = ("_io.", "cv2.VideoCapture", "sqlite3.Connection", "Environment", "socket", "ZipFile", "TarFile")


def _pickle_failures(ctx: Ctx) -> Dict[str, str]:
    out = {}
    for name, res in (ctx.facts.get("pickle") or {}).items():
        if not res.get("ok"):
            out[name] = f"{res.get('type')}: {res.get('message')}"
    return out


def _is_handle_error(text: str) -> bool:
    match = _CANNOT.search(text)
    if match:
        return match.group(1).startswith(_HANDLE_TYPES)
    return "h5py objects cannot be pickled" in text


def _first_line(text: str, limit: int = 300) -> str:
    """The exception's text on one line (multi-line messages joined), shortened."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


_CAUGHT = re.compile(r"Caught (\w+) in DataLoader worker process (\d+)")


def error_summary(err: Dict[str, Any], exitcodes: Optional[Dict[str, Any]] = None) -> str:
    """An iteration error on one line: for an exception re-raised from a worker, the
    worker's own last line and frame; for a dead worker, the exit codes (the message is
    racy, the codes are not: 3 for os._exit(3), -9 for SIGKILL, -11 for a segfault)."""
    if not err:
        return ""
    msg = err.get("message", "")
    caught = _CAUGHT.search(msg)
    if caught:
        lines = [ln for ln in msg.splitlines() if ln.strip()]
        frames = [ln.strip() for ln in lines if ln.strip().startswith("File ") and "/torch/" not in ln]
        where = f" at {frames[-1]}" if frames else ""
        return f"worker {caught.group(2)} raised {_first_line(lines[-1], 200)}{where}"
    text = f"{err.get('type')}: {_first_line(msg, 300)}"
    codes = {pid: code for pid, code in (exitcodes or {}).items() if code not in (0, None)}
    if codes:
        text += " (worker exit codes: " + ", ".join(f"pid {p}: {c}" for p, c in sorted(codes.items())) + ")"
    return text


def dsl101(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    if ctx.start_method == "fork":
        return Probe("DSL101", NOT_REPRODUCED, "fork does not re-import the main module; "
                     "use --start-method spawn (or all) to test the main guard")
    iters = [e for e in ctx.child_events if e.get("ev") == "child_iter"]
    errors = [e for e in ctx.child_events if e.get("ev") == "child_iter_error"]
    if iters or "bootstrapping phase" in ctx.error_text() + ctx.stderr:
        parts = []
        if iters:
            e = iters[0]
            site = e.get("site") or {}
            parts.append(f"a {ctx.start_method}ed process (pid {e.get('pid')}) re-ran the main module and "
                         f"iterated the DataLoader at {site.get('path')}:{site.get('line')}")
        msg = errors[0]["message"] if errors else ""
        if not msg and "bootstrapping phase" in ctx.stderr:
            msg = "RuntimeError: An attempt has been made to start a new process before the current " \
                  "process has finished its bootstrapping phase."
        if msg:
            parts.append(_first_line(msg, 200))
        if ctx.error_text():
            parts.append(f"the main process got {_first_line(ctx.error_text(), 200)}")
        return Probe("DSL101", CONFIRMED, "; ".join(parts))
    return Probe("DSL101", NOT_REPRODUCED, f"{ctx.start_method} workers started without re-running "
                 "the loader code")


def dsl102(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    bad = {k: v for k, v in _pickle_failures(ctx).items() if not _is_handle_error(v)}
    if bad:
        name, text = next(iter(bad.items()))
        where = f" (the {ctx.start_method} run failed at iter(): {_first_line(ctx.error_text(), 160)})" \
            if ctx.start_method != "fork" and ctx.error_text() else ""
        return Probe("DSL102", CONFIRMED, f"pickling {name} as spawn/forkserver do: {_first_line(text)}{where}")
    sizes = ", ".join(f"{k} {v.get('bytes')} B" for k, v in (ctx.facts.get("pickle") or {}).items())
    return Probe("DSL102", NOT_REPRODUCED, f"dataset, collate_fn and worker_init_fn pickle ({sizes})")


def _shared(ctx: Ctx) -> List[str]:
    out = []
    positions = {f["fd"]: (f.get("pos"), f.get("pos_after")) for f in (ctx.main.get("prefork") or {}).get("fds", [])}
    for pid, facts in (ctx.main.get("workers") or {}).items():
        for f in facts.get("shared_fds", []):
            before, after = positions.get(f["fd"], (None, None))
            moved = f"; shared offset {before} -> {after}" if before is not None and after != before else ""
            out.append(f"worker pid {pid} reads {f['path']} through fd {f['fd']} opened by the parent "
                       f"before the fork (same open file description, never reopened){moved}")
    for pid, facts in ((ctx.hang or {}).get("processes") or {}).items():
        for f in facts.get("shared_fds", []):
            out.append(f"hung worker pid {pid} holds {f['path']} through fd {f['fd']} opened by the "
                       "parent before the fork (same open file description)")
    return out


def dsl104(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    handle_errors = {k: v for k, v in _pickle_failures(ctx).items() if _is_handle_error(v)}
    shared = _shared(ctx)
    if shared or handle_errors:
        parts = list(shared[:3])
        for name, text in handle_errors.items():
            parts.append(f"spawn cannot pickle the {name}: {_first_line(text)}")
        if ctx.hang and shared:
            parts.insert(0, _hang_summary(ctx))
        return Probe("DSL104", CONFIRMED, "; ".join(parts))
    handles = (ctx.main.get("prefork") or {}).get("handles", [])
    kinds = ", ".join(sorted({h["kind"] for h in handles}))
    extra = f" (the dataset holds {kinds}, not opened before the fork)" if kinds else ""
    return Probe("DSL104", NOT_REPRODUCED, f"no worker reads through a descriptor the parent opened{extra}")


def _threads(run: Dict[str, Any]) -> Dict[str, int]:
    workers = (run or {}).get("workers") or {}
    out = {"threads": 0, "ctx": 0}
    for facts in workers.values():
        out["threads"] = max(out["threads"], facts.get("threads", 0))
        out["ctx"] = max(out["ctx"], facts.get("involuntary_ctxt_switches", 0))
    return out


def dsl103(ctx: Ctx) -> Optional[Probe]:
    control = ctx.facts.get("cv2_off")
    if not control or ctx.num_workers == 0 or not (ctx.main.get("workers") and control.get("workers")):
        return None
    a, b = _threads(ctx.main), _threads(control)
    numbers = (f"live threads per worker {a['threads']} as written vs {b['threads']} with "
               f"cv2.setNumThreads(0) in the worker; involuntary context switches {a['ctx']} vs {b['ctx']}")
    if a["threads"] > b["threads"]:
        return Probe("DSL103", CONFIRMED, f"every worker runs OpenCV's own thread pool: {numbers}")
    return Probe("DSL103", NOT_REPRODUCED, numbers)


def dsl107(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    if ctx.start_method != "fork":
        return Probe("DSL107", NOT_REPRODUCED, f"{ctx.start_method} workers start a fresh OpenMP runtime")
    threads = sorted({w.get("torch_threads") for w in ctx.workers if w.get("torch_threads")})
    many = [t for t in threads if t > 1]
    if many:
        text = f"forked workers run torch with {max(many)} threads after worker_init_fn"
        if ctx.hang:
            text = f"{_hang_summary(ctx)}; {text}"
        return Probe("DSL107", CONFIRMED, text)
    if not threads:
        return None
    return Probe("DSL107", NOT_REPRODUCED, f"forked workers run torch with {max(threads)} thread(s)")


def dsl105(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    text = ctx.error_text()
    if "Torch not compiled with CUDA enabled" in text or "re-initialize CUDA in forked" in text:
        return Probe("DSL105", CONFIRMED, f"a worker touched CUDA: {error_summary(ctx.main.get('error'))}")
    return Probe("DSL105", NOT_REPRODUCED, "no worker touched CUDA")


def dsl301(ctx: Ctx) -> Optional[Probe]:
    if not ctx.info.get("pin_memory"):
        return None
    transfer = ctx.facts.get("transfer") or {}
    cost = _pin_cost(ctx)
    if transfer.get("needs_cuda") or not transfer:
        return Probe("DSL301", NEEDS_CUDA, f"no CUDA device here, so nothing to overlap; {cost}")
    if transfer.get("error"):
        return Probe("DSL301", NEEDS_CUDA, f"transfer probe failed: {transfer['error']}")
    blocking = transfer["to_blocking"]["host_blocked_ms"]
    nonblocking = transfer["to_non_blocking"]["host_blocked_ms"]
    text = (f"{transfer['batches_arrived_pinned']} arrived pinned; copy {transfer['copy_ms_pinned']} ms pinned "
            f"({transfer['gbps_pinned']} GB/s) vs {transfer['copy_ms_pageable']} ms pageable "
            f"({transfer['gbps_pageable']} GB/s); with the GPU busy, .to() blocks the Python thread "
            f"{blocking} ms without non_blocking vs {nonblocking} ms with it; a side stream hides "
            f"{round(100 * transfer['side_stream_overlap'])}% of the copy")
    verdict = CONFIRMED if blocking > 2 * nonblocking and blocking > 0.05 else NOT_REPRODUCED
    return Probe("DSL301", verdict, text)


def _pin_cost(ctx: Ctx) -> str:
    pinned, plain = ctx.main, ctx.facts.get("no_pin") or {}
    if not plain:
        return "pinning cost not measured"
    warn = [w for w in pinned.get("warnings", []) if "pin_memory" in w]
    note = " (torch warned that no accelerator is found: pinning is skipped)" if warn else ""
    return (f"pin_memory=True: {pinned.get('batches_per_s')} batches/s, first batch "
            f"{pinned.get('time_to_first_batch_s')} s; pin_memory=False: {plain.get('batches_per_s')} "
            f"batches/s, first batch {plain.get('time_to_first_batch_s')} s{note}")


def dsl401(ctx: Ctx) -> Optional[Probe]:
    serial = ctx.facts.get("serial")
    if not ctx.info.get("iterable") or ctx.num_workers == 0 or not serial:
        return None
    got, ser = ctx.main.get("samples") or {}, serial.get("samples") or {}
    if not got.get("received") or not ser.get("received"):
        return None
    dup = 1 - got["unique"] / got["received"]
    dup0 = 1 - ser["unique"] / ser["received"]
    text = (f"{ctx.num_workers} workers: {got['received']} samples received, {got['unique']} unique; "
            f"without workers: {ser['received']} received, {ser['unique']} unique")
    if dup > dup0 + 0.05:
        return Probe("DSL401", CONFIRMED, f"every worker yields the same stream: {text}")
    return Probe("DSL401", NOT_REPRODUCED, text)


def dsl402(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers < 2:
        return None
    states: Dict[str, Dict[str, List[int]]] = {}
    kinds: Dict[str, str] = {}
    for w in ctx.workers:
        for path, rng in (w.get("rng") or {}).items():
            states.setdefault(path, {}).setdefault(rng["fp"], []).append(w.get("worker_id"))
            kinds[path] = rng["kind"]
    if not states:
        return Probe("DSL402", NOT_REPRODUCED, "no random generator on the dataset") if ctx.workers else None
    for path, by_fp in sorted(states.items()):
        for fp, ids in by_fp.items():
            if len(ids) > 1:
                return Probe("DSL402", CONFIRMED, f"{path} ({kinds[path]}): workers {sorted(ids)} start "
                             f"from the same generator state (fingerprint {fp}) after worker_init_fn")
    listed = ", ".join(f"{p} ({kinds[p]})" for p in sorted(states))
    return Probe("DSL402", NOT_REPRODUCED, f"every worker starts from its own state: {listed}")


def _hang_summary(ctx: Ctx) -> str:
    hang = ctx.hang or {}
    parts = [f"hang: no batch for {hang.get('stalled_s')} s, stacks of {len(hang.get('stacks') or {})} processes taken"]
    root = str(hang.get("root"))
    found = False
    for pid, text in sorted((hang.get("stacks") or {}).items()):
        if pid != root and ("__getitem__" in text or "_worker_loop" in text):
            wchan = ((hang.get("processes") or {}).get(pid) or {}).get("wchan")
            parts.append(f"worker pid {pid} stuck at {stacklib.innermost(text, 3)}"
                         + (f" (kernel: {wchan})" if wchan else ""))
            found = True
            break
    if not found and root in (hang.get("stacks") or {}):
        parts.append(f"main stuck at {stacklib.innermost(hang['stacks'][root], 3)}")
    return "; ".join(parts)


def loader_error(ctx: Ctx) -> Optional[Probe]:
    """An iteration failure no rule explains: the target failing for its own reasons."""
    err = ctx.main.get("error")
    if not err:
        return None
    return Probe("loader-error", ERROR, "iterating the loader failed: "
                 + error_summary(err, ctx.main.get("worker_exitcodes")))


def hang(ctx: Ctx) -> Optional[Probe]:
    if not ctx.hang:
        return None
    return Probe("hang", CONFIRMED, _hang_summary(ctx))


JUDGES: List[Callable[[Ctx], Optional[Probe]]] = [
    dsl101, dsl102, dsl103, dsl104, dsl105, dsl107, dsl301, dsl401, dsl402,
]

# Construction errors (raised by DataLoader(...) itself) -> rule.
CONSTRUCTION = [
    ("persistent_workers option needs num_workers > 0", "DSL201"),
    ("prefetch_factor option could only be specified in multiprocessing", "DSL202"),
    ("mutually exclusive", "DSL203"),
]


def construction_code(message: str) -> Optional[str]:
    for needle, code in CONSTRUCTION:
        if needle in message:
            return code
    return None
