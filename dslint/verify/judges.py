"""One judge per rule: the facts a probe gathered -> a verdict with its evidence.

Each judge looks only at structure that was deterministic in repeated runs (shared open
file descriptions, live thread counts, generator states before and after drawing, CUDA
initialisation seen in a worker, ``get_worker_info()`` reads, exhausted stream totals,
exception texts, worker exit codes), never at wall times or duplicate rates alone. A judge
says NOT TESTED (with the reason) when its test could not run here, and returns ``None``
where its rule cannot apply to this loader (no workers, no pinning...).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import procfs
from . import stacks as stacklib
from .model import CONFIRMED, ERROR, NEEDS_CUDA, NOT_REPRODUCED, NOT_TESTED, Probe


@dataclass
class Ctx:
    """Everything known about one loader in one run."""

    info: Dict[str, Any]
    facts: Dict[str, Any]
    start_method: str
    workers: List[Dict[str, Any]] = field(default_factory=list)  # "worker" events (after init)
    child_events: List[Dict[str, Any]] = field(default_factory=list)
    hang: Optional[Dict[str, Any]] = None
    stderr: str = ""
    worker_events: List[Dict[str, Any]] = field(default_factory=list)  # batches, spies
    prefork: Dict[str, Any] = field(default_factory=dict)
    code_spans: List[Dict[str, Any]] = field(default_factory=list)
    site: Dict[str, Any] = field(default_factory=dict)
    drive: Dict[str, Any] = field(default_factory=dict)  # the script's own loop, when it was driven
    script: List[Dict[str, Any]] = field(default_factory=list)  # the script's own iterators, epochs, workers' copies
    ranks: List[Dict[str, Any]] = field(default_factory=list)  # what each distributed rank's loader draws

    @property
    def num_workers(self) -> int:
        return int(self.info.get("num_workers") or 0)

    @property
    def main(self) -> Dict[str, Any]:
        return self.facts.get("as_written") or {}

    @property
    def finished(self) -> bool:
        return bool(self.facts)

    def error_text(self) -> str:
        err = self.main.get("error") or {}
        return f"{err.get('type', '')}: {err.get('message', '')}" if err else ""

    def of(self, kind: str) -> List[Dict[str, Any]]:
        return [e for e in self.worker_events if e.get("ev") == kind]


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
        frames = [ln.strip() for ln in lines if ln.strip().startswith("File ") and "/torch/" not in ln
                  and "/dslint/verify/" not in ln]
        where = f" at {frames[-1]}" if frames else ""
        return f"worker {caught.group(2)} raised {_first_line(lines[-1], 200)}{where}"
    text = f"{err.get('type')}: {_first_line(msg, 300)}"
    codes = {pid: code for pid, code in (exitcodes or {}).items() if code not in (0, None)}
    if codes:
        text += " (worker exit codes: " + ", ".join(f"pid {p}: {c}" for p, c in sorted(codes.items())) + ")"
    return text


# hangs -------------------------------------------------------------------------------
def _worker_stacks(hang: Dict[str, Any]) -> List[Tuple[str, str]]:
    root = str(hang.get("root"))
    return [(pid, text) for pid, text in sorted((hang.get("stacks") or {}).items()) if pid != root]


def hang_site(hang: Optional[Dict[str, Any]], spans: List[Dict[str, Any]]) -> Optional[str]:
    """Where a hung worker is stuck inside ``spans`` (a loader's dataset, collate and
    worker-init code, or a finding's lines): "worker pid P stuck at FILE:LINE in FUNC"."""
    for pid, text in _worker_stacks(hang or {}):
        frame = stacklib.first_in(text, spans)
        if frame:
            wchan = (((hang or {}).get("processes") or {}).get(pid) or {}).get("wchan")
            kernel = f" (kernel: {wchan})" if wchan else ""
            return f"worker pid {pid} stuck at {frame[0]}:{frame[1]} in {frame[2]}{kernel}"
    return None


def hang_summary(hang: Dict[str, Any], spans: List[Dict[str, Any]]) -> str:
    parts = [f"hang: no batch for {hang.get('stalled_s')} s, stacks of {len(hang.get('stacks') or {})} "
             "processes taken"]
    site = hang_site(hang, spans)
    if site:
        parts.append(site)
    else:
        for pid, text in _worker_stacks(hang):
            if "__getitem__" in text or "_worker_loop" in text:
                parts.append(f"worker pid {pid} stuck at {stacklib.innermost(text, 3)}")
                break
        else:
            root = str(hang.get("root"))
            if root in (hang.get("stacks") or {}):
                parts.append(f"main stuck at {stacklib.innermost(hang['stacks'][root], 3)}")
    return "; ".join(parts)


# rules -------------------------------------------------------------------------------
def dsl101(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    if ctx.start_method == "fork":
        return Probe("DSL101", NOT_TESTED, "fork does not re-import the main module, so a missing main "
                     "guard cannot show; spawn and forkserver do (dslint verify runs spawn by itself when "
                     "DSL101 is flagged)")
    path = ctx.site.get("path")
    own = [e for e in ctx.child_events if not path or (e.get("site") or {}).get("path") == path]
    iters = [e for e in own if e.get("ev") == "child_iter"]
    errors = [e for e in own if e.get("ev") == "child_iter_error"]
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
    if not ctx.workers:  # e.g. spawn could not pickle the dataset: no worker re-imported anything
        why = f": {_first_line(ctx.error_text(), 160)}" if ctx.error_text() else ""
        return Probe("DSL101", NOT_TESTED, f"no {ctx.start_method} worker started, so none could re-import "
                     f"the main module{why}")
    return Probe("DSL101", NOT_REPRODUCED, f"{ctx.start_method} workers started without re-running "
                 "the loader code")


def dsl102(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0 or "pickle" not in ctx.facts:
        return None
    bad = {k: v for k, v in _pickle_failures(ctx).items() if not _is_handle_error(v)}
    if bad:
        name, text = next(iter(bad.items()))
        where = f" (the {ctx.start_method} run failed at iter(): {_first_line(ctx.error_text(), 160)})" \
            if ctx.start_method != "fork" and ctx.error_text() else ""
        return Probe("DSL102", CONFIRMED, f"pickling {name} as spawn/forkserver do: {_first_line(text)}{where}")
    sizes = ", ".join(f"{k} {v.get('bytes')} B" for k, v in (ctx.facts.get("pickle") or {}).items())
    return Probe("DSL102", NOT_REPRODUCED, f"dataset, collate_fn and worker_init_fn pickle as spawn "
                 f"sends them ({sizes})")


def _moved(entry: Dict[str, Any]) -> bool:
    after = entry.get("pos_after")
    return entry.get("pos") is not None and after is not None and after != entry.get("pos")


def _shared(ctx: Ctx) -> List[str]:
    """Descriptors the parent opened before the fork that workers share (one open file
    description): the dataset's own, or any whose offset the workers moved."""
    entries = {f["fd"]: f for f in ctx.prefork.get("fds", [])}
    readers: Dict[Tuple[int, str], List[str]] = {}
    for pid, facts in sorted((ctx.main.get("workers") or {}).items()):
        for f in facts.get("shared_fds", []):
            entry = entries.get(f["fd"], {})
            moved = _moved(entry) and procfs.readable_offset(entry.get("flags", 0))
            if entry.get("traced") or moved:
                readers.setdefault((f["fd"], f["path"]), []).append(pid)
    out = []
    for (fd, path), pids in sorted(readers.items()):
        entry = entries.get(fd, {})
        whose = "the dataset's descriptor" if entry.get("traced") else "a descriptor"
        text = (f"worker pid(s) {', '.join(pids)} read {path} through fd {fd}, {whose} opened by the parent "
                "before the fork (same open file description, never reopened)")
        if _moved(entry):
            text += f"; shared offset moved {entry.get('pos')} -> {entry.get('pos_after')}"
        out.append(text)
    hung: Dict[Tuple[int, str], List[str]] = {}
    for pid, facts in sorted(((ctx.hang or {}).get("processes") or {}).items()):
        for f in facts.get("shared_fds", []):
            if entries.get(f["fd"], {}).get("traced"):
                hung.setdefault((f["fd"], f["path"]), []).append(pid)
    for (fd, path), pids in sorted(hung.items()):
        out.append(f"hung worker pid(s) {', '.join(pids)} hold {path} through fd {fd} opened by the parent "
                   "before the fork (same open file description)")
    return out


def dsl104(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    handle_errors = {k: v for k, v in _pickle_failures(ctx).items() if _is_handle_error(v)}
    shared = _shared(ctx)
    held = ctx.prefork.get("handles", [])
    stuck = hang_site(ctx.hang, ctx.code_spans) if ctx.hang and (held or shared) else None
    if shared or handle_errors or stuck:
        parts = list(shared[:3])
        for name, text in handle_errors.items():
            parts.append(f"spawn cannot pickle the {name}: {_first_line(text)}")
        if ctx.hang and (stuck or shared):
            kinds = ", ".join(sorted({h["kind"] for h in held})) or "an inherited descriptor"
            summary = hang_summary(ctx.hang, ctx.code_spans)
            parts.insert(0, f"{summary}, with the dataset holding {kinds} from the parent")
        return Probe("DSL104", CONFIRMED, "; ".join(parts))
    kinds = ", ".join(sorted({h["kind"] for h in held}))
    extra = f" (the dataset holds {kinds}, not opened before the fork)" if kinds else ""
    return Probe("DSL104", NOT_REPRODUCED, "no worker reads through a descriptor the parent opened before "
                 f"the fork ({len(ctx.prefork.get('fds', []))} inherited descriptors compared){extra}")


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
            text = f"{hang_summary(ctx.hang, ctx.code_spans)}; {text}"
        return Probe("DSL107", CONFIRMED, text)
    if not threads:
        return None
    return Probe("DSL107", NOT_REPRODUCED, f"forked workers run torch with {max(threads)} thread(s)")


def dsl105(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0:
        return None
    spied = ctx.of("worker_cuda")
    inits = [e for e in spied if e.get("what") == "init"]
    text = ctx.error_text()
    failure = f"; it failed with {error_summary(ctx.main.get('error'))}" if text else ""
    if inits:
        e = inits[0]
        return Probe("DSL105", CONFIRMED, f"worker {e.get('worker_id')} (pid {e.get('pid')}) initialised CUDA "
                     f"at {e.get('site') or 'an unknown site'}{failure}")
    if "Torch not compiled with CUDA enabled" in text or "re-initialize CUDA in forked" in text:
        return Probe("DSL105", CONFIRMED, f"a worker touched CUDA: {error_summary(ctx.main.get('error'))}")
    if not ctx.finished:
        return None
    asked = [e for e in spied if e.get("what") == "is_available"]
    seen = f"; a worker asked torch.cuda.is_available() at {asked[0].get('site')}" if asked else ""
    if not ctx.facts.get("cuda_available"):
        return Probe("DSL105", NEEDS_CUDA, "no CUDA device here and no worker tried to initialise CUDA: code "
                     f"that touches CUDA only when a GPU is present cannot run on this machine{seen}")
    return Probe("DSL105", NOT_REPRODUCED, f"no worker initialised CUDA{seen}")


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
    if not ctx.info.get("iterable") or ctx.num_workers == 0 or not ctx.finished:
        return None
    serial = ctx.facts.get("serial") or {}
    got, ser = ctx.main.get("samples") or {}, serial.get("samples") or {}
    if not got.get("received"):
        return None
    n = ctx.num_workers
    used = ctx.of("worker_info_used")
    consulted = sorted({f"{e.get('what')} at {e.get('site')}" for e in used})
    counts = (f"{n} workers: {got['received']} samples received, {got.get('unique')} unique; without "
              f"workers: {ser.get('received')} received, {ser.get('unique')} unique")
    if ctx.main.get("exhausted") and serial.get("exhausted") and ser.get("received"):
        total, alone = got["received"], ser["received"]
        if total > alone:
            return Probe("DSL401", CONFIRMED, f"the exhausted stream gave {total} samples with {n} workers vs "
                         f"{alone} in a serial pass ({total / alone:.1f}x): every worker yields the stream; "
                         f"{counts}")
        return Probe("DSL401", NOT_REPRODUCED, f"the exhausted stream gave {total} samples with {n} workers, "
                     f"as many as a serial pass ({alone})")
    if consulted:
        return Probe("DSL401", NOT_REPRODUCED, "workers consult get_worker_info() to split the stream ("
                     + "; ".join(consulted[:2]) + f"); {counts}")
    return Probe("DSL401", CONFIRMED, f"no worker read get_worker_info().id or .num_workers while yielding "
                 f"{got['received']} samples, so each of the {n} workers iterates the whole stream; {counts}")


def _rng_tracks(ctx: Ctx) -> Dict[str, Dict[int, Dict[int, Tuple[str, str]]]]:
    """path -> worker id -> batch count (0 = after init) -> (kind, fingerprint)."""
    tracks: Dict[str, Dict[int, Dict[int, Tuple[str, str]]]] = {}
    for count, evts in ((0, ctx.workers), (None, ctx.of("worker_batch"))):
        for e in evts:
            at = e.get("count") if count is None else count
            for path, rng in (e.get("rng") or {}).items():
                tracks.setdefault(path, {}).setdefault(e.get("worker_id"), {})[at] = (rng["kind"], rng["fp"])
    return tracks


def dsl402(ctx: Ctx) -> Optional[Probe]:
    """CONFIRMED only when two workers start from one state *and* draw the same values:
    after the same number of batches their states moved away from the start and are
    again identical. Identical starting states alone are not enough (a generator used only
    in ``__init__``, or replaced per worker before the first draw, starts identical too)."""
    if ctx.num_workers < 2:
        return None
    tracks = _rng_tracks(ctx)
    if not tracks:
        return Probe("DSL402", NOT_REPRODUCED, "no random generator on the dataset") if ctx.workers else None
    idle = []
    for path, by_worker in sorted(tracks.items()):
        starts = {w: t.get(0) for w, t in by_worker.items() if t.get(0)}
        for count in sorted({c for t in by_worker.values() for c in t if c}):
            drawn: Dict[Tuple[str, str], List[int]] = {}
            for w, track in by_worker.items():
                state = track.get(count)
                if state and starts.get(w) and state != starts[w]:
                    drawn.setdefault((starts[w], state), []).append(w)
            for ((start, state), ids) in drawn.items():
                if len(ids) > 1:
                    return Probe("DSL402", CONFIRMED, f"{path} ({start[0]}): workers {sorted(ids)} start from the "
                                 f"same state ({start[1]}) and after {count} batch(es) each reached the same "
                                 f"state ({state[1]}): they drew identical values")
        same_start = len(set(starts.values())) < len(starts)
        if same_start:
            idle.append(path)
    if not ctx.finished:
        return None
    if idle:
        return Probe("DSL402", NOT_REPRODUCED, f"workers start from the same state of {', '.join(idle)} but do "
                     "not draw identical values from it (never drawn, or replaced per worker first)")
    listed = ", ".join(sorted(tracks))
    return Probe("DSL402", NOT_REPRODUCED, f"every worker starts from its own state: {listed}")


DAEMONIC = "daemonic processes are not allowed to have children"


def dsl108(ctx: Ctx) -> Optional[Probe]:
    """CONFIRMED when a worker tried to start a process (the spy on ``BaseProcess.start``
    saw it, or the worker failed with the daemonic-process assertion)."""
    if ctx.num_workers == 0:
        return None
    starts = ctx.of("worker_process")
    failed = DAEMONIC in (ctx.main.get("error") or {}).get("message", "")
    failure = f"; it failed with {error_summary(ctx.main.get('error'))}" if ctx.error_text() else ""
    if starts:
        e = starts[0]
        return Probe("DSL108", CONFIRMED, f"worker {e.get('worker_id')} started a child process at "
                     f"{e.get('site') or 'an unknown site'}{failure}")
    if failed:
        return Probe("DSL108", CONFIRMED, f"a worker tried to start a process: {error_summary(ctx.main.get('error'))}")
    if not ctx.finished or ctx.error_text():
        return None
    return Probe("DSL108", NOT_REPRODUCED, f"no worker started a process in {ctx.main.get('batches', 0)} batches")


def dsl109(ctx: Ctx) -> Optional[Probe]:
    """CONFIRMED when the parent ran other Python threads at the moment it forked its workers."""
    if ctx.num_workers == 0 or "threads" not in ctx.prefork:
        return None
    threads = ctx.prefork.get("threads") or []
    if ctx.start_method != "fork":
        return Probe("DSL109", NOT_REPRODUCED, f"{ctx.start_method} workers are not forked from the parent "
                     f"({len(threads)} other thread(s) running there)")
    if not threads:
        return Probe("DSL109", NOT_REPRODUCED, "the parent ran only its main thread when it forked the workers")
    runs = Counter(t.get("runs") or "an unknown target" for t in threads)
    named = ", ".join(f"{n} running {target}" for target, n in runs.most_common(4))
    text = f"{len(threads)} thread(s) of the parent were running when it forked the workers: {named}"
    if ctx.hang:
        text = f"{hang_summary(ctx.hang, ctx.code_spans)}; {text}"
    return Probe("DSL109", CONFIRMED, text)


def _state_tracks(ctx: Ctx) -> Dict[str, Dict[int, List[Any]]]:
    """name -> worker id -> [its value after init, its values after its 1st, 2nd, 4th... batch]."""
    start = {e.get("worker_id"): e.get("state") or {} for e in ctx.workers}
    before = ctx.prefork.get("state") or {}
    tracks: Dict[str, Dict[int, List[Any]]] = {}
    for e in sorted(ctx.of("worker_batch"), key=lambda e: e.get("count", 0)):
        worker = e.get("worker_id")
        for name, value in (e.get("state") or {}).items():
            track = tracks.setdefault(name, {}).setdefault(worker, [start.get(worker, {}).get(name, before.get(name))])
            track.append(value)
    return tracks


def _keeps_moving(track: List[Any]) -> bool:
    """A count, not a value set once per worker (a pid, an id read lazily): it still changes
    between the worker's batches."""
    initial, values = track[0], track[1:]
    return initial is not None and len(values) >= 2 and values[-1] != values[0] and values[-1] != initial


def dsl405(ctx: Ctx) -> Optional[Probe]:
    """CONFIRMED when a worker's copy of a number keeps changing over its batches while the
    main process's copy does not: what the workers counted never reached the main process."""
    if ctx.num_workers == 0 or not ctx.finished:
        return None
    before = ctx.prefork.get("state") or {}
    after = ctx.main.get("state_after") or {}
    for name, by_worker in sorted(_state_tracks(ctx).items()):
        moved = {w: t for w, t in by_worker.items() if _keeps_moving(t)}
        if moved and name in after and after[name] == before.get(name):
            parts = ", ".join(f"worker {w}: {t[0]} -> {t[-1]}" for w, t in sorted(moved.items()))
            return Probe("DSL405", CONFIRMED, f"`{name}` kept changing in the workers' copies ({parts}) while the "
                         f"main process still has {after[name]} after {ctx.main.get('batches', 0)} batches")
    if not ctx.of("worker_batch"):
        return None
    return Probe("DSL405", NOT_REPRODUCED, f"no number the dataset or collate object holds kept changing in a worker "
                 f"without the main process seeing it ({len(before)} compared)")


def dsl502(ctx: Ctx) -> Optional[Probe]:
    """CONFIRMED when the script's own loop still holds the shared-memory tensors of most of
    the batches it has moved past (each one an open descriptor under ``file_descriptor``)."""
    earlier = int(ctx.drive.get("earlier_batches") or 0)
    if ctx.num_workers == 0 or earlier < 3:
        return None
    kept = int(ctx.drive.get("kept_batches") or 0)
    counts = ctx.drive.get("shm_fds") or [0]
    strategy = ctx.drive.get("sharing_strategy") or "unknown"
    text = (f"after {earlier + 1} batches of the script's own loop, tensors of {kept} of the {earlier} earlier "
            f"batches are still alive; the main process holds {counts[-1]} shared-memory descriptors "
            f"(sharing strategy {strategy})")
    if kept >= earlier - 1:
        if strategy == "file_system":
            return Probe("DSL502", NOT_REPRODUCED, f"{text}: with file_system sharing they hold no descriptor")
        return Probe("DSL502", CONFIRMED, f"{text}: each kept batch holds descriptors until the open-file limit")
    return Probe("DSL502", NOT_REPRODUCED, f"{text}: the loop does not keep them")


def dsl304(ctx: Ctx) -> Optional[Probe]:
    """Counted in the script's own loop: each new iterator made while the previous one still
    had batches, and the worker processes it started (none when persistent workers were
    reset: their prefetched batches are thrown away all the same)."""
    if ctx.num_workers == 0:
        return None
    iters = [e for e in ctx.script if e.get("ev") == "script_iter" and e.get("n", 0) > 1]
    fresh = [e for e in iters if e.get("exhausted") is False]
    if len(fresh) >= 2:
        starts = sum(e.get("started") or 0 for e in fresh)
        taken = ", ".join(str(e.get("after")) for e in fresh)
        made = (f"the script made {len(fresh)} new iterators of this loader, each after taking only {taken} "
                f"batch(es) from the previous one")
        if starts:
            return Probe("DSL304", CONFIRMED, f"{made}: {starts} worker processes started for those "
                         f"{sum(e.get('after') or 0 for e in fresh)} batches")
        return Probe("DSL304", CONFIRMED, f"{made}: each reset the persistent workers, whose prefetched batches "
                     "were thrown away")
    if not iters:
        drives = [e for e in ctx.script if e.get("ev") == "drive" and (e.get("steps") or 0) > 1]
        if drives:
            return Probe("DSL304", NOT_REPRODUCED, f"the script's loop took {drives[0]['steps']} batches from one "
                         "iterator without making another")
        return None
    reused = [e for e in iters if not e.get("started")]
    text = (f"{len(iters)} later iterator(s), {len(reused)} of them on the same (persistent) workers"
            if reused else f"{len(iters)} later iterator(s), each after the previous one ended")
    return Probe("DSL304", NOT_REPRODUCED, f"the script's loop made {text}")


def _stale(ctx: Ctx) -> Tuple[Optional[int], Dict[str, Tuple[str, List[Tuple[int, str]]]], List[str]]:
    """(epoch, attribute -> (main's value, [(worker, its value)] that differ), attributes
    compared) for the first epoch after the first where a worker's copy differs from the
    main process's."""
    main = {e["epoch"]: e.get("state") or {} for e in ctx.script if e.get("ev") == "main_state"}
    compared: List[str] = []
    for epoch in sorted(k for k in main if k > 1):
        differ: Dict[str, Tuple[str, List[Tuple[int, str]]]] = {}
        for e in ctx.script:
            if e.get("ev") != "worker_state" or e.get("epoch") != epoch:
                continue
            copy = e.get("state") or {}
            compared = sorted(set(main[epoch]) & set(copy))
            for name in compared:
                if copy[name] != main[epoch][name]:
                    differ.setdefault(name, (main[epoch][name], []))[1].append((e.get("worker_id"), copy[name]))
        if differ:
            return epoch, differ, compared
    return None, {}, compared


def _by_value(copies: List[Tuple[int, str]]) -> str:
    """"still 0 in workers 0, 1" (grouped by the value they hold)."""
    groups: Dict[str, List[int]] = {}
    for worker, value in copies:
        groups.setdefault(value, []).append(worker)
    return "; ".join(f"{value} in worker{'s' if len(ids) > 1 else ''} {', '.join(str(i) for i in sorted(ids))}"
                     for value, ids in sorted(groups.items()))


def dsl404(ctx: Ctx) -> Optional[Probe]:
    if ctx.num_workers == 0 or not ctx.info.get("persistent_workers"):
        return None
    epochs = sorted({e["epoch"] for e in ctx.script if e.get("ev") == "worker_state"})
    epoch, differ, compared = _stale(ctx)
    if differ:
        first = {e.get("state", {}).get(k) for e in ctx.script if e.get("ev") == "main_state" and e.get("epoch") == 1
                 for k in differ}
        parts = [f"`{name}` is {main} in the main process but {_by_value(copies)}"
                 for name, (main, copies) in sorted(differ.items())[:3]]
        since = f" (the first epoch's value was {', '.join(sorted(str(v) for v in first if v))})" if first else ""
        return Probe("DSL404", CONFIRMED, f"at the start of epoch {epoch} " + "; ".join(parts) + since
                     + ": the persistent workers kept their first-epoch copy of the dataset")
    if any(e > 1 for e in epochs):
        if not compared:
            return None  # nothing plain to compare (a TensorDataset): no evidence either way
        names = ", ".join(f"`{n}`" for n in compared[:5]) + (", ..." if len(compared) > 5 else "")
        return Probe("DSL404", NOT_REPRODUCED, f"at the start of epoch {max(epochs)} every worker's copy of the "
                     f"dataset matches the main process in the plain attributes compared ({names or 'none'}); shared "
                     "values (an `mp.Value`, a shared tensor) are one memory and not compared")
    if ctx.finished:
        return Probe("DSL404", NOT_TESTED, "the script did not start a second epoch of this loader before it was "
                     "stopped (an epoch longer than the verifier drives, or a single epoch)")
    return None


def dsl406(ctx: Ctx) -> Optional[Probe]:
    """Every rank reports, at its first iterator of the loader, what its sampler draws and a
    digest of its dataset's first samples: ranks holding the same data and each drawing all
    of it train on the whole dataset."""
    ranks = {e.get("rank"): e for e in ctx.ranks}
    if not ranks:
        return None
    world = max(e.get("world_size", 0) for e in ranks.values())
    some = next(iter(ranks.values()))
    draws = f"each rank's {some.get('sampler')} draws {some.get('draws')} of its {some.get('dataset_len')} samples"
    if any(e.get("distributed_sampler") for e in ranks.values()):
        return Probe("DSL406", NOT_REPRODUCED, f"the ranks draw through a DistributedSampler: {draws}")
    fingerprints = {e.get("fingerprint") for e in ranks.values()}
    whole = [e for e in ranks.values() if e.get("draws") is not None and e.get("draws") == e.get("dataset_len")]
    if len(ranks) < 2 or None in fingerprints or len(whole) < len(ranks) and len(fingerprints) == 1:
        return Probe("DSL406", NOT_TESTED, f"{len(ranks)} of {world} ranks reported this loader, or what they draw "
                     "could not be counted (an IterableDataset, a custom batch sampler): the ranks' data could not "
                     "be compared")
    if len(fingerprints) == 1:
        return Probe("DSL406", CONFIRMED, f"ranks {sorted(ranks)} of a world of {world} hold the same dataset (their "
                     f"first samples hash alike) and {draws} per epoch: every rank trains on the whole dataset")
    return Probe("DSL406", NOT_REPRODUCED, f"the {len(ranks)} ranks hold different data (a dataset sharded by "
                 f"rank); {draws}")


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
    return Probe("hang", CONFIRMED, hang_summary(ctx.hang, ctx.code_spans))


JUDGES: List[Callable[[Ctx], Optional[Probe]]] = [
    dsl101, dsl102, dsl103, dsl104, dsl105, dsl107, dsl301, dsl401, dsl402, dsl108, dsl109, dsl405, dsl502,
    dsl304, dsl404, dsl406,
]
PROBED = ("DSL101", "DSL102", "DSL103", "DSL104", "DSL105", "DSL107", "DSL201", "DSL202", "DSL203",
          "DSL301", "DSL401", "DSL402", "DSL108", "DSL109", "DSL405", "DSL502", "DSL304", "DSL404", "DSL406")
HANG_RULES = ("DSL103", "DSL104", "DSL107", "DSL109")  # hazards whose symptom can be a hang

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
