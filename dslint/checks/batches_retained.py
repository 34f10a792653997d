"""DSL502 batches-retained: tensors of a multi-worker loader's batches kept across
iterations while tensors are shared through file descriptors.

Tensors arrive from DataLoader workers in shared memory. Under the default sharing strategy
on Linux (``file_descriptor``) every such storage keeps one open descriptor in the main
process for as long as it lives. A loop that keeps the batches' tensors (or ``.numpy()``/
``.cpu()``/``.detach()`` views of them, which share the storage) in a list holds one
descriptor per kept tensor, until ``RuntimeError: Too many open files`` (``received 0 items
of ancdata`` in older versions) after enough batches. Copies (``.clone()``, ``.tolist()``,
``.item()``, ``.cuda()``) release them. The kept value must be known to be a tensor (a
tensor-only method on it, the container concatenated by torch, or a dataset whose items are
tensors and numbers batched by the default collate function, an image passed through a
``Compose([..., ToTensor()])`` included); how the container is used
later does not matter, keeping it is what holds the descriptors.
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..diagnostics import Finding
from ..model.objects import Step
from ..model.queries import Model
from .base import finding, source

CODE = "DSL502"
ERROR = "`RuntimeError: Too many open files`"
HINT = ("keep a copy (`.clone()`, `.tolist()`, `.item()`) instead, or call "
        "`torch.multiprocessing.set_sharing_strategy(\"file_system\")` at startup")


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    for kept in model.kept_batches():
        key = (kept.module, kept.span)
        if key in reported:
            continue
        reported.add(key)
        value = source(model, kept.module, kept.value_span)
        head, hash_mark, _ = value.partition("#")
        if hash_mark and not any(quote in head for quote in "'\""):
            value = head.rstrip()  # a whole statement (``ys += [y]``) read to the end of its line
        iteration = kept.iteration
        steps = (Step(iteration.module, iteration.span, "the loop over the loader"),
                 model.construction(iteration.loader, "the loader is built here"))
        workers = model.workers(iteration.loader)
        yield finding(
            model, CODE, kept.module, kept.span,
            f"`{value}` keeps a tensor of the batches of a loader with {workers.describe()} workers in "
            f"`{kept.holder}` across iterations (a tensor: {kept.evidence}); under the default `file_descriptor` "
            f"sharing each kept tensor holds an open file descriptor, until {ERROR} after enough batches; {HINT}",
            steps + tuple(workers.trail("positive")) + tuple(kept.trail),
        )
