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
