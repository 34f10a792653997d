"""Command line: ``dslint [check] PATHS``, ``dslint rule CODE``, ``dslint rules``, ``dslint verify``.

Exit codes follow ruff: 0 nothing found, 1 findings, 2 usage, configuration or internal
error. User errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from typing import Callable, List, Optional, Sequence

from . import __version__, catalogue, rule_pages, sourcefile
from .config import ConfigError, Hierarchy, Settings, check_selector, load
from .reporters import FORMATS

VERBS = ("check", "rule", "rules", "verify")
EPILOG = """\
examples:
  dslint src/                          check a tree (check is the default verb)
  dslint check train.py --select DSL1  only the DSL1xx rules
  dslint check src/ --fix              apply safe fixes (--unsafe-fixes for the rest)
  dslint check src/ --diff             show what --fix would change, write nothing
  dslint - --stdin-filename x.py       lint stdin (with --fix: the fixed source on stdout)
  dslint rule DSL102                   explain a rule
  dslint rules                         list every rule
  dslint verify train.py -- --epochs 1 run the script's loaders and prove the findings

exit codes: 0 no findings, 1 findings, 2 usage/configuration/internal error
configuration: each file uses its nearest dslint.toml, or pyproject.toml with a
[tool.dslint] table (select, ignore, per-file-ignores, exclude, extend-exclude, ...);
the project root's also sets fix, unsafe-fixes, cache and jobs. --isolated ignores them.
"""


def _codes(value: str) -> List[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {value!r}")
    return number


def build_parser(verify_arguments: bool = True) -> argparse.ArgumentParser:
    """The command line; ``verify_arguments`` False leaves out the verifier's options (its
    modules take a sixth of a small run's start-up to import, and only ``verify`` needs them)."""
    parser = argparse.ArgumentParser(
        prog="dslint",
        description="Find, fix and prove PyTorch data-loading hazards (hangs, pickling "
        "errors, duplicated samples, slow loaders).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dslint {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="{check,rule,rules,verify}")

    check = verbs.add_parser("check", help="lint files and folders (default)", epilog=EPILOG,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .)")
    check.add_argument("--select", type=_codes, help="rule codes or prefixes to enable (ALL: every rule)")
    check.add_argument("--extend-select", type=_codes, default=[], help="add to the selection")
    check.add_argument("--ignore", type=_codes, default=[], help="rule codes or prefixes to disable")
    check.add_argument("--exclude", type=_codes, help="glob patterns to exclude (replaces config)")
    check.add_argument("--extend-exclude", type=_codes, default=[], help="more glob patterns to exclude")
    check.add_argument("--force-exclude", action="store_true", help="apply excludes to files named explicitly")
    check.add_argument("--no-respect-gitignore", action="store_true", help="lint files .gitignore ignores")
    check.add_argument("--fix", action="store_true", default=None, help="apply safe fixes")
    check.add_argument("--no-fix", dest="fix", action="store_false", help="do not fix (overrides config)")
    check.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply unsafe fixes")
    check.add_argument("--diff", action="store_true", help="print the fixes as a diff, write nothing")
    check.add_argument("--show-fixes", action="store_true", help="list the fixes applied")
    check.add_argument("--output-format", choices=FORMATS + ("text",), default=None, help="output format")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when problems are found")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    check.add_argument("--cache-dir", default=None, metavar="DIR",
                       help="cache folder (default: $DSLINT_CACHE_DIR, else .dslint_cache at the project root)")
    check.add_argument("--jobs", "-j", type=_positive, default=None,
                       help="parallel processes (default and most: the cores)")
    check.add_argument("--config", help="configuration file for every file (pyproject.toml or dslint.toml)")
    check.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    check.add_argument("--stdin-filename", metavar="PATH",
                       help="read the source from stdin, linted as PATH (`-` as PATH also reads stdin)")
    check.add_argument("--show-settings", action="store_true", help="print the settings of the first file and exit")
    check.add_argument("--show-files", action="store_true", help="print the files that would be linted and exit")

    rule = verbs.add_parser("rule", help="explain one rule")
    rule.add_argument("code", metavar="CODE")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    rules = verbs.add_parser("rules", help="table of all rules")
    rules.add_argument("--output-format", choices=("text", "json"), default="text")

    verify = verbs.add_parser("verify", help="run a script's loaders and prove the findings")
    if not verify_arguments:
        verify.add_argument("rest", nargs=argparse.REMAINDER)
        return parser
    try:
        from .verify.command import add_arguments

        add_arguments(verify)
    except ImportError:
        verify.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def _normalise(argv: Sequence[str], parser: argparse.ArgumentParser) -> List[str]:
    """``check`` is the default verb; a word that is neither a verb nor a path is a typo."""
    argv = list(argv)
    if argv and argv[0] in VERBS or argv and argv[0] in ("-h", "--help", "--version"):
        return argv
    if argv and _looks_like_command(argv[0]):
        near = difflib.get_close_matches(argv[0], VERBS, n=1)
        hint = f"; did you mean `dslint {near[0]}`?" if near else f" (commands: {', '.join(VERBS)})"
        parser.error(f"`{argv[0]}` is neither a command nor an existing path{hint}")
    return ["check", *argv]


