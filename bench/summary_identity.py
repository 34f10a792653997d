#!/usr/bin/env python3
"""Do two checkouts summarise every file identically? (a check for summariser speed work)

Usage:
    python bench/summary_identity.py [--other /work/main] ROOT...

Every ``.py`` file under the roots (every one, not only those the pre-filter selects) is
summarised by ``dslint.engine.summarise_path`` of this checkout and of ``--other`` (run as
a subprocess with ``PYTHONPATH`` pointing at it), and a canonical dump of each result is
compared: the same fields, values and types in the same order (sets sorted, since their
iteration order is not part of a summary's meaning). Prints the files that differ, with
the first difference of one of them, and exits 1 if any does. Asserts nothing else.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile


def canonical(value):
    """A JSON-able form that keeps each value's type and order (sets sorted)."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return [type(value).__name__] + [canonical(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__, {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}]
    if isinstance(value, (frozenset, set)):
        return ["set", sorted(json.dumps(canonical(item)) for item in value)]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [canonical(item) for item in value]]
    if isinstance(value, dict):
        return ["dict", [[canonical(k), canonical(v)] for k, v in value.items()]]
    if isinstance(value, float):
        return ["float", repr(value)]
    if value is None or isinstance(value, (bool, int, str)):
        return [type(value).__name__, value]
    return [type(value).__name__, repr(value)]


def python_files(roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
            continue
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(folder, name)


def dump(roots, out_path: str) -> None:
    """One line per file: path, then the canonical dump of its ``summarise_path`` result."""
    from dslint.engine import summarise_path

    with open(out_path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"dslint": os.path.dirname(__import__("dslint").__file__)}) + "\n")
        for path in python_files(roots):
            result = summarise_path(path)
            text = json.dumps(canonical(result), ensure_ascii=True)
            out.write(json.dumps([path, text]) + "\n")


def load(path: str):
    with open(path, encoding="utf-8") as handle:
        header = json.loads(handle.readline())
        return header["dslint"], dict(json.loads(line) for line in handle)


def first_difference(left, right, where="") -> str:
    if type(left) is not type(right) or not isinstance(left, (list, dict)):
        return f"{where}: {str(left)[:300]} != {str(right)[:300]}"
    if isinstance(left, dict):
        for key in left:
            if key not in right or left[key] != right[key]:
                return first_difference(left[key], right.get(key), f"{where}.{key}")
        return f"{where}: keys {sorted(set(right) - set(left))}"
    for index, (a, b) in enumerate(zip(left, right)):
        if a != b:
            return first_difference(a, b, f"{where}[{index}]")
    return f"{where}: lengths {len(left)} != {len(right)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--other", default="/work/main", help="the checkout to compare with")
    parser.add_argument("--dump", help=argparse.SUPPRESS)  # internal: write a dump and stop
    args = parser.parse_args()
    if args.dump:
        dump(args.roots, args.dump)
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as scratch:
        outs = []
        for label, checkout in (("this", here), ("other", os.path.abspath(args.other))):
            out = os.path.join(scratch, label + ".jsonl")
            env = dict(os.environ, PYTHONPATH=checkout, PYTHONHASHSEED="0")
            subprocess.run([sys.executable, os.path.abspath(__file__), "--dump", out, *args.roots], env=env,
                           check=True)
            outs.append(load(out))
    (this_pkg, this), (other_pkg, other) = outs
    print(f"this:  {this_pkg}\nother: {other_pkg}")
    differing = [path for path in this if this[path] != other.get(path)] + [p for p in other if p not in this]
    digest = hashlib.sha256("".join(this[p] for p in sorted(this)).encode()).hexdigest()[:16]
    print(f"{len(this)} files compared, {len(differing)} differ (dump digest {digest})")
    for path in differing[:20]:
        print("  differs:", path)
    if differing:
        path = differing[0]
        if path in this and path in other:
            print(first_difference(json.loads(this[path]), json.loads(other[path])))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
