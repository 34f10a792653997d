"""The facts one file yields: loader sites, classes, functions and module statements.

Everything here is plain, picklable data (no AST nodes), so summaries can be computed in
worker processes, cached on disk and combined into the project index. Rules are predicates
over these facts; they never look at syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Tuple


@dataclass(frozen=True)
class Span:
    """1-based rows and 1-based character columns; the end is exclusive."""

    row: int
    col: int
    end_row: int
    end_col: int


@dataclass
class CallableArg:
    """A callable that a loader hands to its workers."""

    role: str  # collate_fn | worker_init_fn | dataset argument | dataset attribute
    kind: str  # lambda | nested function | nested class
    name: str  # "<lambda>" or the def/class name
    span: Span  # where the callable appears at the hand-over point
    free_vars: Tuple[str, ...] = ()  # enclosing-function variables it closes over
    definition: Optional[Span] = None  # the nested def/class, when not a lambda


@dataclass
class BatchMove:
    """A ``.to(...)`` / ``.cuda()`` call applied to a value coming out of a loader."""

    span: Span
    method: str
    non_blocking: bool


@dataclass
class Keyword:
    span: Span  # the whole ``name=value`` keyword
    value_source: str
    truthy: str  # true | false | unknown


@dataclass
class LoaderSite:
    """One construction of a DataLoader (or a project subclass / partial of one)."""

    span: Span  # the call
    callee: str  # qualified name of what is called
    known_loader: bool  # torch's DataLoader (vs a class that may subclass it)
    scope: str  # "" for module level, else the enclosing function's qualname
    guarded: bool  # under ``if __name__ == "__main__":``
    workers: FrozenSet[str]
    workers_source: Optional[str]  # source text of the num_workers expression
    keywords: Dict[str, Keyword] = field(default_factory=dict)
    splat_unresolved: bool = False
    dataset_class: Optional[str] = None
    callables: List[CallableArg] = field(default_factory=list)
    worker_init_fn: Optional[str] = None  # qualified name when it names a function
    batch_moves: List[BatchMove] = field(default_factory=list)
    # extra facts (dslint.analysis.extra_facts)
    collate_fn: Optional[str] = None  # qualified name when it names a function
    start_method: Optional[str] = None  # multiprocessing_context when a literal method
    nullness: Dict[str, str] = field(default_factory=dict)  # keyword -> none|value|maybe|unknown
    batch_size_const: Optional[str] = None  # repr of a constant batch_size
    prefetch_when_zero: str = "unknown"  # prefetch_factor where workers are zero: none|value|tested-value|unknown
    sampler_class: Optional[str] = None  # qualified name of the sampler's constructor
    sampler_shuffle: str = "true"  # truthiness of the sampler's own shuffle= (absent: true)
    sampler_ref: Optional[str] = None  # how code reaches the sampler: "sampler", "loader.sampler"
    epoch_loop: Optional["EpochLoop"] = None
    training_loop: Optional[Span] = None  # a loop over the loader that calls backward()/step()


@dataclass
class Handle:
    """A process-bound handle stored where workers will share it."""

    attr: str  # attribute (self.<attr>) or module-level name
    constructor: str
    span: Span
    used_by_worker: bool  # read in __getitem__/__iter__ or what they call
    reopened: bool  # (re)assigned outside __init__, i.e. opened lazily


@dataclass
class ClassFacts:
    name: str
    qualname: str  # module.Class
    span: Span  # the class name
    header_row: int
    bases: Tuple[str, ...]
    handles: List[Handle] = field(default_factory=list)
    stored_callables: List[CallableArg] = field(default_factory=list)
    uses_cv2: bool = False
    throttles_cv2: bool = False
    # extra facts (dslint.analysis.extra_facts)
    iter_span: Optional[Span] = None  # ``__iter__`` defined here (its name)
    shards: bool = False  # the __iter__ path consults get_worker_info() (or a sharding helper)
    delegates: bool = False  # __iter__ iterates a dataset handed to the constructor
    iter_calls: FrozenSet[str] = frozenset()  # other-module functions the __iter__ path calls
    cuda_work: Optional["WorkerHazard"] = None  # in __getitem__/__iter__ or what they call
    thread_setting: Optional["WorkerHazard"] = None
    rngs: List["RngAttr"] = field(default_factory=list)
    object_tables: List["ObjectTable"] = field(default_factory=list)


@dataclass
class ProcessStart:
    """Why a function or statement starts worker processes."""

    reason: str
    loader_span: Optional[Span] = None  # the loader whose iteration starts workers


@dataclass
class FunctionFacts:
    name: str
    qualname: str
    starts: Optional[ProcessStart] = None  # direct reason, if any
    calls: FrozenSet[str] = frozenset()  # same-module functions it calls
    throttles_cv2: bool = False
    assigned_attrs: FrozenSet[str] = frozenset()  # attributes it assigns on other objects
    # extra facts (dslint.analysis.extra_facts)
    cuda_work: Optional["WorkerHazard"] = None
    thread_setting: Optional["WorkerHazard"] = None
    constant_seed: Optional["WorkerHazard"] = None  # seeds a global RNG with a constant
    consults_worker_info: bool = False  # (transitively, within the module)
    reseeded_attrs: FrozenSet[str] = frozenset()  # attributes it reassigns/reseeds on other objects


@dataclass
class StatementFacts:
    """An unguarded module-level statement that may start workers at import time."""

    span: Span
    starts: Optional[ProcessStart] = None
    calls: FrozenSet[str] = frozenset()


@dataclass
class ModuleSummary:
    path: str
    module: str  # dotted import name
    is_package: bool
    imports: Tuple[str, ...] = ()  # absolute module names imported at module level
    cv2_import: Optional[Span] = None
    cv2_alias: str = "cv2"
    cv2_throttled_at_import: bool = False
    cv2_throttled_anywhere: bool = False
    cv2_used: bool = False  # OpenCV called somewhere beyond thread settings
    classes: List[ClassFacts] = field(default_factory=list)
    loaders: List[LoaderSite] = field(default_factory=list)
    functions: Dict[str, FunctionFacts] = field(default_factory=dict)
    statements: List[StatementFacts] = field(default_factory=list)
    module_handles: List[Handle] = field(default_factory=list)
    # extra facts (dslint.analysis.extra_facts)
    start_method_calls: List["StartMethodCall"] = field(default_factory=list)
    set_epoch_called: bool = False  # some ``.set_epoch(...)`` call in the module


# --- facts of the catalogue beyond the core six (dslint.analysis.extra_facts) -------------


@dataclass
class EpochLoop:
    """An outer loop (``for epoch in ...`` / ``while``) that iterates a loader once per pass."""

    span: Span  # the loop header: ``for`` keyword to the end of its iterable
    target: Optional[str]  # the loop variable when it is a plain name ("epoch"); None for while
    body_span: Span  # the first statement of the loop body (where a fix inserts)
    iterate_span: Span  # where the loader is iterated (or handed to a function that does)


@dataclass
class WorkerHazard:
    """A hazardous call in code a worker runs (CUDA work, a thread setting, a constant seed)."""

    span: Span
    what: str  # source-level description, e.g. "`.cuda()`" or "`torch.set_num_threads(4)`"


@dataclass
class RngAttr:
    """A random generator object stored on ``self`` in ``__init__``."""

    attr: str
    constructor: str
    span: Span  # the constructor call
    used_by_worker: bool  # drawn from in __getitem__/__iter__ or what they call
    reseeded: bool  # reassigned or reseeded outside __init__


@dataclass
class ObjectTable:
    """A Python list/dict of objects built in ``__init__`` and indexed in ``__getitem__``."""

    attr: str
    kind: str  # list | dict
    span: Span  # the assignment's value


@dataclass
class StartMethodCall:
    span: Span
    scope: str  # "" for module level
    guarded: bool  # under the main guard
    force: bool  # force=True given
    protected: bool  # inside a try that catches RuntimeError
    method: Optional[str] = None  # the constant start method, when literal



def _schema() -> str:
    """Field names of every fact class: part of the cache key, so cached summaries written by
    an older model are never read back into a newer one (missing fields)."""
    import dataclasses

    parts = []
    for value in list(globals().values()):
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            parts.append(value.__name__ + ":" + ",".join(f.name for f in dataclasses.fields(value)))
    return ";".join(sorted(parts))


SCHEMA = _schema()
