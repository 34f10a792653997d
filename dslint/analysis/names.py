"""Qualified names of the library objects dslint recognises (never imported)."""

LOADERS = frozenset(
    {
        "torch.utils.data.DataLoader",
        "torch.utils.data.dataloader.DataLoader",
    }
)
DATASET_BASES = frozenset(
    {
        "torch.utils.data.Dataset",
        "torch.utils.data.dataset.Dataset",
        "torch.utils.data.IterableDataset",
        "torch.utils.data.dataset.IterableDataset",
        "torch.utils.data.TensorDataset",
        "torch.utils.data.dataset.TensorDataset",
        "torch.utils.data.ConcatDataset",
        "torch.utils.data.Subset",
        "torch.utils.data.datapipes.datapipe.IterDataPipe",
        "torch.utils.data.datapipes.datapipe.MapDataPipe",
    }
)
# Third-party dataset bases are datasets too (torchvision's VisionDataset, ImageFolder...).
DATASET_PACKAGE_PREFIXES = ("torchvision.datasets.",)
ITERABLE_DATASET_BASES = frozenset(
    {"torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}
)

PARTIAL = frozenset({"functools.partial"})

# Callables that keep a reference to the callable they are given (so a lambda inside
# ends up pickled with the dataset), as opposed to calls that consume it immediately.
STORING_WRAPPERS_LAST = frozenset(
    {"Lambda", "Compose", "RandomApply", "RandomChoice", "RandomOrder", "partial"}
)

HANDLE_CONSTRUCTORS = frozenset(
    {
        "cv2.VideoCapture",
        "h5py.File",
        "lmdb.open",
        "lmdb.Environment",
        "sqlite3.connect",
        "builtins.open",
        "io.open",
        "tarfile.open",
        "tarfile.TarFile",
        "zipfile.ZipFile",
        "PIL.ImageFont.truetype",
    }
)

PROCESS_STARTERS = frozenset(
    {
        "torch.multiprocessing.spawn",
        "torch.multiprocessing.start_processes",
        "torch.multiprocessing.spawn.spawn",
        "multiprocessing.Pool",
        "multiprocessing.pool.Pool",
        "torch.multiprocessing.Pool",
        "concurrent.futures.ProcessPoolExecutor",
        "concurrent.futures.process.ProcessPoolExecutor",
    }
)
PROCESS_CLASSES = frozenset(
    {"multiprocessing.Process", "multiprocessing.process.Process", "torch.multiprocessing.Process"}
)

CV2_SET_THREADS = "cv2.setNumThreads"

# Wrappers whose first argument is what a ``for`` loop really iterates.
ITERATION_WRAPPERS_LAST = frozenset(
    {"enumerate", "iter", "tqdm", "trange", "zip", "list", "track", "islice", "cycle", "progress_bar"}
)

TORCH_DTYPES = frozenset(
    "float float16 float32 float64 half double bfloat16 int int8 int16 int32 int64 long "
    "short uint8 bool complex64 complex128 cfloat float8_e4m3fn float8_e5m2".split()
)

WORKER_METHODS = frozenset({"__getitem__", "__getitems__", "__iter__", "__next__"})

# Positional parameters of torch's DataLoader, for calls that pass them positionally.
LOADER_POSITIONAL = (
    "dataset",
    "batch_size",
    "shuffle",
    "sampler",
    "batch_sampler",
    "num_workers",
    "collate_fn",
    "pin_memory",
    "drop_last",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
)
LOADER_KEYWORDS = frozenset(LOADER_POSITIONAL) | {
    "prefetch_factor",
    "persistent_workers",
    "pin_memory_device",
    "in_order",
}
# Keywords that make a call to an unresolved project class worth recording as a
# possible loader (confirmed later by the index when the class subclasses DataLoader).
LOADER_HINT_KEYWORDS = frozenset(
    {"num_workers", "collate_fn", "worker_init_fn", "persistent_workers", "pin_memory", "prefetch_factor"}
)


def is_dataset_base(qualname: str) -> bool:
    return qualname in DATASET_BASES or qualname.startswith(DATASET_PACKAGE_PREFIXES)


# --- the catalogue beyond the core six (dslint.analysis.extra_facts) ----------------------

# Training-library entry points that build DataLoaders with worker processes internally.
# ``package.Class.method``: calling ``method`` on an instance made by ``Class(...)`` (or a
# classmethod such as ``Class.from_cfg(...)``) starts loader workers. A class matches when
# its resolved name starts with ``package.`` and ends with ``.Class`` (so
# ``from ultralytics.models.yolo import YOLO`` matches ``ultralytics.YOLO``). Users extend
# the table with ``trainer-entry-points`` in ``[tool.dslint]``.
TRAINER_ENTRY_POINTS = (
    "ultralytics.YOLO.train",
    "ultralytics.YOLO.val",
    "ultralytics.RTDETR.train",
    "ultralytics.RTDETR.val",
    "ultralytics.YOLOWorld.train",
    "lightning.Trainer.fit",
    "lightning.Trainer.validate",
    "lightning.Trainer.test",
    "lightning.Trainer.predict",
    "pytorch_lightning.Trainer.fit",
    "pytorch_lightning.Trainer.validate",
    "pytorch_lightning.Trainer.test",
    "pytorch_lightning.Trainer.predict",
    "detectron2.DefaultTrainer.train",
    "mmengine.Runner.train",
    "mmengine.Runner.val",
    "mmengine.Runner.test",
)
_extra_entry_points: tuple = ()


def configure_trainer_entry_points(extra) -> None:
    """Add the user's ``trainer-entry-points`` (validated: ``package.Class.method``)."""
    global _extra_entry_points
    _extra_entry_points = tuple(e for e in (extra or ()) if isinstance(e, str) and e.count(".") >= 2)


def trainer_entry_points() -> tuple:
    return TRAINER_ENTRY_POINTS + _extra_entry_points


def split_entry_point(entry: str):
    """``ultralytics.YOLO.train`` → ("ultralytics", "YOLO", "train")."""
    head, method = entry.rsplit(".", 1)
    package, _, cls = head.rpartition(".")
    return package.split(".")[0], cls, method


DISTRIBUTED_SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)

# Random generator objects whose state a fork copies into every worker.
RNG_CONSTRUCTORS = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "numpy.random.mtrand.RandomState",
        "random.Random",
        "torch.Generator",
        "torch._C.Generator",
    }
)
# Seeding the process-global generators.
GLOBAL_SEEDERS = frozenset(
    {"numpy.random.seed", "random.seed", "torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed",
     "torch.cuda.manual_seed_all"}
)
# Calls and attributes of a generator object that reseed it.
RESEED_METHODS = frozenset({"seed", "manual_seed", "set_state", "setstate", "bit_generator"})

# torch.cuda.* calls that do not create a CUDA context in the calling process.
CUDA_QUERIES = frozenset(
    {"is_available", "is_initialized", "device_count", "is_bf16_supported", "get_arch_list",
     "_is_compiled", "is_built"}
)

# Calls that set a thread count for OpenMP/MKL in the calling process.
THREAD_SETTERS = frozenset(
    {"torch.set_num_threads", "mkl.set_num_threads", "faiss.omp_set_num_threads",
     "threadpoolctl.threadpool_limits"}
)

# Names whose use in an IterableDataset's iteration path means it splits work by worker.
SHARDING_NAMES = frozenset({"get_worker_info", "pytorch_worker_info", "split_by_worker", "worker_info"})

START_METHOD_SETTERS = frozenset(
    {"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method",
     "multiprocess.set_start_method"}
)