def _looks_like_command(word: str) -> bool:
    """A bare word (no folder, no suffix) that names nothing on disk."""
    return (bool(word) and not word.startswith("-") and os.sep not in word and "/" not in word
            and "." not in word and not os.path.lexists(word))


def overrides(args: argparse.Namespace) -> Callable[[Settings], None]:
    """The command line's settings, applied on top of every configuration file's."""

    def apply(settings: Settings) -> None:
        if args.select is not None:
            settings.select = list(args.select)
        settings.extend_select = [*settings.extend_select, *args.extend_select]
        settings.ignore = [*settings.ignore, *args.ignore]
        if args.exclude is not None:
            settings.exclude = list(args.exclude)
        settings.extend_exclude = [*settings.extend_exclude, *args.extend_exclude]
        settings.force_exclude |= args.force_exclude
        if args.no_respect_gitignore:
            settings.respect_gitignore = False
        if args.fix is not None:
            settings.fix = args.fix
        if args.unsafe_fixes is not None:
            settings.unsafe_fixes = args.unsafe_fixes
        if args.no_cache:
            settings.cache = False
        if args.jobs is not None:
            settings.jobs = args.jobs
        settings.cache_dir = args.cache_dir or os.environ.get("DSLINT_CACHE_DIR") or None

    return apply


def settings_for(args: argparse.Namespace, start: str) -> Settings:
    """The project root's settings; each file gets its nearest configuration's (``for_file``)
    unless ``--config`` or ``--isolated`` names one set of settings for all."""
    settings = load(start, args.config, isolated=args.isolated)
    apply = overrides(args)
    apply(settings)
    for selector in (args.select or []) + args.extend_select + args.ignore:
        check_selector(selector, "--select/--extend-select/--ignore: ")
    settings.enabled_codes()  # validates the file's selectors early: exit 2 on a typo
    if not args.config and not args.isolated:
        settings.hierarchy = Hierarchy(settings, apply)
    return settings


def _warn(message: str) -> None:
    print(f"dslint: warning: {message}", file=sys.stderr)


def _read_stdin(args: argparse.Namespace) -> Optional[str]:
    """The path stdin is linted as (``dslint -``, or ``--stdin-filename`` with no path)."""
    if "-" not in args.paths and not (args.stdin_filename and not args.paths):
        return None
    if args.paths not in ([], ["-"]):
        raise ConfigError("`-` (stdin) cannot be linted together with other paths")
    name = args.stdin_filename or "-"
    sourcefile.provide_virtual(name, sys.stdin.buffer.read())
    return name


FORMATS_WITH_EDITS = ("json", "json-lines", "sarif")  # the formats that print each fix's edits


def run_check(args: argparse.Namespace) -> int:
    import gc

    from . import engine

    gc.disable()  # a one-shot process: see engine.run (nothing it builds needs the cycle collector)
    from .reporters import get

    stdin = _read_stdin(args)
    paths = [stdin] if stdin else (args.paths or ["."])
    settings = settings_for(args, stdin if stdin and stdin != "-" else paths[0])
    if stdin:
        settings.cache = False
    if args.show_settings or args.show_files:
        return show(args, settings, paths)
    fixing = settings.fix or args.diff
    fmt = args.output_format or "full"
    human = fmt in ("full", "concise", "text")
    if fixing:
        from .fixes import apply as fix_apply  # LibCST: imported only when fixes are planned

        out = sys.stderr if stdin or not human else sys.stdout
        result, fixed = fix_apply.run(paths, settings, diff=args.diff, show_fixes=args.show_fixes, out=out)
        planned = True
    else:
        from .progress import ProgressBar

        with ProgressBar() as progress:  # on stderr, for a terminal and many files only
            result = engine.run(paths, settings, progress=progress, cells=False)
        if fmt in FORMATS_WITH_EDITS:  # planning fixes parses with LibCST: only when edits are printed
            from .fixes import apply as fix_apply

            result = fix_apply.attach(result)
        result.findings, fixed = engine.notebook_findings(result.findings, result.sources), 0  # rows in cells
        planned = fmt in FORMATS_WITH_EDITS
    for warning in result.warnings:
        _warn(warning)
    if result.files == 0 and not result.findings:
        _warn("No Python files found")
    if args.diff:
        if not args.quiet:
            sys.stdout.flush()  # the diff first, where both streams go to one place
            noun = "error" if fixed == 1 else "errors"
            print(f"Would fix {fixed} {noun}." if fixed else "No errors would be fixed.", file=sys.stderr)
        if args.exit_zero:
            return 0
        return 1 if fixed else 0
    report_to = sys.stdout
    if stdin and settings.fix:  # the fixed source goes to stdout, as ruff does; findings to stderr
        sys.stdout.flush()
        sys.stdout.buffer.write(sourcefile.virtual_bytes(stdin))
        sys.stdout.buffer.flush()
        report_to = sys.stderr
    reporter = get(fmt)
    reporter(result.findings, report_to, sources=result.sources, statistics=args.statistics,
             quiet=args.quiet, fixed=fixed, planned=planned)
    if args.exit_zero:
        return 0
    return 1 if result.findings else 0


