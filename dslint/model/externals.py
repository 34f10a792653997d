"""What operators and calls of things outside the project evaluate to.

Folding ``2 * 4`` or ``min(8, os.cpu_count())``, following ``int(x)``, ``getattr(o, "x")``,
``copy.deepcopy(x)``, ``kwargs.get("num_workers", 0)`` and argparse defaults. Anything not
described here evaluates to an instance of the outside callable (``Inst(Ext(name))``), which
the library table (``model.libraries``) may know more about.
"""

from __future__ import annotations

import os

import operator as _op
from typing import TYPE_CHECKING, Optional

from ..analysis.values import Attr, Call, Const, DictDisplay, Op, Seq, Starred, last_name
from . import configfiles
from .argparse_defaults import argument_default
from .mmconfig import FROM_FILE, from_file
from .libraries import HF_DATASETS, PASS_THROUGH, gpu_device
from .objects import (
    literal_choices,
    UNKNOWN_RESULT,
    Batch,
    Bound,
    Cls,
    Container,
    Ctx,
    Ext,
    Found,
    Func,
    Inst,
    Kwargs,
    Lit,
    Mod,
    Namespace,
    PositiveInt,
    Results,
    SiteRef,
    Step,
    Top,
    extend,
    join,
)
from .tensor_api import CONTAINER_NAMES, TENSOR_NAMES

if TYPE_CHECKING:
    from .resolver import Resolver

CPU_COUNT_CALLS = frozenset({
    "os.cpu_count", "multiprocessing.cpu_count", "torch.multiprocessing.cpu_count", "os.process_cpu_count",
    "psutil.cpu_count", "multiprocessing.context.cpu_count",
})
CUDA_AVAILABILITY_CALLS = frozenset({
    "torch.cuda.is_available", "torch.backends.mps.is_available", "torch.xpu.is_available",
})
PARTIALS = frozenset({"functools.partial"})
VALUE_BUILTINS = frozenset({
    "map", "filter", "len", "sum", "min", "max", "any", "all", "str", "int", "float", "bool", "range", "abs",
    "round", "repr", "hash", "isinstance", "hasattr", "zip", "enumerate", "bytes", "format", "ord", "chr", "divmod",
    "pow",
})
EAGER_TABLE_METHODS = frozenset({"map", "filter"})  # of a Hugging Face dataset (``with_transform`` keeps its function)
VALUE_PACKAGES = ("numpy.", "math.", "json.", "os.path.", "re.", "tensorflow.", "jax.numpy.")  # ops compute arrays
# Arguments a library class uses while it is built and does not keep (torchvision's
# ``DatasetFolder`` runs ``is_valid_file`` over the folder in ``__init__``).
CONSUMED_KEYWORDS = frozenset({"is_valid_file"})


def computes_value(qualname: str) -> bool:
    """Whether calling the outside callable ``qualname`` computes a new value from its arguments
    (a tensor, an array, a number, a string) rather than building an object that keeps them:
    pickling the result pickles none of the arguments, and a worker calling it runs none of them."""
    if qualname.startswith("builtins."):
        return qualname[9:] in VALUE_BUILTINS
    if qualname.startswith("torch.") and qualname.count(".") == 1:
        return True  # torch.tensor, torch.ByteTensor, torch.stack...: tensors
    if qualname.startswith(HF_DATASETS) and qualname.rpartition(".")[2] in EAGER_TABLE_METHODS:
        return True  # Hugging Face ``ds.map(f, num_proc=4)`` runs ``f`` now and keeps the new table
    return qualname.startswith(VALUE_PACKAGES)


IDENTITY_CALLS = frozenset({"copy.copy", "copy.deepcopy", "builtins.list", "builtins.tuple", "builtins.sorted",
                            "builtins.reversed", "typing.cast",
                            # a proxy reads and writes the attributes of the object it refers to
                            "weakref.proxy",
                            # a Ray Tune trainable with resources or fixed arguments attached: the same trainable
                            "ray.tune.with_resources", "ray.tune.with_parameters",
                            # a config as plain containers: the same keys and values
                            "omegaconf.OmegaConf.to_container", "omegaconf.OmegaConf.to_object",
                            # the parser it is given, with DeepSpeed's options added
                            "deepspeed.add_config_arguments"})
ARITHMETIC = {
    "+": _op.add, "-": _op.sub, "*": _op.mul, "//": _op.floordiv, "%": _op.mod, "/": _op.truediv,
    "**": _op.pow, "|": _op.or_, "&": _op.and_, "^": _op.xor, "<<": _op.lshift, ">>": _op.rshift,
}
COMPARISONS = {
    "==": _op.eq, "!=": _op.ne, "<": _op.lt, "<=": _op.le, ">": _op.gt, ">=": _op.ge,
    "is": _op.is_, "is-not": _op.is_not,
}
MAX_PRODUCT = 6


