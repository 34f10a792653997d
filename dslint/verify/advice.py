"""What to do about a finding, in one or two sentences, and where its rule page is.

The finding's own autofix (when dslint has one for it) comes first, with the command
that applies it; otherwise the rule's hand-written remedy. The full story is on the rule
page, whose link every row of the report carries.
"""

from __future__ import annotations

from typing import Any, Optional

REMEDY = {
    "DSL101": "Move the module-level code that builds and iterates the loader into a function called "
              "under `if __name__ == \"__main__\":`.",
    "DSL102": "Give the loader a module-level function (or a class instance) instead of a lambda, "
              "closure or local class.",
    "DSL103": "Call `cv2.setNumThreads(0)` right after `import cv2` in the module the workers import.",
    "DSL104": "Store the path and open the handle lazily in each worker, on first use in "
              "`__getitem__`/`__iter__` (or in `worker_init_fn`).",
    "DSL105": "Return CPU tensors from the dataset/collate function and move batches to the GPU in the "
              "training loop (`pin_memory=True`, `.to(device, non_blocking=True)`).",
    "DSL106": "Call `set_start_method` once, under the main guard (or pass `multiprocessing_context=` "
              "to the loader).",
    "DSL107": "Keep one thread per forked worker (drop `torch.set_num_threads(>1)` from worker code, or "
              "set `OMP_NUM_THREADS=1`), or start workers with spawn/forkserver.",
    "DSL201": "Set `persistent_workers=True` only when `num_workers > 0`.",
    "DSL202": "Pass `prefetch_factor` only when `num_workers > 0`.",
    "DSL203": "Let the sampler decide the order: drop `shuffle=True` (or the conflicting batch options) "
              "beside `sampler=`/`batch_sampler=`.",
    "DSL301": "Copy batches from a pinned loader with `.to(device, non_blocking=True)`.",
    "DSL302": "Pass `persistent_workers=True` to a loader iterated once per epoch.",
    "DSL303": "Give the training loop's loader `num_workers > 0`.",
    "DSL401": "Split the stream per worker in `__iter__` with `get_worker_info().id` and "
              "`.num_workers` (or shard in `worker_init_fn`).",
    "DSL402": "Reseed the generator per worker from `get_worker_info().seed` in a `worker_init_fn`, or "
              "draw from the global generators PyTorch reseeds per worker.",
    "DSL403": "Call `sampler.set_epoch(epoch)` at the start of every epoch.",
    "DSL501": "Keep the records in numpy arrays (or one bytes buffer) instead of a list/dict of Python "
              "objects.",
    "hang": "Read the stacks: the worker is stuck where they point. Native pools (OpenMP, FFmpeg, OpenCV) "
            "do not survive fork: create them in the worker, or start workers with spawn.",
    "loader-error": "The loader failed for its own reasons: run the script without dslint to see the "
                    "full traceback.",
}


def rule_url(code: str) -> Optional[str]:
    from dslint import catalogue

    rule = catalogue.RULES.get(code)
    return rule.url if rule else None


def fix_hint(finding: Any) -> str:
    """The finding's own autofix, said as the command that applies it."""
    fix = getattr(finding, "fix", None)
    if fix is None:
        return ""
    flag = "--fix" if fix.applicability == "safe" else "--fix --unsafe-fixes"
    message = fix.message.rstrip(".")
    return f"Autofix ({fix.applicability}): `dslint check {flag}` - {message}."


def advice(code: str, hint: str = "") -> str:
    remedy = REMEDY.get(code, "")
    return f"{remedy} {hint}".strip()