def show(args: argparse.Namespace, settings: Settings, paths: Sequence[str]) -> int:
    """``--show-files`` / ``--show-settings``: what a run would lint, and with what."""
    from .discovery import Discovery

    discovery = Discovery(settings.root, settings.excludes, settings.respect_gitignore, settings.force_exclude,
                          settings_for=settings.for_folder)
    files = discovery.files(paths)
    for warning in discovery.warnings:
        _warn(warning)
    if args.show_files:
        for path in files:
            print(os.path.abspath(path))
        if not files:
            _warn("No Python files found")
        return 0
    target = files[0] if files else paths[0]
    local = settings.for_file(target)
    print(f"Resolved settings for: {os.path.abspath(target)}")
    print(f"Settings path: {os.path.abspath(local.config_path) if local.config_path else '(none: defaults)'}")
    print(f"project root = {settings.root}")
    print(f"cache = {json.dumps(settings.cache)}  # {settings.cache_folder}")
    for key in ("select", "extend_select", "ignore", "per_file_ignores", "exclude", "extend_exclude"):
        print(f"{key.replace('_', '-')} = {json.dumps(getattr(local, key))}")
    for key in ("respect_gitignore", "force_exclude", "fix", "unsafe_fixes", "jobs",
                "handle_constructors", "trainer_entry_points", "loader_classes", "loader_factories"):
        print(f"{key.replace('_', '-')} = {json.dumps(getattr(settings, key))}")
    print(f"enabled rules = {json.dumps(local.enabled_codes())}")
    return 0


def run_rule(args: argparse.Namespace) -> int:
    code = args.code.upper()
    rule = catalogue.RULES.get(code)
    if rule is None:
        print(f"dslint: error: unknown rule `{args.code}` (see `dslint rules`)", file=sys.stderr)
        return 2
    text = rule_pages.page(code) or f"# {code}: {rule.name}\n\n{rule.summary}\n"
    if args.output_format == "json":
        print(json.dumps({**_rule_dict(rule), "explanation": text}, indent=2))
        return 0
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text))
    return 0


def _rule_dict(rule: catalogue.Rule) -> dict:
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "default": rule.default,
        "fix": rule.fix,
        "severity": rule.severity,
        "url": rule.url,
    }


def run_rules(args: argparse.Namespace) -> int:
    rules = [catalogue.RULES[c] for c in sorted(catalogue.RULES)]
    if args.output_format == "json":
        print(json.dumps([_rule_dict(r) for r in rules], indent=2))
        return 0
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title="dslint rules", box=box.SIMPLE_HEAD)
    for column in ("code", "name", "default", "fix"):
        table.add_column(column, no_wrap=True)
    table.add_column("summary", ratio=1)
    for rule in rules:
        table.add_row(rule.code, rule.name, "on" if rule.default else "off", rule.fix or "-", rule.summary)
    Console(width=None if sys.stdout.isatty() else 120).print(table)  # a pipe gets whole lines
    return 0


def run_verify(args: argparse.Namespace) -> int:
    try:
        from .verify.command import run
    except ImportError as exc:
        print(f"dslint: error: the verifier is not available: {exc}", file=sys.stderr)
        return 2
    return run(args)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(verify_arguments=not argv or argv[0] == "verify")
    argv = _normalise(argv, parser)
    args = parser.parse_args(argv)
    handlers = {"check": run_check, "rule": run_rule, "rules": run_rules, "verify": run_verify}
    try:
        return handlers[args.verb](args)
    except ConfigError as exc:
        print(f"dslint: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dslint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # an internal error must never look like a crash of the user's code
        if os.environ.get("DSLINT_DEBUG"):
            raise
        print(f"dslint: internal error: {type(exc).__name__}: {exc} (set DSLINT_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 2


def entry() -> None:
    """The ``dslint`` command: ``main``, then exit without tearing the interpreter down.

    A run leaves millions of small objects (summaries, the model's memo) that the
    interpreter would free one by one on exit: measured, a seventh of a cold run over a
    training repository. Everything the run writes is written and flushed by then. Only
    ``check`` and the rule pages exit early; ``verify`` supervises child processes and
    keeps Python's normal shutdown."""
    code = main()
    argv = sys.argv[1:]
    if argv[:1] == ["verify"]:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    entry()