def one(obj, trail=()) -> Results:
    return (Found(obj, trail),)


def truth(obj) -> Optional[bool]:
    """Truthiness of one object: True, False, or None when it cannot be told."""
    kind = type(obj)
    if kind is Lit:
        try:
            return bool(obj.value)
        except Exception:  # noqa: BLE001  a literal whose truth raises
            return None
    if kind is PositiveInt:
        return True
    if kind in (Func, Cls, Bound, Mod):
        return True
    if kind is Container:
        display = obj.value
        items = display.values if isinstance(display, DictDisplay) else display.items
        if obj.kind == "comp":
            return None
        return bool(items)
    if kind is Inst and isinstance(obj.cls, Cls):
        return True
    return None


CONFIG_OVERLAY = "the default unless the configuration read here sets it"
COMMAND_LINE_DEFAULT = "the command-line option's default"
OVERRIDABLE_NOTES = ("the argparse default", "argparse default", "default of environment variable",
                     "config file value", "replaced on some runs", COMMAND_LINE_DEFAULT, CONFIG_OVERLAY)


def overridable(results: Results) -> bool:
    """Whether an answer rests on a default a run may override (a command-line flag's, an
    environment variable's): a choice made on it (``DistributedSampler(ds) if local_rank !=
    -1 else None``) goes both ways, though the default alone is what a run without the flag
    gets (``num_workers=args.workers`` is zero by default)."""
    return any(step.note.startswith(OVERRIDABLE_NOTES) for found in results for step in found.trail)


def truthiness(results: Results) -> str:
    """"true", "false" or "unknown" for an answer (every object must agree)."""
    values = {truth(found.obj) for found in results}
    if values == {True}:
        return "true"
    if values == {False}:
        return "false"
    return "unknown"


# operators --------------------------------------------------------------------------------
def operator(resolver: "Resolver", value: Op, ctx: Ctx) -> Results:
    op = value.op
    if op == "if":
        test, body, orelse = value.args
        tested = resolver.eval(test, ctx)
        decided = truthiness(tested) if not overridable(tested) else "unknown"
        if decided == "true":
            return resolver.eval(body, ctx)
        if decided == "false":
            return resolver.eval(orelse, ctx)
        return join((resolver.eval(body, ctx), resolver.eval(orelse, ctx)))
    if op in ("and", "or"):
        return _boolean(resolver, op, value.args, ctx)
    if op == "not":
        decided = truthiness(resolver.eval(value.args[0], ctx))
        return one(Lit(decided == "false")) if decided != "unknown" else UNKNOWN_RESULT
    if op == "neg":
        return _fold(resolver, value.args, ctx, lambda a: -a)
    if op == "+":
        kind = _sequence_kind(resolver, value.args, ctx)
        if kind is not None:  # ``ops = ops + [Lambda(f)]``, ``ops += [...]``: a list holding both
            return (Found(Container(kind, Seq(kind, tuple(Starred(a) for a in value.args)), ctx), ()),)
    if op in ARITHMETIC:
        return _fold(resolver, value.args, ctx, ARITHMETIC[op], op)
    if op in COMPARISONS:
        return _fold(resolver, value.args, ctx, COMPARISONS[op], op)
    if op == "fstr":
        return _fstring(resolver, value.args, ctx)
    if op == "in" and _cuda_in_device_type(value.args):
        return _on_gpu(resolver, value, ctx)
    if op == "notnone":  # assigned where an ``if`` holds it not None: its None values never get here
        return tuple(f for f in resolver.eval(value.args[0], ctx) if not (type(f.obj) is Lit and f.obj.value is None))
    return UNKNOWN_RESULT


def _cuda_in_device_type(operands) -> bool:
    """``"cuda" in device.type`` (ignite's ``pin_memory="cuda" in idist.device().type``)."""
    return len(operands) == 2 and operands[0] == Const("cuda") and type(operands[1]) is Attr \
        and operands[1].name == "type"


def _on_gpu(resolver: "Resolver", value: Op, ctx: Ctx) -> Results:
    """Whether a device's type names CUDA: false for a device written as the CPU
    (``torch.device("cpu").type``), else true exactly when a GPU is used (as
    ``torch.cuda.is_available()`` is). The device is not evaluated: such tests are common in
    model code, and following every device there costs more than it tells."""
    device = value.args[1].base
    if type(device) is Call:
        site = resolver.project.call(SiteRef(ctx.module, device.index))
        if last_name(site.func) == "device" and len(site.args) == 1 and type(site.args[0]) is Const:
            return one(Lit(device_kind(Lit(site.args[0].value)) != "cpu"))
    return one(Lit(True))


