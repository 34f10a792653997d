"""The wrapped ``worker_init_fn``: per-worker facts, taken after the user's own init.

It keeps the user's function (called first, so reseeding there counts) and is a
module-level class, so it pickles under spawn exactly when the user's function does.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

from .. import events, procfs


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
        if self.user_fn is not None:
            self.user_fn(worker_id)
        events.emit("worker", loader=self.loader_id, phase=self.phase, **self._facts(worker_id))

    def _facts(self, worker_id: int) -> dict:
        facts: dict = {"worker_id": worker_id, "ppid": os.getppid(), "start_method": self.start_method}
        try:
            import torch
            from torch.utils.data import get_worker_info

            from . import handles

            facts["torch_threads"] = torch.get_num_threads()
            info = get_worker_info()
            dataset = info.dataset if info is not None else None
            if dataset is not None:
                facts["rng"] = handles.rng_fingerprints(dataset)
                facts["handles"] = handles.dataset_handles(dataset)["handles"]
            facts.update(procfs.thread_facts(os.getpid()))
        except Exception as exc:  # noqa: BLE001 - facts are best effort
            facts["error"] = f"{type(exc).__name__}: {exc}"
        return facts
