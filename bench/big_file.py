#!/usr/bin/env python3
"""A plain check of one huge file costs about what ``ast.parse`` of it costs (issue 15).

Usage:
    python bench/big_file.py [--megabytes 10]

Writes, in a temporary folder, the two files of the issue: ~10 MB of string constants and
a ~7.6 MB list of integers, each after a small Dataset with one fixable finding (DSL103).
Times, as subprocesses with peak memory of the process tree (``bench.measure``):
``ast.parse`` of the file, a plain ``dslint check --no-cache`` and ``dslint check --diff``
(a fix is declined: the file is over ``FIX_BUDGET_BYTES``). A benchmark: prints figures,
asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import measure  # noqa: E402

HAZARD = '''import cv2
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return cv2.imread(str(i))


def main():
    for batch in DataLoader(Frames(), num_workers=2):
        print(batch)

'''


def strings_file(megabytes: float) -> str:
    lines = int(megabytes * 1e6 / 108)
    return HAZARD + "".join(f'S{i} = "{"x" * 95}"\n' for i in range(lines))


def ints_file(megabytes: float) -> str:
    count = int(megabytes * 1e6 / 7.9)
    return HAZARD + "DATA = [" + ", ".join(str(i) for i in range(count)) + "]\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=10.0, help="size of the strings file (ints: 0.76 of it)")
    args = parser.parse_args()
    python = sys.executable
    print(f"{'file':<14}{'MB':>6}  {'run':<22}{'wall s':>8}{'peak MiB':>10}")
    with tempfile.TemporaryDirectory(prefix="dslint-big-") as folder:
        for name, text in (("strings.py", strings_file(args.megabytes)), ("ints.py", ints_file(args.megabytes * 0.76))):
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            runs = (
                ("ast.parse", [python, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", name]),
                ("dslint check", [python, "-m", "dslint", "check", "--no-cache", name]),
                ("dslint check --diff", [python, "-m", "dslint", "check", "--no-cache", "--diff", name]),
            )
            for label, command in runs:
                wall, peak, _ = measure(command, cwd=folder)
                print(f"{name:<14}{len(text) / 1e6:>6.1f}  {label:<22}{wall:>8.2f}{peak:>10.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
