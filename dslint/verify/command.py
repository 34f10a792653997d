"""``dslint verify``: arguments and the command itself (wired into ``dslint.cli``).

Everything after TARGET belongs to the target once a ``--`` is seen; options between
TARGET and ``--`` are still the verifier's (``dslint verify train.py --timeout 5 -- --lr 1``).
"""

from __future__ import annotations

import argparse
import sys
import traceback

from . import procfs, report
from .model import Report
from .target import TargetError, parse
from .verifier import Options, verify

METHODS = ("fork", "spawn", "forkserver")


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--batches", type=int, default=8, metavar="N",
                        help="batches each probe pulls (default 8)")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="S",
                        help="seconds without a batch before a loader counts as hung (default 20)")
    parser.add_argument("--start-method", choices=[*METHODS, "all"], default=None,
                        help="make this the platform's default start method; 'all' runs each "
                             "(what proves DSL101/DSL102 on Linux). Default: the platform's")
    parser.add_argument("--output-format", choices=["text", "json"], default="text")
    parser.add_argument("--fix", action="store_true",
                        help="apply the fixes to a temporary copy and show each finding FIXED or not")
    parser.add_argument("--against", metavar="FIXED_TARGET", default=None,
                        help="compare with a hand-fixed version of TARGET (like --fix)")
    parser.add_argument("--no-drive", action="store_true",
                        help="stop right after the probes instead of timing N steps of the script's loop")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _add_options(parser)
    parser.add_argument("argv", nargs=argparse.REMAINDER, metavar="TARGET [-- ARGS ...]",
                        help="a script (run with ARGS) or package.module:factory")


def _normalise(args: argparse.Namespace) -> None:
    """Split ``argv`` into TARGET, verifier options before ``--``, target ARGS after."""
    argv = list(getattr(args, "argv", None) or [])
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise TargetError("missing TARGET (a script, or package.module:factory)")
    args.target, rest = argv[0], argv[1:]
    if "--" in rest:
        cut = rest.index("--")
        head, args.args = rest[:cut], rest[cut + 1:]
    else:
        head, args.args = rest, []
    if head:
        extra = argparse.ArgumentParser(prog="dslint verify TARGET", add_help=False)
        _add_options(extra)
        try:
            extra.parse_args(head, namespace=args)
        except SystemExit:
            raise TargetError(f"unrecognised arguments {head}: put the target's own arguments after --") from None


def _methods(choice: str) -> list:
    if choice == "all":
        return list(METHODS)
    if choice:
        return [choice]
    import multiprocessing

    return [multiprocessing.get_start_method(allow_none=True) or
            multiprocessing.get_context().get_start_method()]


def run(args: argparse.Namespace) -> int:
    try:
        _normalise(args)
        target = parse(args.target, args.args)
    except TargetError as exc:
        print(f"dslint verify: {exc}", file=sys.stderr)
        return 2
    procfs.set_child_subreaper()
    opts = Options(_methods(args.start_method), args.timeout, max(1, args.batches), not args.no_drive)
    try:
        result: Report = verify(target, opts)
        if args.against:
            from .fixflow import against

            result = against(target, opts, result, args.against)
        elif args.fix:
            from .fixflow import with_fixes

            result = with_fixes(target, opts, result)
    except KeyboardInterrupt:
        print("dslint verify: interrupted (the target's processes were killed)", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a verifier bug is exit 2, with its cause
        print(f"dslint verify: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        traceback.print_exc(limit=4, file=sys.stderr)
        return 2
    if args.output_format == "json":
        report.write_json(result, sys.stdout)
    else:
        report.write_text(result, sys.stdout)
    return result.exit_code()
