#!/usr/bin/env python3
"""Speed of dslint against ruff, flake8 and TorchFix on the same files, in one run.

Usage:
    ../shared/corpus/fetch.sh                 # once: the real-world corpus
    pip install ruff flake8 torchfix          # the peers (public tools)
    python bench/bench.py [--corpus DIR] [--torchfix-files N]

Each tool runs as a user runs it, as a subprocess over the whole corpus; "cold" is a run
without a cache, "warm" a second run with the cache the first one left (tools without a
cache are only run cold). Peak memory is the largest summed RSS of the tool's whole
process tree, sampled every 20 ms. TorchFix needs about 0.7 s a file, so by default it runs
on a fixed sample (every k-th file) and its whole-corpus time is projected from files/s.
This is a benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path


def tree_rss_kib(root_pid: int) -> int:
    """Summed VmRSS of a process and all its descendants."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def measure(command, cwd=None):
    """(wall seconds, peak tree RSS in MiB, exit code) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_kib(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = process.wait()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    return wall, peak / 1024, code


def python_files(root: Path):
    return sorted(str(p) for p in root.rglob("*.py") if p.is_file() and "/." not in str(p.relative_to(root)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/dslint-corpus/src"))
    parser.add_argument("--torchfix-files", type=int, default=200, help="sample size for TorchFix (0: all)")
    parser.add_argument("--skip", action="append", default=[], help="tool to skip (ruff, flake8, torchfix)")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: run ../shared/corpus/fetch.sh first", file=sys.stderr)
        return 2
    files = python_files(corpus)
    print(f"corpus: {corpus} ({len(files)} .py files), {os.cpu_count()} cores\n")

    rows = []
    dslint = [sys.executable, "-m", "dslint", "check", str(corpus), "-q", "--exit-zero"]
    shutil.rmtree(corpus / ".dslint_cache", ignore_errors=True)
    rows.append(("dslint", "cold", len(files), *measure(dslint + ["--no-cache"])))
    measure(dslint)  # fill the cache
    rows.append(("dslint", "warm", len(files), *measure(dslint)))
    if "ruff" not in args.skip and shutil.which("ruff"):
        ruff = ["ruff", "check", str(corpus), "--exit-zero", "--quiet"]
        rows.append(("ruff", "cold", len(files), *measure(ruff + ["--no-cache"])))
        measure(ruff)
        rows.append(("ruff", "warm", len(files), *measure(ruff)))
    if "flake8" not in args.skip and shutil.which("flake8"):
        rows.append(("flake8", "cold", len(files), *measure(["flake8", "--exit-zero", str(corpus)])))
    torchfix_rate = None
    if "torchfix" not in args.skip and shutil.which("torchfix"):
        sample = files
        if args.torchfix_files and args.torchfix_files < len(files):
            step = len(files) / args.torchfix_files
            sample = [files[int(i * step)] for i in range(args.torchfix_files)]
        wall, peak, code = measure(["torchfix", *sample])
        rows.append(("torchfix", f"cold ({len(sample)} files)", len(sample), wall, peak, code))
        torchfix_rate = len(sample) / wall
        # dslint on exactly the same sample, for a like-for-like ratio
        wall, peak, code = measure([sys.executable, "-m", "dslint", "check", *sample, "-q", "--exit-zero", "--no-cache"])
        rows.append(("dslint", f"cold ({len(sample)} files)", len(sample), wall, peak, code))

    print(f"{'tool':<10} {'run':<20} {'files':>6} {'wall s':>8} {'files/s':>9} {'peak MiB':>9}")
    for tool, run, count, wall, peak, _ in rows:
        print(f"{tool:<10} {run:<20} {count:>6} {wall:>8.2f} {count / wall:>9.0f} {peak:>9.0f}")

    def wall_of(tool, run):
        return next((r[3] for r in rows if r[0] == tool and r[1] == run), None)

    print()
    ds_cold, ds_warm, ruff_cold = wall_of("dslint", "cold"), wall_of("dslint", "warm"), wall_of("ruff", "cold")
    if ruff_cold:
        print(f"dslint cold / ruff cold: {ds_cold / ruff_cold:.2f}x   (target: at most 2x)")
        print(f"dslint warm / ruff cold: {ds_warm / ruff_cold:.2f}x   (target: at most 1x)")
    if torchfix_rate:
        sample_rows = [r for r in rows if r[1].startswith("cold (")]
        tf, ds = sample_rows[0][3], sample_rows[1][3]
        print(f"dslint / torchfix on the same {sample_rows[0][2]} files: {ds / tf:.3f}x "
              f"(torchfix {tf:.1f} s, dslint {ds:.2f} s); torchfix projected on the whole corpus: "
              f"{len(files) / torchfix_rate / 60:.0f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
