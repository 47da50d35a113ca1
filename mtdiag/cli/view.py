"""``mtdiag view NAME``: the named tables of any view of :data:`mtdiag.views.REGISTRY` — every page of the
dashboard — as JSON or TSV, computed from the same declarations as the page (``mtdiag view --list`` lists them).

A view's options become flags of their own (``--system``, ``--metric``, ``--a``/``--b``, …; ``mtdiag view NAME
--help`` lists them with their help), checked against what the data offers; a flag not given takes the default the
page starts from. A table the data cannot give (one that needs human scores, say) is left out with a note on
stderr. JSON: ``{"view", "title", "options", "tables": {NAME: [records]}}``; TSV: each table after a ``# NAME``
line, tables apart by an empty line (one table with ``--table NAME``: its TSV alone). ``--top N`` keeps the first N
rows of each table.

The analysis commands — ``triage`` (the Segments view), ``buckets``, ``ngrams``, ``likeness`` (the Human view) and
``slices`` (the Slice finder) — are aliases of a view: their flags are the view's options (:func:`add_options`, with
their old flags as aliases) and their tables the view's (:func:`computed`); each keeps the output it always printed.
"""

from __future__ import annotations

import json
from typing import Mapping

from mtdiag.cli import arguments, load
from mtdiag.cli.base import CliError, note

ALIASES = {"likeness": "human"}
"""Views known by an earlier name too: ``mtdiag view likeness`` is the Human page's view."""


def _named(argv: list[str]) -> str | None:
    """The view named after ``view`` in the arguments of this run (None: none named, as with ``--list``)."""
    after = argv[argv.index("view") + 1:] if "view" in argv else []
    name = next((a for a in after if not a.startswith("-")), None)
    return ALIASES.get(name, name)


def add_options(parser, view, aliases: Mapping[str, str] | None = None, exclude: tuple[str, ...] = ()) -> None:
    """One flag per option of ``view`` (:func:`mtdiag.cli.arguments.add_view_option`) in a group of their own.

    ``aliases``: ``{option: older flag}`` — the flag a command had before it was an alias of the view, kept;
    ``exclude``: options the command takes another way (a list where the view takes one value)."""
    group = parser.add_argument_group(f"options of view {view.name} (default: as its page starts)")
    for option in view.options:
        if option.name in exclude:
            continue
        arguments.add_view_option(group, option)
        if aliases and option.name in aliases:
            arguments.add_view_option(group, option, aliases[option.name], help_text=f"the same as {option.flag}")


def add(commands) -> None:
    """Add the ``view`` command and its flags to ``commands`` (with a view named, that view's options too)."""
    view = commands.add_parser(
        "view", help="any dashboard page's tables (mtdiag view --list), as JSON or TSV",
        description="The named tables of one view of the dashboard (its page), from the view's own declaration: "
                    "the same numbers as the page, its options as flags.")
    view.add_argument("--list", action="store_true", help="list the views, their tables and options")
    from mtdiag.views import REGISTRY  # only for this command (see mtdiag.cli.base.Unfilled)

    names = [*REGISTRY, *ALIASES]
    view.add_argument("name", nargs="?", choices=names, metavar="NAME",
                      help=f"the view: {', '.join(REGISTRY)} (likeness: the human view)")
    view.add_argument("--table", metavar="TABLE", help="only this table of the view")
    view.add_argument("--top", type=int, metavar="N", help="only the first N rows of each table")
    arguments.add_input_options(view)
    arguments.add_human_option(view, "")
    arguments.add_where_option(view)
    arguments.add_format(view)
    named = REGISTRY.get(_named(commands.argv))
    if named is not None:
        add_options(view, named)
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


def evaluated(args, view, *, scoring=None, before=None, flags: tuple[str, str] = ("--ref", "--hyp")):
    """The report ``view`` is shown on: the report of ``--where``'s segments of the command's inputs.

    The inputs go through the one input path (:func:`mtdiag.cli.load.report`: ``scoring``, ``before`` and the input
    ``flags`` as it takes them); an error when the data lacks what the view needs."""
    _, report = load.report(args, scoring=scoring, before=before, flags=flags, analysed=True)
    why = view.missing(report)
    if why:
        raise CliError(f"view {view.name} {why}")
    return report


def shown(args, view, report, tables=None, *, given: Mapping | None = None, quiet: bool = False):
    """(the options chosen, the frames of ``tables``) of ``view`` on ``report``.

    The options chosen: the flags given, ``given`` over them, the page's defaults for the rest. The frames: those of
    ``tables`` (default: every table) that the data and options give. A table left out is named on stderr (not with
    ``quiet``)."""
    from mtdiag.views import missing

    chosen = view.resolve(report, {**arguments.view_options_given(args), **(given or {})})
    frames = {}
    for table in view.tables:
        if tables is not None and table.name not in tables:
            continue
        lacking = missing(report, table.needs)
        frame = None if lacking else table.make(report, chosen)
        if frame is None:
            if not quiet:
                note(f"note: table {table.name} {lacking or 'is not given: ' + table.why_empty(report, chosen)}")
        else:
            frames[table.name] = frame
    return chosen, frames


def computed(args, view, tables=None, *, given: Mapping | None = None, quiet: bool = False, **taken):
    """:func:`evaluated`, then :func:`shown`: (report, options chosen, frames)."""
    report = evaluated(args, view, **taken)
    return (report, *shown(args, view, report, tables, given=given, quiet=quiet))


def run(args) -> str:
    """The output of ``mtdiag view``: the named view's tables as JSON or TSV (with ``--list``, the views)."""
    from mtdiag.report.export import to_json_records, to_tsv
    from mtdiag.views import REGISTRY

    if args.list:
        return _list(args)
    if args.name is None:
        raise CliError(f"name a view (mtdiag view NAME): {', '.join(REGISTRY)}; or --list")
    view = REGISTRY[ALIASES.get(args.name, args.name)]
    if args.top is not None and args.top < 1:
        raise CliError(f"--top must be at least 1, got {args.top}")
    if args.table is not None and args.table not in {t.name for t in view.tables}:
        raise CliError(f"--table {args.table!r}: view {view.name} has the tables "
                       f"{', '.join(t.name for t in view.tables)}")
    _, chosen, frames = computed(args, view, None if args.table is None else [args.table])
    frames = {name: frame.head(args.top) if args.top is not None else frame for name, frame in frames.items()}
    if args.format == "json":
        return json.dumps({"view": view.name, "title": view.title, "options": chosen,
                           "tables": {name: to_json_records(frame) for name, frame in frames.items()}},
                          ensure_ascii=False)
    if args.table is not None:
        return to_tsv(frames[args.table]).rstrip("\n") if frames else ""
    return "\n\n".join(f"# {name}\n" + to_tsv(frame).rstrip("\n") for name, frame in frames.items())
