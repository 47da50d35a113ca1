"""``mtdiag view NAME``: the named tables of any view of :data:`mtdiag.views.REGISTRY` — every page of the
dashboard — as JSON or TSV, computed from the same declarations as the page (``mtdiag view --list`` lists them).

A view's options become flags of their own (``--system``, ``--metric``, ``--a``/``--b``, …; ``mtdiag view NAME
--help`` lists them with their help), checked against what the data offers; a flag not given takes the default the
page starts from. A table the data cannot give (one that needs human scores, say) is left out with a note on
stderr. JSON: ``{"view", "title", "options", "tables": {NAME: [records]}}``; TSV: each table after a ``# NAME``
line, tables apart by an empty line (one table with ``--table NAME``: its TSV alone).
"""

from __future__ import annotations

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
            arguments.add_view_option(group, option)
    view.set_defaults(handler=run)


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
    chosen = view.resolve(report, arguments.view_options_given(args))
    tables = [t for t in view.tables if args.table in (None, t.name)]
    frames = {}
    for table in tables:
        lacking = missing(report, table.needs)
        frame = None if lacking else table.make(report, chosen)
        if frame is None:
            note(f"note: table {table.name} {lacking or 'is not given: ' + table.why_empty(report, chosen)}")
        else:
            frames[table.name] = frame
    if args.format == "json":
        return json.dumps({"view": view.name, "title": view.title, "options": chosen,
                           "tables": {name: to_json_records(frame) for name, frame in frames.items()}},
                          ensure_ascii=False)
    if args.table is not None:
        return to_tsv(frames[args.table]).rstrip("\n") if frames else ""
    return "\n\n".join(f"# {name}\n" + to_tsv(frame).rstrip("\n") for name, frame in frames.items())
