"""The one message catalogue: every rule's code, name, defaults and fix safety.

Rule modules in ``dslint.checks`` implement the predicates; this table is what the CLI,
the reporters, the flake8 plugin and ``dslint rules`` read, so a rule's metadata lives in
exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

DOCS_URL = "https://github.com/dslint/dslint/blob/main/rules/{code}.md"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    severity: str = "error"
    default: bool = True
    fix: Optional[str] = None  # "safe", "unsafe", "sometimes" or None

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code)


_RULES = [
    Rule("DSL001", "unparsable-file", "A file that cannot be read or parsed as Python 3."),
    Rule(
        "DSL101",
        "main-guard",
        "Module-level code that starts DataLoader workers or processes outside "
        "`if __name__ == \"__main__\":`.",
        fix="unsafe",
    ),
    Rule(
        "DSL102",
        "unpicklable-callable",
        "A lambda or nested function/class reaches DataLoader workers (or a process pool, "
        "torch.multiprocessing.spawn); spawn and forkserver cannot pickle it.",
        fix="sometimes",
    ),
    Rule(
        "DSL103",
        "cv2-threads",
        "A module feeding DataLoader workers imports cv2 without `cv2.setNumThreads(0)`.",
        severity="warning",
        fix="safe",
    ),
    Rule(
        "DSL104",
        "shared-handle",
        "A file/decoder/database handle opened before the workers start is shared by "
        "all of them.",
        fix="unsafe",
    ),
    Rule(
        "DSL201",
        "persistent-without-workers",
        "`persistent_workers=True` with zero workers raises ValueError.",
        fix="safe",
    ),
    Rule(
        "DSL301",
        "pin-without-non-blocking",
        "Batches from a `pin_memory=True` loader are copied without `non_blocking=True`.",
        severity="warning",
        fix="safe",
    ),
    # the catalogue beyond the core six (issue 6)
    Rule(
        "DSL105",
        "cuda-in-worker",
        "CUDA work in code a DataLoader worker runs (`__getitem__`, `__iter__`, `collate_fn`, "
        "`worker_init_fn`).",
    ),
    Rule(
        "DSL106",
        "start-method",
        "`set_start_method` at module level outside the main guard, or called twice without "
        "`force=True`.",
    ),
    Rule(
        "DSL107",
        "threads-in-forked-worker",
        "More than one OpenMP/MKL thread requested in a forked DataLoader worker.",
    ),
    Rule(
        "DSL202",
        "prefetch-without-workers",
        "`prefetch_factor` set while workers are zero raises ValueError.",
        fix="safe",
    ),
    Rule(
        "DSL203",
        "sampler-conflict",
        "`shuffle=True` with `sampler=`, or `batch_sampler=` with `batch_size`/`shuffle`/"
        "`sampler`/`drop_last`, raises ValueError.",
    ),
    Rule(
        "DSL302",
        "workers-restart-each-epoch",
        "A loader with workers is iterated once per epoch without `persistent_workers=True`.",
        severity="warning",
        default=False,
    ),
    Rule(
        "DSL303",
        "synchronous-loading",
        "A training loop (backward/step) is fed by a DataLoader with zero workers.",
        severity="warning",
        default=False,
    ),
    Rule(
        "DSL401",
        "iterable-unsharded",
        "An IterableDataset that never splits its stream by worker (`get_worker_info()`) is used "
        "with workers: every sample arrives once per worker.",
    ),
    Rule(
        "DSL402",
        "shared-rng",
        "A random generator built before the workers start (or seeded with a constant per "
        "worker) gives every worker the same draws.",
    ),
    Rule(
        "DSL403",
        "sampler-set-epoch",
        "A shuffling `DistributedSampler` whose epoch loop never calls `set_epoch`.",
        severity="warning",
        fix="unsafe",
    ),
    Rule(
        "DSL501",
        "copy-on-read",
        "A Dataset holding a Python list/dict of objects read in `__getitem__` by forked workers.",
        severity="warning",
        default=False,
    ),
    # issue 17, part A: queries on the semantic model
    Rule(
        "DSL108",
        "processes-in-worker",
        "Code a DataLoader worker runs starts processes (a process pool, `Process.start()`, "
        "`torch.multiprocessing.spawn`): workers are daemonic and cannot have children.",
    ),
    Rule(
        "DSL109",
        "threads-alive-at-fork",
        "A thread pool or looping thread a Dataset starts in the main process is still running when "
        "fork-started workers are forked.",
    ),
    Rule(
        "DSL405",
        "worker-state-mutation",
        "Worker code counts or collects into dataset/collate state that the main process or a schedule "
        "reads: each worker changes its own copy.",
        severity="warning",
    ),
    Rule(
        "DSL502",
        "batches-retained",
        "Tensors of a multi-worker loader's batches kept across iterations hold one shared-memory file "
        "descriptor each (`Too many open files`).",
        severity="warning",
    ),
    # issue 17, part B: what the main process does between steps and epochs
    Rule(
        "DSL304",
        "fresh-iterator-in-loop",
        "`iter(loader)` of a loader with workers is created again on every pass of a loop and one "
        "batch taken: every pass starts all workers (or resets persistent ones) and throws their prefetched "
        "batches away; without shuffle or a sampler every pass gets the same first batch.",
        severity="warning",
    ),
    Rule(
        "DSL404",
        "stale-dataset-in-persistent-workers",
        "The main process changes the dataset between epochs, but persistent workers keep the "
        "copy they got in the first epoch.",
    ),
    Rule(
        "DSL406",
        "ddp-without-distributed-sampler",
        "A loader feeding distributed data parallel training with nothing that splits its data by "
        "rank: every rank trains on the whole dataset.",
    ),
]

RULES: Dict[str, Rule] = {rule.code: rule for rule in _RULES}


def get(code: str) -> Rule:
    return RULES[code]


def register(rule: Rule) -> None:
    """Add a rule to the catalogue (used by rule modules defined after the core six)."""
    RULES[rule.code] = rule
