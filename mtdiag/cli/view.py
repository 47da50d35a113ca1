"""``mtdiag view NAME``: the named tables of any view of :data:`mtdiag.views.REGISTRY` — every page of the
dashboard — as JSON or TSV, computed from the same declarations as the page (``mtdiag view --list`` lists them).

A view's options become flags of their own (``--system``, ``--metric``, ``--a``/``--b``, …; ``mtdiag view NAME
--help`` lists them with their help), checked against what the data offers; a flag not given takes the default the
page starts from. A table the data cannot give (one that needs human scores, say) is left out with a note on
stderr. JSON: ``{"view", "title", "options", "tables": {NAME: [records]}}``; TSV: each table after a ``# NAME``
line, tables apart by an empty line (one table with ``--table NAME``: its TSV alone).
"""

from __future__ import annotations

import argparse
import json

from mtdiag.cli import arguments, inputs
from mtdiag.cli.base import CliError, note


def _named(argv: list[str]) -> str | None:
    """The view named after ``view`` in the arguments of this run (None: none named, as with ``--list``)."""
    after = argv[argv.index("view") + 1:] if "view" in argv else []
    return next((a for a in after if not a.startswith("-")), None)


def add(commands) -> None:
    view = commands.add_parser(
        "view", help="any dashboard page's tables (mtdiag view --list), as JSON or TSV",
        description="The named tables of one view of the dashboard (its page), from the view's own declaration: "
                    "the same numbers as the page, its options as flags.")
    view.add_argument("--list", action="store_true", help="list the views, their tables and options")
    from mtdiag.views import REGISTRY  # only for this command (see mtdiag.cli.base.Unfilled)

    view.add_argument("name", nargs="?", choices=list(REGISTRY), metavar="NAME",
                      help=f"the view: {', '.join(REGISTRY)}")
    view.add_argument("--table", metavar="TABLE", help="only this table of the view")
    arguments.add_input_options(view)
    arguments.add_human_option(view, "")
    arguments.add_where_option(view)
    arguments.add_format(view)
    named = REGISTRY.get(_named(commands.argv))
    if named is not None:
        group = view.add_argument_group(f"options of view {named.name} (default: as its page starts)")
        for option in named.options:
            _add_option(group, option)
    view.set_defaults(handler=run)


def _option_type(option):
    """An argparse ``type`` that parses with the option's declaration (argparse names the flag)."""

    def parse(text: str):
        try:
            return option.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option.type.__name__
    return parse


def _add_option(group, option) -> None:
    """One flag for one option a view declares: ``--NAME VALUE`` (comma-separated for several), booleans as
    ``--NAME``/``--no-NAME``."""
    dest = f"view_option:{option.name}"
    fixed = option.offered(None, {}) if option.choices is not None and not callable(option.choices) else None
    text = option.help or option.label
    if fixed is not None:
        text += f"; one of {', '.join(map(str, fixed))}"
    text = text.replace("%", "%%")
    if option.type is bool and not option.many:
        group.add_argument(option.flag, dest=dest, action=argparse.BooleanOptionalAction, default=None, help=text)
    else:
        group.add_argument(option.flag, dest=dest, type=_option_type(option), default=None,
                           metavar="LIST" if option.many else option.name.upper(), help=text)


def _given(args) -> dict:
    """``{option: value}`` of the view's flags the user gave."""
    return {dest.split(":", 1)[1]: value for dest, value in vars(args).items()
            if dest.startswith("view_option:") and value is not None}


def _list(args) -> str:
    from mtdiag.views import REGISTRY

    if args.format == "json":
        return json.dumps([{"name": v.name, "title": v.title, "help": v.help, "needs": list(v.needs),
                            "options": [o.name for o in v.options], "tables": [t.name for t in v.tables]}
                           for v in REGISTRY.values()], ensure_ascii=False)
    lines = ["name\ttitle\ttables\toptions\thelp"]
    lines += [f"{v.name}\t{v.title}\t{','.join(t.name for t in v.tables)}\t{','.join(o.name for o in v.options)}\t"
              f"{v.help}" for v in REGISTRY.values()]
    return "\n".join(lines)


def run(args) -> str:
    from mtdiag.export import to_json_records, to_tsv
    from mtdiag.views import REGISTRY, missing

    if args.list:
        return _list(args)
    if args.name is None:
        raise CliError(f"name a view (mtdiag view NAME): {', '.join(REGISTRY)}; or --list")
    view = REGISTRY[args.name]
    if args.table is not None and args.table not in {t.name for t in view.tables}:
        raise CliError(f"--table {args.table!r}: view {view.name} has the tables "
                       f"{', '.join(t.name for t in view.tables)}")
    scoring = inputs.options(args)
    evalset = inputs.load(args)
    inputs.check_where(args, evalset, scoring)
    inputs.print_warnings(evalset)
    evalset = inputs.with_human(args, evalset)
    report = inputs.sliced(args, inputs.evaluate(args, evalset, scoring))
    why = view.missing(report)
    if why:
        raise CliError(f"view {view.name} {why}")
    chosen = view.resolve(report, _given(args))
    tables = [t for t in view.tables if args.table in (None, t.name)]
    frames = {}
    for table in tables:
        lacking = missing(report, table.needs)
        frame = None if lacking else table.build(report, chosen)
        if frame is None:
            note(f"note: table {table.name} {lacking or 'is not given with these options'}")
        else:
            frames[table.name] = frame
    if args.format == "json":
        return json.dumps({"view": view.name, "title": view.title, "options": chosen,
                           "tables": {name: to_json_records(frame) for name, frame in frames.items()}},
                          ensure_ascii=False)
    if args.table is not None:
        return to_tsv(frames[args.table]).rstrip("\n") if frames else ""
    return "\n\n".join(f"# {name}\n" + to_tsv(frame).rstrip("\n") for name, frame in frames.items())
