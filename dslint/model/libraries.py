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
)

if TYPE_CHECKING:
    from .resolver import Resolver

# Loader attributes that hold the constructor's argument as given, its default otherwise
# (``sampler`` and ``collate_fn`` do not: DataLoader replaces a None with its own object).
PLAIN_ATTRIBUTES = frozenset({"num_workers", "pin_memory", "persistent_workers", "batch_size", "drop_last", "timeout"})
DATALOADER_POSITIONAL = (
    "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn", "pin_memory",
    "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator",
)


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
    shards: bool = False  # splits the data across distributed ranks itself
    sets_epoch: bool = False  # calls set_epoch on the sampler every epoch itself
    thread_workers: str = ""  # "" processes | "always" | argument that turns thread workers on
    ignores_collate: bool = False  # a user collate_fn is replaced by the library's
    seeds_workers: bool = False  # its default worker_init_fn reseeds every worker
    persistent_auto: bool = False  # persistent_workers only when workers > 0
    iterated_by_framework: bool = False  # user code never iterates it (HF Trainer)


@dataclass(frozen=True)
class DatasetSpec:
    names: Tuple[str, ...]
    library: str
    shards_by_worker: bool = False  # splits its stream across workers itself
    shard_argument: str = ""  # ...unless this argument is given as None/False


@dataclass(frozen=True)
class Wrapper:
    """A method that takes loaders and hands back ones the framework manages (``accelerator.prepare``)."""

    names: Tuple[str, ...]  # ``package.Class.method``
    library: str
    moves_batches: str = "device"
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


