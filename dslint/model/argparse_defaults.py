"""``args.num_workers`` → the ``default=`` of the matching ``parser.add_argument(...)``.

A command-line value is whatever the user types, but a script run with its defaults is
the case that ships: a default of 0 makes ``args.num_workers`` zero unless overridden.
Arguments are matched to the parser that ``parse_args`` was called on (or one of its
``parents=``, or an argument group of it) by the parser's construction site.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Set

from ..analysis.summary import bound_once
from ..analysis.values import Attr, Call, Const, Element, Item, Name, Op, Part, last_name
from .objects import UNKNOWN_RESULT, Cls, Container, Ctx, Found, Inst, Lit, Results, SiteRef, Step, Top, extend, join

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


# an argument group's ``add_argument`` is read as the parser's (the group is the parser to the
# model); subparsers add namespaces of their own
OPTION_SOURCES = ("add_argument", "set_defaults", "add_subparsers")
SPLAT = "**"  # where ``_sites_setting`` files ``set_defaults(**mapping)``


def option_names(resolver: "Resolver", parser: Inst) -> Optional[Set[str]]:
    """Every attribute a parse of ``parser`` sets, when the code shows them all: each
    ``add_argument`` or ``set_defaults`` call that may be made on it (or on a parser it
    inherits) names its destinations. None when one may not be known: a call on something
    the model cannot tell apart from it, a destination
    not written out, a parent parser not followed, subparsers. Memoised per parser."""
    memo = resolver.__dict__.setdefault("_argparse_option_names", {})
    if parser in memo:
        return memo[parser]
    memo[parser] = None  # recursion guard
    memo[parser] = _option_names(resolver, parser)
    return memo[parser]


def _option_names(resolver: "Resolver", parser: Inst) -> Optional[Set[str]]:
    wanted = parser_sites(resolver, parser)
    if not wanted:
        return None
    for site in wanted:
        if any(name in ("parents", None) for name, _ in resolver.project.call(site).keywords):
            return None  # inherited options: ``parser_sites`` may not have followed them all
    names: Set[str] = set()
    for method in OPTION_SOURCES:
        for ref in resolver.project.calls_named(method):
            site = resolver.project.call(ref)
            if not isinstance(site.func, Attr):
                continue
            receivers = resolver.eval(site.func.base, Ctx(ref.module, site.scope))
            if receivers and not any(isinstance(f.obj, Top) or (isinstance(f.obj, Inst) and f.obj.site in wanted)
                                     for f in receivers):
                continue  # made on another object
            if method not in ("add_argument", "set_defaults") or not receivers \
                    or any(isinstance(f.obj, Top) for f in receivers):
                return None
            found = [destination(site)] if method == "add_argument" else [k for k, _ in site.keywords]
            if not found or any(name is None for name in found):
                return None
            names.update(found)
    return names


def argument_default(resolver: "Resolver", parser: Inst, name: str) -> Results:
    wanted = parser_sites(resolver, parser)
    if not wanted:
        return UNKNOWN_RESULT
    parts, implicit = [], []
    for method in ("add_argument", "set_defaults"):
        for ref, site in _sites_setting(resolver, method, name):
            ctx = Ctx(ref.module, site.scope)
            if not _on_parser(resolver, site, ctx, wanted):
                continue
            keyword = name if method == "set_defaults" else "default"
            written = any(key == keyword for key, _ in site.keywords)
            (parts if written else implicit).append(_default(resolver, ref, site, ctx, keyword))
    laid = []  # ``set_defaults(**asdict(cfg))``: a mapping's entry replaces the option's own default
    for ref, site in _sites_setting(resolver, "set_defaults", SPLAT):
        ctx = Ctx(ref.module, site.scope)
        if not _on_parser(resolver, site, ctx, wanted):
            continue
        for (key, value), span in zip(site.keywords, site.keyword_spans):
            given = resolver.splat_lookup(value, ctx, name) if key is None else None
            if given is not None and not all(isinstance(f.obj, Top) for f in given):  # a file read at run time: as written
                laid.append(extend(given, Step(ref.module, span, "the argparse default")))
    if laid:
        parts = laid
    # ``set_defaults(pin_mem=True)`` replaces the default an action implies (``store_true``'s
    # False) whichever comes first: argparse only keeps an action's own default when no
    # parser-level default exists for its destination
    if not parts:
        parts = implicit
    if not parts:
        parts = list(_field_options(resolver, wanted, name)) or list(_dict_options(resolver, wanted, name))
    return join(parts) if parts else UNKNOWN_RESULT


def _on_parser(resolver: "Resolver", site, ctx: Ctx, wanted: Set[SiteRef]) -> bool:
    """Whether the ``parser.<method>(...)`` call at ``site`` is made on one of the ``wanted`` parsers."""
    return any(isinstance(f.obj, Inst) and f.obj.site in wanted for f in resolver.eval(site.func.base, ctx))


def _dict_options(resolver: "Resolver", wanted: Set[SiteRef], name: str):
    """An option per entry of a dict of defaults, added in a loop over its items (``for k, v
    in DEFAULTS.items(): parser.add_argument(f"--{k}", default=v)``): ``name``'s default is
    the dict's value for that key (or for the key spelled with dashes)."""
    for ref, site, mapping in _dict_loops(resolver):
        ctx = Ctx(ref.module, site.scope)
        if not _on_parser(resolver, site, ctx, wanted):
            continue
        option = Step(ref.module, site.span, "the argparse default")
        for key in dict.fromkeys((name, name.replace("_", "-"))):
            default = resolver.eval(Item(mapping, Const(key)), ctx)
            if default and not all(isinstance(f.obj, Top) for f in default):
                yield tuple(Found(f.obj, (option,) + f.trail) for f in default)
                break


