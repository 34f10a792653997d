"""What a dataset holds: process-bound handles, the files it names, random generators.

One bounded walk over the dataset's attributes (and the module globals its methods
use, since DSL104 also covers module-level handles) serves the DSL104 evidence
(which inherited descriptors are the dataset's) and the DSL402 evidence (generator
states per worker, fingerprinted without drawing from them).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import types
from typing import Any, Dict, Iterator, List, Set, Tuple

_MAX_NODES = 3000
_MAX_ITEMS = 64
_LEAF_TYPES = (int, float, complex, bool, bytes, bytearray, type(None))
_OPAQUE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _is_array_like(obj: Any) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith(("numpy", "torch")) and hasattr(obj, "shape")


def _method_globals(dataset: Any) -> Iterator[Tuple[str, Any]]:
    """Module globals named by the dataset class's own methods (skips torch's classes)."""
    seen: Set[str] = set()
    for klass in type(dataset).__mro__:
        if (klass.__module__ or "").startswith(("torch", "builtins", "typing")):
            continue
        for value in vars(klass).values():
            func = getattr(value, "__func__", value)
            code = getattr(func, "__code__", None)
            if code is None:
                continue
            names = set(code.co_names)
            for const in code.co_consts:  # comprehensions, nested functions
                if isinstance(const, types.CodeType):
                    names.update(const.co_names)
            glb = getattr(func, "__globals__", {})
            for name in sorted(names):
                if name in glb and name not in seen:
                    seen.add(name)
                    yield f"{glb.get('__name__', '?')}.{name}", glb[name]


def walk(dataset: Any, max_depth: int = 4) -> Iterator[Tuple[str, Any]]:
    """Yield (attribute path, object) for the dataset, its attributes, items of small
    containers, and the module globals its methods use."""
    seen: Set[int] = set()
    stack: List[Tuple[str, Any, int]] = [("dataset", dataset, 0)]
    stack.extend((path, obj, 1) for path, obj in _method_globals(dataset))
    count = 0
    while stack and count < _MAX_NODES:
        path, obj, depth = stack.pop(0)
        if id(obj) in seen or isinstance(obj, _OPAQUE):
            continue
        seen.add(id(obj))
        count += 1
        yield path, obj
        if depth >= max_depth or isinstance(obj, _LEAF_TYPES + (str,)) or _is_array_like(obj):
            continue
        if isinstance(obj, dict):
            items = list(obj.items())[:_MAX_ITEMS]
            stack.extend((f"{path}[{k!r}]", v, depth + 1) for k, v in items)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            for i, v in enumerate(list(obj)[:_MAX_ITEMS]):
                stack.append((f"{path}[{i}]", v, depth + 1))
        else:
            try:
                attrs = vars(obj)
            except TypeError:
                continue
            for k, v in list(attrs.items())[:_MAX_ITEMS]:
                stack.append((f"{path}.{k}", v, depth + 1))


def _type_name(obj: Any) -> str:
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


# (module prefix, class name) -> kind; objects holding a per-process OS resource.
_HANDLE_TYPES = {
    ("cv2", "VideoCapture"): "cv2.VideoCapture",
    ("sqlite3", "Connection"): "sqlite3.Connection",
    ("h5py", "File"): "h5py.File",
    ("lmdb", "Environment"): "lmdb.Environment",
    ("zipfile", "ZipFile"): "zipfile.ZipFile",
    ("tarfile", "TarFile"): "tarfile.TarFile",
    ("PIL", "FreeTypeFont"): "PIL.ImageFont.FreeTypeFont",
}


def handle_info(obj: Any) -> Dict[str, Any]:
    """Describe ``obj`` when it is a process-bound handle, else ``{}``."""
    t = type(obj)
    mod = (t.__module__ or "").split(".")[0]
    kind = _HANDLE_TYPES.get((mod, t.__name__))
    fileno = getattr(obj, "fileno", None)
    info: Dict[str, Any] = {}
    if kind is None and callable(fileno) and not isinstance(obj, type):
        kind = _type_name(obj)
    if kind is None:
        return info
    info["kind"] = kind
    for getter in (lambda: obj.fileno(), lambda: obj.fp.fileno(), lambda: obj.fileobj.fileno()):
        try:
            info["fd"] = int(getter())
            break
        except Exception:  # noqa: BLE001 - closed, not a real file, not this kind
            continue
    for getter in (lambda: obj.name, lambda: obj.filename, lambda: obj.path()):
        try:
            value = getter()
            if isinstance(value, (str, os.PathLike)):
                info["path"] = os.fspath(value)
                break
        except Exception:  # noqa: BLE001
            continue
    return info


def dataset_handles(dataset: Any) -> Dict[str, Any]:
    """Handles on the dataset, the descriptors behind them and the files it names."""
    handles = []
    paths: Set[str] = set()
    for path, obj in walk(dataset):
        if isinstance(obj, (str, os.PathLike)) and not isinstance(obj, bytes):
            try:
                text = os.fspath(obj)
                if len(text) < 4096 and os.path.isfile(text):
                    paths.add(os.path.realpath(text))
            except (TypeError, ValueError, OSError):
                pass
            continue
        info = handle_info(obj)
        if info:
            info["attr"] = path
            handles.append(info)
            if info.get("path"):
                try:
                    paths.add(os.path.realpath(info["path"]))
                except (TypeError, ValueError):
                    pass
    return {
        "handles": handles,
        "fds": sorted({h["fd"] for h in handles if "fd" in h}),
        "paths": sorted(paths),
    }


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def rng_state(obj: Any) -> Tuple[str, str]:
    """(kind, fingerprint) of a random generator's state, or ("", "") if not one.
    Reads the state only: drawing would change what the target later sees."""
    name = _type_name(obj)
    try:
        if name == "numpy.random._generator.Generator":
            return "numpy.random.Generator", _digest(repr(obj.bit_generator.state).encode())
        if name == "numpy.random.mtrand.RandomState":
            kind, keys, pos, *_ = obj.get_state()
            return "numpy.random.RandomState", _digest(keys.tobytes() + str(pos).encode())
        if isinstance(obj, __import__("random").Random):
            return "random.Random", _digest(repr(obj.getstate()).encode())
        if name == "torch._C.Generator" or name == "torch.Generator":
            return "torch.Generator", _digest(obj.get_state().numpy().tobytes())
    except Exception:  # noqa: BLE001
        return "", ""
    return "", ""


def rng_fingerprints(dataset: Any) -> Dict[str, Dict[str, str]]:
    out = {}
    for path, obj in walk(dataset):
        kind, fp = rng_state(obj)
        if kind:
            out[path] = {"kind": kind, "fp": fp}
    return out


def describe_callable(fn: Any) -> Dict[str, Any]:
    """Name and defining file of a callable handed to the loader (for mapping findings)."""
    if fn is None:
        return {}
    target = getattr(fn, "func", fn)  # functools.partial
    target = getattr(target, "__func__", target)
    name = getattr(target, "__qualname__", None) or _type_name(target)
    if not (inspect.isroutine(target) or inspect.isclass(target)):
        target = type(target)
    try:
        path = inspect.getsourcefile(target)
    except (TypeError, OSError):
        path = None
    out: Dict[str, Any] = {"name": name, "file": os.path.abspath(path) if path else None}
    try:  # the code's line span: a hang whose stacks run through it is this code's doing
        lines, first = inspect.getsourcelines(target)
        out["line"], out["end_line"] = first, first + len(lines) - 1
    except (TypeError, OSError):
        pass
    return out
