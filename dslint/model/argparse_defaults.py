"""``args.num_workers`` → the ``default=`` of the matching ``parser.add_argument(...)``.

A command-line value is whatever the user types, but a script run with its defaults is
the case that ships: a default of 0 makes ``args.num_workers`` zero unless overridden.
Arguments are matched to the parser that ``parse_args`` was called on (or one of its
``parents=``, or an argument group of it) by the parser's construction site.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Set

from ..analysis.values import Attr, Const
from .objects import UNKNOWN_RESULT, Container, Ctx, Found, Inst, Lit, Results, SiteRef, Step, join

if TYPE_CHECKING:
    from .resolver import Resolver


def destination(site) -> Optional[str]:
    """The attribute name an ``add_argument`` call stores into."""
    for name, value in site.keywords:
        if name == "dest" and isinstance(value, Const) and isinstance(value.value, str):
            return value.value
    flags = [a.value for a in site.args if isinstance(a, Const) and isinstance(a.value, str)]
    if not flags:
        return None
    long = [f for f in flags if f.startswith("--")]
    if long:
        return long[0][2:].replace("-", "_")
    if flags[0].startswith("-"):
        return flags[0].lstrip("-").replace("-", "_")
    return flags[0].replace("-", "_")


def parser_sites(resolver: "Resolver", parser: Inst, depth: int = 0) -> Set[SiteRef]:
    """The construction sites of ``parser`` and of the parsers it inherits (``parents=[...]``)."""
    sites = {parser.site} if parser.site is not None else set()
    if parser.site is None or depth > 3:
        return sites
    parents = resolver.keyword_at(parser.site, parser.ctx, "parents")
    for found in parents or ():
        if isinstance(found.obj, Container):
            for item in resolver.container_values(found.obj):
                if isinstance(item.obj, Inst):
                    sites |= parser_sites(resolver, item.obj, depth + 1)
    return sites


def argument_default(resolver: "Resolver", parser: Inst, name: str) -> Results:
    wanted = parser_sites(resolver, parser)
    if not wanted:
        return UNKNOWN_RESULT
    parts, implicit = [], []
    for method in ("add_argument", "set_defaults"):
        for ref, site in _sites_setting(resolver, method, name):
            ctx = Ctx(ref.module, site.scope)
            receivers = resolver.eval(site.func.base, ctx)
            if not any(isinstance(f.obj, Inst) and f.obj.site in wanted for f in receivers):
                continue
            keyword = name if method == "set_defaults" else "default"
            written = any(key == keyword for key, _ in site.keywords)
            (parts if written else implicit).append(_default(resolver, ref, site, ctx, keyword))
    # ``set_defaults(pin_mem=True)`` replaces the default an action implies (``store_true``'s
    # False) whichever comes first: argparse only keeps an action's own default when no
    # parser-level default exists for its destination
    if not parts:
        parts = implicit
    return join(parts) if parts else UNKNOWN_RESULT


def _sites_setting(resolver: "Resolver", method: str, name: str):
    """The ``parser.<method>(...)`` sites that set ``name`` (an ``add_argument`` storing into
    it, a ``set_defaults`` naming it), in call-table order: indexed once per run."""
    index = getattr(resolver, "_argparse_sites", None)
    if index is None:
        index = resolver._argparse_sites = {}
    table = index.get(method)
    if table is None:
        table = index[method] = {}
        for ref in resolver.project.calls_named(method):
            site = resolver.project.call(ref)
            if not isinstance(site.func, Attr):
                continue
            names = [destination(site)] if method == "add_argument" else [k for k, _ in site.keywords]
            for set_name in dict.fromkeys(names):
                table.setdefault(set_name, []).append((ref, site))
    return table.get(name, ())


def _default(resolver: "Resolver", ref: SiteRef, site, ctx: Ctx, keyword: str) -> Results:
    for (name, value), span in zip(site.keywords, site.keyword_spans):
        if name == keyword:
            return tuple(Found(f.obj, (Step(ref.module, span, "the argparse default"),) + f.trail)
                         for f in resolver.eval(value, ctx))
    action = next((v.value for k, v in site.keywords if k == "action" and isinstance(v, Const)), None)
    value = {"store_true": False, "store_false": True}.get(action) if isinstance(action, str) else None
    return (Found(Lit(value), (Step(ref.module, site.span, "argparse default (none given)"),)),)