def _sequence_kind(resolver: "Resolver", operands, ctx: Ctx) -> Optional[str]:
    """"list" or "tuple" when an operand of ``+`` is a list or tuple display: the sum is
    their concatenation."""
    for operand in operands:
        for found in resolver.eval(operand, ctx):
            if isinstance(found.obj, Container) and found.obj.kind in ("list", "tuple"):
                return found.obj.kind
    return None


# builtins whose result is a bool
BOOL_RESULTS = frozenset({"builtins.isinstance", "builtins.issubclass", "builtins.hasattr", "builtins.callable",
                          "builtins.all", "builtins.any"})


def _boolean(resolver: "Resolver", op: str, operands, ctx: Ctx) -> Results:
    """``a or b``, ``a and b``: the operands that may be the result. An operand before the
    last is the result only when it stops the evaluation, so a bool there is the bool that
    stops it (``isinstance(s, RandomSampler) or shuffle``: True, or ``shuffle``)."""
    parts = []
    stop_on = "true" if op == "or" else "false"
    for index, operand in enumerate(operands):
        result = resolver.eval(operand, ctx)
        decided = truthiness(result)
        last = index == len(operands) - 1
        if decided == stop_on or last:
            parts.append(result)
            break
        if decided == "unknown":
            parts.append(tuple(_as_stopping(found, op == "or") for found in result
                               if not (type(found.obj) is Lit and found.obj.value is (op != "or"))))
    return join(parts)


def _as_stopping(found, stop: bool):
    """A bool that may stop an ``or`` (``and``) is the result only as True (False)."""
    obj = found.obj
    if type(obj) is Inst and type(obj.cls) is Ext and obj.cls.qualname in BOOL_RESULTS:
        return found._replace(obj=Lit(stop))
    return found


def _fold(resolver: "Resolver", operands, ctx: Ctx, fn, op: str = "") -> Results:
    evaluated = [resolver.eval(o, ctx) for o in operands]
    if any(len(e) > MAX_PRODUCT for e in evaluated):
        return UNKNOWN_RESULT
    combos = [()]
    for e in evaluated:
        combos = [c + (f,) for c in combos for f in e]
    parts = []
    for combo in combos:
        trail = tuple(step for f in combo for step in f.trail)[:8]
        parts.append(one(_apply(fn, op, [f.obj for f in combo]), trail))
    return join(parts)


NEW_TENSOR = Inst(Ext("torch.Tensor"))  # what arithmetic or a comparison on loader data makes: a new tensor


def _apply(fn, op: str, objs):
    if op and op not in ("is", "is-not") and any(type(o) is Batch for o in objs):
        return NEW_TENSOR  # ``y >= 0``, ``x * 2``: neither the worker's shared memory nor pinned
    if op == "/" and len(objs) == 2 and all(type(o) is Lit and isinstance(o.value, str) for o in objs):
        return Lit(os.path.join(objs[0].value, objs[1].value))  # ``Path(__file__).parent / "conf"``
    if all(isinstance(o, Lit) for o in objs):
        try:
            return Lit(fn(*[o.value for o in objs]))
        except Exception:  # noqa: BLE001  1 // 0, "a" < 1...
            return Top("fold")
    if len(objs) == 2:
        left, right = objs
        if op == "*" and any(type(o) is Lit and o.value == 0 and _number(o.value) for o in objs) \
                and all(type(o) in (Lit, Top, PositiveInt) for o in objs):
            return Lit(0)  # ``num_gpus * workers_per_gpu`` with no workers per GPU: none, however many GPUs
        if isinstance(right, PositiveInt) and isinstance(left, Lit):
            left, right, op = right, left, FLIPPED.get(op, op)
        if isinstance(left, PositiveInt) and isinstance(right, Lit) and _number(right.value):
            return _positive_op(left, op, right.value)
        if op in ("is", "is-not") and is_none(left) != is_none(right) and all(map(_definite, objs)):
            return Lit(op == "is-not")
    return Top("fold")


FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "+": "+", "*": "*", "==": "==", "!=": "!="}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _positive_op(left: PositiveInt, op: str, number):
    """``p <op> number`` for an unknown p >= 1, when that decides it."""
    if op in ("+", "*") and number > 0 or op == "+" and number == 0:
        return PositiveInt(left.why)
    if number <= 0 and op in (">", ">=", "!="):
        return Lit(True)
    if number <= 0 and op in ("==", "<", "<="):
        return Lit(False)
    return Top("fold")


