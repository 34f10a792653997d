#!/usr/bin/env python3
"""Speed and memory of dslint against ruff on the same trees, in one run.

Usage:
    ../shared/corpus/fetch.sh                 # once: the real-world corpus
    pip install ruff                          # the yardstick (flake8, torchfix: --peers)
    python bench/bench.py [--corpus DIR] [--training DIR] [--repeat N] [--peers]

Trees, each copied into a scratch folder first (the originals are never written to):

- **data-heavy**: the files of the corpus that mention ``DataLoader`` or ``Dataset``, at
  their own relative paths (built here, the same way every time: a quarter or more of a
  training repository's files look like this, against under 9 % of a library's);
- **corpus**: the whole corpus;
- **training**: the training repositories of ``../shared/training-repos`` (if present).

Runs, interleaved tool by tool and repeated (the median is reported):

- **cold**: no cache (``--no-cache``);
- **warm**: a second run with the cache a first one left;
- **edited**: a warm run after one file changed (a statement appended): ``edited (read)``
  edits the largest file dslint summarises (its analysis must run again), ``edited
  (unread)`` the largest file it never reads (most files of a library).

Each tool runs as a user runs it, as a subprocess (``dslint check``: the default rules;
``ruff check``: its default rules). Wall time and CPU time (user+sys of the process and its
workers) come from runs nobody watches. Peak memory comes from one more run of each kind,
not timed: the largest summed proportional set size (PSS) of the process tree, sampled
every 20 ms (PSS shares a page between the processes that map it, so a forked worker is not
counted twice). Sampling walks the page tables of every process in the tree fifty times a
second: on two cores it took a core's share from the tool it watched, and more from a tool
with more memory (measured: dslint's corpus run 13.6-16.0 s alone, 20.0 s sampled; ruff's
3.4-4.2 s and 4.3-5.0 s). Ratios are dslint over ruff cold. ``--dslint-path``
times another checkout (e.g. an older commit) with the same method. This is a benchmark,
not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HEAVY = re.compile(rb"DataLoader|Dataset")
EDIT = b"\n_edited_by_bench = 1  # a statement: the module's summary changes\n"


# measuring ------------------------------------------------------------------------------------
def _children() -> Dict[int, List[int]]:
    children: Dict[int, List[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except OSError:
                continue
    return children


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    try:  # no smaps_rollup (old kernels): resident set size
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_memory_kib(root_pid: int) -> int:
    """Summed PSS of a process and all its descendants."""
    children = _children()
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        total += _pss_kib(pid)
    return total


class Run:
    """One run: wall seconds, CPU seconds, peak MiB (None when not sampled), exit code."""

    def __init__(self, wall: float, cpu: float, peak: Optional[float], code: int):
        self.wall, self.cpu, self.peak, self.code = wall, cpu, peak, code


def measure(command: List[str], env=None, sampled: bool = False) -> Run:
    """Run ``command``; ``sampled``: also its peak memory (which slows it: see the top)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                               cwd=tempfile.gettempdir())  # not the checkout: ``-m dslint`` would import it first
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_memory_kib(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    if sampled:
        sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    if sampled:
        sampler.join()
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):  # a failed run would pass for a fast one
        raise SystemExit(f"{' '.join(command[:4])}... exited {process.returncode}: {stderr[-300:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, peak / 1024 if sampled else None, process.returncode)


# trees ----------------------------------------------------------------------------------------
def python_files(root: Path) -> List[Path]:
    """Every ``.py`` file under ``root`` (hidden folders too: mmdet ships its configs in ``.mim``)."""
    return sorted(p for p in root.rglob("*.py") if p.is_file() and not p.is_symlink())


def copy_tree(source: Path, target: Path, only_heavy: bool = False) -> int:
    """Copy the Python files of ``source`` (only the data-heavy ones) to ``target``; the count."""
    shutil.rmtree(target, ignore_errors=True)
    count = 0
    for path in python_files(source):
        data = path.read_bytes()
        if only_heavy and not HEAVY.search(data):
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
        count += 1
    for marker in ("pyproject.toml", "setup.py", "setup.cfg"):  # project boundaries, as in the source
        for found in source.rglob(marker):
            if only_heavy or not found.is_file():
                continue
            destination = target / found.relative_to(source)
            if not destination.exists():
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(found, destination)
    return count


def edit_targets(root: Path) -> Dict[str, Optional[Path]]:
    """The largest file dslint summarises up front, and the largest it never reads (by the
    pre-filter's words: neither a seed nor a candidate, nor a package ``__init__``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from dslint import prefilter

    read, unread = [], []
    for path in python_files(root):
        data = path.read_bytes()
        tier = prefilter.tier(data)
        if tier == prefilter.SEED:
            read.append((len(data), str(path)))
        elif tier == prefilter.SKIP and path.name != "__init__.py":
            unread.append((len(data), str(path)))
    return {"edited (read)": Path(max(read)[1]) if read else None,
            "edited (unread)": Path(max(unread)[1]) if unread else None}


CHECKOUT = str(Path(__file__).resolve().parents[1])


# the benchmark --------------------------------------------------------------------------------
def compile_bytecode(dslint_path: Optional[str]) -> None:
    """Compile the timed dslint's modules, as ``pip install`` does: without it, a machine that
    sets ``PYTHONDONTWRITEBYTECODE`` compiles every module again in every timed run (about
    0.12 s each, which no installed copy pays)."""
    import compileall

    compileall.compile_dir(os.path.join(dslint_path or CHECKOUT, "dslint"), quiet=1)


def commands(tree: Path, dslint_path: Optional[str], cache: Path):
    env = dict(os.environ)
    env["DSLINT_CACHE_DIR"] = str(cache / "dslint")
    env["PYTHONPATH"] = (dslint_path or CHECKOUT) + os.pathsep + env.get("PYTHONPATH", "")
    dslint = [sys.executable, "-m", "dslint", "check", str(tree), "-q", "--exit-zero"]
    ruff = ["ruff", "check", str(tree), "--exit-zero", "--quiet", "--cache-dir", str(cache / "ruff")]
    return {"dslint": (dslint, env), "ruff": (ruff, None)}


def bench_tree(name: str, tree: Path, repeat: int, tools: Dict[str, Tuple[List[str], Optional[dict]]],
               cache: Path) -> List[tuple]:
    """rows (tree, tool, run, [Run...]) for every tool and kind of run: ``repeat`` timed runs
    of each kind, and one sampled run for its peak memory."""
    runs: Dict[Tuple[str, str], List[Run]] = {}
    targets = edit_targets(tree)
    for number in range(repeat + 1):
        sampled = number == repeat  # the memory run comes last: the timed ones are not disturbed
        for tool, (command, env) in tools.items():
            runs.setdefault((tool, "cold"), []).append(measure(command + ["--no-cache"], env, sampled))
            shutil.rmtree(cache / tool, ignore_errors=True)
            measure(command, env)  # fill the cache
            runs.setdefault((tool, "warm"), []).append(measure(command, env, sampled))
            for kind, target in targets.items():
                if target is None:
                    continue
                original, stat = target.read_bytes(), target.stat()
                try:
                    target.write_bytes(original + EDIT)
                    runs.setdefault((tool, kind), []).append(measure(command, env, sampled))
                finally:
                    target.write_bytes(original)
                    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
                measure(command, env)  # the cache back to the original file
    return [(name, tool, kind, values) for (tool, kind), values in runs.items()]


def median(values: List[Run], field: str) -> float:
    """The median over the timed runs (the peak: the sampled run's)."""
    return statistics.median(getattr(run, field) for run in values if (run.peak is None) != (field == "peak"))


def report(rows: List[tuple], counts: Dict[str, int]) -> None:
    print(f"{'tree':<11} {'files':>6} {'tool':<7} {'run':<16} {'wall s':>7} {'(min)':>6} {'cpu s':>6} "
          f"{'peak MiB':>8} {'/ ruff cold':>11}")
    for tree, tool, kind, values in rows:
        ruff_cold = next((median(v, "wall") for t, tl, k, v in rows if t == tree and tl == "ruff" and k == "cold"), None)
        ratio = f"{median(values, 'wall') / ruff_cold:.2f}x" if ruff_cold else "-"
        print(f"{tree:<11} {counts[tree]:>6} {tool:<7} {kind:<16} {median(values, 'wall'):>7.2f} "
              f"{min(r.wall for r in values if r.peak is None):>6.2f} {median(values, 'cpu'):>6.2f} {median(values, 'peak'):>8.0f} "
              f"{ratio:>11}")


def targets_met(rows: List[tuple]) -> None:
    """The figures the speed issue asks for, checked against this run."""
    def wall(tree, tool, kind):
        values = next((v for t, tl, k, v in rows if (t, tl, k) == (tree, tool, kind)), None)
        return median(values, "wall") if values else None

    checks = []
    for tree, limit in (("data-heavy", 2.0), ("corpus", 1.5)):
        cold, ruff = wall(tree, "dslint", "cold"), wall(tree, "ruff", "cold")
        if cold and ruff:
            checks.append((f"{tree}: dslint cold / ruff cold = {cold / ruff:.2f}x", cold / ruff <= limit, f"<= {limit}x"))
        warm = wall(tree, "dslint", "warm")
        if warm and ruff:
            checks.append((f"{tree}: dslint warm / ruff cold = {warm / ruff:.2f}x", warm / ruff <= 0.5, "<= 0.5x"))
    for kind in ("edited (unread)", "edited (read)"):
        edited = wall("corpus", "dslint", kind)
        if edited:
            checks.append((f"corpus: dslint {kind} = {edited:.2f} s", edited < 1.0, "< 1 s"))
    print()
    for text, met, target in checks:
        print(f"{'met ' if met else 'MISS'}  {text}  (target {target})")


def peers(corpus: Path, files: int, torchfix_files: int) -> None:
    """flake8 (cold) and TorchFix (on a sample: ~0.5 s a file) on the whole corpus."""
    if shutil.which("flake8"):
        command = ["flake8", "--exit-zero", str(corpus)]
        run, peak = measure(command), measure(command, sampled=True).peak
        print(f"flake8 cold over {files} files: {run.wall:.2f} s, peak {peak:.0f} MiB")
    if shutil.which("torchfix"):
        every = python_files(corpus)
        step = max(1, len(every) // max(1, torchfix_files))
        sample = [str(p) for p in every[::step]][:torchfix_files]
        run = measure(["torchfix", *sample])
        print(f"torchfix over a sample of {len(sample)} files: {run.wall:.2f} s "
              f"(projected over the corpus: {len(every) / len(sample) * run.wall / 60:.0f} min)")


def training_default() -> Path:
    """``../shared/training-repos/src`` beside the checkout (or beside a worktree's parent)."""
    repo = Path(__file__).resolve().parent.parent
    for base in (repo.parent, repo.parent.parent):
        if (base / "shared" / "training-repos" / "src").is_dir():
            return base / "shared" / "training-repos" / "src"
    return repo.parent / "shared" / "training-repos" / "src"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/dslint-corpus/src"))
    parser.add_argument("--training", default=str(training_default()))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind (the median is reported)")
    parser.add_argument("--trees", default="data-heavy,corpus,training", help="which trees, comma-separated")
    parser.add_argument("--dslint-path", help="run the dslint package found in this folder (default: this checkout)")
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed after)")
    parser.add_argument("--peers", action="store_true", help="also time flake8 and a TorchFix sample")
    parser.add_argument("--torchfix-files", type=int, default=40)
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: run ../shared/corpus/fetch.sh first", file=sys.stderr)
        return 2
    if not shutil.which("ruff"):
        print("ruff is not installed: pip install ruff", file=sys.stderr)
        return 2
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="dslint-bench-"))
    wanted = [name.strip() for name in args.trees.split(",") if name.strip()]
    sources = {"data-heavy": (corpus, True), "corpus": (corpus, False), "training": (Path(args.training), False)}
    version = subprocess.run(["ruff", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{os.cpu_count()} cores, {version}, dslint from {args.dslint_path or 'this checkout'}, "
          f"median of {args.repeat} (peak memory: one more run, sampled)\n")
    rows: List[tuple] = []
    counts: Dict[str, int] = {}
    compile_bytecode(args.dslint_path)
    try:
        for name in wanted:
            source, heavy = sources[name]
            if not source.is_dir():
                print(f"(no {name} tree at {source}: skipped)")
                continue
            tree = work / "trees" / name
            counts[name] = copy_tree(source, tree, heavy)
            cache = work / "caches" / name
            rows.extend(bench_tree(name, tree, args.repeat, commands(tree, args.dslint_path, cache), cache))
        report(rows, counts)
        targets_met(rows)
        if args.peers:
            print()
            peers(work / "trees" / "corpus" if "corpus" in counts else corpus, counts.get("corpus", 0),
                  args.torchfix_files)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
