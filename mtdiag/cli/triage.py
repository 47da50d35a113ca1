"""``mtdiag triage``: the worst-first queue — every (system, segment) pair by problem score, with the checks that
fired (``docs/triage.md``); with human scores, the queue's lift over them. An alias of ``mtdiag view segments``
(:mod:`mtdiag.cli.view`): the view's options are its flags (``--systems``, ``--flags``, ``--doc``, ``--search``,
``--mt-order``, ``--strict``, …), its rows the view's ``export`` table (``sources`` with ``--sources``); it prints
the columns it always printed."""

from __future__ import annotations

from mtdiag.cli import arguments, view
from mtdiag.cli.base import CliError, note

SOURCES = ["seg_id", "difficulty", "spread", "worst_system", "worst_problem"]


def add(commands) -> None:
    """Add the ``triage`` command and its flags (the options of view ``segments`` among them) to ``commands``."""
    triage = commands.add_parser(
        "triage", help="the worst-first queue: every (system, segment) pair by problem score, with its flags",
        description="Every (system, segment) pair worst first (docs/triage.md): system, seg_id (1-based, the set's "
                    "also with --where), problem (0-1, higher = worse), flags (comma-joined checks that fired), then "
                    "every segment score and, when human scores are loaded (--human, or the folder's mqm.seg.tsv), "
                    "human. An alias of mtdiag view segments: its options are the flags below.")
    arguments.add_input_options(triage)
    arguments.add_human_option(triage, ": besides the folder's own; the 'human' column and the queue's lift at "
                                       "10 %% over them on stderr")
    triage.add_argument("--top", type=int, metavar="N", help="only the N worst pairs")
    triage.add_argument("--sources", action="store_true", help="the queue as sources: seg_id, difficulty (mean "
                        "problem over systems), spread (max - min), worst_system, worst_problem; hardest first "
                        "(the view's sources table)")
    arguments.add_where_option(triage)
    triage.add_argument("--with-text", action="store_true", help="add the texts after the scores: src, one "
                        "ref:NAME per reference and hyp (the output; not with --sources), whole; in TSV a backslash, "
                        "tab, newline or carriage return in a text is written \\\\, \\t, \\n, \\r")
    arguments.add_format(triage, ("tsv", "json"), default="tsv")
    from mtdiag.views import REGISTRY  # only for this command (see mtdiag.cli.base.Unfilled)

    view.add_options(triage, REGISTRY["segments"])
    triage.set_defaults(handler=run)


def run(args) -> str:
    """The output of ``mtdiag triage``: the worst-first queue (its sources with ``--sources``), as TSV or JSON."""
    from mtdiag.report.export import to_json, to_tsv
    from mtdiag.views import REGISTRY

    if args.top is not None and args.top < 1:
        raise CliError(f"--top must be at least 1, got {args.top}")
    segments = REGISTRY["segments"]
    name = "sources" if args.sources else "export"
    report, _, frames = view.computed(args, segments, [name], quiet=True)
    table = frames[name]
    texts = [c for c in table.columns if c == "src" or c.startswith("ref:")] if args.with_text else []
    if args.sources:
        table = table[SOURCES + texts]
    else:
        note(segments.details["signals"](report))
        scores = [m for m in report.metrics if m in table.columns]
        human = ["human"] if "human" in table.columns else []
        if human:
            _note_lift(table)
        table = table[["system", "seg_id", "problem", "flags", *scores, *human, *texts,
                       *(["hyp"] if args.with_text else [])]]
    if args.top is not None:
        table = table.head(args.top)
    return to_json(table) if args.format == "json" else to_tsv(table).rstrip("\n")


def _note_lift(queue) -> None:
    """The queue's lift at 10 % over its human-rated pairs, on stderr (with ten or more rated)."""
    from mtdiag.triage import ranking

    rated = queue["human"].notna().to_numpy()
    if rated.sum() >= 10:
        order = queue.reset_index(drop=True).index.to_numpy()
        value = ranking.lift(-order[rated].astype(float), -queue["human"].to_numpy()[rated])
        note(f"lift at 10 % of this queue over {int(rated.sum())} human-rated pairs: {value:.2f} (random = 1)")
