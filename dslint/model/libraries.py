"""The libraries dslint understands, each described once, declaratively.

A large share of training code never calls ``torch.utils.data.DataLoader`` by that name:
torchdata, webdataset, MONAI and PyG have their own loaders, timm and HF build them from
arguments, accelerate and Lightning move the batches and shard the data themselves. Each
entry below says what a library's object *is* for the rules (which arguments mean the
worker count, who moves batches and how, who shards and sets the epoch, whether workers
are threads), so rules never mention a library by name. Users add their own loaders in
``[tool.dslint]`` (``loader-classes``, ``loader-factories``).

Names are matched as written in the source after import resolution, by full dotted name
or by top-level package plus last name (``webdataset.compat.WebLoader`` is webdataset's
``WebLoader``); nothing is ever imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from .objects import (
    UNKNOWN_RESULT,
    Batch,
    Cls,
    Container,
    Ctx,
    Ext,
    Found,
    Inst,
    Iterated,
    Lit,
    Managed,
    Namespace,
    Results,
    SiteRef,
    Step,
    Top,
    extend,
    join,
)
from ..analysis.values import Attr, Call, Starred
from . import mmconfig

if TYPE_CHECKING:
    from .resolver import Resolver

# Loader attributes that hold the constructor's argument as given, its default otherwise
# (``sampler`` and ``collate_fn`` do not: DataLoader replaces a None with its own object).
PLAIN_ATTRIBUTES = frozenset({"num_workers", "pin_memory", "persistent_workers", "batch_size", "drop_last", "timeout"})
# torch 2.x DataLoader.__init__: ``batch_sampler=`` forbids ``sampler=`` and ``shuffle``, so
# ``loader.sampler`` is the ``SequentialSampler(dataset)`` the loader makes itself
SEQUENTIAL_SAMPLER = "torch.utils.data.SequentialSampler"
DISTRIBUTED_SAMPLER = "torch.utils.data.distributed.DistributedSampler"
DATALOADER_POSITIONAL = (
    "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn", "pin_memory",
    "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator",
)


HF_PARSES = frozenset({"parse_args_into_dataclasses", "parse_dict", "parse_json_file", "parse_yaml_file"})
HF_PARSED = "transformers.HfArgumentParser.parse_args_into_dataclasses()"  # what those hand back


@dataclass(frozen=True)
class Reseeding:
    """What a library's default ``worker_init_fn`` reseeds in every worker: it calls ``method``
    on each object reachable from the dataset that has one (MONAI's ``set_rnd``); the
    library's own ``bases`` implement that method by replacing ``attributes``."""

    method: str
    bases: Tuple[str, ...]
    attributes: Tuple[str, ...]


@dataclass(frozen=True)
class LoaderSpec:
    """What a loader class, a loader-building function or a loader configuration is."""

    names: Tuple[str, ...]
    library: str
    kind: str = "class"  # class (a DataLoader or subclass) | factory (returns one) | config (a framework builds it)
    positional: Tuple[str, ...] = DATALOADER_POSITIONAL
    defaults: Mapping[str, object] = field(default_factory=dict)  # where they differ from DataLoader's
    renames: Mapping[str, str] = field(default_factory=dict)  # library argument → DataLoader argument
    moves_batches: str = ""  # "" the user does | "non_blocking" the library does, overlapped | "device" it does
    moves_unless: str = ""  # argument that, when false, stops the library from moving batches
    thread_workers: str = ""  # "" processes | "always" | argument that turns thread workers on
    ignores_collate: bool = False  # a user collate_fn is replaced by the library's
    reseeding: Optional[Reseeding] = None  # what its default worker_init_fn reseeds per worker
    persistent_auto: bool = False  # persistent_workers only when workers > 0
    iterated_by_framework: bool = False  # user code never iterates it (HF Trainer)
    fluid: Tuple[str, ...] = ()  # methods that hand back the same loader, one more stage on (webdataset)
    raises: Mapping[str, str] = field(default_factory=dict)  # argument → the library's own error for it
    kept_by_dataset: Tuple[str, ...] = ()  # arguments the library stores in the dataset it builds (pickled with it)
    unknown_defaults: Tuple[str, ...] = ()  # arguments that, when not given, come from a run-time config
    # arguments that, all given true, make the library put a shuffling DistributedSampler in the
    # loader it builds (``loader.sampler``: its epoch is the caller's to set)
    distributed_sampler: Tuple[str, ...] = ()


@dataclass(frozen=True)
class DatasetSpec:
    """A library dataset that splits its stream across workers itself, unless told not to."""

    names: Tuple[str, ...]
    library: str
    split_argument: str  # the splitter argument; given as None/False, every worker reads everything
    split_default: str  # what it is by default (for messages)


@dataclass(frozen=True)
class Wrapper:
    """A call that takes loaders and hands back ones the framework manages (``accelerator.prepare``)."""

    names: Tuple[str, ...]  # ``package.Class.method`` or ``package.function``
    library: str
    moves_batches: str = "device"
    moves_when: str = ""  # argument of the call that must be true for it to move batches (default off)
    moves_unless: Tuple[str, int] = ("", -1)  # argument (and position) of the call that, false, stops it (default on)
    moves_unless_owner: str = ""  # argument of the owner's construction that, when false, stops it
    shards: bool = True
    sets_epoch: bool = True


@dataclass(frozen=True)
class Hooks:
    """Methods of framework classes whose returned loaders the framework iterates (Lightning)."""

    bases: Tuple[str, ...]
    methods: Tuple[str, ...]
    library: str
    moves_batches: str = "non_blocking"
    shards: bool = True
    sets_epoch: bool = True


@dataclass(frozen=True)
class TrainerSpec:
    """A trainer whose entry points (``ENTRY_POINTS``) start workers or processes, and what
    in its construction decides whether they do."""

    names: Tuple[str, ...]
    library: str
    config: str = ""  # constructor argument holding a loader configuration (HF ``args``)
    config_position: int = -1
    spawn_argument: str = ""  # constructor argument that can choose a spawning launcher...
    spawn_values: Tuple[str, ...] = ()  # ...by these values (or names starting with them)
    # constructor arguments the trainer hands to the loaders it builds from ``config``
    # (HF: ``train_dataset`` is the dataset, ``data_collator`` the ``collate_fn``)
    loader_arguments: Mapping[str, str] = field(default_factory=dict)


TORCH = (
    LoaderSpec(("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"), "torch"),
)
DEEPSPEED_LOADER = "deepspeed.initialize.training_dataloader"  # part 2 of what ``deepspeed.initialize`` returns
WEBDATASET_FLUID = (
    "batched", "unbatched", "listed", "unlisted", "log_keys", "shuffle", "map", "decode", "map_dict", "select",
    "to_tuple", "map_tuple", "slice", "rename", "rsample", "rename_keys", "extract_keys", "xdecode", "mcached",
    "lmdb_cached", "compose", "with_length", "with_epoch", "repeat", "append",
)
PYG_GRAPH_LOADER = ("data", "num_neighbors")
HF_DATASETS = "datasets."  # what Hugging Face ``datasets`` objects' qualified names start with
# PyTorch Geometric's datasets: indexed by a slice, a list or a tensor of indices (and through
# ``shuffle()``/``index_select()``/``copy()``) they hand back a dataset of the same class sharing
# its storage and transform, not an item (``dataset[:110_000]``, ``dataset[split["train"]]``)
PYG_DATASET_BASES = frozenset({"torch_geometric.data.Dataset", "torch_geometric.data.dataset.Dataset",
                               "torch_geometric.data.InMemoryDataset",
                               "torch_geometric.data.in_memory_dataset.InMemoryDataset"})
PYG_DATASETS = "torch_geometric.datasets."
PYG_SUBSET_METHODS = frozenset({"shuffle", "index_select", "copy"})
# Loader subclasses that hand ``sampler``/``batch_sampler`` to torch's DataLoader as they are:
# their data is split across ranks exactly as torch's would be
TORCH_SAMPLING = frozenset({"torch_geometric.loader.DataLoader", "monai.data.DataLoader"})
LOADERS: Tuple[LoaderSpec, ...] = TORCH + (
    # torchdata 0.11: a DataLoader subclass with DataLoader's arguments
    LoaderSpec(("torchdata.stateful_dataloader.StatefulDataLoader",), "torchdata"),
    # webdataset 1.0.2 compat.py: WebLoader(*args, **kw) wraps DataLoader(*args, **kw) in a pipeline
    LoaderSpec(("webdataset.WebLoader",), "webdataset", fluid=WEBDATASET_FLUID),
    # MONAI 1.x dataloader.py: DataLoader(dataset, num_workers=0, **kwargs) defaults collate_fn to
    # list_data_collate and worker_init_fn to utils.worker_init_fn, which calls set_random_state
    # (Randomizable: replaces self.R) on every object of the dataset that has it
    LoaderSpec(("monai.data.DataLoader",), "monai", positional=("dataset", "num_workers"),
               reseeding=Reseeding("set_random_state", ("monai.transforms.Randomizable",
                                                        "monai.transforms.RandomizableTransform"), ("R",))),
    # thread_buffer.py: ThreadDataLoader(dataset, buffer_size, buffer_timeout, repeats, use_thread_workers,
    # **kwargs); with use_thread_workers and num_workers > 0 workers are threads, persistent_workers forced off
    LoaderSpec(("monai.data.ThreadDataLoader",), "monai",
               positional=("dataset", "buffer_size", "buffer_timeout", "repeats", "use_thread_workers"),
               thread_workers="use_thread_workers",
               reseeding=Reseeding("set_random_state", ("monai.transforms.Randomizable",
                                                        "monai.transforms.RandomizableTransform"), ("R",))),
    # PyG 2.x loader/dataloader.py: DataLoader(dataset, batch_size, shuffle, follow_batch, exclude_keys,
    # **kwargs) pops collate_fn and uses its Collater; node/link loaders pop it too (collate_fn=self.collate_fn)
    LoaderSpec(("torch_geometric.loader.DataLoader",), "torch_geometric", ignores_collate=True,
               positional=("dataset", "batch_size", "shuffle", "follow_batch", "exclude_keys")),
    LoaderSpec(("torch_geometric.loader.NeighborLoader", "torch_geometric.loader.LinkNeighborLoader",
                "torch_geometric.loader.HGTLoader", "torch_geometric.loader.NodeLoader",
                "torch_geometric.loader.LinkLoader"), "torch_geometric", positional=PYG_GRAPH_LOADER,
               ignores_collate=True),
    # DGL 2.x dataloading/dataloader.py: GraphDataLoader(dataset, collate_fn=None, use_ddp=False, ddp_seed=0,
    # **kwargs) is a DataLoader; a given collate_fn runs in the workers; use_ddp puts in
    # DistributedSampler(dataset, shuffle=shuffle) as its sampler (``loader.set_epoch`` forwards to it)
    LoaderSpec(("dgl.dataloading.GraphDataLoader", "dgl.dataloading.dataloader.GraphDataLoader"), "dgl",
               positional=("dataset", "collate_fn", "use_ddp", "ddp_seed"), distributed_sampler=("use_ddp", "shuffle")),
    # timm 1.0 data/loader.py: num_workers=1, pin_memory=False, persistent_workers=persistent_workers and
    # num_workers > 0; with use_prefetcher (default) PrefetchLoader copies batches with non_blocking=True;
    # distributed=True with is_training=True puts DistributedSampler(dataset) (or a RepeatAugSampler) in
    LoaderSpec(("timm.data.create_loader", "timm.data.loader.create_loader"), "timm", kind="factory",
               positional=("dataset", "input_size", "batch_size", "is_training"),
               defaults={"num_workers": 1, "pin_memory": False}, moves_batches="non_blocking",
               moves_unless="use_prefetcher", persistent_auto=True,
               distributed_sampler=("distributed", "is_training")),
    # detectron2 data/build.py: build_detection_{train,test}_loader(cfg, mapper) or (dataset, *, mapper, ...,
    # num_workers) wraps the dataset in MapDataset(dataset, mapper): the mapper is pickled with the dataset;
    # with a cfg the worker count is cfg.DATALOADER.NUM_WORKERS, known at run time only
    LoaderSpec(("detectron2.data.build_detection_train_loader", "detectron2.data.build.build_detection_train_loader"),
               "detectron2", kind="factory", positional=("dataset", "mapper"), kept_by_dataset=("mapper",),
               unknown_defaults=("num_workers",)),
    LoaderSpec(("detectron2.data.build_detection_test_loader", "detectron2.data.build.build_detection_test_loader"),
               "detectron2", kind="factory", positional=("dataset", "dataset_name", "mapper"),
               kept_by_dataset=("mapper",), unknown_defaults=("num_workers",)),
    # ignite 0.5 distributed/auto.py: auto_dataloader(dataset, **kwargs) builds DataLoader(dataset, **kwargs)
    # (batch size and workers divided per process, a DistributedSampler added when distributed)
    LoaderSpec(("ignite.distributed.auto_dataloader", "ignite.distributed.auto.auto_dataloader"), "ignite",
               kind="factory", positional=("dataset",), defaults={"pin_memory": True}),
    # transformers 5.x: the Trainer builds DataLoader(dataset, num_workers=args.dataloader_num_workers, ...)
    # and hands it to accelerate, which moves the batches
    LoaderSpec(("transformers.TrainingArguments", "transformers.training_args.TrainingArguments",
                "transformers.Seq2SeqTrainingArguments"), "transformers", kind="config", positional=(),
               defaults={"pin_memory": True},
               renames={"dataloader_num_workers": "num_workers", "dataloader_pin_memory": "pin_memory",
                        "dataloader_persistent_workers": "persistent_workers",
                        "dataloader_prefetch_factor": "prefetch_factor", "dataloader_drop_last": "drop_last",
                        "dataloader_multiprocessing_context": "multiprocessing_context"},
               moves_batches="device", iterated_by_framework=True,
               raises={"prefetch_factor": "ValueError: --dataloader_prefetch_factor can only be set when data is "
                                          "loaded in a different process"}),
    # DeepSpeed 0.1x: ``engine, optimizer, loader, scheduler = deepspeed.initialize(..., training_data=ds,
    # collate_fn=f)``; runtime/engine.py deepspeed_io(pin_memory=True) builds runtime/dataloader.py's
    # DeepSpeedDataLoader: DataLoader(dataset, pin_memory, sampler=DistributedSampler(dataset) under the
    # launcher, collate_fn, num_workers=num_local_io_workers, by default 2 per device)
    LoaderSpec((DEEPSPEED_LOADER,), "deepspeed", kind="factory",
               positional=("args", "model", "optimizer", "model_parameters", "training_data", "lr_scheduler",
                           "distributed_port", "mpu", "dist_init_required", "collate_fn", "config"),
               renames={"training_data": "dataset"}, defaults={"pin_memory": True, "num_workers": 2},
               distributed_sampler=("dataset",)),
    # mmengine 0.10 runner.py build_dataloader: DataLoader(dataset, sampler, batch_sampler, collate_fn,
    # worker_init_fn, **cfg) from a config's ``train_dataloader = dict(...)`` merged over its ``_base_``
    # configs; the Runner moves the batches (its data_preprocessor)
    LoaderSpec(mmconfig.NAMES, "mmengine", kind="config", positional=(), moves_batches="device",
               iterated_by_framework=True),
)
DATASETS: Tuple[DatasetSpec, ...] = (
    # webdataset 1.0.2 compat.py: WebDataset(..., workersplitter=shardlists.split_by_worker); a false
    # splitter appends no split stage
    DatasetSpec(("webdataset.WebDataset",), "webdataset", "workersplitter", "`wds.split_by_worker`"),
)
WRAPPERS: Tuple[Wrapper, ...] = (
    # accelerate 1.15: DataLoaderShard/DataLoaderDispatcher shard, call set_epoch on each new iteration and
    # move batches to the device (Accelerator(device_placement=False) turns that off)
    Wrapper(("accelerate.Accelerator.prepare", "accelerate.Accelerator.prepare_data_loader"), "accelerate",
            moves_unless_owner="device_placement"),
    # data_loader.prepare_data_loader(..., put_on_device=False): shards, moves only when asked
    Wrapper(("accelerate.data_loader.prepare_data_loader",), "accelerate", moves_when="put_on_device"),
    # Ray Train 2.x train/torch/train_loop_utils.py: prepare_data_loader(data_loader, add_dist_sampler=True,
    # move_to_device=True, auto_transfer=True) rebuilds the loader with a DistributedSampler (not for an
    # IterableDataset) and, unless told not to, moves each batch to the worker's device; no set_epoch
    Wrapper(("ray.train.torch.prepare_data_loader", "ray.train.torch.train_loop_utils.prepare_data_loader"), "ray",
            moves_unless=("move_to_device", 2), sets_epoch=False),
)
# Calls that hand back the loader they are given, as it was (managed or not).
PASS_THROUGH = ("accelerate.Accelerator.skip_first_batches", "accelerate.skip_first_batches",
                "accelerate.data_loader.skip_first_batches")
LIGHTNING_MODULES = ("lightning.LightningModule", "lightning.pytorch.LightningModule", "pytorch_lightning.LightningModule")
# Methods a framework calls for every batch on the project's subclass, like the body of a loop:
# (the framework's classes, the methods, who calls them)
STEP_HOOKS = (
    (LIGHTNING_MODULES, frozenset({"training_step", "validation_step", "test_step", "predict_step"}), ""),
    # transformers 5.x trainer.py: the training loop calls training_step(model, inputs), which
    # calls compute_loss(model, inputs); the evaluation loop calls prediction_step
    (("transformers.Trainer", "transformers.trainer.Trainer", "transformers.Seq2SeqTrainer",
      "transformers.trainer_seq2seq.Seq2SeqTrainer"),
     frozenset({"training_step", "compute_loss", "prediction_step"}), "the Hugging Face Trainer calls it for every batch"),
)
HOOKS: Tuple[Hooks, ...] = (
    Hooks(LIGHTNING_MODULES + ("lightning.LightningDataModule", "lightning.pytorch.LightningDataModule",
                               "pytorch_lightning.LightningDataModule"),
          ("train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"), "lightning"),
)
LIGHTNING_TRAINERS = ("lightning.Trainer", "lightning.pytorch.Trainer", "pytorch_lightning.Trainer")
# Lightning's ``Callback``: the Trainer calls its hooks with itself first (``on_train_epoch_start(
# self, trainer, pl_module)``); ``trainer.datamodule`` is the data module given to ``fit``
LIGHTNING_CALLBACKS = ("lightning.Callback", "lightning.pytorch.Callback", "lightning.pytorch.callbacks.Callback",
                       "pytorch_lightning.Callback", "pytorch_lightning.callbacks.Callback")
LIGHTNING_RUNS = ("fit", "validate", "test", "predict")  # Trainer methods given ``datamodule=`` (fourth in ``fit``)
# Trainer keywords that stop Lightning from putting a DistributedSampler in (2.x, 1.x)
LIGHTNING_SAMPLER_SWITCHES = ("use_distributed_sampler", "replace_sampler_ddp")
# strategies that run one process per device, each with its own loader
DATA_PARALLEL_STRATEGIES = ("ddp", "fsdp", "deepspeed")
TRAINERS: Tuple[TrainerSpec, ...] = (
    # transformers 5.x: Trainer(model, args, ...) without args uses TrainingArguments() (zero workers)
    TrainerSpec(("transformers.Trainer", "transformers.Seq2SeqTrainer"), "transformers",
                config="args", config_position=1,
                loader_arguments={"train_dataset": "dataset", "data_collator": "collate_fn"}),
    # Lightning 2.6 strategies/ddp.py: the ddp_spawn* strategies start one process per device with spawn
    TrainerSpec(LIGHTNING_TRAINERS, "lightning", spawn_argument="strategy", spawn_values=("ddp_spawn",)),
)
# Training-library entry points that start DataLoader workers: ``package.Class.method``
# (``Class(...).method()`` or ``Class.classmethod(...).method()``). Extended by the
# ``trainer-entry-points`` setting.
ENTRY_POINTS = (
    "ultralytics.YOLO.train", "ultralytics.YOLO.val", "ultralytics.RTDETR.train", "ultralytics.RTDETR.val",
    "ultralytics.YOLOWorld.train",
    "lightning.Trainer.fit", "lightning.Trainer.validate", "lightning.Trainer.test", "lightning.Trainer.predict",
    "pytorch_lightning.Trainer.fit", "pytorch_lightning.Trainer.validate", "pytorch_lightning.Trainer.test",
    "pytorch_lightning.Trainer.predict",
    "detectron2.DefaultTrainer.train", "mmengine.Runner.train", "mmengine.Runner.val", "mmengine.Runner.test",
    "transformers.Trainer.train", "transformers.Trainer.evaluate",
)
# Frameworks whose ``device`` (``accelerator.device``, ``TrainingArguments(...).device``) is the
# GPU the run trains on whenever it has one (accelerate 1.x ``PartialState.device``,
# transformers' ``TrainingArguments.device``: ``cuda:0`` when CUDA is available)
GPU_PLACERS = frozenset({
    "accelerate.Accelerator", "accelerate.accelerator.Accelerator", "accelerate.PartialState",
    "accelerate.state.PartialState", "transformers.TrainingArguments", "transformers.training_args.TrainingArguments",
})
CLI_TRAINER = "lightning.pytorch.cli.LightningCLI().trainer"  # the Trainer a ``LightningCLI`` builds
# Lightning's command-line runners: building one parses the command line and runs its
# subcommand (``fit``: the data module's loaders start their workers) unless ``run=False``
CLI_RUNNERS = frozenset({
    "lightning.pytorch.cli.LightningCLI", "lightning.pytorch.LightningCLI", "pytorch_lightning.cli.LightningCLI",
    "pytorch_lightning.utilities.cli.LightningCLI",
})
PROCESS_STARTERS = frozenset({
    "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes", "torch.multiprocessing.spawn.spawn",
    "multiprocessing.Pool", "multiprocessing.pool.Pool", "torch.multiprocessing.Pool",
    "concurrent.futures.ProcessPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor",
})
# What pickles a callable to hand it to each process it starts, and where the callable is
# given (position, keyword): torch's spawn (spawn unless ``start_method`` says otherwise), a
# ``Process`` target (pickled under spawn and forkserver), a process pool's tasks (pickled
# whatever the start method: they travel through a queue).
PROCESS_TARGETS = {
    "torch.multiprocessing.spawn": (0, "fn"), "torch.multiprocessing.spawn.spawn": (0, "fn"),
    "torch.multiprocessing.start_processes": (0, "fn"), "torch.multiprocessing.spawn.start_processes": (0, "fn"),
    "multiprocessing.Process": (1, "target"), "multiprocessing.process.Process": (1, "target"),
    "multiprocessing.context.Process": (1, "target"), "torch.multiprocessing.Process": (1, "target"),
    # ignite 0.5 distributed/launcher.py: ``Parallel(nproc_per_node=n).run(func, *args)`` spawns
    # ``func(local_rank, *args)`` in each process (torch's start_processes, start method spawn)
    "ignite.distributed.Parallel().run": (0, "func"), "ignite.distributed.launcher.Parallel().run": (0, "func"),
}
# How a process starter calls its target: where its argument tuple is given (position,
# keyword) and how many arguments it passes before that tuple's items (torch's spawn passes
# the process index first: ``fn(i, *args)``).
LAUNCHED_ARGUMENTS = {
    "torch.multiprocessing.spawn": (1, "args", 1), "torch.multiprocessing.spawn.spawn": (1, "args", 1),
    "torch.multiprocessing.start_processes": (1, "args", 1), "torch.multiprocessing.spawn.start_processes": (1, "args", 1),
    "multiprocessing.Process": (3, "args", 0), "multiprocessing.process.Process": (3, "args", 0),
    "multiprocessing.context.Process": (3, "args", 0), "torch.multiprocessing.Process": (3, "args", 0),
    # the arguments after the function, one by one (keyword None): ``func(local_rank, *args)``
    "ignite.distributed.Parallel().run": (1, None, 1), "ignite.distributed.launcher.Parallel().run": (1, None, 1),
}
# Hyperparameter-search drivers that call a trainable with each trial's config: where the
# trainable is given (position, keyword), and the keyword of the config. A function trainable
# takes the config first; a class trainable's ``setup(self, config)`` does. The entries a
# search samples (``tune.choice([...])``) stay unknown.
TRIAL_RUNNERS = {
    "ray.tune.Tuner": (0, "trainable", "param_space"), "ray.tune.tuner.Tuner": (0, "trainable", "param_space"),
    "ray.tune.run": (0, "run_or_experiment", "config"), "ray.tune.tune.run": (0, "run_or_experiment", "config"),
    # Ray Train 2.x: TorchTrainer(train_loop_per_worker, *, train_loop_config=None, ...) runs the function
    # in each training worker with the config
    **{name: (0, "train_loop_per_worker", "train_loop_config") for name in (
        "ray.train.torch.TorchTrainer", "ray.train.torch.torch_trainer.TorchTrainer",
        "ray.train.data_parallel_trainer.DataParallelTrainer")},
}
TRIAL_RUNNER_NAMES = frozenset({"Tuner", "run", "TorchTrainer", "DataParallelTrainer"})
EXPERIMENT_RUNS = frozenset({"wandb.init", "wandb.sdk.wandb_init.init"})  # ``run.config``: the config given
POOL_CLASSES = ("multiprocessing.Pool", "multiprocessing.pool.Pool", "torch.multiprocessing.Pool",
                "concurrent.futures.ProcessPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor")
POOL_TASKS = frozenset({"map", "imap", "imap_unordered", "starmap", "apply", "apply_async", "map_async",
                        "starmap_async", "submit"})  # the task's function comes first (``func``; ``fn`` for executors)
# What a process pool runs first in each process it starts, pickled with it under spawn and
# forkserver (forked processes inherit it): (position, keyword).
POOL_INITIALIZERS = {
    "multiprocessing.Pool": (1, "initializer"), "multiprocessing.pool.Pool": (1, "initializer"),
    "torch.multiprocessing.Pool": (1, "initializer"),
    "concurrent.futures.ProcessPoolExecutor": (2, "initializer"),
    "concurrent.futures.process.ProcessPoolExecutor": (2, "initializer"),
}
# Where a process starter is given its start method, as a context: (position, keyword).
CONTEXT_ARGUMENTS = {
    "multiprocessing.pool.Pool": (4, "context"),
    "concurrent.futures.ProcessPoolExecutor": (1, "mp_context"),
    "concurrent.futures.process.ProcessPoolExecutor": (1, "mp_context"),
}
# the last names of the calls above: where ``Model.process_targets`` looks
PROCESS_TARGET_NAMES = frozenset(name.rpartition(".")[2] for name in (*PROCESS_TARGETS, *POOL_INITIALIZERS)) \
    | POOL_TASKS
CONTEXT = ".get_context()."  # ``mp.get_context("spawn").Pool`` reads ``multiprocessing.get_context().Pool``


def without_context(qualname: str) -> str:
    """The module's name for a start-method context's member: ``ctx.Process`` and
    ``ctx.Pool`` (``multiprocessing.get_context().Pool``) are ``multiprocessing.Process``
    and ``multiprocessing.Pool``, started with the context's method."""
    head, found, member = qualname.partition(CONTEXT)
    return f"{head}.{member}" if found else qualname


def process_target(qualname: str):
    """(position, keyword) of the callable a call of ``qualname`` pickles for other processes, or None."""
    qualname = without_context(qualname)
    found = PROCESS_TARGETS.get(qualname)
    if found is not None:
        return found
    owner, _, method = qualname.rpartition("().")
    if owner in POOL_CLASSES and method in POOL_TASKS:
        return 0, "fn" if owner.endswith("Executor") else "func"
    return None


PROCESS_CLASSES = frozenset({
    "multiprocessing.Process", "multiprocessing.process.Process", "torch.multiprocessing.Process",
})


def split_entry_point(entry: str):
    """``ultralytics.YOLO.train`` → ("ultralytics", "YOLO", "train")."""
    head, method = entry.rsplit(".", 1)
    package, _, cls = head.rpartition(".")
    return package.split(".")[0], cls, method


def entry_point(qualname: str, method: str, candidates) -> Optional[str]:
    """The entry class an instance of ``qualname`` is, when ``method`` on it starts workers."""
    parts = qualname.replace("()", "").split(".")
    for package, cls in candidates:
        if parts[0] == package and cls in parts[-2:]:
            return cls
    return None


# Calls whose iteration is the iteration of their (first, or every) positional argument.
# Installed registries (fvcore 0.1 common/registry.py, detectron2 utils/registry.py: ``register(obj=None)``,
# a decorator when called without the object, keys the class by its ``__name__``; mmengine 0.10
# registry.py: ``register_module(name=None, force=False, module=None)``); ``get(name)`` hands it back
EXTERNAL_REGISTRIES = frozenset({"fvcore.common.registry.Registry", "fvcore.common.Registry",
                                 "detectron2.utils.registry.Registry", "mmengine.registry.Registry",
                                 "mmengine.Registry", "mmcv.utils.Registry", "mmcv.utils.registry.Registry"})
REGISTERING_METHODS = {"register": None, "register_module": ("name", 0)}  # method → where a key is given
# Library bases whose ``__call__`` runs a method the project's subclass defines: a module (or a
# PyTorch Geometric transform) runs its ``forward`` when called (``model(batch)``, a dataset's transform).
TORCH_MODULES = ("torch.nn.Module", "torch.nn.modules.module.Module")
LIBRARY_CALL_HOOKS = {
    **{name: "forward" for name in TORCH_MODULES},
    "torch_geometric.transforms.BaseTransform": "forward",
    "torch_geometric.transforms.base_transform.BaseTransform": "forward",
    # mmcv 2.x transforms/base.py: ``BaseTransform.__call__`` runs the subclass's ``transform``
    "mmcv.transforms.BaseTransform": "transform", "mmcv.transforms.base.BaseTransform": "transform",
}
ITERATION_WRAPPERS = frozenset({"iter", "enumerate", "tqdm", "trange", "track", "islice", "cycle", "progress_bar",
                                "RepeatingLoader",  # DeepSpeed's: the loader again and again
                                "list", "tuple", "sorted", "reversed"})
ITERATION_WRAPPERS_ALL = frozenset({"zip", "chain"})
PARSERS = frozenset({"argparse.ArgumentParser"})
LOADED_TABLES = frozenset({"json.load", "json.loads", "pickle.load", "pickle.loads", "yaml.safe_load", "yaml.load",
                           "yaml.full_load", "ujson.load", "orjson.loads", "simplejson.load"})  # parsed annotation files


def parsed_table(obj) -> Optional[str]:
    """The parser (``json.load``) whose result ``obj`` is, a part of (``json.load[]``), or a
    record taken from by iterating (``for img in coco["images"]``): None for anything else."""
    while isinstance(obj, Iterated):
        obj = obj.base
    if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
        name = obj.cls.qualname.rstrip("[:]")
        return name if name in LOADED_TABLES else None
    return None


def matches(qualname: str, names: Iterable[str]) -> bool:
    """``qualname`` is one of ``names``, or has the same top package and last name."""
    top, _, last = qualname.partition(".")[0], None, qualname.rpartition(".")[2]
    for name in names:
        if qualname == name:
            return True
        if name.partition(".")[0] == top and name.rpartition(".")[2] == last and "." in qualname:
            return True
    return False


RANDOM_SPLIT = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
BATCH_SAMPLERS = frozenset({"torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler"})
SUBSETS = frozenset({"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})


class Libraries:
    def __init__(self, loader_classes: Sequence[str] = (), loader_factories: Sequence[str] = ()):
        # configured loaders take DataLoader's arguments; a factory's only positional is the dataset
        extra = tuple(LoaderSpec((name,), "project configuration") for name in loader_classes)
        extra += tuple(LoaderSpec((name,), "project configuration", kind="factory", positional=("dataset",))
                       for name in loader_factories)
        self.loaders = LOADERS + extra
        self._spec_memo: Dict[object, Optional[LoaderSpec]] = {}
        self._named: Dict[Tuple[str, str], object] = {}  # (table, qualname) → entry: the tables never change

    # what an outside name is ---------------------------------------------------------------
    def spec_named(self, qualname: str) -> Optional[LoaderSpec]:
        found = self._spec_memo.get(qualname, False)
        if found is False:
            found = next((s for s in self.loaders if matches(qualname, s.names)), None)
            self._spec_memo[qualname] = found
        return found

    def dataset_spec(self, qualname: str) -> Optional[DatasetSpec]:
        key = ("dataset", qualname)
        found = self._named.get(key, False)
        if found is False:
            found = self._named[key] = next((s for s in DATASETS if matches(qualname, s.names)), None)
        return found

    def trainer_spec(self, qualname: str) -> Optional[TrainerSpec]:
        key = ("trainer", qualname)
        found = self._named.get(key, False)
        if found is False:
            found = self._named[key] = next((s for s in TRAINERS if matches(qualname.replace("()", ""), s.names)), None)
        return found

    def loader_spec(self, resolver: "Resolver", inst: Inst) -> Optional[LoaderSpec]:
        """The spec of a loader instance: its own class, or a loader class among its bases (see
        ``project_spec`` for project classes that are named loaders themselves)."""
        cls = inst.cls
        if isinstance(cls, Ext):
            return self.spec_named(cls.qualname)
        if isinstance(cls, Cls):
            for item in resolver.mro(cls):
                spec = self.spec_named(item.qualname) if isinstance(item, Ext) else self.project_spec(resolver, item)
                # a subclass of a loader is one; so is a subclass of a configuration (a dataclass
                # extending ``TrainingArguments`` keeps its fields); a factory's is not
                if spec is not None and (spec.kind != "factory" or item == cls):
                    return spec
        return None

    def project_spec(self, resolver: "Resolver", cls) -> Optional[LoaderSpec]:
        """The spec of a project class that is itself a named loader: one in ``loader-classes``,
        or a library's own class when the library's source is what is linted."""
        if not isinstance(cls, Cls):
            return None
        dotted = self._dotted(resolver, cls)
        if "." not in dotted:
            return None
        return self.spec_named(dotted)

    @staticmethod
    def _dotted(resolver: "Resolver", cls: Cls) -> str:
        info = resolver.project.modules.get(cls.module)
        return f"{info.name}.{cls.qualname}" if info is not None else cls.qualname

    def wrapper_named(self, qualname: str) -> Optional[Wrapper]:
        """The wrapper named exactly, else one matched by package and last name: accelerate's
        ``data_loader.prepare_data_loader`` function is not ``Accelerator.prepare_data_loader``."""
        key = ("wrapper", qualname)
        found = self._named.get(key, False)
        if found is False:
            exact = next((w for w in WRAPPERS if qualname in w.names), None)
            found = self._named[key] = exact or next((w for w in WRAPPERS if matches(qualname, w.names)), None)
        return found

    # hooks for the resolver ---------------------------------------------------------------
    def instance_attribute(self, resolver: "Resolver", inst: Inst, name: str) -> Optional[Results]:
        spec = self.loader_spec(resolver, inst)
        if spec is not None:
            from .loaders import loader_argument, loader_value

            plain = spec.renames.get(name, name)  # ``args.dataloader_num_workers`` of ``TrainingArguments``
            if plain in PLAIN_ATTRIBUTES:  # ``loader.num_workers``: the argument, else its default
                return loader_value(resolver, inst, plain)
            if name == "sampler" and spec.library == "torch" \
                    and _given(loader_argument(resolver, inst, "batch_sampler")):
                return (Found(Inst(Ext(SEQUENTIAL_SAMPLER))),)
            if name == "sampler" and installs_sampler(resolver, inst, spec):
                # the library's own sampler (timm's ``distributed=True``)
                return (Found(Inst(Ext(DISTRIBUTED_SAMPLER), inst.site, inst.ctx)),)
            return loader_argument(resolver, inst, name) or UNKNOWN_RESULT
        if name == "dataset" and inst.cls.qualname in SUBSETS and inst.site is not None:
            # ``part.dataset`` of ``Subset(full, idx)`` / a ``random_split(full, ...)`` part: ``full``
            return resolver.keyword_at(inst.site, inst.ctx, "dataset", 0) or UNKNOWN_RESULT
        if name == "config" and inst.cls.qualname in EXPERIMENT_RUNS and inst.site is not None:
            # ``wandb.init(config=defaults).config``: the defaults, which a sweep replaces on some runs
            given = resolver.keyword_at(inst.site, inst.ctx, "config")
            if given is None:
                return UNKNOWN_RESULT
            site = resolver.project.call(inst.site)
            return extend(given, Step(inst.site.module, site.span, "replaced on some runs (a W&B sweep sets its parameters)"))
        if name == "sampler" and inst.cls.qualname in BATCH_SAMPLERS and inst.site is not None:
            # ``loader.batch_sampler.sampler`` of ``BatchSampler(sampler, ...)``: the sampler it wraps
            return resolver.keyword_at(inst.site, inst.ctx, "sampler", 0) or UNKNOWN_RESULT
        if name == "datamodule" and inst.cls.qualname in LIGHTNING_TRAINERS and inst.site is not None:
            return _given_to_runs(resolver, inst)
        if name == "datamodule" and inst.cls.qualname == CLI_TRAINER and inst.site is not None:
            # the data module class a ``LightningCLI`` builds from the command line (its defaults)
            classes = resolver.keyword_at(inst.site, inst.ctx, "datamodule_class", 1) or UNKNOWN_RESULT
            return join((Found(Inst(f.obj), f.trail),) if isinstance(f.obj, Cls) else UNKNOWN_RESULT for f in classes)
        if name == "device" and inst.cls.qualname in GPU_PLACERS:
            what = f"`{inst.cls.qualname.rpartition('.')[2]}().device`"
            return gpu_device(Step(inst.site.module, resolver.project.call(inst.site).span, what)
                              if inst.site is not None else None)
        # a method or attribute of an outside object: ``cap.read`` on a ``cv2.VideoCapture``
        return (Found(Ext(f"{inst.cls.qualname}().{name}")),)

    def method_call(self, resolver: "Resolver", inst: Inst, name: str, ref: SiteRef, ctx: Ctx) -> Optional[Results]:
        qualname = inst.cls.qualname
        if qualname in PARSERS or qualname.endswith(".ArgumentParser"):
            if name in ("parse_args", "parse_known_args", "parse_intermixed_args"):
                return ((Found(Namespace(inst)),) if name != "parse_known_args"
                        else (Found(Inst(Ext("argparse.parse_known_args"), ref, ctx)),))
            if name in ("add_argument_group", "add_mutually_exclusive_group"):
                return (Found(inst),)
        if qualname.rpartition(".")[2] == "HfArgumentParser" and name in HF_PARSES:
            return (Found(Inst(Ext(HF_PARSED), ref, ctx)),)
        method = f"{qualname}.{name}"
        wrapper = self.wrapper_named(method)
        if wrapper is not None:
            return (Found(Inst(Ext(method), ref, ctx)),)
        if matches(method, PASS_THROUGH):
            return resolver.keyword_at(ref, ctx, "dataloader", 0) or UNKNOWN_RESULT
        spec = self.loader_spec(resolver, inst)
        if spec is not None and name == "__iter__":
            return (Found(Batch(inst)),)
        if spec is not None and name in spec.fluid:
            return (Found(inst),)  # ``WebLoader(...).with_epoch(n)``: the same loader, one stage on
        return None

    def wrapped_iterables(self, resolver: "Resolver", inst: Inst) -> Optional[Results]:
        """What an iteration wrapper (``enumerate(x)``, ``tqdm(x)``, ``zip(a, b)``) goes through."""
        last = inst.cls.qualname.rpartition(".")[2]
        if inst.site is None or (last not in ITERATION_WRAPPERS and last not in ITERATION_WRAPPERS_ALL):
            return None
        site = resolver.project.call(inst.site)
        args = site.args if last in ITERATION_WRAPPERS_ALL else site.args[:1]
        if not args and last in ITERATION_WRAPPERS:
            args = tuple(v for k, v in site.keywords if k == "iterable")
        ctx = inst.ctx or Ctx(inst.site.module, site.scope)
        return join(_starred_iterables(resolver, arg.value, ctx) if type(arg) is Starred else resolver.eval(arg, ctx)
                    for arg in args)

    def iterate(self, resolver: "Resolver", inst: Inst) -> Optional[Results]:
        if inst.site is None:
            return None
        wrapped = self.wrapped_iterables(resolver, inst)
        if wrapped is not None:
            return join(resolver.iterate(f) for f in wrapped)
        qualname = inst.cls.qualname
        wrapper = self.wrapper_named(qualname)
        if wrapper is not None:
            return join(resolver.iterate(f) for f in self.prepared(resolver, inst, 0))
        return None

    def part(self, resolver: "Resolver", inst: Inst, index: int) -> Optional[Results]:
        qualname = inst.cls.qualname
        if qualname == "argparse.parse_known_args":
            if index != 0:
                return UNKNOWN_RESULT
            parser_site = resolver.project.call(inst.site)
            base = parser_site.func.base
            ctx = inst.ctx or Ctx(inst.site.module, parser_site.scope)
            return tuple(Found(Namespace(f.obj)) for f in resolver.eval(base, ctx) if isinstance(f.obj, Inst))
        if qualname == HF_PARSED:
            return self._parsed_dataclass(resolver, inst, index)
        if self.wrapper_named(qualname) is not None:
            return self.prepared(resolver, inst, index)
        if qualname == "deepspeed.initialize" and index == 0:  # (engine, optimizer, loader, scheduler)
            return (Found(Inst(Ext("deepspeed.DeepSpeedEngine"), inst.site, inst.ctx)),)
        if qualname == "deepspeed.initialize" and index == 2:  # the loader of ``training_data``, if given
            given = resolver.keyword_at(inst.site, inst.ctx, "training_data", 4)
            if given is None or all(f.obj == Lit(None) for f in given):
                return (Found(Lit(None)),)
            return (Found(Inst(Ext(DEEPSPEED_LOADER), inst.site, inst.ctx)),)
        if qualname in RANDOM_SPLIT:  # each part is a Subset of the dataset (the call's first argument)
            return (Found(Inst(Ext("torch.utils.data.Subset"), inst.site, inst.ctx)),)
        return None

    def _parsed_dataclass(self, resolver: "Resolver", parsed: Inst, index: int) -> Results:
        """Part ``index`` of ``HfArgumentParser((A, B)).parse_args_into_dataclasses()``: an
        instance of the dataclass at that place, its fields at their defaults (what the
        script runs with unless a flag sets them)."""
        site = resolver.project.call(parsed.site)
        ctx = parsed.ctx or Ctx(parsed.site.module, site.scope)
        parts = []
        for parser in resolver.eval(site.func.base, ctx):
            obj = parser.obj
            given = resolver.keyword_at(obj.site, obj.ctx, "dataclass_types", 0) if isinstance(obj, Inst) else None
            for found in given or UNKNOWN_RESULT:
                kinds = resolver.element_at(found, index) if isinstance(found.obj, Container) else (
                    (found,) if index == 0 else UNKNOWN_RESULT)
                parts.append(tuple(Found(Inst(k.obj), k.trail) if isinstance(k.obj, (Cls, Ext)) else Found(Top("parsed"))
                                   for k in kinds))  # an outside dataclass (``TrainingArguments``): its defaults
        return join(parts) if parts else UNKNOWN_RESULT

    def prepared(self, resolver: "Resolver", inst: Inst, index: int) -> Results:
        """Argument ``index`` of ``accelerator.prepare(...)``, as the framework hands it back."""
        site = resolver.project.call(inst.site)
        ctx = inst.ctx or Ctx(inst.site.module, site.scope)
        if index >= len(site.args):
            return UNKNOWN_RESULT
        wrapper = self.wrapper_named(inst.cls.qualname)
        moves = wrapper.moves_batches if self._moves(resolver, inst, wrapper) else ""
        what = "moves, shards and sets the epoch" if moves else "shards and sets the epoch"
        step = Step(inst.site.module, site.span, f"handed to `{inst.cls.qualname.rpartition('.')[2]}` "
                                                 f"({wrapper.library} {what})")
        return tuple(Found(_managed(f.obj, wrapper, moves), (step,) + f.trail)
                     for f in resolver.eval(site.args[index], ctx))

    @staticmethod
    def _moves(resolver: "Resolver", inst: Inst, wrapper: Wrapper) -> bool:
        """Whether the wrapper moves batches here: ``put_on_device=True`` given, or its owner not
        built with ``device_placement=False``."""
        from .externals import truthiness

        if wrapper.moves_when:
            given = resolver.keyword_at(inst.site, inst.ctx, wrapper.moves_when)
            return given is not None and truthiness(given) == "true"
        if wrapper.moves_unless[0]:
            given = resolver.keyword_at(inst.site, inst.ctx, *wrapper.moves_unless)
            return given is None or truthiness(given) != "false"
        if wrapper.moves_unless_owner:
            func = resolver.project.call(inst.site).func
            ctx = inst.ctx or Ctx(inst.site.module, resolver.project.call(inst.site).scope)
            for found in resolver.eval(func.base, ctx) if hasattr(func, "base") else ():
                owner = found.obj
                if isinstance(owner, Inst) and owner.site is not None:
                    given = resolver.keyword_at(owner.site, owner.ctx, wrapper.moves_unless_owner, 0)
                    if given is not None and truthiness(given) == "false":
                        return False
        return True

    # trainers -----------------------------------------------------------------------------
    def trainer_start(self, resolver: "Resolver", trainer: Inst) -> Optional[str]:
        """How a trainer's entry point starts processes: "spawn" (a process per device, started
        with spawn), "workers" (loader workers), "" (none: its loader configuration has zero
        workers) or None when nothing in its construction says more than the entry point."""
        spec = self.trainer_spec(trainer.cls.qualname) if isinstance(trainer.cls, Ext) else None
        if spec is None or trainer.site is None:
            return None
        if spec.spawn_argument:
            given = resolver.keyword_at(trainer.site, trainer.ctx, spec.spawn_argument) or ()
            if any(isinstance(f.obj, Lit) and isinstance(f.obj.value, str) and f.obj.value.startswith(spec.spawn_values)
                   for f in given):
                return "spawn"
        if spec.config:
            from .loaders import workers

            given = resolver.keyword_at(trainer.site, trainer.ctx, spec.config, spec.config_position)
            if given is None:
                return ""  # the default configuration: zero workers
            configs = [f.obj for f in given if isinstance(f.obj, Inst) and self.loader_spec(resolver, f.obj)]
            if len(configs) == len(given) and all(workers(resolver, c).zero for c in configs):
                return ""
            return "workers"
        return None


def _given_to_runs(resolver: "Resolver", trainer: Inst) -> Results:
    """``trainer.datamodule``: the data modules the code gives this Lightning Trainer's
    ``fit``/``validate``/... (``datamodule=``, or ``fit``'s fourth argument)."""
    parts = []
    for name in LIGHTNING_RUNS:
        for ref in resolver.project.calls_named(name):
            site = resolver.project.call(ref)
            ctx = resolver.context(ref.module, site.scope)
            if type(site.func) is not Attr or not any(f.obj == trainer for f in resolver.eval(site.func.base, ctx)):
                continue
            given = resolver.keyword_at(ref, ctx, "datamodule", 3 if name == "fit" else 4)
            if given is not None:
                parts.append(given)
    return join(parts) if parts else UNKNOWN_RESULT


def gpu_device(where: Optional[Step]) -> Results:
    """The device a framework places work on (``where``: the step naming it): a CUDA device
    whenever the run has a GPU."""
    if where is None:
        return (Found(Lit("cuda")),)
    return (Found(Lit("cuda"), (where._replace(note=f"{where.note}: a GPU whenever the run has one"),)),)


def _given(results: Optional[Results]) -> bool:
    """An argument given as an object on every path (not None, not unknown)."""
    return bool(results) and all(isinstance(f.obj, Inst) for f in results)


def _managed(obj, wrapper: Wrapper, moves: str):
    """A loader handed back by a framework keeps its identity but says who manages it."""
    if isinstance(obj, Inst):
        return Managed(obj, wrapper.library, moves, wrapper.shards, wrapper.sets_epoch)
    return obj


__all__ = ["Libraries", "LoaderSpec", "DatasetSpec", "Wrapper", "Hooks", "TrainerSpec", "Reseeding", "matches",
           "Lit", "Iterated"]


def installs_sampler(resolver: "Resolver", inst: Inst, spec: LoaderSpec) -> bool:
    """Whether the library puts a shuffling ``DistributedSampler`` in the loader ``inst`` builds:
    every argument of ``spec.distributed_sampler`` given, and true on some run (a command-line
    flag's false default still turns on in the runs that set it)."""
    from .externals import overridable, truthiness
    from .loaders import loader_argument

    if not spec.distributed_sampler or inst.site is None:
        return False
    for name in spec.distributed_sampler:
        given = loader_argument(resolver, inst, name)
        if given is None or (truthiness(given) == "false" and not overridable(given)):
            return False
    return True


def _starred_iterables(resolver: "Resolver", value, ctx: Ctx) -> Results:
    """The iterables ``zip(*value)`` goes through: the items of ``value`` (``zip(*loaders)``), the
    values of a dict (``zip(*task_loaders.values())``)."""
    if type(value) is Call:
        site = resolver.project.call(SiteRef(ctx.module, value.index))
        if type(site.func) is Attr and site.func.name == "values" and not site.args:
            parts = []
            for found in resolver.eval(site.func.base, ctx):
                obj = found.obj
                parts.append(resolver.container_values(obj) if type(obj) is Container and obj.kind == "dict"
                             else UNKNOWN_RESULT)
            return join(parts)
    return join(resolver.iterate(found) for found in resolver.eval(value, ctx))
