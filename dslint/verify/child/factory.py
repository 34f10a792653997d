"""Runner for ``dslint verify package.module:factory``: call the factory, iterate its
loader (which triggers the probes). A factory may return a DataLoader, or a Dataset and
a dict of loader keyword arguments.

Guarded by ``__main__`` because spawned workers re-import the main module.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys


def main(spec: str) -> int:
    module_name, _, func_name = spec.partition(":")
    module = importlib.import_module(module_name)
    factory = module
    for part in (func_name or "make_loader").split("."):
        factory = getattr(factory, part)
    try:
        path = os.path.abspath(inspect.getsourcefile(factory) or "?")
        line = inspect.getsourcelines(factory)[1]
        os.environ["DSLINT_VERIFY_SITE"] = f"{path}:{line}"
    except (TypeError, OSError):
        pass
    result = factory()
    from torch.utils.data import DataLoader

    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict):
        result = DataLoader(result[0], **result[1])
    if not isinstance(result, DataLoader):
        print(f"dslint verify: {spec} returned {type(result).__name__}, not a DataLoader", file=sys.stderr)
        return 3
    for _ in result:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
