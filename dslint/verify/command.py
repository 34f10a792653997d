"""``dslint verify``: arguments and the command itself (wired into ``dslint.cli``).

Everything after TARGET belongs to the target once a ``--`` is seen; options between
TARGET and ``--`` are still the verifier's (``dslint verify train.py --timeout 5 -- --lr 1``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import traceback

from . import guard, procfs, report
from .model import Report
from .supervisor import Cancelled
from .target import TargetError, parse
from .verifier import Options, verify

METHODS = ("fork", "spawn", "forkserver")


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--batches", type=int, default=8, metavar="N",
                        help="batches each probe pulls (default 8)")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="S",
                        help="seconds without progress before the target counts as hung (default 20): "
                             "without a batch while a probe runs; without an event, CPU time or I/O "
                             "before the first loader")
    parser.add_argument("--start-method", choices=[*METHODS, "all"], default=None,
                        help="make this the platform's default start method; 'all' runs each, side by "
                             "side where the machine allows. Default: the platform's, plus spawn when "
                             "DSL101/DSL102 (which only spawn shows) is flagged")
    parser.add_argument("--output-format", choices=["text", "json"], default="text",
                        help="json: the versioned report described in docs/verify-report.md")
    parser.add_argument("--fix", action="store_true",
                        help="apply dslint's fixes (safe and unsafe) to a temporary copy, run it again and "
                             "show each finding FIXED or still CONFIRMED, with the diff; your files are "
                             "not touched")
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


def _platform_method() -> str:
    import multiprocessing

    return (multiprocessing.get_start_method(allow_none=True)
            or multiprocessing.get_context().get_start_method())


def _methods(choice: str) -> list:
    if choice == "all":
        return list(METHODS)
    return [choice or _platform_method()]


class _Signals:
    """SIGINT, SIGTERM and SIGHUP all mean "stop": the run in progress is cancelled at
    its next check (never in the middle of a cleanup), its target killed and its files
    removed; further signals are ignored until then."""

    WATCHED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.signum = 0
        self.saved = {}

    def __enter__(self) -> "_Signals":
        for sig in self.WATCHED:
            try:
                self.saved[sig] = signal.signal(sig, self._handle)
            except (ValueError, OSError):  # not the main thread (an embedding program)
                pass
        return self

    def _handle(self, signum, _frame) -> None:
        if not self.signum:
            self.signum = signum
        self.cancel.set()

    def __exit__(self, *exc) -> None:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)


def _verify(args: argparse.Namespace, target, opts: Options) -> Report:
    result: Report = verify(target, opts)
    if args.against:
        from .fixflow import against

        result = against(target, opts, result, args.against)
    elif args.fix:
        from .fixflow import with_fixes

        result = with_fixes(target, opts, result)
    return result


def run(args: argparse.Namespace) -> int:
    try:
        _normalise(args)
        target = parse(args.target, args.args)
    except TargetError as exc:
        print(f"dslint verify: {exc}", file=sys.stderr)
        return 2
    guard.sweep_stale()
    procfs.set_child_subreaper()
    watch = guard.Guard()
    with _Signals() as signals:
        opts = Options(_methods(args.start_method), args.timeout, max(1, args.batches), not args.no_drive,
                       auto_spawn=args.start_method is None, cancel=signals.cancel, watch=watch)
        try:
            result = _verify(args, target, opts)
        except Cancelled:
            name = signal.Signals(signals.signum).name if signals.signum else "a signal"
            print(f"dslint verify: interrupted by {name}: the target's processes were killed and its "
                  "temporary files removed", file=sys.stderr)
            return 128 + (signals.signum or signal.SIGINT)
        except Exception as exc:  # noqa: BLE001 - a verifier bug is exit 2, with its cause
            print(f"dslint verify: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
            traceback.print_exc(limit=4, file=sys.stderr)
            return 2
        finally:
            watch.close()
    if args.output_format == "json":
        report.write_json(result, sys.stdout)
    else:
        report.write_text(result, sys.stdout)
    return result.exit_code()