def _dict_loops(resolver: "Resolver"):
    """``add_argument`` sites (with the dict they read) whose flag is made from the key and
    whose default is the value of a ``for key, value in mapping.items()`` loop: indexed once."""
    found = getattr(resolver, "_argparse_dict_loops", None)
    if found is not None:
        return found
    found = resolver._argparse_dict_loops = []
    for ref in resolver.project.calls_named("add_argument"):
        site = resolver.project.call(ref)
        if site.loop < 0 or not isinstance(site.func, Attr) or not site.args or destination(site) is not None:
            continue
        summary = resolver.project.summary(ref.module)
        loop = summary.loops[site.loop]
        if type(loop.iter) is not Call:
            continue
        items = summary.calls[loop.iter.index]
        if type(items.func) is not Attr or items.func.name != "items" or items.args or items.keywords:
            continue
        scope = resolver.project.function(ref.module, site.scope) if site.scope else summary
        flag, default = site.args[0], dict((k, v) for k, v in site.keywords if k).get("default")
        key = _unpacked_name(_respelled(flag, summary), scope, loop.iter, 0)
        value = _unpacked_name(default, scope, loop.iter, 1)
        if key and value and type(flag) is Op and flag.op in ("fstr", "+"):
            found.append((ref, site, items.func.base))
    return found


def _respelled(flag, summary):
    """A flag made from ``key.replace("_", "-")`` as one made from ``key``: argparse turns the
    dashes of the flag back into underscores in the option's name."""
    if type(flag) is not Op:
        return flag
    args = []
    for arg in flag.args:
        if type(arg) is Call:
            site = summary.calls[arg.index]
            if type(site.func) is Attr and site.func.name == "replace" and type(site.func.base) is Name \
                    and [getattr(a, "value", None) for a in site.args] == ["_", "-"]:
                arg = site.func.base
        args.append(arg)
    return flag._replace(args=tuple(args))


def _unpacked_name(value, scope, iterable, index: int) -> bool:
    """``value`` is (or, for a flag, holds) a name bound only to part ``index`` of the loop's items."""
    names = [value] if type(value) is Name else [a for a in value.args if type(a) is Name] \
        if type(value) is Op else []
    for name in names:
        bindings = scope.bindings.get(name.id, ()) if scope is not None else ()
        if len(bindings) == 1 and bindings[0].kind == "loop" and bindings[0].value == Part(Element(iterable), index):
            return True
    return False