def is_none(obj) -> bool:
    """The literal None."""
    return isinstance(obj, Lit) and obj.value is None


def _definite(obj) -> bool:
    """An object whose None-ness is known: a literal, or something that is never None (a
    function, a class, a display, an instance of a project class)."""
    return isinstance(obj, (Lit, PositiveInt, Func, Cls, Container, Bound, Mod)) or (
        type(obj) is Inst and type(obj.cls) is Cls)


def _fstring(resolver: "Resolver", parts, ctx: Ctx) -> Results:
    """A formatted string whose leading text is known (``f"cuda:{rank}"`` → "cuda:…")."""
    text = ""
    for part in parts:
        result = resolver.eval(part, ctx)
        if len(result) == 1 and isinstance(result[0].obj, Lit):
            text += str(result[0].obj.value)
            continue
        return one(Lit(text + "\u2026")) if text else UNKNOWN_RESULT
    return one(Lit(text))


# calls of outside callables -------------------------------------------------------------------
def call(resolver: "Resolver", qualname: str, ref: SiteRef, ctx: Ctx) -> Results:
    handler = CALLS.get(qualname)
    if handler is not None:
        return handler(resolver, qualname, ref, ctx)
    if qualname in CPU_COUNT_CALLS:
        return one(PositiveInt("cpu count"), (Step(ref.module, resolver.project.call(ref).span, "a CPU count"),))
    if qualname in CUDA_AVAILABILITY_CALLS:
        return one(Lit(True), (Step(ref.module, resolver.project.call(ref).span, "true whenever a GPU is used"),))
    if qualname in IDENTITY_CALLS or qualname in PASS_THROUGH:
        return _first_arg(resolver, ref, ctx)
    return one(Inst(Ext(qualname), ref, ctx))


def _arg(resolver: "Resolver", ref: SiteRef, ctx: Ctx, position: int, name: Optional[str] = None) -> Optional[Results]:
    return resolver.keyword_at(ref, ctx, name, position)


def _first_arg(resolver: "Resolver", ref: SiteRef, ctx: Ctx) -> Results:
    return _arg(resolver, ref, ctx, 0) or UNKNOWN_RESULT


def _int(resolver, qualname, ref, ctx) -> Results:
    parts = []
    for found in _first_arg(resolver, ref, ctx):
        obj = found.obj
        if isinstance(obj, Lit) and isinstance(obj.value, (int, float, bool)):
            parts.append(one(Lit(int(obj.value)), found.trail))
        elif isinstance(obj, Lit) and isinstance(obj.value, str) and obj.value.strip().lstrip("-").isdigit():
            parts.append(one(Lit(int(obj.value)), found.trail))
        elif isinstance(obj, PositiveInt):
            parts.append((found,))
        else:
            parts.append(UNKNOWN_RESULT)
    return join(parts)


def _bool(resolver, qualname, ref, ctx) -> Results:
    decided = truthiness(_first_arg(resolver, ref, ctx))
    return one(Lit(decided == "true")) if decided != "unknown" else UNKNOWN_RESULT


def _min_max(resolver, qualname, ref, ctx) -> Results:
    site = resolver.project.call(ref)
    if site.keywords or not site.args or any(isinstance(a, Starred) for a in site.args):
        return UNKNOWN_RESULT
    kinds = []
    trail = ()
    for arg in site.args:
        result = resolver.eval(arg, ctx)
        objs = [f.obj for f in result]
        if all(isinstance(o, Lit) and isinstance(o.value, (int, float)) and o.value == 0 for o in objs):
            kinds.append("zero")
        elif all((isinstance(o, Lit) and isinstance(o.value, (int, float)) and o.value > 0) or isinstance(o, PositiveInt)
                 for o in objs):
            kinds.append("positive")
        else:
            kinds.append("unknown")
        trail = trail or (result[0].trail if result else ())
    values = [resolver.eval(a, ctx) for a in site.args]
    if all(len(v) == 1 and isinstance(v[0].obj, Lit) for v in values):
        try:
            fn = min if qualname.endswith("min") else max
            return one(Lit(fn(v[0].obj.value for v in values)))
        except Exception:  # noqa: BLE001
            return UNKNOWN_RESULT
    if qualname.endswith("min"):
        if "zero" in kinds:
            return one(Lit(0), trail)
        if all(k == "positive" for k in kinds):
            return one(PositiveInt("min of positives"), trail)
    else:
        if "positive" in kinds:
            return one(PositiveInt("max with a positive"), trail)
        if all(k == "zero" for k in kinds):
            return one(Lit(0), trail)
    return UNKNOWN_RESULT


