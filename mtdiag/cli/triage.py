"""``mtdiag triage``: the worst-first queue — every (system, segment) pair by problem score, with the checks that
fired (``docs/triage.md``); with human scores, the queue's lift over them."""

from __future__ import annotations

from mtdiag.cli import arguments, inputs
from mtdiag.cli.base import CliError, note


def add(commands) -> None:
    triage = commands.add_parser(
        "triage", help="the worst-first queue: every (system, segment) pair by problem score, with its flags",
        description="Every (system, segment) pair worst first (docs/triage.md): system, seg_id (1-based), problem "
                    "(0-1, higher = worse), flags (comma-joined checks that fired), then every segment score.")
    arguments.add_input_options(triage)
    arguments.add_human_option(triage, ": add a 'human' column and print the queue's lift at 10 %% over them on "
                                       "stderr (with --annotations alone: over the scores the annotations give)")
    triage.add_argument("--top", type=int, metavar="N", help="only the N worst pairs")
    triage.add_argument("--sources", action="store_true", help="the queue as sources: seg_id, difficulty (mean "
                        "problem over systems), spread (max - min), worst_system, worst_problem; hardest first")
    triage.add_argument("--strict", action="store_true", help="pairs in strict problem order throughout (default: "
                        "the first 50 rows show one pair per source, each its worst)")
    arguments.add_where_option(triage)
    triage.add_argument("--with-text", action="store_true", help="add the texts after the scores: src, one "
                        "ref:NAME per reference and hyp (the output; not with --sources), whole; in TSV a backslash, "
                        "tab, newline or carriage return in a text is written \\\\, \\t, \\n, \\r")
    arguments.add_format(triage, ("tsv", "json"), default="tsv")
    triage.set_defaults(handler=run)


def run(args) -> str:
    from mtdiag import triage
    from mtdiag.export import to_json, to_tsv
    from mtdiag.views import segments

    if args.top is not None and args.top < 1:
        raise CliError(f"--top must be at least 1, got {args.top}")
    scoring = inputs.options(args)
    evalset = inputs.load(args)
    inputs.check_where(args, evalset, scoring)
    inputs.print_warnings(evalset)
    evalset = inputs.with_human(args, evalset)
    report = inputs.sliced(args, inputs.evaluate(args, evalset, scoring))
    if args.sources:
        table = triage.source_difficulty(report)
    else:
        note(triage.signals(report))
        queue = triage.worst_first(report, strict=args.strict)
        table = queue[["system", "seg_id", "problem", "flags", *report.metrics]]
        if args.human or args.annotations:  # the given scores, else those the annotations gave the set
            table = _with_human_column(report, table)
    if args.top is not None:
        table = table.head(args.top)
    if args.with_text:
        table = segments.with_texts(report, table)
    table = table.assign(seg_id=report.evalset.seg_ids[table["seg_id"].to_numpy() - 1])  # a slice: original ids
    return to_json(table) if args.format == "json" else to_tsv(table).rstrip("\n")


def _with_human_column(report, queue):
    """The queue with a ``human`` column from the report's human scores (blank where not rated, all blank without
    scores); the queue's lift at 10 % on stderr."""
    from mtdiag import triage

    human = report.evalset.human
    if human is None or human.empty:
        return queue.assign(human=float("nan"))
    scores = human.assign(seg_id=human["seg"] + 1).set_index(["system", "seg_id"])["score"]
    queue = queue.assign(human=scores.reindex(list(zip(queue["system"], queue["seg_id"]))).to_numpy())
    rated = queue["human"].notna().to_numpy()
    if rated.sum() >= 10:
        value = triage.lift(-queue.index.to_numpy()[rated].astype(float), -queue["human"].to_numpy()[rated])
        note(f"lift at 10 % of this queue over {int(rated.sum())} human-rated pairs: {value:.2f} (random = 1)")
    return queue
