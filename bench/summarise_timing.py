#!/usr/bin/env python3
"""How long the per-file summariser takes on the files a real run summarises.

Usage:
    python bench/summarise_timing.py [--repeat N] [--files LIST] ROOT

First runs ``dslint check ROOT --no-cache -j 1`` in this process and records every path
``dslint.engine.summarise_path`` is called with (the seeds, the candidates connected to
them and the files summarised on demand), unless ``--files`` names a list written before.
Then times, over those files, ``summarise_path`` as a whole and its parts (read, parse,
extract), each repeated and the minimum kept (the machine is shared). Asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import sys
import time


def summarised_paths(root: str):
    """The paths a cold single-process check of ``root`` summarises, in call order."""
    from dslint import cli, engine

    seen = []
    original = engine.summarise_path

    def recording(path):
        seen.append(path)
        return original(path)

    engine.summarise_path = recording
    cwd = os.getcwd()
    try:
        os.chdir(root)
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                cli.main(["check", ".", "--no-cache", "-j", "1", "--exit-zero", "--output-format", "concise"])
            except SystemExit:
                pass
    finally:
        os.chdir(cwd)
        engine.summarise_path = original
    return [os.path.join(root, p) for p in dict.fromkeys(seen)]


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def phase_times(paths):
    """Seconds spent reading, parsing and extracting, file by file (no tree is kept)."""
    from dslint import engine
    from dslint.analysis.extract import extract

    totals = [0.0, 0.0, 0.0]
    clock = time.perf_counter
    for path in paths:
        start = clock()
        source = engine.read_source(path)
        read = clock()
        totals[0] += read - start
        if isinstance(source, engine.Unreadable):
            continue
        tree = engine.parse(source)
        parsed = clock()
        totals[1] += parsed - read
        if isinstance(tree, engine.Unreadable):
            continue
        extract(path, source.text, tree)
        totals[2] += clock() - parsed
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", help="a file listing the paths (written if missing)")
    args = parser.parse_args()
    from dslint import engine
    if args.files and os.path.exists(args.files):
        with open(args.files, encoding="utf-8") as handle:
            paths = handle.read().split("\n")
    else:
        paths = summarised_paths(os.path.abspath(args.root))
        if args.files:
            with open(args.files, "w", encoding="utf-8") as handle:
                handle.write("\n".join(paths))
    gc.disable()  # as in a real run (``dslint.cli``)
    sys.setrecursionlimit(10000)
    figures = {"summarise_path": best(lambda: [engine.summarise_path(p) for p in paths], args.repeat)}
    phases = [phase_times(paths) for _ in range(args.repeat)]
    for index, name in enumerate(("read", "parse", "extract")):
        figures[name] = min(times[index] for times in phases)
    print(f"{len(paths)} files ({dslint_dir()}), best of {args.repeat}:")
    for name, seconds in figures.items():
        print(f"  {name:15} {seconds:6.2f} s")
    return 0


def dslint_dir() -> str:
    return os.path.dirname(__import__("dslint").__file__)


if __name__ == "__main__":
    sys.exit(main())