def _len(resolver, qualname, ref, ctx) -> Results:
    site = resolver.project.call(ref)
    if site.args:
        inner = site.args[0]
        if isinstance(inner, Call):
            inner_site = resolver.project.call(SiteRef(ref.module, inner.index))
            for found in resolver.eval(inner_site.func, ctx):
                if isinstance(found.obj, Ext) and found.obj.qualname == "os.sched_getaffinity":
                    return one(PositiveInt("usable CPUs"))
    return UNKNOWN_RESULT


def _dataclass_field(resolver, qualname, ref, ctx) -> Results:
    """``field(default=v)`` is ``v``; ``field(default_factory=f)`` is what ``f()`` builds (the
    call of ``f`` is this one, which passes nothing ``f`` reads)."""
    default = _arg(resolver, ref, ctx, -1, "default")
    if default is not None:
        return default
    factory = _arg(resolver, ref, ctx, -1, "default_factory")
    if factory is None:
        return UNKNOWN_RESULT
    return join(resolver.invoke(found, ref, ctx) for found in factory)


def _dataclass_replace(resolver, qualname, ref, ctx) -> Results:
    """``dataclasses.replace(cfg, epochs=3)``: a new instance of ``cfg``'s class, built at this
    call (its fields: the keywords given here, else ``cfg``'s; see ``Resolver.field``)."""
    parts = []
    for found in _first_arg(resolver, ref, ctx):
        obj = found.obj
        parts.append(one(Inst(obj.cls, ref, ctx), found.trail) if isinstance(obj, Inst) and isinstance(obj.cls, Cls)
                     else UNKNOWN_RESULT)
    return join(parts)


# Command-line and config parsers that build an instance of the dataclass they are given
# (where it is, its keyword): the instance holds the fields' defaults unless a flag or a
# config file sets them, like an argparse default.
CONFIG_CLASS_PARSERS = {
    "tyro.cli": (0, "f"),
    "simple_parsing.parse": (0, "config_class"),
    "pyrallis.parse": (-1, "config_class"),
    "pyrallis.argparsing.parse": (-1, "config_class"),
    "draccus.parse": (-1, "config_class"),
    "omegaconf.OmegaConf.structured": (0, "obj"),
}


def _parsed_config(resolver, qualname, ref, ctx) -> Results:
    """``tyro.cli(TrainConfig)``: an instance of ``TrainConfig`` at its defaults; anything else
    it is given (a function ``tyro.cli`` calls) gives an unknown result."""
    position, name = CONFIG_CLASS_PARSERS[qualname]
    given = _arg(resolver, ref, ctx, position, name) or UNKNOWN_RESULT
    step = Step(ref.module, resolver.project.call(ref).span,
                f"built by `{qualname.rpartition('.')[2]}` from the command line (defaults unless set there)")
    parts = [one(Inst(found.obj), (step,) + found.trail) if isinstance(found.obj, Cls) else UNKNOWN_RESULT
             for found in given]
    return join(parts) if parts else UNKNOWN_RESULT


def _yaml_file(resolver, qualname, ref, ctx) -> Results:
    """``OmegaConf.load("config.yaml")``, ``yaml.safe_load(open("config.yaml"))``: the file's
    mapping (``model.configfiles``)."""
    given = _first_arg(resolver, ref, ctx)
    if qualname in configfiles.YAML_LOADERS:  # a stream: ``open(path)``
        paths = []
        for found in given:
            obj = found.obj
            if type(obj) is not Inst or type(obj.cls) is not Ext or obj.cls.qualname != "builtins.open" or obj.site is None:
                return UNKNOWN_RESULT
            paths.extend(_arg(resolver, obj.site, obj.ctx, 0, "file") or UNKNOWN_RESULT)
        given = tuple(paths)
    return configfiles.loaded(resolver, ref.module, given)


def config_get(resolver, receiver, ref, ctx) -> Results:
    """``cfg.get("workers", 4)`` of a YAML mapping: the value when the file has the key, else the default."""
    keys = _first_arg(resolver, ref, ctx)
    if len(keys) != 1 or type(keys[0].obj) is not Lit or not isinstance(keys[0].obj.value, str):
        return UNKNOWN_RESULT
    got = configfiles.member(resolver, receiver, keys[0].obj.value)
    if got != configfiles.UNKNOWN_RESULT:
        return got
    if configfiles.entry(resolver, receiver.obj) is not None:  # the mapping is read and lacks the key
        return _arg(resolver, ref, ctx, 1, "default") or one(Lit(None))
    return UNKNOWN_RESULT


