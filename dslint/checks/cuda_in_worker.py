"""DSL105 cuda-in-worker: CUDA work in code a DataLoader worker runs.

A forked worker cannot use CUDA once the parent has initialised it (``RuntimeError: Cannot
re-initialize CUDA in forked subprocess``). Flags ``.cuda()``, ``.to(<a CUDA device>)``
(the device followed through attributes, defaults and module constants),
``torch.cuda.*``, tensors created on a CUDA device and a tensor's ``pin_memory()``, in a Dataset's ``__getitem__`` /
``__iter__`` and everything they call, a transform's ``__call__``, a ``collate_fn`` or a
``worker_init_fn`` of a fork-started loader whose workers are not zero.
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..analysis.values import last_name
from ..diagnostics import Finding
from ..model import effects
from ..model.queries import Model
from .base import finding

CODE = "DSL105"
ERROR = "`RuntimeError: Cannot re-initialize CUDA in forked subprocess`"
PIN_ERROR = "`CUDA error: initialization error` (the CUDA runtime the parent started does not survive a fork)"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, int]] = set()
    for loader, workers, function in model.worker_runs():
        if (workers is not None and workers.threads) or not model.fork_started(loader):
            continue
        work = effects.cuda_work(model, function.func, function.self_obj, function.bound)
        if work is None or (work.module, work.index) in reported:
            continue
        reported.add((work.module, work.index))
        name = model.function_summary(function.func).qualname.replace(".<locals>", "")
        pinning = last_name(work.site.func) == "pin_memory"
        error = PIN_ERROR if pinning else ERROR
        remedy = "leave pinning to `DataLoader(pin_memory=True)`, which pins in the main process" if pinning else \
            "return CPU tensors and move the batch to the GPU in the training loop"
        yield finding(
            model, CODE, work.module, work.site.span,
            f"CUDA work ({work.what}) in `{name}`, which runs in forked DataLoader workers "
            f"({function.role}): forked workers fail with {error}; {remedy}",
            tuple(function.trail),
        )