def _field_options(resolver: "Resolver", wanted: Set[SiteRef], name: str):
    """An option per field of a dataclass, added in a loop over its fields (``for f in
    dataclasses.fields(Config): parser.add_argument(f"--{f.name}", default=f.default)``, or
    ``"--" + f.name``): ``name``'s default is the field's default; with
    ``default=getattr(cfg, f.name)`` it is what that object holds (``cfg = Config()``: the
    field's default again)."""
    for ref, site, loop, holder in _field_loops(resolver):
        ctx = Ctx(ref.module, site.scope)
        if not _on_parser(resolver, site, ctx, wanted):
            continue
        fields_site = resolver.project.call(SiteRef(ref.module, loop.iter.index))
        for found in resolver.eval(fields_site.args[0], ctx):
            klass = resolver.project.klass(found.obj.module, found.obj.qualname) if isinstance(found.obj, Cls) else None
            field = next((f for f in klass.fields if f.name == name), None) if klass is not None else None
            if field is None or (field.default is None and holder is None):
                continue  # not a field of it, or one without a default (the command line must give it)
            option = Step(ref.module, site.span, "the argparse default")
            if holder is not None:
                default = join([resolver.attribute(f, name, ctx) for f in resolver.eval(holder, ctx)])
                yield tuple(Found(f.obj, (option,) + f.trail) for f in default)
                continue
            step = Step(found.obj.module, field.default_span or field.span, f"default of field `{name}`")
            default = resolver.eval(field.default, resolver.context(found.obj.module, found.obj.qualname))
            yield tuple(Found(f.obj, (option, step) + f.trail) for f in default)


def _field_loops(resolver: "Resolver"):
    """``add_argument`` sites (with their loop, and the object a ``getattr`` default reads)
    whose flag is made from the loop variable's ``.name`` and whose default is its
    ``.default`` or ``getattr(obj, f.name)``, in a loop over ``fields(X)``: indexed once."""
    found = getattr(resolver, "_argparse_field_loops", None)
    if found is not None:
        return found
    found = resolver._argparse_field_loops = []
    for ref in resolver.project.calls_named("add_argument"):
        site = resolver.project.call(ref)
        if site.loop < 0 or not isinstance(site.func, Attr) or not site.args or destination(site) is not None:
            continue
        loop = resolver.project.summary(ref.module).loops[site.loop]
        if loop.target is None or type(loop.iter) is not Call:
            continue
        fields_site = resolver.project.call(SiteRef(ref.module, loop.iter.index))
        if last_name(fields_site.func) != "fields" or len(fields_site.args) != 1:
            continue
        flag, default = site.args[0], dict((k, v) for k, v in site.keywords if k).get("default")
        scope = resolver.project.function(ref.module, site.scope) if site.scope else resolver.project.summary(ref.module)
        default = bound_once(default, scope)  # ``value = getattr(defaults, f.name)``, then ``default=value``
        own = Attr(Name(loop.target), "name")
        calls = resolver.project.summary(ref.module).calls
        if type(flag) is not Op or flag.op not in ("fstr", "+") or not any(
                _same(a, own) or (type(a) is Call and type(calls[a.index].func) is Attr
                                  and _same(calls[a.index].func.base, own))  # ``f.name.replace("_", "-")``
                for a in flag.args):
            continue
        if type(default) is Attr and default.name == "default" and type(default.base) is Name \
                and default.base.id == loop.target:
            found.append((ref, site, loop, None))
            continue
        holder = _getattr_holder(calls, default, own)
        if holder is not None:
            found.append((ref, site, loop, holder))
    return found


def _getattr_holder(calls, default, own):
    """``cfg`` of a ``default=getattr(cfg, f.name)``, else None."""
    if type(default) is not Call:
        return None
    call = calls[default.index]
    if type(call.func) is not Name or call.func.id != "getattr" or len(call.args) != 2 or call.keywords:
        return None
    return call.args[0] if _same(call.args[1], own) else None


def _same(value, wanted) -> bool:
    """``f.name`` whatever position the name was loaded at."""
    return (type(value) is Attr and value.name == wanted.name and type(value.base) is Name
            and value.base.id == wanted.base.id)


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
            names = [destination(site)] if method == "add_argument" else [k if k is not None else SPLAT
                                                                          for k, _ in site.keywords]
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