def _path(resolver, qualname, ref, ctx) -> Results:
    """``Path("conf")``, ``os.path.dirname(p)``, ``os.path.join(a, b)`` of known strings: a
    path held as its string (how a script names the config file beside it)."""
    site = resolver.project.call(ref)
    parts = [resolver.eval(arg, ctx) for arg in site.args]
    if not parts or any(len(p) != 1 or type(p[0].obj) is not Lit or not isinstance(p[0].obj.value, str) for p in parts):
        return one(Inst(Ext(qualname), ref, ctx))
    texts = [p[0].obj.value for p in parts]
    if qualname in ("os.path.dirname",):
        return one(Lit(os.path.dirname(texts[0])))
    if qualname in ("os.path.abspath", "os.path.realpath", "os.path.normpath"):
        return one(Lit(texts[0]))  # kept relative: the file is looked up from the module's path
    return one(Lit(os.path.join(*texts)))


def _next(resolver, qualname, ref, ctx) -> Results:
    parts = [join(resolver.iterate(f) for f in _first_arg(resolver, ref, ctx))]
    default = _arg(resolver, ref, ctx, 1)
    if default is not None:
        parts.append(default)
    return join(parts)


def _getattr(resolver, qualname, ref, ctx) -> Results:
    """``getattr(o, name)``: the attribute of each name the argument may be (a config's
    choice per element of a loop over a literal table), when every one is a known string."""
    names = literal_choices(_arg(resolver, ref, ctx, 1) or UNKNOWN_RESULT, str)
    if names is None:
        return UNKNOWN_RESULT
    receivers = _first_arg(resolver, ref, ctx)
    parts = [join(resolver.attribute(f, name, ctx) for f in receivers) for name in names]
    default = _arg(resolver, ref, ctx, 2)
    if default is not None:
        parts.append(default)
    return join(parts)


def _instantiate(resolver, qualname, ref, ctx) -> Results:
    """hydra's ``instantiate(cfg.data, ...)`` (``Resolver.instantiate_call``)."""
    return resolver.instantiate_call(ref, ctx)


def _config_from_file(resolver, qualname, ref, ctx) -> Results:
    """``Config.fromfile(args.config)``: the config module(s) it reads (``mmconfig.from_file``)."""
    return from_file(resolver, ref.module, _arg(resolver, ref, ctx, 0, "filename") or UNKNOWN_RESULT)


def _dict(resolver, qualname, ref, ctx) -> Results:
    """``dict(a=1, **base)`` (or an ``OrderedDict``): a dict display of its keywords. One display per call site, as
    a written ``{...}`` is: what is stored in it later (``kw["sampler"] = s``,
    ``kw.update(num_workers=n)``) is indexed by the display."""
    display = resolver.dict_call_displays.get(ref)
    if display is None:
        site = resolver.project.call(ref)
        keys, values = [], []
        for arg in site.args:
            keys.append(None)
            values.append(arg)
        for name, value in site.keywords:
            keys.append(Const(name) if name is not None else None)
            values.append(value)
        display = resolver.dict_call_displays[ref] = DictDisplay(tuple(keys), tuple(values))
    return one(Container("dict", display, ctx, ref))


def _framework_device(resolver, qualname, ref, ctx) -> Results:
    """Ray Train's ``get_device()``: the worker's GPU whenever the run has one."""
    return gpu_device(Step(ref.module, resolver.project.call(ref).span, f"`{qualname.rpartition('.')[2]}()`"))


def _device(resolver, qualname, ref, ctx) -> Results:
    return _arg(resolver, ref, ctx, 0, "type") or UNKNOWN_RESULT


def _str(resolver, qualname, ref, ctx) -> Results:
    """``str(x)`` of a known string (a device, which the model keeps as its string) is that
    string; of anything else, some string."""
    given = _arg(resolver, ref, ctx, 0) or ()
    if given and all(isinstance(f.obj, Lit) and type(f.obj.value) is str for f in given):
        return given
    if given and all(isinstance(f.obj, Lit) and type(f.obj.value) in (bool, int, float) for f in given):
        return tuple(Found(Lit(str(f.obj.value)), f.trail) for f in given)  # ``str(True)`` is "True"
    return one(Inst(Ext(qualname), ref, ctx))


def _environment(resolver, qualname, ref, ctx) -> Results:
    """``os.environ.get("NUM_WORKERS", 0)``: like an ``argparse`` default, the default is what
    the program runs with unless someone sets the variable; without a default, unknown."""
    names = _arg(resolver, ref, ctx, 0, "key") or ()
    name = names[0].obj.value if len(names) == 1 and isinstance(names[0].obj, Lit) else "the variable"
    return _run_default(resolver, qualname, ref, ctx, _arg(resolver, ref, ctx, 1, "default"),
                        f"default of environment variable `{name}`")