TORCH = (
    LoaderSpec(("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"), "torch"),
)
LOADERS: Tuple[LoaderSpec, ...] = TORCH + (
    LoaderSpec(("torchdata.stateful_dataloader.StatefulDataLoader",), "torchdata"),
    LoaderSpec(("webdataset.WebLoader",), "webdataset"),
    LoaderSpec(("monai.data.DataLoader",), "monai", seeds_workers=True),
    LoaderSpec(("monai.data.ThreadDataLoader",), "monai", seeds_workers=True, thread_workers="use_thread_workers"),
    LoaderSpec(("torch_geometric.loader.DataLoader",), "torch_geometric", ignores_collate=True),
    LoaderSpec(("torch_geometric.loader.NeighborLoader", "torch_geometric.loader.LinkNeighborLoader"),
               "torch_geometric", positional=("data", "num_neighbors")),
    LoaderSpec(("timm.data.create_loader",), "timm", kind="factory",
               positional=("dataset", "input_size", "batch_size"),
               defaults={"num_workers": 1, "pin_memory": False}, moves_batches="non_blocking",
               moves_unless="use_prefetcher", persistent_auto=True),
    LoaderSpec(("transformers.TrainingArguments", "transformers.training_args.TrainingArguments",
                "transformers.Seq2SeqTrainingArguments"), "transformers", kind="config", positional=(),
               defaults={"pin_memory": True},
               renames={"dataloader_num_workers": "num_workers", "dataloader_pin_memory": "pin_memory",
                        "dataloader_persistent_workers": "persistent_workers",
                        "dataloader_prefetch_factor": "prefetch_factor", "dataloader_drop_last": "drop_last"},
               moves_batches="device", shards=True, sets_epoch=True, seeds_workers=True,
               iterated_by_framework=True),
)
DATASETS: Tuple[DatasetSpec, ...] = (
    DatasetSpec(("webdataset.WebDataset", "webdataset.DataPipeline"), "webdataset", shards_by_worker=True,
                shard_argument="workersplitter"),
)
WRAPPERS: Tuple[Wrapper, ...] = (
    Wrapper(("accelerate.Accelerator.prepare", "accelerate.Accelerator.prepare_data_loader"), "accelerate"),
)
HOOKS: Tuple[Hooks, ...] = (
    Hooks(("lightning.LightningModule", "lightning.LightningDataModule", "lightning.pytorch.LightningModule",
           "lightning.pytorch.LightningDataModule", "pytorch_lightning.LightningModule",
           "pytorch_lightning.LightningDataModule"),
          ("train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"), "lightning"),
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
PROCESS_STARTERS = frozenset({
    "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes", "torch.multiprocessing.spawn.spawn",
    "multiprocessing.Pool", "multiprocessing.pool.Pool", "torch.multiprocessing.Pool",
    "concurrent.futures.ProcessPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor",
})
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
ITERATION_WRAPPERS = frozenset({"iter", "enumerate", "tqdm", "trange", "track", "islice", "cycle", "progress_bar",
                                "list", "tuple", "sorted", "reversed"})
ITERATION_WRAPPERS_ALL = frozenset({"zip", "chain"})
PARSERS = frozenset({"argparse.ArgumentParser"})


def matches(qualname: str, names: Iterable[str]) -> bool:
    """``qualname`` is one of ``names``, or has the same top package and last name."""
    top, _, last = qualname.partition(".")[0], None, qualname.rpartition(".")[2]
    for name in names:
        if qualname == name:
            return True
        if name.partition(".")[0] == top and name.rpartition(".")[2] == last and "." in qualname:
            return True
    return False


class Libraries:
    def __init__(self, loader_classes: Sequence[str] = (), loader_factories: Sequence[str] = ()):
        extra = tuple(LoaderSpec((name,), "project configuration") for name in loader_classes)
        extra += tuple(LoaderSpec((name,), "project configuration", kind="factory") for name in loader_factories)
        self.loaders = LOADERS + extra
        self._spec_memo: Dict[object, Optional[LoaderSpec]] = {}

    # what an outside name is ---------------------------------------------------------------
    def spec_named(self, qualname: str) -> Optional[LoaderSpec]:
        found = self._spec_memo.get(qualname, False)
        if found is False:
            found = next((s for s in self.loaders if matches(qualname, s.names)), None)
            self._spec_memo[qualname] = found
        return found

    def dataset_spec(self, qualname: str) -> Optional[DatasetSpec]:
        return next((s for s in DATASETS if matches(qualname, s.names)), None)

    def loader_spec(self, resolver: "Resolver", inst: Inst) -> Optional[LoaderSpec]:
        """The spec of a loader instance: its own class, or a loader class among its bases."""
        cls = inst.cls
        if isinstance(cls, Ext):
            return self.spec_named(cls.qualname)
        if isinstance(cls, Cls):
            for item in resolver.mro(cls):
                if isinstance(item, Ext):
                    spec = self.spec_named(item.qualname)
                    if spec is not None and spec.kind == "class":
                        return spec
        return None

    def wrapper_named(self, qualname: str) -> Optional[Wrapper]:
        return next((w for w in WRAPPERS if matches(qualname, w.names)), None)

    # hooks for the resolver ---------------------------------------------------------------
    def instance_attribute(self, resolver: "Resolver", inst: Inst, name: str) -> Optional[Results]:
        spec = self.loader_spec(resolver, inst)
        if spec is not None:
            from .loaders import loader_argument, loader_value

            if name in PLAIN_ATTRIBUTES:  # ``loader.num_workers``: the argument, else its default
                return loader_value(resolver, inst, name)
            return loader_argument(resolver, inst, name) or UNKNOWN_RESULT
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
        wrapper = self.wrapper_named(f"{qualname}.{name}")
        if wrapper is not None:
            return (Found(Inst(Ext(f"{qualname}.{name}"), ref, ctx)),)
        if name == "__iter__" and self.loader_spec(resolver, inst) is not None:
            return (Found(Batch(inst)),)
        return None

    def iterate(self, resolver: "Resolver", inst: Inst) -> Optional[Results]:
        from .resolver import join

        qualname = inst.cls.qualname
        last = qualname.rpartition(".")[2]
        if inst.site is None:
            return None
        site = resolver.project.call(inst.site)
        if last in ITERATION_WRAPPERS or last in ITERATION_WRAPPERS_ALL:
            args = site.args if last in ITERATION_WRAPPERS_ALL else site.args[:1]
            if not args and last in ITERATION_WRAPPERS:
                args = tuple(v for k, v in site.keywords if k == "iterable")
            ctx = inst.ctx or Ctx(inst.site.module, site.scope)
            return join(resolver.iterate(f) for arg in args for f in resolver.eval(arg, ctx))
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
        if self.wrapper_named(qualname) is not None:
            return self.prepared(resolver, inst, index)
        return None

    def prepared(self, resolver: "Resolver", inst: Inst, index: int) -> Results:
        """Argument ``index`` of ``accelerator.prepare(...)``, as the framework hands it back."""
        site = resolver.project.call(inst.site)
        ctx = inst.ctx or Ctx(inst.site.module, site.scope)
        if index >= len(site.args):
            return UNKNOWN_RESULT
        wrapper = self.wrapper_named(inst.cls.qualname)
        step = Step(inst.site.module, site.span, f"handed to `{inst.cls.qualname.rpartition('.')[2]}` "
                                                 f"({wrapper.library} moves, shards and sets the epoch)")
        return tuple(Found(_managed(f.obj, wrapper), (step,) + f.trail)
                     for f in resolver.eval(site.args[index], ctx))


def _managed(obj, wrapper: Wrapper):
    """A loader handed back by a framework keeps its identity but says who manages it."""
    if isinstance(obj, Inst):
        return Managed(obj, wrapper.library, wrapper.moves_batches, wrapper.shards, wrapper.sets_epoch)
    return obj


__all__ = ["Libraries", "LoaderSpec", "DatasetSpec", "Wrapper", "Hooks", "matches", "Lit", "Iterated"]
