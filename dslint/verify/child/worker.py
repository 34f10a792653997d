"""What runs inside each DataLoader worker: the wrapped ``worker_init_fn`` and
``collate_fn``.

The init wrapper installs three spies before the user's own init runs (so what that init
does counts): one on CUDA initialisation (``torch.cuda._lazy_init``, which every CUDA
entry point reaches, the C++ ones included) and on ``torch.cuda.is_available``, one on
the worker's ``WorkerInfo`` (who reads ``id``/``num_workers``, the sharding DSL401 is
about), one on starting a child process (DSL108). Then it reports the worker's facts. The
collate wrapper reports the dataset's random generator states and the numbers the dataset
and collate object hold after the worker's 1st, 2nd, 4th... batch: what DSL402 needs to
tell "drew identical values" from "started from identical states", and what DSL405
compares with the main process's copy.

Both are module-level classes, so they pickle under spawn exactly when the user's
functions do.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Optional

from .. import events, procfs
from . import inherited

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _torch_dir() -> str:
    torch = sys.modules.get("torch")
    return os.path.dirname(os.path.abspath(torch.__file__)) + os.sep if torch else "\0"


def user_frame(depth: int = 2, skip: tuple = ()) -> str:
    """``file:line in function`` of the nearest caller outside torch (and the folders of
    ``skip``), or "" when that caller is the verifier itself (its own reads are not the
    target's)."""
    torch_dir = _torch_dir()
    frame = sys._getframe(depth)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if path.startswith(_HERE):
            return ""
        if not path.startswith(torch_dir) and not path.startswith(skip):
            return f"{path}:{frame.f_lineno} in {frame.f_code.co_name}"
        frame = frame.f_back
    return ""


class _Spies:
    """Per-worker spies; each reports its first sighting only."""

    def __init__(self, loader_id: int, phase: str, worker_id: int) -> None:
        self.base = {"loader": loader_id, "phase": phase, "worker_id": worker_id}
        self.seen: set = set()

    def report(self, kind: str, what: str, site: str) -> None:
        if (kind, what) in self.seen:
            return
        self.seen.add((kind, what))
        events.emit(kind, what=what, site=site, **self.base)

    def install_cuda(self) -> None:
        import torch.cuda as cuda

        lazy_init, available = cuda._lazy_init, cuda.is_available

        def spy_lazy_init(*args: Any, **kwargs: Any) -> Any:
            self.report("worker_cuda", "init", user_frame())
            return lazy_init(*args, **kwargs)

        def spy_is_available(*args: Any, **kwargs: Any) -> Any:
            site = user_frame()
            if site:
                self.report("worker_cuda", "is_available", site)
            return available(*args, **kwargs)

        cuda._lazy_init = spy_lazy_init
        cuda.is_available = spy_is_available

    def install_processes(self) -> None:
        """A worker is daemonic: any child it starts fails in ``BaseProcess.start`` (DSL108).
        The spy records who tried, even when the target catches the AssertionError."""
        import concurrent.futures
        import multiprocessing
        import multiprocessing.process as mp_process

        library = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                        for m in (multiprocessing, concurrent.futures))
        original = mp_process.BaseProcess.start
        spies = self

        def spy_start(process: Any, *args: Any, **kwargs: Any) -> Any:
            spies.report("worker_process", "start", user_frame(skip=library))
            return original(process, *args, **kwargs)

        mp_process.BaseProcess.start = spy_start

    def install_worker_info(self) -> None:
        from torch.utils.data._utils import worker as worker_mod

        info = worker_mod._worker_info
        if info is None:
            return
        spies = self
        base = type(info)

        class SpiedWorkerInfo(base):  # type: ignore[misc, valid-type]
            __slots__ = ()

            def __getattribute__(self, name: str) -> Any:
                if name in ("id", "num_workers"):
                    site = user_frame()
                    if site:
                        spies.report("worker_info_used", name, site)
                return base.__getattribute__(self, name)

        try:
            object.__setattr__(info, "__class__", SpiedWorkerInfo)
        except TypeError:
            pass


class WorkerProbe:
    def __init__(
        self,
        user_fn: Optional[Callable[[int], Any]],
        loader_id: int,
        phase: str,
        start_method: str,
        cv2_off: bool = False,
    ) -> None:
        self.user_fn = user_fn
        self.loader_id = loader_id
        self.phase = phase
        self.start_method = start_method
        self.cv2_off = cv2_off

    def __call__(self, worker_id: int) -> None:
        if self.cv2_off:  # the DSL103 control run: what the fix would do
            try:
                import cv2

                cv2.setNumThreads(0)
            except Exception:  # noqa: BLE001
                pass
        spies = _Spies(self.loader_id, self.phase, worker_id)
        for install in (spies.install_cuda, spies.install_worker_info, spies.install_processes):
            try:
                install()
            except Exception:  # noqa: BLE001 - a spy is evidence, never the target's failure
                pass
        if self.user_fn is not None:
            self.user_fn(worker_id)
        events.emit("worker", loader=self.loader_id, phase=self.phase, **self._facts(worker_id))

    def _facts(self, worker_id: int) -> dict:
        facts: dict = {"worker_id": worker_id, "ppid": os.getppid(), "start_method": self.start_method}
        try:
            import torch

            from . import handles

            facts["torch_threads"] = torch.get_num_threads()
            dataset = _dataset()
            if dataset is not None:
                facts["rng"] = handles.rng_fingerprints(dataset)
                facts["handles"] = handles.dataset_handles(dataset)["handles"]
                facts["state"] = inherited.numbers(dataset=dataset)
            facts.update(procfs.thread_facts(os.getpid()))
        except Exception as exc:  # noqa: BLE001 - facts are best effort
            facts["error"] = f"{type(exc).__name__}: {exc}"
        return facts


def _dataset() -> Any:
    from torch.utils.data import get_worker_info

    info = get_worker_info()
    return info.dataset if info is not None else None


def _checkpoint(count: int) -> bool:
    return count & (count - 1) == 0  # 1, 2, 4, 8...: bounded, and aligned across workers


class CollateProbe:
    """The user's collate function, then the dataset's generator states."""

    def __init__(self, user_fn: Callable[[Any], Any], loader_id: int, phase: str) -> None:
        self.user_fn = user_fn
        self.loader_id = loader_id
        self.phase = phase
        self.count = 0

    def __call__(self, batch: Any) -> Any:
        out = self.user_fn(batch)
        self.count += 1
        if _checkpoint(self.count):
            self._report()
        return out

    def _report(self) -> None:
        try:
            from torch.utils.data import get_worker_info

            from . import handles

            info = get_worker_info()
            if info is None:
                return
            rng: Dict[str, Dict[str, Any]] = handles.rng_fingerprints(info.dataset)
            numbers = inherited.numbers(dataset=info.dataset, collate_fn=self.user_fn)
            events.emit("worker_batch", loader=self.loader_id, phase=self.phase, worker_id=info.id,
                        count=self.count, rng=rng, state=numbers)
        except Exception:  # noqa: BLE001
            pass