def _run_default(resolver, qualname, ref, ctx, default: Optional[Results], note: str) -> Results:
    """A default a run may override (``note`` says whose): the literal ``default``, with the
    call as the step that explains it; the call's own result when the default is not literal."""
    if not default or not all(isinstance(f.obj, Lit) for f in default):
        return one(Inst(Ext(qualname), ref, ctx))
    step = Step(ref.module, resolver.project.call(ref).span, note)
    return tuple(Found(f.obj, (step,) + f.trail) for f in default)


def _typer_option(resolver, qualname, ref, ctx) -> Results:
    """``num_workers: int = typer.Option(8, help=...)``: the parameter is the option's default
    unless the command line gives one, like an ``argparse`` default."""
    return _run_default(resolver, qualname, ref, ctx, _arg(resolver, ref, ctx, 0, "default"), COMMAND_LINE_DEFAULT)


STRING_TESTS = {"startswith": str.startswith, "endswith": str.endswith}
UNFINISHED = "\u2026"  # the mark ``_fstring`` puts where the rest of a string is not known


CASE_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title", "capitalize"})
PATH_SAME = frozenset({"resolve", "absolute", "expanduser"})  # a path held as its string: the same file


def string_method(resolver: "Resolver", receiver: Found, name: str, ref: SiteRef, ctx: Ctx) -> Results:
    """``text.startswith("cuda")`` and ``text.endswith(...)`` of a known string (a device
    string: ``str(device).startswith("cuda")``), its case and whitespace methods (``.lower()``);
    other methods give some value."""
    text = receiver.obj.value
    if name in CASE_METHODS and UNFINISHED not in text and not resolver.project.call(ref).args:
        return one(Lit(getattr(text, name)()), receiver.trail)  # ``str(os.getenv("PIN", True)).lower()``
    if name in PATH_SAME:
        return (receiver,)
    test = STRING_TESTS.get(name)
    given = _arg(resolver, ref, ctx, 0) if test is not None else None
    if not given or len(given) != 1 or not isinstance(given[0].obj, Lit) or type(given[0].obj.value) is not str:
        return UNKNOWN_RESULT
    if UNFINISHED in text:
        known = text.split(UNFINISHED)[0]
        if name != "startswith" or len(given[0].obj.value) > len(known):
            return UNKNOWN_RESULT
        text = known
    return one(Lit(test(text, given[0].obj.value)), receiver.trail)


COMMAND_LINE_CONFIGS = frozenset({"omegaconf.OmegaConf.from_cli", "omegaconf.OmegaConf.from_dotlist",
                                  "omegaconf.OmegaConf.from_argv"})


def _merged_config(resolver, qualname, ref, ctx) -> Results:
    """``OmegaConf.merge(base, OmegaConf.from_cli())``: the base config, which the command line
    may change on some runs (its values decide no choice, as ``argparse`` defaults); a merge
    of anything else is unknown."""
    site = resolver.project.call(ref)
    if site.keywords or len(site.args) < 2 or any(type(arg) is Starred for arg in site.args):
        return UNKNOWN_RESULT
    for arg in site.args[1:]:
        made = resolver.eval(arg, ctx)
        if not made or not all(type(f.obj) is Inst and type(f.obj.cls) is Ext and f.obj.cls.qualname in
                               COMMAND_LINE_CONFIGS for f in made):
            return UNKNOWN_RESULT
    step = Step(ref.module, site.span, "replaced on some runs (command-line overrides merged in)")
    return extend(resolver.eval(site.args[0], ctx), step)


CALLS = {
    "dataclasses.field": _dataclass_field,
    "dataclasses.replace": _dataclass_replace,
    "omegaconf.OmegaConf.merge": _merged_config,
    "builtins.int": _int,
    "builtins.round": _int,
    "math.floor": _int,
    "math.ceil": _int,
    "builtins.bool": _bool,
    "builtins.min": _min_max,
    "builtins.max": _min_max,
    "builtins.len": _len,
    "builtins.next": _next,
    "builtins.getattr": _getattr,
    "builtins.dict": _dict,
    "collections.OrderedDict": _dict,
    **{name: _config_from_file for name in FROM_FILE},
    **{name: _instantiate for name in configfiles.INSTANTIATE},
    "torch.device": _device,
    "ray.train.torch.get_device": _framework_device,
    "ray.train.torch.train_loop_utils.get_device": _framework_device,
    "builtins.str": _str,
    "os.getenv": _environment,
    "os.environ.get": _environment,
    **{name: _typer_option for name in ("typer.Option", "typer.Argument", "typer.params.Option",
                                        "typer.params.Argument")},
    **{name: _parsed_config for name in CONFIG_CLASS_PARSERS},
    **{name: _path for name in ("pathlib.Path", "pathlib.PurePath", "os.path.join", "os.path.dirname",
                                "os.path.abspath", "os.path.realpath", "os.path.normpath")},
    **{name: _yaml_file for name in ("omegaconf.OmegaConf.load", "yaml.safe_load", "yaml.load", "yaml.full_load",
                                     "yaml.unsafe_load")},
}


# methods of values the model knows ----------------------------------------------------------
HOST_RESULTS = frozenset({"item", "tolist", "cpu", "size", "dim", "numel", "__len__", "keys", "detach_"})


def tensor_method(resolver: "Resolver", batch: Batch, name: str, ref: SiteRef, ctx: Ctx) -> Results:
    """A method called on loader data: copies to a GPU make device data; a tensor's other
    methods, and a dict's or list's, keep it host data. A method no tensor has belongs to an
    object the model does not know (a graph store's ``csc()``): its result is unknown."""
    if name == "cuda":
        return one(Batch(batch.loader, True))
    if name == "to" and moves_to_device(resolver, ref, ctx):
        return one(Batch(batch.loader, True))
    if name in HOST_RESULTS or (name not in TENSOR_NAMES and name not in CONTAINER_NAMES):
        return UNKNOWN_RESULT
    return one(batch)


def moves_to_device(resolver: "Resolver", ref: SiteRef, ctx: Ctx) -> bool:
    """Whether ``x.to(...)`` at ``ref`` names a device (not only a dtype)."""
    return device_target(resolver, ref, ctx) is not None


def device_target(resolver: "Resolver", ref: SiteRef, ctx: Ctx) -> Optional[str]:
    """"cuda", "cpu" or "device" (some device, not known which) for ``x.to(...)``; None for a dtype."""
    site = resolver.project.call(ref)
    target = None
    for name, value in site.keywords:
        if name == "device":
            target = value
    if target is None:
        if not site.args:
            return None
        target = site.args[0]
    kinds = set()
    for found in resolver.eval(target, ctx):
        kinds.add(device_kind(found.obj))
    kinds.discard("dtype")
    if not kinds:
        return None
    if kinds == {"cpu"}:
        return "cpu"
    if "cuda" in kinds:
        return "cuda"
    return "device"


TORCH_DTYPES = frozenset(
    "float float16 float32 float64 half double bfloat16 int int8 int16 int32 int64 long short uint8 bool "
    "complex64 complex128 cfloat float8_e4m3fn float8_e5m2".split()
)


def device_kind(obj) -> str:
    """cuda | cpu | dtype | device (unknown which device)."""
    if isinstance(obj, Lit) and isinstance(obj.value, str):
        text = obj.value
        if text.startswith("cpu"):
            return "cpu"
        if text.startswith(("cuda", "gpu")) or text.startswith("\u2026"):
            return "cuda"
        return "device"
    if isinstance(obj, Lit) and isinstance(obj.value, int) and not isinstance(obj.value, bool):
        return "cuda"  # x.to(0): CUDA device 0
    if isinstance(obj, Ext):
        last = obj.qualname.rpartition(".")[2]
        if obj.qualname.startswith("torch.") and last in TORCH_DTYPES:
            return "dtype"
    return "device"


def kwargs_get(resolver: "Resolver", kwargs: Kwargs, ref: SiteRef, ctx: Ctx) -> Results:
    keys = _arg(resolver, ref, ctx, 0) or UNKNOWN_RESULT
    if len(keys) != 1 or not isinstance(keys[0].obj, Lit) or not isinstance(keys[0].obj.value, str):
        return UNKNOWN_RESULT
    found = resolver.kwargs_item(kwargs, keys[0].obj.value)
    default = _arg(resolver, ref, ctx, 1) or one(Lit(None))
    return found if found is not None else default if default is not None else join(())


def dict_get(resolver: "Resolver", container: Container, ref: SiteRef, ctx: Ctx) -> Results:
    keys = _arg(resolver, ref, ctx, 0) or UNKNOWN_RESULT
    if len(keys) != 1 or not isinstance(keys[0].obj, Lit):
        return UNKNOWN_RESULT
    found = resolver.dict_item(container, keys[0].obj.value)
    if found is not None:
        return found
    if resolver.is_registry(container):
        return UNKNOWN_RESULT  # a key no registration read here makes: what a module not read may register
    return _arg(resolver, ref, ctx, 1) or one(Lit(None))


def namespace_attribute(resolver: "Resolver", namespace: Namespace, name: str) -> Results:
    """``args.<name>``: the default of the parser's ``add_argument`` whose destination is ``name``."""
    return argument_default(resolver, namespace.parser, name)
